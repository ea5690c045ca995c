"""The fixture corpus: where the fixtures are and what their `# expect:` comments say.

A fixture is a small TF1 program under `tests/fixtures/rules/`, `tests/fixtures/patterns/` or `tests/fixtures/devices/`.
`# expect: TFS101` (or `# expect: TFS101, TFS301`) on a line means scopelint must report that code
on that line; a fixture without any `# expect:` comment must produce no finding at all.
"""
from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass
from pathlib import Path

FIXTURES_DIR = Path(__file__).resolve().parent / "fixtures"
FIXTURE_GROUPS = ("rules", "patterns", "devices")

# Codes for which TensorFlow itself raises at graph-build time, and how to recognise its message.
RAISING_CODES = ("TFS101", "TFS102", "TFS103", "TFS107", "TFS402", "TFS407")

_EXPECT_COMMENT = re.compile(r"#\s*expect:\s*(?P<codes>TFS\d{3}(?:\s*,\s*TFS\d{3})*)\s*(?:#.*)?$")
_SESSION_MARKER = re.compile(r"#\s*oracle:\s*session\b")


@dataclass(frozen=True)
class Expectation:
    code: str
    line: int


def fixture_paths() -> list[Path]:
    """Every fixture; files named `_*.py` are modules that fixtures import, not fixtures."""
    return sorted(
        path for group in FIXTURE_GROUPS for path in (FIXTURES_DIR / group).glob("*.py")
        if not path.name.startswith("_")
    )


def fixture_id(path: Path) -> str:
    return f"{path.parent.name}/{path.stem}"


def _comments(source: str) -> list[tuple[int, str]]:
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    return [(token.start[0], token.string) for token in tokens if token.type == tokenize.COMMENT]


def expectations(path: Path) -> list[Expectation]:
    """The `# expect:` annotations of a fixture, in line order."""
    found = []
    for line, comment in _comments(path.read_text()):
        if "expect" not in comment:
            continue
        match = _EXPECT_COMMENT.search(comment)
        if match is None:
            raise ValueError(f"{path}:{line}: malformed expectation comment {comment!r}")
        for code in re.split(r"\s*,\s*", match.group("codes")):
            found.append(Expectation(code=code, line=line))
    return found


def allows_session(path: Path) -> bool:
    return any(_SESSION_MARKER.search(comment) for _, comment in _comments(path.read_text()))


def raising_family(code: str, error_type: str, message: str) -> bool:
    """Whether TensorFlow's exception is the kind of error the raising code stands for."""
    if code == "TFS101":
        return error_type == "ValueError" and "already exists" in message
    if code == "TFS102":
        return error_type == "ValueError" and "does not exist" in message
    if code == "TFS103":
        return error_type == "ValueError" and (
            message.startswith("Trying to share variable")
            or message.startswith("Trying to reuse partitioned variable")
            or "but a partitioned version of the variable was found" in message
            or "but an unpartitioned version of the variable was found" in message
        )
    if code == "TFS107":
        return error_type in ("TypeError", "ValueError") and not any(
            raising_family(other, error_type, message) for other in ("TFS101", "TFS102", "TFS103")
        )
    if code == "TFS402":
        return error_type == "TypeError" and message.startswith("replica_device_setter()")
    if code == "TFS407":
        return error_type == "RuntimeError" and "tf.device does not support functions" in message
    raise ValueError(f"{code} is not a raising code")


_QUOTED_KEY = re.compile(
    r"^(?:Partitioned )?[Vv]ariable (?:with name )?(?P<a>\S+) (?:already exists|does not exist)"
    r"|^PartitionedVariable (?P<b>\S+) does not exist"
    r"|^Trying to (?:share|reuse partitioned) variable (?P<c>[^,\s]+),"
    r"|^Variable (?P<d>\S+) did not get an initializer"
    r"|partitioned version of the variable was found: (?P<e>\S+?)\.\s"
)


def quoted_store_key(message: str) -> str | None:
    """The store key TensorFlow names in its error message, if it names one."""
    match = _QUOTED_KEY.search(message)
    if match is None:
        return None
    return next(group for group in match.groups() if group is not None)

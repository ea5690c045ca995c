"""Project modules whose import leaves no state a file can change are shared by the files checked
in one process (interpreter._PURE_MODULES): the modelled standard modules (`math`, `re`, `six`,
`collections`, `os`) and what they make (a compiled pattern, a namedtuple class) count as
immutable, as functions do; a dict or list at module level does not."""
from __future__ import annotations

from pathlib import Path

import pytest

from scopelint.analysis import analyze_source, interpreter

HELPERS = '''
import collections
import math
import os
import re
import six
import tensorflow.compat.v1 as tf

PATTERN = re.compile("[a-z]+")
MATCH = PATTERN.match
Point = collections.namedtuple("Point", "x y")
ROOT = os.path.join("a", "b")

def build(size):
    with tf.variable_scope("helper"):
        return tf.get_variable("w", [int(math.sqrt(size))])
'''
MAIN = "import tensorflow.compat.v1 as tf\nfrom helpers import build\nbuild(16)\nbuild(16)\n"


def _shared() -> list[str]:
    return sorted(Path(path).name for path, _ in interpreter._PURE_MODULES)


def _duplicates(trace: object) -> list[tuple[str, int]]:
    return [(Path(e.site.path).name, e.site.line) for e in trace.events  # type: ignore[attr-defined]
            if e.kind == "already_exists" and e.certain]


@pytest.mark.parametrize("extra, shared", [
    ("", True),
    ("Default = collections.namedtuple('Default', 'a', defaults=((1, 2),))\n", True),
    ("Mutable = collections.namedtuple('Mutable', 'a', defaults=([],))\n", False),
    ("CACHE = {}\n", False),
])
def test_a_module_of_modelled_standard_objects_is_shared(extra: str, shared: bool, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(interpreter, "_PURE_MODULES", {})
    (tmp_path / "helpers.py").write_text(HELPERS + extra)
    first = analyze_source(MAIN, str(tmp_path / "main.py"))
    assert _shared() == (["helpers.py"] if shared else [])
    assert _duplicates(first) == [("helpers.py", 16)]
    # The next file gets the module from the process and finds the same
    second = analyze_source(MAIN, str(tmp_path / "other.py"))
    assert _duplicates(second) == [("helpers.py", 16)]
    assert [v.name for v in second.variables] == [v.name for v in first.variables] == ["helper/w"]


def test_a_module_that_imports_an_unshared_one_loaded_earlier_is_not_shared(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`mid` imports `logsetup`, which reads $COMPLIANCE_FILE (so it is run by every file).  A file
    that imported logsetup before mid used to share mid as pure: the next file importing mid
    alone then skipped logsetup and lost its "$COMPLIANCE_FILE is set" run (seen on tensor2tensor,
    where mlperf_log plays logsetup)."""
    from scopelint.analysis import paths

    monkeypatch.setattr(interpreter, "_PURE_MODULES", {})
    (tmp_path / "logsetup.py").write_text("import os\nLOG = os.environ.get('COMPLIANCE_FILE')\nif LOG:\n    X = 1\n")
    (tmp_path / "mid.py").write_text("import logsetup\n\ndef build():\n    return 1\n")
    later = "import tensorflow.compat.v1 as tf\nimport mid\ntf.get_variable('w', [mid.build()])\n"

    def labels(trace: object) -> list[str]:
        return [run.condition.label for run in [trace, *trace.other_paths]]  # type: ignore[attr-defined]

    alone = labels(paths.analyze(later, str(tmp_path / "b.py")))
    assert alone == ["with the default flags", "when $COMPLIANCE_FILE is set"]
    monkeypatch.setattr(interpreter, "_PURE_MODULES", {})
    paths.analyze("import tensorflow.compat.v1 as tf\nimport logsetup\nimport mid\n", str(tmp_path / "a.py"))
    assert labels(paths.analyze(later, str(tmp_path / "b.py"))) == alone

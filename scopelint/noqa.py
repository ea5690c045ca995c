"""Suppression comments, flake8 style.

- `# noqa` on a finding's line suppresses every finding on it; `# noqa: TFS101, unintended-sharing`
  (codes or rule names, separated by commas or spaces) only those.
- `# scopelint: noqa` anywhere suppresses the whole file; `# scopelint: noqa: TFS101` one code in it.

Directives are read from comment tokens, so a `# noqa` inside a string does not count.  Each directive
remembers which codes it actually suppressed, so that unused ones can be reported (TFS900).
"""
from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from scopelint.diagnostics import Diagnostic

# A code, or a kebab-case rule name (it must contain a hyphen, so that ordinary words after the
# list, as in "# noqa: TFS101 because ...", are not taken as codes).
_ITEM = r"(?:[A-Za-z]+\d+|[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)+)"
_LIST = rf"{_ITEM}(?:[\s,]+{_ITEM})*"
_FILE_DIRECTIVE = re.compile(rf"#\s*scopelint\s*:\s*noqa(?::\s*(?P<codes>{_LIST}))?", re.IGNORECASE)
_LINE_DIRECTIVE = re.compile(rf"#\s*noqa(?::\s*(?P<codes>{_LIST}))?", re.IGNORECASE)
_SPLIT = re.compile(r"[\s,]+")
# Another tool's code (flake8's E501, pylint's W0611, ruff's RUF100): the same `# noqa` comment
# serves every linter, so such codes are never scopelint's business (ruff's `external`).  A code
# that starts like ours (`TF101`, a letter short) is a typo of ours, reported as unknown.
_FOREIGN_CODE = re.compile(r"(?!TF)[A-Z]+\d+", re.IGNORECASE)


def is_foreign_code(written: str) -> bool:
    return _FOREIGN_CODE.fullmatch(written) is not None


@dataclass
class NoqaDirective:
    line: int  # 1-based
    column: int  # 1-based column of the `#`
    end_column: int  # exclusive
    file_level: bool
    codes: tuple[str, ...] | None  # as written; None for a bare directive (everything)
    used: set[str] = field(default_factory=set)  # codes of findings it suppressed


@dataclass
class NoqaDirectives:
    by_line: dict[int, NoqaDirective] = field(default_factory=dict)
    file_level: list[NoqaDirective] = field(default_factory=list)

    def all(self) -> list[NoqaDirective]:
        return sorted([*self.by_line.values(), *self.file_level], key=lambda d: (d.line, d.column))


def _comments(source: str) -> Iterable[tuple[int, int, str]]:
    """(line, 0-based column, text) of each comment; falls back to a line scan if tokenizing fails."""
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type == tokenize.COMMENT:
                yield token.start[0], token.start[1], token.string
        return
    except (tokenize.TokenError, SyntaxError, IndentationError):
        pass
    # Unparsable source (it will get a TFS000): a `#` that starts a comment cannot be told from one in
    # a string without tokenizing, so take the first `#` that starts a directive on each line.
    for number, text in enumerate(source.splitlines(), start=1):
        match = _FILE_DIRECTIVE.search(text) or _LINE_DIRECTIVE.search(text)
        if match is not None:
            yield number, match.start(), text[match.start():]


def _parse_codes(text: str | None) -> tuple[str, ...] | None:
    if text is None:
        return None
    return tuple(part for part in _SPLIT.split(text) if part)


_MARKER = re.compile("noqa", re.IGNORECASE)  # in every directive: a file without it has none


def parse_noqa(source: str) -> NoqaDirectives:
    directives = NoqaDirectives()
    if _MARKER.search(source) is None:
        return directives  # tokenizing the whole file for nothing cost as much as parsing it
    for line, column, comment in _comments(source):
        file_match = _FILE_DIRECTIVE.search(comment)
        if file_match is not None:
            directives.file_level.append(
                NoqaDirective(
                    line=line,
                    column=column + 1 + file_match.start(),
                    end_column=column + 1 + file_match.end(),
                    file_level=True,
                    codes=_parse_codes(file_match["codes"]),
                )
            )
            continue
        line_match = _LINE_DIRECTIVE.search(comment)
        if line_match is not None:
            directives.by_line[line] = NoqaDirective(
                line=line,
                column=column + 1 + line_match.start(),
                end_column=column + 1 + line_match.end(),
                file_level=False,
                codes=_parse_codes(line_match["codes"]),
            )
    return directives


# Maps a code or rule name as written in a comment to a rule code, or None when it names no rule.
CodeResolver = Callable[[str], "str | None"]


def _suppresses(directive: NoqaDirective, code: str, resolve: CodeResolver) -> bool:
    if directive.codes is None:
        return True
    return any(resolve(written) == code for written in directive.codes)


def apply_noqa(
    diagnostics: Iterable[Diagnostic], directives: NoqaDirectives, resolve: CodeResolver
) -> list[Diagnostic]:
    """The diagnostics no directive suppresses; records on each directive what it suppressed."""
    kept: list[Diagnostic] = []
    for diagnostic in diagnostics:
        # The line's own directive gets the credit first, so a file-level one is not "used" by a
        # finding that was suppressed on its line anyway.
        line_directive = directives.by_line.get(diagnostic.site.line)
        candidates = ([line_directive] if line_directive is not None else []) + directives.file_level
        suppressor = next((d for d in candidates if _suppresses(d, diagnostic.code, resolve)), None)
        if suppressor is None:
            kept.append(diagnostic)
        else:
            suppressor.used.add(diagnostic.code)
    return kept


@dataclass(frozen=True)
class UnusedNoqa:
    directive: NoqaDirective
    unused: tuple[str, ...]  # known, enabled codes that matched nothing
    disabled: tuple[str, ...]  # known codes that are not enabled for this file
    unknown: tuple[str, ...]  # TFS codes and rule names that name no rule (other tools' codes are left alone)

    def message(self) -> str:
        kind = "`scopelint: noqa`" if self.directive.file_level else "`noqa`"
        parts = [
            f"{label}: {', '.join(codes)}"
            for label, codes in (("unused", self.unused), ("non-enabled", self.disabled), ("unknown", self.unknown))
            if codes
        ]
        return f"Unused {kind} directive" + (f" ({'; '.join(parts)})" if parts else "")


def unused_directives(
    directives: NoqaDirectives, resolve: CodeResolver, enabled: Callable[[str], bool]
) -> list[UnusedNoqa]:
    """Directives, or codes within them, that suppressed nothing (call after apply_noqa)."""
    reports: list[UnusedNoqa] = []
    for directive in directives.all():
        if directive.codes is None:
            if not directive.used:
                reports.append(UnusedNoqa(directive, (), (), ()))
            continue
        unused: list[str] = []
        disabled: list[str] = []
        unknown: list[str] = []
        for written in directive.codes:
            code = resolve(written)
            if code is None and is_foreign_code(written):
                continue
            if code is None:
                unknown.append(written)
            elif code in directive.used:
                continue
            elif enabled(code):
                unused.append(written)
            else:
                disabled.append(written)
        if unused or disabled or unknown:
            reports.append(UnusedNoqa(directive, tuple(unused), tuple(disabled), tuple(unknown)))
    return reports

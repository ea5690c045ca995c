"""Fixes: computing them from the rules, applying them to files, showing them as a diff.

A rule proposes a repair; this module knows no rule.  A rule module that fixes defines
`FIX: FixInfo` (whether and how it fixes, shown by `scopelint rule CODE`) and
`fix(diagnostic, source: FixSource) -> Fix | None`, which finds the finding's nodes in the file's
LibCST tree and returns `source.replace(applicability, message, {old_node: new_node})`.  The
replacement is applied to the whole tree and the regenerated module is compared with the original
text, so edits keep every comment, blank line, indentation and line ending the fix does not touch.

`fix_file` applies a file's applicable fixes (those that do not overlap, in source order), re-analyses
the result and repeats until nothing changes or MAX_PASSES is reached.  A file that does not parse
is never fixed, and a file whose fixed text would not parse is left as it was and reported.
"""
from __future__ import annotations

import bisect
import difflib
import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, ParentNodeProvider, PositionProvider

from scopelint import pyparse
from scopelint.diagnostics import APPLICABILITIES, Diagnostic, Edit, Fix
from scopelint.trace import Site

# Passes over one file: a fix can expose another finding (a second tower loop once the first is
# wrapped); past this the file is reported as not converging, with the passes made so far kept.
MAX_PASSES = 10

# Python's own line ends (str.splitlines also splits on form feeds and other characters).
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)?")


@dataclass(frozen=True)
class FixInfo:
    """What `scopelint rule CODE` says about a rule's fix."""

    applicability: str  # "safe", "unsafe", or "safe or unsafe" when it depends on the finding
    description: str  # how it fixes, and when it does not


# ---------------------------------------------------------------------------------------------------
# The rules' view of a file


class FixSource:
    """One file's text and LibCST tree, with node positions and parents, for the rules' fix()."""

    def __init__(self, path: str, text: str) -> None:
        self.path = path
        self.text = text
        self.errors: list[str] = []  # fixes that failed (bugs in scopelint), as "TFS105: ValueError: ..."

    @cached_property
    def module(self) -> cst.Module | None:
        """The tree, or None when the file does not parse (it is then never fixed)."""
        try:
            return cst.parse_module(self.text)
        except cst.ParserSyntaxError:
            return None

    @cached_property
    def _wrapper(self) -> MetadataWrapper:
        assert self.module is not None
        return MetadataWrapper(self.module, unsafe_skip_copy=True)

    @cached_property
    def _positions(self) -> Mapping[cst.CSTNode, CodeRange]:
        return self._wrapper.resolve(PositionProvider)

    @cached_property
    def _parents(self) -> Mapping[cst.CSTNode, cst.CSTNode]:
        return self._wrapper.resolve(ParentNodeProvider)

    def position(self, node: cst.CSTNode) -> CodeRange:
        return self._positions[node]

    def nodes_at(self, site: Site, node_type: type[cst.CSTNode]) -> list[cst.CSTNode]:
        """Nodes of `node_type` that start where the site starts, outermost first (a site's column
        is 1-based, LibCST's 0-based)."""
        if self.module is None:
            return []
        found = [
            (node, where) for node, where in self._positions.items()
            if isinstance(node, node_type) and where.start.line == site.line and where.start.column == site.column - 1
        ]
        found.sort(key=lambda item: (item[1].end.line, item[1].end.column), reverse=True)
        return [node for node, _ in found]

    def node_at(self, site: Site, node_type: type[cst.CSTNode]) -> cst.CSTNode | None:
        """The node of `node_type` that spans the site exactly, else the outermost starting there."""
        nodes = self.nodes_at(site, node_type)
        for node in nodes:
            end = self._positions[node].end
            if (end.line, end.column) == (site.end_line, site.end_column - 1):
                return node
        return nodes[0] if nodes else None

    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        return self._parents.get(node)

    def ancestors(self, node: cst.CSTNode) -> Iterator[cst.CSTNode]:
        current = self.parent(node)
        while current is not None:
            yield current
            current = self.parent(current)

    def code(self, node: cst.CSTNode) -> str:
        assert self.module is not None
        return self.module.code_for_node(node)

    def replace(self, applicability: str, message: str,
                replacements: Mapping[cst.CSTNode, cst.CSTNode | cst.FlattenSentinel | cst.RemovalSentinel]) -> Fix | None:
        """The fix that puts each new node in place of its old one (None when that changes nothing)."""
        if applicability not in APPLICABILITIES:
            raise ValueError(f"unknown applicability {applicability!r}")
        assert self.module is not None
        new_text = self.module.visit(_Replace(replacements)).code
        edits = text_edits(self.text, new_text)
        return Fix(applicability, message, edits) if edits else None


class _Replace(cst.CSTTransformer):
    """Replaces nodes by identity (LibCST nodes compare by identity too, but hash by it as well)."""

    def __init__(self, replacements: Mapping[cst.CSTNode, object]) -> None:
        super().__init__()
        self._by_id = {id(old): new for old, new in replacements.items()}

    def on_leave(self, original_node, updated_node):  # type: ignore[no-untyped-def]
        return self._by_id.get(id(original_node), updated_node)


# ---------------------------------------------------------------------------------------------------
# Text and edits


def split_lines(text: str) -> list[str]:
    """Lines with their ends, as Python counts lines."""
    lines = [match.group() for match in _LINE.finditer(text)]
    if lines and lines[-1] == "":
        lines.pop()
    return lines


class _Offsets:
    """(line, column) <-> offset in one text, both 1-based, as Sites and JSON locations count."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0]
        for line in split_lines(text):
            self.starts.append(self.starts[-1] + len(line))
        # self.starts[-1] == len(text): the end of the text is (number of lines + 1, 1) when the
        # text ends with a line end.

    def position(self, offset: int) -> tuple[int, int]:
        index = bisect.bisect_right(self.starts, offset) - 1
        if index == len(self.starts) - 1 and index > 0 and not _ends_line(self.text):
            index -= 1  # the end of a last line without a line end
        return index + 1, offset - self.starts[index] + 1

    def offset(self, position: tuple[int, int]) -> int:
        line, column = position
        index = min(max(line - 1, 0), len(self.starts) - 1)
        return min(self.starts[index] + column - 1, len(self.text))


def _ends_line(text: str) -> bool:
    return text.endswith(("\n", "\r"))


def text_edits(old: str, new: str) -> tuple[Edit, ...]:
    """The edits that turn `old` into `new`: one per changed run of lines, trimmed to the characters
    that differ."""
    old_lines, new_lines = split_lines(old), split_lines(new)
    offsets = _Offsets(old)
    edits = []
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        start, end = offsets.starts[i1], offsets.starts[i2]
        before, after = old[start:end], "".join(new_lines[j1:j2])
        prefix = len(os.path.commonprefix([before, after]))
        suffix = len(os.path.commonprefix([before[prefix:][::-1], after[prefix:][::-1]]))
        edits.append(Edit(
            content=after[prefix:len(after) - suffix],
            start=offsets.position(start + prefix),
            end=offsets.position(end - suffix),
        ))
    return tuple(edits)


def _edit_span(offsets: _Offsets, edit: Edit) -> tuple[int, int]:
    return offsets.offset(edit.start), offsets.offset(edit.end)


def apply_fixes(text: str, fixes: Sequence[Fix]) -> tuple[str, list[int]]:
    """`text` with every fix applied that overlaps none applied before it (in source order, as ruff
    does; the others wait for the next pass); also the indexes of the applied fixes."""
    offsets = _Offsets(text)
    order = sorted(range(len(fixes)), key=lambda i: min(_edit_span(offsets, e) for e in fixes[i].edits))
    taken: list[tuple[int, int]] = []
    applied: list[int] = []
    for index in order:
        spans = [_edit_span(offsets, edit) for edit in fixes[index].edits]
        if any(_overlap(span, other) for span in spans for other in taken):
            continue
        taken.extend(spans)
        applied.append(index)
    edits = sorted(
        ((_edit_span(offsets, edit), edit.content) for index in applied for edit in fixes[index].edits),
        key=lambda item: item[0], reverse=True,
    )
    result = text
    for (start, end), content in edits:
        result = result[:start] + content + result[end:]
    return result, sorted(applied)


def _overlap(a: tuple[int, int], b: tuple[int, int]) -> bool:
    # Two insertions at one point conflict too: their order would be arbitrary.
    return a[0] < b[1] and b[0] < a[1] or a == b or (a[0] == a[1] and b[0] <= a[0] <= b[1]) or (b[0] == b[1] and a[0] <= b[0] <= a[1])


def parses(text: str) -> bool:
    """Both parsers accept it: LibCST (the next pass needs it) and Python's own (it must run)."""
    try:
        cst.parse_module(text)
        pyparse.parse(text)
    except (cst.ParserSyntaxError, SyntaxError, ValueError):
        return False
    return True


def unified_diff(path: str, old: str, new: str) -> str:
    """A patch `git apply` takes (a/ and b/ prefixes, paths relative to the current folder)."""
    shown = os.path.relpath(path).replace(os.sep, "/") if os.path.isabs(path) else path.replace(os.sep, "/")
    lines = difflib.unified_diff(split_lines(old), split_lines(new), f"a/{shown}", f"b/{shown}")
    out = []
    for line in lines:
        if line.startswith(("---", "+++")):
            line = line.rstrip("\r\n") + "\n"
        elif not _ends_line(line):
            line += "\n\\ No newline at end of file\n"
        out.append(line)
    return "".join(out)


# ---------------------------------------------------------------------------------------------------
# Computing fixes


def compute_fix(diagnostic: Diagnostic, source: FixSource) -> Fix | None:
    """The rule's fix for this finding, or None (no fix, or a file that does not parse).
    A failing fix() is a bug in scopelint: recorded in `source.errors`, and the finding has no fix
    (the check itself goes on, as it does past a failing rule)."""
    from scopelint.rules import rule_by_code_or_name

    module = rule_by_code_or_name(diagnostic.code)
    fixer = getattr(module, "fix", None) if module is not None else None
    if fixer is None or source.module is None or diagnostic.site.path != source.path:
        return None
    try:
        return fixer(diagnostic, source)
    except Exception as error:  # noqa: BLE001 - reported, never hides the findings
        source.errors.append(f"{diagnostic.code} at line {diagnostic.site.line}: {type(error).__name__}: {error}")
        return None


def fix_info(code: str) -> FixInfo | None:
    from scopelint.rules import rule_by_code_or_name

    module = rule_by_code_or_name(code)
    return getattr(module, "FIX", None) if module is not None else None


def attach_fixes(diagnostics: Iterable[Diagnostic], text_of: Callable[[str], str | None],
                 fixable: Callable[[Diagnostic], bool] = lambda _: True) -> list[str]:
    """Sets `fix` on each finding its rule can repair (for the output formats and their marks);
    returns the fixes that failed, as "path: CODE at line N: error"."""
    sources: dict[str, FixSource | None] = {}
    for diagnostic in diagnostics:
        if not fixable(diagnostic) or fix_info(diagnostic.code) is None:
            continue
        path = diagnostic.site.path
        if path not in sources:
            text = text_of(path)
            sources[path] = FixSource(path, text) if text is not None else None
        source = sources[path]
        if source is not None:
            diagnostic.fix = compute_fix(diagnostic, source)
    return [f"{path}: {error}" for path, source in sources.items() if source is not None for error in source.errors]


def precompute_fixes(diagnostics: Iterable[Diagnostic], path: str, text: str) -> None:
    """The fixes of the findings in `path` (whose text is `text`), computed where the file was
    analysed so that the results cache keeps them.  A fix that fails is left to attach_fixes,
    which reports it; a finding in another file is too (its fix needs that file's text)."""
    source: FixSource | None = None
    for diagnostic in diagnostics:
        if diagnostic.site.path != path:
            continue
        if fix_info(diagnostic.code) is None:
            diagnostic.fix, diagnostic.fix_computed = None, True  # its rule has no fix
            continue
        if source is None:
            source = FixSource(path, text)
        errors_before = len(source.errors)
        fix = compute_fix(diagnostic, source)
        if len(source.errors) == errors_before:
            diagnostic.fix, diagnostic.fix_computed = fix, True


# ---------------------------------------------------------------------------------------------------
# Fixing a file


@dataclass
class FileFix:
    path: str
    original: str
    fixed: str
    applied: list[Diagnostic] = field(default_factory=list)  # the findings repaired, over all passes
    problem: str | None = None  # why the file was left as it was (or not fully fixed)
    errors: list[str] = field(default_factory=list)  # fixes that failed (bugs in scopelint)

    @property
    def changed(self) -> bool:
        return self.fixed != self.original


def fix_file(path: str, text: str, analyse: Callable[[str], list[Diagnostic]],
             wanted: Callable[[Diagnostic, Fix], bool], first: list[Diagnostic] | None = None) -> FileFix:
    """Apply the wanted fixes of `path` until nothing changes.  `analyse(text)` returns the findings
    for that text; `first`, when given, are the findings of `text` already computed."""
    result = FileFix(path, text, text)
    if not parses(text):
        result.problem = "does not parse: not fixed"
        return result
    current = text
    for number in range(MAX_PASSES):
        findings = first if number == 0 and first is not None else analyse(current)
        source = FixSource(path, current)
        source.errors = result.errors
        candidates = []
        for diagnostic in findings:
            if diagnostic.site.path != path:
                continue
            fix = compute_fix(diagnostic, source)
            if fix is not None and wanted(diagnostic, fix):
                diagnostic.fix = fix
                candidates.append(diagnostic)
        if not candidates:
            break
        new_text, applied = apply_fixes(current, [diagnostic.fix for diagnostic in candidates])  # type: ignore[misc]
        if new_text == current:
            break
        if not parses(new_text):
            codes = ", ".join(sorted({candidates[i].code for i in applied}))
            result.fixed, result.applied = text, []
            result.problem = f"the fix for {codes} would not parse: file left untouched"
            return result
        result.applied.extend(candidates[i] for i in applied)
        current = new_text
    else:
        result.problem = f"fixes still changing the file after {MAX_PASSES} passes"
    result.fixed = current
    return result

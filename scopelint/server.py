"""`scopelint server`: a Language Server (LSP over stdio, built on pygls).

What an editor gets:
- diagnostics for the buffer's text (not the file on disk) on open, change and save, each with its
  condition ("when --is_train") in the message and its related places ("first created here") as
  related information; the engine's own `check_source` produces them, so the editor sees exactly
  what `scopelint check` prints, with the file's nearest configuration;
- code actions: the rule's own fix, the one `check --fix` applies (a safe fix is the preferred
  action; an unsafe one says so in its title, which is the fix's message: what changes), then
  `# noqa: CODE` on the finding's line (the comment `check --add-noqa` writes); FIX_PROVIDERS is
  the list of sources of fixes, each a function of the buffer's text and the finding;
- an information diagnostic where the analysis stopped when it ran out of its work budget (what
  `check` notes on stderr), so that a clean buffer is not taken for a fully checked one;
- hover on a variable-creating call: the predicted full name, shape, dtype, size and device of each
  variable it creates (the rows `scopelint layout` shows).

Analysis runs in a worker thread, one at a time, so that the server keeps reading messages; a
result for a version of the buffer that has since changed is dropped, not published.  pygls is an optional dependency
(`pip install "scopelint[lsp]"`), imported only by this command.
"""
from __future__ import annotations

import asyncio
import io
import sys
import tokenize
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlparse

from scopelint import engine
from scopelint.budget_notes import BudgetNote
from scopelint.budget_notes import describe as describe_budget_note
from scopelint.diagnostics import Diagnostic
from scopelint.trace import Site, Trace, VariableRecord

SERVER_NAME = "scopelint"
INSTALL_HINT = 'the language server needs pygls: pip install "scopelint[lsp]"'
# Codes that take no `# noqa` action: a parse error is fixed, not silenced, and an unused directive
# is removed, not suppressed by another one.
NO_SUPPRESSION = frozenset({engine.PARSE_ERROR_CODE, engine.UNUSED_NOQA_CODE})


# --- values independent of the protocol (tested without a client) --------------------------------


@dataclass(frozen=True)
class Edit:
    """Replace the text between two 1-based (line, column) places; end exclusive."""

    site: Site
    replacement: str


@dataclass(frozen=True)
class Fix:
    """A repair of one finding, as a code action offers it."""

    title: str
    edits: tuple[Edit, ...]
    preferred: bool = False


FixProvider = Callable[[str, Diagnostic], Sequence[Fix]]


def rule_fixes(source: str, diagnostic: Diagnostic) -> list[Fix]:
    """The rule's fix for the finding, computed on the buffer's text as `check --fix` would."""
    from scopelint.fixes import FixSource, compute_fix, fix_info

    if fix_info(diagnostic.code) is None:
        return []  # a rule with no fix: not even a parse of the buffer
    fix = compute_fix(diagnostic, FixSource(diagnostic.site.path, source))
    if fix is None:
        return []
    path = diagnostic.site.path
    edits = tuple(Edit(Site(path, edit.start[0], edit.start[1], edit.end[0], edit.end[1]), edit.content)
                  for edit in fix.edits)
    safe = fix.applicability == "safe"
    title = f"Fix {diagnostic.code}: {fix.message}" if safe else f"Fix {diagnostic.code} (unsafe): {fix.message}"
    return [Fix(title, edits, preferred=safe)]


# Each provider returns the fixes it knows for a finding in a source; the server offers every one
# of them as a quick fix, before the `# noqa` suppression.
FIX_PROVIDERS: list[FixProvider] = [rule_fixes]


@dataclass
class Analysis:
    """One version of one buffer, analysed."""

    version: int | None
    source: str
    path: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    trace: Trace | None = None  # computed on the first hover
    budget_note: BudgetNote | None = None  # the analysis stopped at its work budget (budget_notes.py)


def path_of_uri(uri: str) -> str:
    parsed = urlparse(uri)
    if parsed.scheme not in ("file", ""):
        return uri  # an untitled buffer: analysed under that name, no configuration file found
    return unquote(parsed.path)


def _bytes_of(source: str) -> bytes:
    """The bytes of the file as it would be saved: its PEP 263 coding line is honoured, so that the
    engine decodes them back to this same text."""
    data = source.encode("utf-8")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return source.encode(encoding) if encoding not in ("utf-8", "utf-8-sig") else data
    except (SyntaxError, LookupError, UnicodeEncodeError):
        return data


def analyse(source: str, path: str, version: int | None = None) -> Analysis:
    """The findings `scopelint check` reports for this text at this path (its nearest configuration,
    its per-file-ignores, its noqa comments), keeping only those placed in this file."""
    from scopelint import notebooks
    from scopelint.project_settings import CommandLineSettings, SettingsResolver

    if notebooks.is_notebook(path):
        # A notebook opened as text is its JSON: cell:line places do not map onto that buffer.
        return Analysis(version, source, path)
    resolver = SettingsResolver(CommandLineSettings())
    result = engine.check_source(_bytes_of(source), path, resolver(path))
    own = [diagnostic for diagnostic in result.diagnostics if diagnostic.site.path == path]
    for error in result.internal_errors:
        print(f"scopelint server: internal error on {path}: {error.message}\n{error.details}", file=sys.stderr)
    return Analysis(version, source, path, own, budget_note=result.budget_note)


def trace_of(analysis: Analysis) -> Trace | None:
    """The predicted trace of the buffer (None when it does not parse or never uses TensorFlow)."""
    if analysis.trace is None:
        from scopelint.analysis import ParseFailure, analyze_source

        if engine.PREFILTER_MARKER not in analysis.source.encode("utf-8"):
            return None
        try:
            analysis.trace = analyze_source(analysis.source, analysis.path)
        except ParseFailure:
            return None
    return analysis.trace


def _contains(site: Site, line: int, column: int) -> bool:
    """Whether 1-based (line, column) is inside the site (its end included: a cursor after the
    closing parenthesis still hovers the call)."""
    return (site.line, site.column) <= (line, column) <= (site.end_line, site.end_column)


def variables_at(trace: Trace, path: str, line: int, column: int) -> list[VariableRecord]:
    """The variables created by the innermost call at (line, column), in creation order, once each."""
    hits = [record for record in trace.inventory() if record.site.path == path and _contains(record.site, line, column)]
    if not hits:
        return []
    # Nested calls (a dense layer inside a get_variable's initializer): the innermost one is meant.
    innermost = min((record.site for record in hits), key=lambda s: (s.end_line - s.line, s.end_column - s.column))
    seen: set[tuple] = set()
    chosen = []
    for record in hits:
        key = (record.name, record.device, record.shape, record.graph)
        if record.site == innermost and key not in seen:
            seen.add(key)
            chosen.append(record)
    return chosen


def hover_markdown(records: Sequence[VariableRecord]) -> str:
    """A Markdown table of the predicted variables (the columns of `scopelint layout`)."""
    from scopelint.layout import human_bytes, row_of, shape_text

    lines = ["**scopelint**: predicted variables", "", "| name | shape | dtype | bytes | device |", "| --- | --- | --- | --- | --- |"]
    for record in records:
        row = row_of(record)
        device = "?" if row.device is None else (row.device or "(none)")
        name = row.name if row.certain else f"{row.name} (uncertain)"
        lines.append(f"| `{name}` | {shape_text(row.shape)} | {row.dtype or '?'} | "
                     f"{human_bytes(row.bytes)} | `{device}` |")
    return "\n".join(lines)


def noqa_fix(source: str, diagnostic: Diagnostic) -> Fix | None:
    """`# noqa: CODE` on the finding's line, as `check --add-noqa` writes it (None where a comment
    cannot go: the line ends inside a string or with a backslash)."""
    from scopelint.add_noqa import line_with_noqa

    if diagnostic.code in NO_SUPPRESSION:
        return None
    line = diagnostic.site.line
    edited = line_with_noqa(source, line, [diagnostic.code])
    if edited is None:
        return None
    old, new = edited
    site = Site(diagnostic.site.path, line, 1, line, len(old) + 1)
    return Fix(f"Suppress {diagnostic.code} on this line (# noqa: {diagnostic.code})", (Edit(site, new),))


def fixes_for(source: str, diagnostic: Diagnostic) -> list[Fix]:
    """Every code action for a finding: the providers' fixes first, then the `# noqa` comment."""
    fixes = [fix for provider in FIX_PROVIDERS for fix in provider(source, diagnostic)]
    suppression = noqa_fix(source, diagnostic)
    return fixes + ([suppression] if suppression is not None else [])


# --- the protocol ---------------------------------------------------------------------------------


def build_server():  # -> pygls.lsp.server.LanguageServer
    from lsprotocol import types
    from pygls.lsp.server import LanguageServer
    from pygls.workspace.position_codec import ServerTextPosition, ServerTextRange

    from scopelint.version import VERSION

    server = LanguageServer(SERVER_NAME, VERSION, text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
    analyses: dict[str, Analysis] = {}
    severities = {"error": types.DiagnosticSeverity.Error, "warning": types.DiagnosticSeverity.Warning,
                  "info": types.DiagnosticSeverity.Information}

    def client_range(uri: str, site: Site) -> types.Range:
        """Site (1-based, code points) to an LSP range (0-based, in the client's units)."""
        server_range = ServerTextRange(ServerTextPosition(site.line - 1, site.column - 1),
                                       ServerTextPosition(site.end_line - 1, site.end_column - 1))
        try:
            return server.workspace.get_text_document(uri).range_to_client_units(server_range)
        except Exception:  # a file that is not open: its columns as they are
            return types.Range(types.Position(site.line - 1, site.column - 1),
                               types.Position(site.end_line - 1, site.end_column - 1))

    def uri_of(path: str) -> str:
        return Path(path).absolute().as_uri()

    def lsp_diagnostic(uri: str, index: int, diagnostic: Diagnostic) -> types.Diagnostic:
        from scopelint.engine import rule_info

        info = rule_info(diagnostic.code)
        own_path = path_of_uri(uri)
        related = []
        for item in diagnostic.related:
            if item.site is None:
                continue
            target = uri if item.site.path == own_path else uri_of(item.site.path)
            related.append(types.DiagnosticRelatedInformation(
                location=types.Location(uri=target, range=client_range(target, item.site)), message=item.note))
        return types.Diagnostic(
            range=client_range(uri, diagnostic.site),
            message=diagnostic.message_with_condition,
            severity=severities.get(diagnostic.severity, types.DiagnosticSeverity.Warning),
            code=diagnostic.code,
            code_description=types.CodeDescription(href=info.url) if info is not None else None,
            source=SERVER_NAME,
            related_information=related or None,
            data={"index": index, "name": diagnostic.name},
        )

    def budget_diagnostic(uri: str, note: BudgetNote) -> types.Diagnostic:
        """What `check` notes on stderr, as information at the call the analysis stopped in (at
        the top of the file when it stopped in top-level statements or another file)."""
        site = note.call_site
        where = client_range(uri, site) if site is not None and site.path == path_of_uri(uri) \
            else types.Range(types.Position(0, 0), types.Position(0, 0))
        return types.Diagnostic(range=where, message=describe_budget_note(note),
                                severity=types.DiagnosticSeverity.Information, source=SERVER_NAME,
                                data={"budget_note": True})  # no index: no code action

    # One analysis at a time: the analyzer's caches are per process, not per thread, and a burst of
    # keystrokes needs only its last version analysed (those queued behind it are skipped).
    one_at_a_time = asyncio.Lock()

    async def refresh(uri: str) -> None:
        document = server.workspace.get_text_document(uri)
        version, source = document.version, document.source
        async with one_at_a_time:
            if server.workspace.get_text_document(uri).source != source:
                return  # typed over while waiting
            result = await asyncio.to_thread(analyse, source, path_of_uri(uri), version)
        current = server.workspace.get_text_document(uri)
        if current.version != version or current.source != source:
            return  # the buffer changed meanwhile: the analysis of the newer text will publish
        analyses[uri] = result
        published = [lsp_diagnostic(uri, index, d) for index, d in enumerate(result.diagnostics)]
        if result.budget_note is not None:
            published.append(budget_diagnostic(uri, result.budget_note))
        server.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
            uri=uri, version=version, diagnostics=published))

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    async def did_open(params: types.DidOpenTextDocumentParams) -> None:
        await refresh(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    async def did_change(params: types.DidChangeTextDocumentParams) -> None:
        await refresh(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    async def did_save(params: types.DidSaveTextDocumentParams) -> None:
        await refresh(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(params: types.DidCloseTextDocumentParams) -> None:
        analyses.pop(params.text_document.uri, None)
        server.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[]))

    def current(uri: str) -> Analysis | None:
        """The analysis of the buffer as it is now (None while a newer version is being analysed)."""
        known = analyses.get(uri)
        document = server.workspace.get_text_document(uri)
        if known is None or known.source != document.source:
            return None
        return known

    def workspace_edit(uri: str, fix: Fix) -> types.WorkspaceEdit:
        edits = [types.TextEdit(range=client_range(uri, edit.site), new_text=edit.replacement) for edit in fix.edits]
        return types.WorkspaceEdit(changes={uri: edits})

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION,
                    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]))
    def code_action(params: types.CodeActionParams) -> list[types.CodeAction]:
        uri = params.text_document.uri
        analysis = current(uri)
        if analysis is None:
            return []
        actions: list[types.CodeAction] = []
        for sent in params.context.diagnostics:
            if sent.source != SERVER_NAME or not isinstance(sent.data, dict) or "index" not in sent.data:
                continue
            index = sent.data["index"]
            if not 0 <= index < len(analysis.diagnostics) or analysis.diagnostics[index].code != sent.code:
                continue  # sent for an older version of the buffer
            diagnostic = analysis.diagnostics[index]
            for fix in fixes_for(analysis.source, diagnostic):
                actions.append(types.CodeAction(title=fix.title, kind=types.CodeActionKind.QuickFix,
                                                diagnostics=[sent], edit=workspace_edit(uri, fix),
                                                is_preferred=fix.preferred or None))
        return actions

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def hover(params: types.HoverParams) -> types.Hover | None:
        uri = params.text_document.uri
        document = server.workspace.get_text_document(uri)
        analysis = current(uri) or Analysis(document.version, document.source, path_of_uri(uri))
        async with one_at_a_time:
            trace = await asyncio.to_thread(trace_of, analysis)
        if trace is None:
            return None
        position = document.position_from_client_units(params.position)
        records = variables_at(trace, analysis.path, position.line + 1, position.character + 1)
        if not records:
            return None
        return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=hover_markdown(records)),
                           range=client_range(uri, records[0].site))

    return server


def command_server(args) -> int:  # argparse.Namespace
    try:
        server = build_server()
    except ImportError:
        print(f"scopelint: error: {INSTALL_HINT}", file=sys.stderr)
        return 2
    server.start_io()
    return 0


def register(subparsers, parents) -> None:
    parser = subparsers.add_parser("server", help="run the Language Server (LSP over stdio) for editors", parents=parents)
    parser.set_defaults(handler=command_server)

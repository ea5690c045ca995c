"""`scopelint server` end to end: a real LSP client (pytest-lsp) drives the server over stdio.

The buffer's text, not the file on disk, is analysed: each test writes one text to disk and sends
another through the editor protocol, and the findings follow what was sent.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

pytest_lsp = pytest.importorskip("pytest_lsp", reason="the server tests need pytest-lsp (the test extra installs it)")
from lsprotocol import types  # noqa: E402
from pytest_lsp import ClientServerConfig, LanguageClient  # noqa: E402

REPO = Path(__file__).resolve().parents[1]

SHARED_TWICE = '''import tensorflow.compat.v1 as tf


def tower(x):
    with tf.variable_scope("tower"):
        return tf.get_variable("w", [3, 4])


a = tower(1)
b = tower(2)
'''

CLEAN = '''import tensorflow.compat.v1 as tf

with tf.device(tf.train.replica_device_setter(ps_tasks=2)):
    w = tf.get_variable("layer/w", [784, 256])
'''


def _environment() -> dict[str, str]:
    environment = dict(os.environ)
    environment["PYTHONPATH"] = os.pathsep.join([str(REPO), environment.get("PYTHONPATH", "")])
    return environment


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "scopelint", "server"],
                                              server_env=_environment()))
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(types.InitializeParams(capabilities=types.ClientCapabilities()))
    yield
    await lsp_client.shutdown_session()


def _open(client: LanguageClient, path: Path, text: str) -> str:
    uri = path.as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)))
    return uri


async def _diagnostics(client: LanguageClient, uri: str) -> list[types.Diagnostic]:
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    return list(client.diagnostics[uri])


@pytest.mark.asyncio
async def test_diagnostics_of_the_buffer_on_open_change_and_save(client: LanguageClient, tmp_path: Path) -> None:
    program = tmp_path / "model.py"
    program.write_text(CLEAN)  # the disk holds a clean program: the buffer is what is analysed
    uri = _open(client, program, SHARED_TWICE)
    found = await _diagnostics(client, uri)
    assert [d.code for d in found] == ["TFS101"]
    (finding,) = found
    assert finding.source == "scopelint" and finding.severity == types.DiagnosticSeverity.Error
    assert finding.range.start == types.Position(line=5, character=15)  # get_variable, 0-based
    assert "Variable tower/w already exists" in finding.message
    assert finding.message.endswith("(on every path)")  # the path condition
    notes = {info.message: info.location.range.start.line for info in finding.related_information or []}
    assert notes["first created here"] == 5
    assert notes["second call of `tower`"] == 9
    assert all(info.location.uri == uri for info in finding.related_information or [])
    assert finding.code_description is not None and finding.code_description.href.endswith("TFS101.md")

    # A change that removes the second call clears the finding.
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=SHARED_TWICE.replace("b = tower(2)\n", ""))]))
    assert await _diagnostics(client, uri) == []

    # An incremental change puts it back; save re-publishes the same.
    end = len(SHARED_TWICE.replace("b = tower(2)\n", "").splitlines())
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=3),
        content_changes=[types.TextDocumentContentChangePartial(
            range=types.Range(start=types.Position(line=end, character=0), end=types.Position(line=end, character=0)),
            text="b = tower(2)\n")]))
    assert [d.code for d in await _diagnostics(client, uri)] == ["TFS101"]
    client.text_document_did_save(types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri)))
    assert [d.code for d in await _diagnostics(client, uri)] == ["TFS101"]


@pytest.mark.asyncio
async def test_condition_of_a_finding_on_one_configuration(client: LanguageClient, tmp_path: Path) -> None:
    text = '''import tensorflow.compat.v1 as tf

flags = tf.app.flags
flags.DEFINE_boolean("share", False, "")
FLAGS = flags.FLAGS

w = tf.get_variable("w", [2])
if FLAGS.share:
    v = tf.get_variable("w", [2])
'''
    uri = _open(client, tmp_path / "flags.py", text)
    (finding,) = await _diagnostics(client, uri)
    assert finding.code == "TFS101"
    assert finding.message.endswith("(when --share)")


@pytest.mark.asyncio
async def test_a_buffer_whose_analysis_ran_out_of_budget_says_where(client: LanguageClient, tmp_path: Path) -> None:
    # 40,000 calls of `build`: the run stops at the 60,000-step budget (about a second).
    program = '''import tensorflow.compat.v1 as tf

def build(x):
    with tf.variable_scope('net', reuse=tf.AUTO_REUSE):
        return tf.matmul(x, tf.get_variable('w', [4, 4]))

x = tf.placeholder(tf.float32, [2, 4])
for step in range(200):
    for layer in range(200):
        y = build(x)
'''
    uri = _open(client, tmp_path / "train.py", program)
    (note,) = await _diagnostics(client, uri)
    assert note.severity == types.DiagnosticSeverity.Information and note.code is None
    assert note.message.startswith("the analysis stopped at its work budget inside `build`, called at line 10;")
    assert note.range.start == types.Position(line=9, character=12)
    assert not await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), range=note.range,
        context=types.CodeActionContext(diagnostics=[note])))


@pytest.mark.asyncio
async def test_nearest_configuration_applies(client: LanguageClient, tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.scopelint]\nignore = ["TFS101"]\n')
    uri = _open(client, tmp_path / "model.py", SHARED_TWICE)
    assert await _diagnostics(client, uri) == []


@pytest.mark.asyncio
async def test_noqa_code_action(client: LanguageClient, tmp_path: Path) -> None:
    uri = _open(client, tmp_path / "model.py", SHARED_TWICE)
    (finding,) = await _diagnostics(client, uri)
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), range=finding.range,
        context=types.CodeActionContext(diagnostics=[finding])))
    assert actions is not None
    (fix, action) = actions  # the rule's fix comes first (see test_fix_code_action)
    assert isinstance(action, types.CodeAction) and action.kind == types.CodeActionKind.QuickFix
    assert action.title.startswith("Suppress TFS101") and not action.is_preferred
    assert action.edit is not None and action.edit.changes is not None
    (edit,) = action.edit.changes[uri]
    assert edit.range.start.line == 5 and edit.range.start.character == 0
    assert edit.new_text == '        return tf.get_variable("w", [3, 4])  # noqa: TFS101'

    # The edited buffer has no finding left: the comment suppresses it.
    lines = SHARED_TWICE.splitlines(keepends=True)
    lines[5] = edit.new_text + "\n"
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text="".join(lines))]))
    assert await _diagnostics(client, uri) == []


@pytest.mark.asyncio
async def test_fix_code_action(client: LanguageClient, tmp_path: Path) -> None:
    """The fix `check --fix` applies is offered as the preferred quick fix, computed on the buffer
    (not the file on disk), and applying its edit leaves the buffer without the finding."""
    (tmp_path / "model.py").write_text(CLEAN)
    uri = _open(client, tmp_path / "model.py", SHARED_TWICE)
    (finding,) = await _diagnostics(client, uri)
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), range=finding.range,
        context=types.CodeActionContext(diagnostics=[finding])))
    assert actions is not None and len(actions) == 2
    fix = actions[0]
    assert isinstance(fix, types.CodeAction) and fix.kind == types.CodeActionKind.QuickFix
    assert fix.is_preferred is True
    assert fix.title.startswith('Fix TFS101: Open variable_scope("tower") with reuse=tf.AUTO_REUSE')
    assert fix.edit is not None and fix.edit.changes is not None
    (edit,) = fix.edit.changes[uri]
    assert edit.new_text == ", reuse=tf.AUTO_REUSE"
    assert edit.range.start == edit.range.end == types.Position(line=4, character=34)

    lines = SHARED_TWICE.splitlines(keepends=True)
    line = lines[4]
    lines[4] = line[:34] + edit.new_text + line[34:]
    assert lines[4] == '    with tf.variable_scope("tower", reuse=tf.AUTO_REUSE):\n'
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text="".join(lines))]))
    assert await _diagnostics(client, uri) == []


def test_unsafe_fix_says_so_and_is_not_preferred(tmp_path: Path) -> None:
    """An unsafe fix (a tf.Variable under reuse becomes get_variable) is offered, titled unsafe."""
    from scopelint import server

    text = (tmp_path / "x.py")
    source = (REPO / "tests/fixtures/fixes/tfs201_variable_under_reuse.before.py").read_text()
    analysis = server.analyse(source, str(text))
    (finding,) = [d for d in analysis.diagnostics if d.code == "TFS201"]
    (fix, _noqa) = server.fixes_for(source, finding)
    assert fix.title.startswith("Fix TFS201 (unsafe): ") and not fix.preferred
    assert fix.edits


@pytest.mark.asyncio
async def test_hover_shows_name_shape_and_device(client: LanguageClient, tmp_path: Path) -> None:
    text = CLEAN + 'with tf.device(tf.train.replica_device_setter(ps_tasks=2)):\n    b = tf.get_variable("layer/b", [256])\n'
    uri = _open(client, tmp_path / "placed.py", text)
    await _diagnostics(client, uri)
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=3, character=12)))
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert "| `layout/w` |" not in hover.contents.value
    assert "| `layer/w` | [784, 256] | float32 | 784.0 KiB | `/job:ps/task:0` |" in hover.contents.value
    assert hover.range is not None and hover.range.start == types.Position(line=3, character=8)
    # The second setter restarts its round robin: task 0 again (TensorFlow's own placement).
    second = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=5, character=20)))
    assert second is not None and "`layer/b` | [256] | float32 | 1.0 KiB | `/job:ps/task:0`" in second.contents.value
    # Not on a variable-creating call: nothing.
    nothing = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=0, character=3)))
    assert nothing is None


def test_fix_providers_come_before_the_noqa_action(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The hook `--fix` plugs into: a provider's fixes are offered, then the suppression."""
    from scopelint import server
    from scopelint.trace import Site

    path = str(tmp_path / "model.py")
    (finding,) = server.analyse(SHARED_TWICE, path).diagnostics

    def reuse_fix(source: str, diagnostic):
        assert source == SHARED_TWICE
        return [server.Fix("Share: reuse=tf.AUTO_REUSE", (server.Edit(Site(path, 5, 36, 5, 36), ", reuse=tf.AUTO_REUSE"),), True)]

    monkeypatch.setattr(server, "FIX_PROVIDERS", [reuse_fix])
    titles = [fix.title for fix in server.fixes_for(SHARED_TWICE, finding)]
    assert titles == ["Share: reuse=tf.AUTO_REUSE", "Suppress TFS101 on this line (# noqa: TFS101)"]


def test_no_noqa_action_where_a_comment_cannot_go(tmp_path: Path) -> None:
    from scopelint import server

    text = SHARED_TWICE.replace('return tf.get_variable("w", [3, 4])', 'return tf.get_variable("w", [3, 4]) + len("""\n""")')
    path = str(tmp_path / "model.py")
    (finding,) = server.analyse(text, path).diagnostics
    assert server.noqa_fix(text, finding) is None


def test_server_without_pygls_says_how_to_install(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from scopelint.cli import main

    monkeypatch.setitem(sys.modules, "pygls", None)
    monkeypatch.setitem(sys.modules, "pygls.lsp.server", None)
    assert main(["server"]) == 2
    assert 'pip install "scopelint[lsp]"' in capsys.readouterr().err

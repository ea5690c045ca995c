"""No input stops a run: every odd Python file gets results or a TFS000 with its reason, odd paths
are reported or skipped, and a crashing worker costs only its own file.  The real analyzer is used
(not the fakes) wherever the point is what the real parser and interpreter do with the input."""
from __future__ import annotations

import os
import signal
import socket
import stat
import threading
import time
from pathlib import Path

import pytest

import scopelint.analysis
from scopelint import cli, engine
from scopelint.analysis.nesting import MAX_NESTING, NestingTooDeep, python_tree
from scopelint.engine import MAX_SOURCE_BYTES, CheckSettings, check_source, run
from scopelint_fakes import TF_HEADER, fake_analyze_source, fake_analyzer  # noqa: F401  (fixture)

ALL_RULES = CheckSettings(enabled=frozenset(info.code for info in engine.known_rules()))
SHARED_TWICE = (
    "def encoder():\n"
    "    with tf.variable_scope('enc'):\n"
    "        return tf.get_variable('w', [1])\n"
    "encoder()\n"
    "encoder()\n"
)


def real_check(data: bytes, name: str = "odd.py") -> engine.FileResult:
    started = time.monotonic()
    result = check_source(data, name, ALL_RULES)
    assert time.monotonic() - started < 20, "a single odd file must not stall the run"
    assert result.internal_errors == [], [error.details for error in result.internal_errors]
    return result


def only_tfs000(result: engine.FileResult) -> str:
    [finding] = result.diagnostics
    assert finding.code == "TFS000" and finding.severity == "error"
    return finding.message


# --- files that do not parse ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "line", "reason"),
    [
        ("def f(:\n", 2, "SyntaxError: invalid syntax"),
        ('print "hello"\n', 2, "SyntaxError: Missing parentheses in call to 'print'"),
        ("exec 'x = 1'\n", 2, "SyntaxError: Missing parentheses in call to 'exec'"),
        ("if True:\n        x = 1\n\ty = 2\n", 4, "inconsistent use of tabs and spaces in indentation"),
        ("x = 0777\n", 2, "leading zeros in decimal integer literals"),
        ("%matplotlib inline\nw = tf.get_variable('w', [1])\n", 2, "SyntaxError: invalid syntax"),
        ("!pip install tensorflow\n", 2, "SyntaxError: invalid syntax"),
        ("x = " + "(" * 250 + ")" * 250 + "\n", 2, "too many nested parentheses"),
        ("".join(" " * depth + "if x:\n" for depth in range(120)) + " " * 120 + "pass\n", 102, "too many levels of indentation"),
    ],
    ids=["syntax", "py2-print", "py2-exec", "tabs-and-spaces", "py2-octal", "notebook-magic", "notebook-shell", "500-parens", "120-ifs"],
)
def test_unparsable_files_get_pythons_reason(text: str, line: int, reason: str) -> None:
    result = real_check((TF_HEADER + text).encode())
    assert reason in only_tfs000(result)
    assert result.diagnostics[0].site.line == line


def test_decoding_edge_cases_with_the_real_analyzer() -> None:
    # BOM, and a PEP 263 line: analysed normally, findings at the right lines.
    for prefix, encoding in ((b"\xef\xbb\xbf", "utf-8"), (b"# -*- coding: latin-1 -*-\n", "latin-1")):
        data = prefix + (TF_HEADER + "name = 'caf\u00e9'\n" + SHARED_TWICE).encode(encoding)
        result = real_check(data)
        offset = 1 if b"coding" in prefix else 0
        assert [(d.code, d.site.line) for d in result.diagnostics] == [("TFS101", 5 + offset)]
    # A BOM that contradicts its coding line, invalid UTF-8, NUL bytes: TFS000 with the reason.
    assert "encoding problem: utf-8" in only_tfs000(real_check(b"\xef\xbb\xbf# coding: latin-1\n" + TF_HEADER.encode()))
    assert "not valid utf-8: byte 0xff" in only_tfs000(real_check(TF_HEADER.encode() + b"x = '\xff'\n"))
    assert "cannot contain null bytes" in only_tfs000(real_check(TF_HEADER.encode() + b"x = 1\x00\n"))


def test_empty_and_whitespace_files_are_clean() -> None:
    for data in (b"", b"\n\n", b"   ", b"# tensorflow\n", b"\xef\xbb\xbf"):
        result = real_check(data)
        assert result.diagnostics == []


def test_very_long_lines() -> None:
    """A 1 MB line: a string literal is analysed; a 1 MB flat list takes LibCST seconds but
    is analysed; a 1 MB chain of additions is refused by Python's own parser (too deep)."""
    string_line = TF_HEADER + "x = '" + "a" * 1_000_000 + "'\n" + SHARED_TWICE
    assert [d.code for d in real_check(string_line.encode()).diagnostics] == ["TFS101"]
    chain = TF_HEADER + "x = " + "1 + " * 250_000 + "1\n"
    assert "nested too deeply" in only_tfs000(real_check(chain.encode()))


def test_deep_nesting_is_refused_before_libcst_can_crash() -> None:
    """LibCST's native parser dies with SIGSEGV on `a and a and ...` about 7,000 long (Python keeps
    it flat, so Python's parser accepts it): the nesting check refuses it first."""
    chain = TF_HEADER + "x = " + " and ".join(["a"] * 20_000) + "\n"
    message = only_tfs000(real_check(chain.encode()))
    assert message == f"an expression nests 20003 levels deep (line 2); scopelint parses at most {MAX_NESTING}"
    with pytest.raises(NestingTooDeep):
        python_tree("x = " + " or ".join(["a"] * (MAX_NESTING + 10)) + "\n")
    # Under the bound, analysed as usual.
    python_tree("x = " + " or ".join(["a"] * (MAX_NESTING - 10)) + "\n")
    # Under the bound it parses.  Interpreting an expression ~1,000 deep may exhaust Python's
    # recursion limit (it depends on the limit in force and the stack already used), which ends
    # the module's analysis there: what was seen is kept and the trace is incomplete (so no rule
    # reports from what was not seen).  Either way, nothing crashes.
    for length in (500, 2_500):
        # `a` is defined: an undefined name would raise NameError at its first use and end the path.
        text = TF_HEADER + "a = 1\nv = tf.get_variable('v', [1])\nx = " + " and ".join(["a"] * length) + "\nw = tf.get_variable('w', [1])\n"
        trace = scopelint.analysis.analyze_source(text, "fine.py")
        assert ([record.name for record in trace.variables], trace.complete) in ((["v", "w"], True), (["v"], False))
        assert real_check(text.encode()).diagnostics == []
    deep_but_legal = TF_HEADER + "x = " + "(" * 190 + "1" + ")" * 190 + "\n" + "y = -" + "-" * 900 + "1\n" + SHARED_TWICE
    assert [d.code for d in real_check(deep_but_legal.encode()).diagnostics] == ["TFS101"]


def test_files_over_the_size_limit_get_tfs000_quickly() -> None:
    generated = (TF_HEADER + "x = 1\n" * 1_700_000).encode()  # 10 MB
    assert len(generated) > 5 * MAX_SOURCE_BYTES
    started = time.monotonic()
    result = check_source(generated, "generated.py", ALL_RULES)
    assert time.monotonic() - started < 1.0
    assert only_tfs000(result) == "file too large to analyse (10.2 MB; scopelint analyses files up to 2 MB)"
    # per-file-ignores silences it like any TFS000.
    ignoring = CheckSettings(enabled=ALL_RULES.enabled, per_file_ignores=(("generated.py", frozenset({"TFS000"})),))
    assert check_source(generated, "generated.py", ignoring).diagnostics == []
    # Just under the limit the file is analysed.
    under = (TF_HEADER + SHARED_TWICE).encode()
    under += b"#" * (MAX_SOURCE_BYTES - len(under) - 1) + b"\n"
    assert len(under) == MAX_SOURCE_BYTES
    assert [d.code for d in real_check(under).diagnostics] == ["TFS101"]


# --- paths ------------------------------------------------------------------------------------------


def write(path: Path, text: str = TF_HEADER + SHARED_TWICE) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def finished_within(seconds: float, function, *args, **kwargs):
    """Run `function` in a thread; fail (instead of hanging the suite) if it does not return."""
    outcome: dict[str, object] = {}
    worker = threading.Thread(target=lambda: outcome.setdefault("value", function(*args, **kwargs)), daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), f"still running after {seconds} s"
    return outcome["value"]


def test_fifos_sockets_and_symlink_loops_in_a_tree(tmp_path: Path, fake_analyzer) -> None:
    good = write(tmp_path / "tree" / "good.py", TF_HEADER + "x  # event: already_exists\n")
    os.mkfifo(tmp_path / "tree" / "pipe.py")
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(tmp_path / "tree" / "sock.py"))
    os.symlink("loop_b.py", tmp_path / "tree" / "loop_a.py")
    os.symlink("loop_a.py", tmp_path / "tree" / "loop_b.py")
    os.symlink("missing.py", tmp_path / "tree" / "dangling.py")
    (tmp_path / "tree" / "sub").mkdir()
    os.symlink(tmp_path / "tree", tmp_path / "tree" / "sub" / "up", target_is_directory=True)  # a directory loop
    try:
        for jobs in (1, 2):
            result = finished_within(30, run, [str(tmp_path / "tree")], CheckSettings(enabled=frozenset({"TFS101"})), jobs=jobs)
            # Walking a folder: only regular files are checked; the rest is not source code.
            assert [f.path for f in result.files] == [str(good)]
            assert [d.code for d in result.diagnostics] == ["TFS101"] and result.read_errors == []
        # Named on the command line, each is an error with its reason, and the run goes on.
        named = [str(tmp_path / "tree" / name) for name in ("pipe.py", "sock.py", "loop_a.py", "dangling.py")] + [str(good)]
        result = finished_within(30, run, named, CheckSettings(enabled=frozenset({"TFS101"})), jobs=2)
        assert [(Path(f.path).name, f.error) for f in result.read_errors] == [
            ("pipe.py", "not a regular file (a FIFO)"),
            ("sock.py", "not a regular file (a socket)"),
            ("loop_a.py", "Too many levels of symbolic links"),
            ("dangling.py", "No such file or directory"),
        ]
        assert [d.code for d in result.diagnostics] == ["TFS101"]
    finally:
        server.close()


def test_cli_on_a_fifo_exits_2_without_blocking(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    os.mkfifo("pipe.py")
    code = finished_within(30, cli.main, ["check", "--no-cache", "--isolated", "pipe.py"])
    assert code == 2
    assert "pipe.py: not a regular file (a FIFO)" in capsys.readouterr().err


def test_unreadable_file_is_an_error_and_the_run_goes_on(tmp_path: Path, fake_analyzer, monkeypatch) -> None:
    """Root reads a chmod-000 file anyway, so the refusal is simulated at os.open (the one place the
    engine opens files); the real chmod case runs in the next test when not root."""
    secret = write(tmp_path / "secret.py")
    fine = write(tmp_path / "fine.py", TF_HEADER + "x  # event: already_exists\n")
    real_open = os.open

    def refusing_open(path, flags, *args, **kwargs):
        if os.fspath(path) == str(secret):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(engine.os, "open", refusing_open)
    result = run([str(tmp_path)], CheckSettings(enabled=frozenset({"TFS101"})), jobs=1)
    assert [(f.path, f.error) for f in result.read_errors] == [(str(secret), "Permission denied")]
    assert [(d.path, d.code) for d in result.diagnostics] == [(str(fine), "TFS101")]


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads chmod-000 files; simulated in the test above")
def test_chmod_000_file(tmp_path: Path, fake_analyzer) -> None:
    secret = write(tmp_path / "secret.py")
    secret.chmod(0)
    try:
        result = run([str(tmp_path)], CheckSettings(enabled=frozenset({"TFS101"})), jobs=1)
        assert [(f.path, f.error) for f in result.read_errors] == [(str(secret), "Permission denied")]
    finally:
        secret.chmod(stat.S_IRUSR | stat.S_IWUSR)


def test_files_that_vanish_during_the_run(tmp_path: Path, fake_analyzer, monkeypatch) -> None:
    """Found by the walk, deleted (or replaced by a FIFO) before they are read."""
    for name in ("a.py", "b.py", "c.py"):
        write(tmp_path / name, TF_HEADER + "x  # event: already_exists\n")
    real_discover = engine.discover

    def discover_then_vanish(paths, settings):
        tasks = real_discover(paths, settings)
        (tmp_path / "a.py").unlink()
        (tmp_path / "b.py").unlink()
        os.mkfifo(tmp_path / "b.py")
        return tasks

    monkeypatch.setattr(engine, "discover", discover_then_vanish)
    for jobs in (1, 2):
        if jobs == 2:
            os.unlink(tmp_path / "b.py")
            write(tmp_path / "a.py")
            write(tmp_path / "b.py")
        result = finished_within(30, run, [str(tmp_path)], CheckSettings(enabled=frozenset({"TFS101"})), jobs=jobs)
        assert [(Path(f.path).name, f.error) for f in result.read_errors] == [
            ("a.py", "No such file or directory"), ("b.py", "not a regular file (a FIFO)"),
        ]
        assert [Path(d.path).name for d in result.diagnostics] == ["c.py"]


def test_missing_paths_and_directories(tmp_path: Path, fake_analyzer) -> None:
    write(tmp_path / "pkg" / "m.py", TF_HEADER + "x  # event: already_exists\n")
    result = run([str(tmp_path / "nope"), str(tmp_path / "pkg"), str(tmp_path / "gone.py")], CheckSettings(enabled=frozenset({"TFS101"})), jobs=2)
    assert [(Path(f.path).name, f.error) for f in result.read_errors] == [("nope", "No such file or directory"), ("gone.py", "No such file or directory")]
    assert len(result.diagnostics) == 1


# --- a worker that dies ----------------------------------------------------------------------------


def test_a_worker_that_dies_costs_only_its_own_file(tmp_path: Path, fake_analyzer, monkeypatch, capsys) -> None:
    """A crash in native code (simulated by SIGKILL in the worker) breaks the process pool; the
    files it took down are analysed again, each alone, and only the culprit gets an internal error."""
    parent = os.getpid()

    def dying_analyze_source(source: str, path: str):
        if "# worker-dies" in source and os.getpid() != parent:
            os.kill(os.getpid(), signal.SIGKILL)
        return fake_analyze_source(source, path)

    monkeypatch.setattr(scopelint.analysis, "analyze_source", dying_analyze_source)
    for index in range(6):
        extra = "# worker-dies\n" if index == 2 else ""
        write(tmp_path / f"m{index}.py", TF_HEADER + extra + "x  # event: already_exists\n")
    result = finished_within(60, run, [str(tmp_path)], CheckSettings(enabled=frozenset({"TFS101"})), jobs=2)
    assert [Path(e.path).name for e in result.internal_errors] == ["m2.py"]
    assert "the process analysing this file died" in result.internal_errors[0].message
    assert sorted(Path(d.path).name for d in result.diagnostics) == [f"m{i}.py" for i in range(6) if i != 2]
    monkeypatch.chdir(tmp_path)
    assert cli.main(["check", "--no-cache", "--isolated", "--jobs", "2", "."]) == 2
    assert "internal error in the analyzer on m2.py: the process analysing this file died" in capsys.readouterr().err

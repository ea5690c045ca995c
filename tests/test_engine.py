"""The engine: discovery, pre-filter, decoding, analysis and rule failures, suppressions, workers."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from scopelint import engine
from scopelint.engine import CheckSettings, check_source, decode_source, discover, run
from scopelint.trace import Site, Trace
from scopelint_fakes import TF_HEADER, fake_analyzer  # noqa: F401  (fixture)

ENABLED = frozenset({"TFS000", "TFS101", "TFS102", "TFS201"})


def settings(**overrides) -> CheckSettings:
    values = {"enabled": ENABLED, "root": "."}
    values.update(overrides)
    return CheckSettings(**values)


def write(path: Path, text: str | bytes = TF_HEADER) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    return path


def codes_at(result) -> list[tuple[str, int, int]]:
    return [(d.code, d.site.line, d.site.column) for d in result.diagnostics]


# --- discovery -------------------------------------------------------------------------------------


def test_discovery_skips_default_excludes_and_venvs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    for name in ("b.py", "a.py", "pkg/c.py", "pkg/notes.txt", ".hidden/d.py", "pkg/__pycache__/e.py",
                 "build/f.py", "dist/g.py", "node_modules/h.py", "env/i.py", "venv/j.py", ".git/k.py"):
        write(tmp_path / name)
    write(tmp_path / "env" / "pyvenv.cfg", "home = /usr\n")
    tasks = discover(["."], settings(root=str(tmp_path)))
    assert [task.display_path for task in tasks] == ["a.py", "b.py", os.path.join("pkg", "c.py")]


def test_exclude_globs_and_explicit_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    for name in ("src/keep.py", "src/gen_model.py", "src/legacy/old.py", "build/explicit.py"):
        write(tmp_path / name)
    custom = settings(root=str(tmp_path), exclude=(*engine.DEFAULT_EXCLUDE, "gen_*.py", "src/legacy"))
    tasks = discover(["src", "build/explicit.py", "src/keep.py"], custom)
    # Excluded names are skipped while walking, but a file named on the command line is always checked;
    # a file reached twice is checked once.
    assert [task.display_path for task in tasks] == [os.path.join("src", "keep.py"), os.path.join("build", "explicit.py")]


def test_missing_path_is_reported_and_the_run_goes_on(tmp_path: Path, fake_analyzer) -> None:
    good = write(tmp_path / "good.py", TF_HEADER + "x  # event: already_exists\n")
    result = run([str(tmp_path / "nope.py"), str(good)], settings(), jobs=1)
    assert [(f.path, f.error) for f in result.read_errors] == [(str(tmp_path / "nope.py"), "No such file or directory")]
    assert [d.code for d in result.diagnostics] == ["TFS101"]
    assert result.files_checked == 1


# --- pre-filter and decoding -----------------------------------------------------------------------


def test_files_without_tensorflow_are_skipped_but_counted(fake_analyzer) -> None:
    result = check_source(b"import numpy\nx = 1  # analyzer-crash\n", "plain.py", settings())
    assert result.skipped and result.diagnostics == [] and result.internal_errors == []
    # The same text mentioning tensorflow anywhere (here a comment) is analysed.
    analysed = check_source(b"# tensorflow\nx = 1  # analyzer-crash\n", "plain.py", settings())
    assert not analysed.skipped and len(analysed.internal_errors) == 1


def test_decoding_follows_python(fake_analyzer) -> None:
    bom = b"\xef\xbb\xbfimport tensorflow\nx  # event: already_exists\n"
    assert decode_source(bom, "f.py")[0] == "import tensorflow\nx  # event: already_exists\n"
    assert codes_at(check_source(bom, "f.py", settings())) == [("TFS101", 2, 1)]
    latin1 = "# -*- coding: latin-1 -*-\nimport tensorflow\nname = 'café'\n".encode("latin-1")
    assert decode_source(latin1, "f.py")[0].endswith("'café'\n")


@pytest.mark.parametrize(
    ("data", "expected_line", "expected_column", "reason"),
    [
        (b"import tensorflow\nx = '\xff'\n", 2, 6, "file is not valid utf-8: byte 0xff cannot be decoded"),
        (b"import tensorflow\n\nab\x00c\n", 3, 3, "source code cannot contain null bytes"),
        (b"# coding: klingon\nimport tensorflow\n", 1, 1, "cannot determine the file's encoding"),
    ],
)
def test_undecodable_files_get_tfs000(data: bytes, expected_line: int, expected_column: int, reason: str, fake_analyzer) -> None:
    result = check_source(data, "bad.py", settings())
    [finding] = result.diagnostics
    assert (finding.code, finding.name, finding.site.line, finding.site.column) == ("TFS000", "parse-error", expected_line, expected_column)
    assert reason in finding.message
    assert result.internal_errors == []


def test_parse_failure_becomes_tfs000(fake_analyzer) -> None:
    result = check_source((TF_HEADER + "\nprint 'x'  # parse-failure\n").encode(), "p.py", settings())
    assert codes_at(result) == [("TFS000", 3, 5)]
    assert result.diagnostics[0].message == "invalid syntax"
    # A disabled TFS000 is not reported.
    assert check_source((TF_HEADER + "x  # parse-failure\n").encode(), "p.py", settings(enabled=frozenset({"TFS101"}))).diagnostics == []


# --- failures inside scopelint ---------------------------------------------------------------------


def test_analyzer_crash_is_an_internal_error_for_that_file_only(tmp_path: Path, fake_analyzer) -> None:
    crash = write(tmp_path / "a_crash.py", TF_HEADER + "x  # analyzer-crash\n")
    fine = write(tmp_path / "b_fine.py", TF_HEADER + "x  # event: does_not_exist\n")
    result = run([str(crash), str(fine)], settings(), jobs=1)
    [error] = result.internal_errors
    assert (error.path, error.rule, error.message) == (str(crash), None, "RuntimeError: the fake analyzer crashed")
    assert "Traceback" in error.details
    assert [(d.path, d.code) for d in result.diagnostics] == [(str(fine), "TFS102")]


def test_rule_crash_names_the_rule_and_other_rules_still_run(fake_analyzer) -> None:
    source = TF_HEADER + "x  # event: boom\ny  # event: already_exists\n"
    result = check_source(source.encode(), "r.py", settings())
    [error] = result.internal_errors
    assert (error.rule, error.message) == ("TFS102", "ValueError: TFS102 exploded")
    assert codes_at(result) == [("TFS101", 3, 1)]


# --- selection, per-file-ignores, noqa -------------------------------------------------------------


def test_only_enabled_rules_report(fake_analyzer) -> None:
    source = (TF_HEADER + "a  # event: already_exists\nb  # event: variable_ignores_reuse\n").encode()
    assert [d.code for d in check_source(source, "s.py", settings(enabled=frozenset({"TFS201"}))).diagnostics] == ["TFS201"]


def test_per_file_ignores(tmp_path: Path, fake_analyzer) -> None:
    source = (TF_HEADER + "a  # event: already_exists\nb  # event: variable_ignores_reuse\n").encode()
    custom = settings(root=str(tmp_path), per_file_ignores=(("tests/*", frozenset({"TFS101"})), ("conftest.py", frozenset({"TFS201"}))))
    assert [d.code for d in check_source(source, str(tmp_path / "tests" / "deep" / "t.py"), custom).diagnostics] == ["TFS201"]
    assert [d.code for d in check_source(source, str(tmp_path / "src" / "conftest.py"), custom).diagnostics] == ["TFS101"]
    assert [d.code for d in check_source(source, str(tmp_path / "src" / "m.py"), custom).diagnostics] == ["TFS101", "TFS201"]


def test_noqa_and_unused_noqa(fake_analyzer) -> None:
    source = (
        TF_HEADER
        + "a = 1  # event: already_exists  # noqa: TFS101\n"
        + "b = 2  # event: variable_ignores_reuse  # noqa: variable-already-exists\n"
        + "c = 3  # noqa\n"
    ).encode()
    plain = check_source(source, "n.py", settings())
    assert codes_at(plain) == [("TFS201", 3, 1)]
    with_unused = check_source(source, "n.py", settings(enabled=ENABLED | {"TFS900"}))
    assert [(d.code, d.site.line, d.message) for d in with_unused.diagnostics] == [
        ("TFS201", 3, "variable_ignores_reuse here"),
        ("TFS900", 3, "Unused `noqa` directive (unused: variable-already-exists)"),
        ("TFS900", 4, "Unused `noqa` directive"),
    ]
    unused = with_unused.diagnostics[2]
    assert (unused.severity, unused.name, unused.site.column) == ("warning", "unused-noqa", 8)


def test_file_level_noqa_hides_parse_errors_too(fake_analyzer) -> None:
    source = (TF_HEADER + "# scopelint: noqa\nx  # parse-failure\n").encode()
    assert check_source(source, "f.py", settings()).diagnostics == []


def test_tfs900_documentation_examples(fake_analyzer) -> None:
    from scopelint.rules import tfs900_unused_noqa

    enabled = settings(enabled=ENABLED | {"TFS900"})
    bad = check_source(tfs900_unused_noqa.RULE.bad.encode(), "bad.py", enabled)
    assert [d.code for d in bad.diagnostics] == ["TFS900"]
    assert check_source(tfs900_unused_noqa.RULE.good.encode(), "good.py", enabled).diagnostics == []
    assert list(tfs900_unused_noqa.check(Trace(path="bad.py"))) == []  # the engine produces TFS900 itself


def test_source_lines_are_kept_only_for_files_with_findings(fake_analyzer) -> None:
    assert check_source(TF_HEADER.encode(), "clean.py", settings()).source_lines == ()
    found = check_source((TF_HEADER + "w  # event: already_exists\n").encode(), "f.py", settings())
    assert found.source_lines == (TF_HEADER.rstrip("\n"), "w  # event: already_exists")


# --- runs ------------------------------------------------------------------------------------------


def test_parallel_run_matches_in_process_run(tmp_path: Path, fake_analyzer) -> None:
    for index in range(12):
        write(tmp_path / f"m{index:02}.py", TF_HEADER + "a  # event: already_exists\n" * (index % 3) + ("z  # analyzer-crash\n" if index == 7 else ""))
    serial = run([str(tmp_path)], settings(), jobs=1)
    parallel = run([str(tmp_path)], settings(), jobs=3)
    assert [(f.path, codes_at(f), [e.message for e in f.internal_errors]) for f in parallel.files] == [
        (f.path, codes_at(f), [e.message for e in f.internal_errors]) for f in serial.files
    ]
    assert len(serial.diagnostics) == 4 * 1 + 4 * 2 - 1  # m07 (one finding) crashed before its rules ran
    assert [e.path for e in parallel.internal_errors] == [str(tmp_path / "m07.py")]
    assert [f.path for f in serial.files] == sorted(f.path for f in serial.files)


def test_stdin_is_checked_under_its_given_name(fake_analyzer) -> None:
    data = (TF_HEADER + "x  # event: already_exists\n").encode()
    result = run(["-"], settings(), jobs=1, stdin_data=data, stdin_filename="pkg/model.py")
    assert [(d.path, d.code) for d in result.diagnostics] == [("pkg/model.py", "TFS101")]


def test_results_are_sorted_by_path_line_column_code(fake_analyzer, tmp_path: Path) -> None:
    write(tmp_path / "b.py", TF_HEADER + "x  # event: variable_ignores_reuse\n")
    write(tmp_path / "a.py", TF_HEADER + "x  # event: variable_ignores_reuse\ny  # event: already_exists\n")
    result = run([str(tmp_path / "b.py"), str(tmp_path / "a.py")], settings(), jobs=1)
    assert [(Path(d.path).name, d.site.line, d.code) for d in result.diagnostics] == [("a.py", 2, "TFS201"), ("a.py", 3, "TFS101"), ("b.py", 2, "TFS201")]


# --- the registry ----------------------------------------------------------------------------------


def test_registry_lists_rules_sorted_and_finds_them() -> None:
    from scopelint.rules import all_rules, rule_by_code_or_name

    modules = all_rules()
    codes = [module.RULE.code for module in modules]
    assert codes == sorted(codes) and "TFS900" in codes
    assert all(module.__name__.startswith("scopelint.rules.tfs") for module in modules)
    assert rule_by_code_or_name("tfs900").RULE.name == "unused-noqa"
    assert rule_by_code_or_name("unused-noqa").RULE.code == "TFS900"
    assert rule_by_code_or_name("TFS999") is None


def test_known_rules_always_include_parse_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine, "_rule_modules", lambda: ())
    assert [(info.code, info.name) for info in engine.known_rules()] == [("TFS000", "parse-error")]


# --- end to end, once the interpreter exists -------------------------------------------------------


def test_real_analyzer_end_to_end(tmp_path: Path) -> None:
    pytest.importorskip("scopelint.analysis.interpreter")
    source = (
        "import tensorflow.compat.v1 as tf\n"
        "\n"
        "def encoder(x):\n"
        "    with tf.variable_scope('enc'):\n"
        "        return tf.get_variable('w', shape=[4, 4])\n"
        "\n"
        "encoder(1)\n"
        "encoder(2)\n"
    )
    path = write(tmp_path / "model.py", source)
    result = run([str(path)], CheckSettings(enabled=frozenset(info.code for info in engine.known_rules())), jobs=1)
    assert result.internal_errors == []
    assert [(d.code, d.site.line) for d in result.diagnostics] == [("TFS101", 5)]
    assert Site  # the site type findings carry


def test_a_failing_rule_contributes_no_partial_results(monkeypatch: pytest.MonkeyPatch, fake_analyzer) -> None:
    modules = engine._rule_modules()
    half = type(modules[0])("half")
    half.RULE = modules[0].RULE

    def check(trace):
        yield from modules[0].check(trace)
        raise KeyError("late")

    half.check = check
    monkeypatch.setattr(engine, "_rule_modules", lambda: (half, *modules[1:]))
    result = check_source((TF_HEADER + "a  # event: already_exists\n").encode(), "h.py", settings())
    assert result.diagnostics == [] and [e.rule for e in result.internal_errors] == ["TFS101"]


def test_findings_placed_in_another_module(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A helper defined in lib.py and called from two scripts: the analyses of both scripts place
    the same finding in lib.py; it is listed once, and the scripts' noqa comments do not touch it."""
    import scopelint.analysis
    from scopelint_fakes import fake_rule_modules

    lib_site = Site(str(tmp_path / "lib.py"), 4, 9, 4, 30)

    def analyze(source: str, path: str):
        from scopelint.trace import Event

        return Trace(path=path, events=[Event("already_exists", lib_site, "in the helper")])

    monkeypatch.setattr(scopelint.analysis, "analyze_source", analyze)
    modules = fake_rule_modules()
    monkeypatch.setattr(engine, "_rule_modules", lambda: modules)
    for name in ("a.py", "b.py"):
        write(tmp_path / name, TF_HEADER + "helper()\n\n\nx = 1  # noqa\n")
    result = run([str(tmp_path / "a.py"), str(tmp_path / "b.py")], settings(), jobs=1)
    assert [(d.path, d.site.line, d.code) for d in result.diagnostics] == [(lib_site.path, 4, "TFS101")]

"""Each rule's documentation is tested three ways.

1. Shape: every rule module has a RuleInfo whose code and name match its file, and whose examples
   carry the `# error: CODE` marker.
2. TensorFlow: the `bad` example of a raising rule raises at the marked line with TensorFlow's
   message; a silent rule's `bad` example prints the silent effect it documents (each `print` line
   ends in `# prints: <expected stdout line>`), and every `good` example runs clean.  All examples
   run in one child process, so TensorFlow is imported once.
3. Analyzer: scopelint's own analysis of `bad` reports exactly the marked line, and of `good` nothing.
"""
from __future__ import annotations

import importlib
import importlib.util
import json
import re
import subprocess
import sys
from functools import lru_cache
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:  # `rules/` is importable as `rules` from a source checkout
    sys.path.insert(0, str(REPO))

from scopelint.diagnostics import SEVERITIES, RuleInfo  # noqa: E402
from scopelint.trace import EVENT_KINDS, RAISING_KINDS, Event, Related, Site, Trace  # noqa: E402

RULES_DIR = REPO / "rules"

# The catalogue's rule -> trace event kind table (design.md, EVENT_KINDS in trace.py).
EVENT_KIND_OF: dict[str, str] = {
    "TFS101": "already_exists",
    "TFS102": "does_not_exist",
    "TFS103": "shared_mismatch",
    "TFS104": "reuse_false_ignored",
    "TFS105": "sticky_reuse",
    "TFS106": "reuse_param_ignored",
    "TFS107": "invalid_arguments",
    "TFS201": "variable_ignores_reuse",
    "TFS202": "unnamed_layer_duplicated",
    "TFS203": "template_per_call",
    "TFS204": "keras_ignores_reuse",
    "TFS205": "rnn_cell_reused",
    "TFS206": "unintended_sharing",
    "TFS301": "name_scope_ignored",
    "TFS302": "scope_prefix_repeated",
    "TFS303": "empty_name_segment",
    "TFS304": "case_only_clash",
    "TFS401": "device_setter_unused",
    "TFS402": "device_setter_bad_argument",
    "TFS404": "device_setter_returns_none",
    "TFS405": "local_session_for_cluster_graph",
    "TFS407": "device_function_in_tf2_device",
    "TFS412": "session_without_device_filters",
}
# Rules that report an event only with its consequence (issue 9 item 6): the event alone is not a
# finding; they are tested on hand-built traces below.
CONSEQUENCE_CODES = ("TFS105",)
# Rules that read the trace's setters and placements (Trace.setters, Trace.placements) instead of
# one event kind.
TRACE_RULE_CODES = ("TFS403", "TFS406", "TFS408", "TFS409", "TFS410", "TFS411")
# Rules whose documentation this file holds to the full contract (examples run and analysed).
DOCUMENTED_CODES = ("TFS000", *EVENT_KIND_OF, *TRACE_RULE_CODES)

# What the `bad` example of a raising rule must raise: accepted exception types, message fragment.
RAISES: dict[str, tuple[tuple[str, ...], str]] = {
    "TFS000": (("SyntaxError",), ""),  # Python refuses the file before TensorFlow is involved
    "TFS101": (("ValueError",), "already exists, disallowed"),
    "TFS102": (("ValueError",), "does not exist, or was not created with tf.get_variable()"),
    "TFS103": (("ValueError",), "Trying to share variable"),
    "TFS107": (("TypeError", "ValueError"), "reuse=True cannot be used without a name_or_scope"),
    "TFS402": (("TypeError",), "got an unexpected keyword argument 'task_index'"),
    "TFS407": (("RuntimeError",), "tf.device does not support functions."),
}
# Rules whose effect is a wait, not an exception or a printed value: their examples would hang a
# plain TensorFlow process.  TFS412's is shown by `verify --workers 2` (tests/test_verify_device_filters.py).
HANGING_CODES = ("TFS412",)
RUN_CODES = tuple(code for code in DOCUMENTED_CODES if code not in HANGING_CODES)
SILENT_CODES = tuple(code for code in RUN_CODES if code not in RAISES)

MARKER = re.compile(r"#\s*error:\s*(TFS\d{3})\b")
PRINTS = "# prints: "
KEBAB = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
EXAMPLE_HEAD = "import tensorflow.compat.v1 as tf"
MAX_EXAMPLE_LINES = 15


# --------------------------------------------------------------------------------------------------
# Loading the rule modules


def _rules_package() -> str:
    """`scopelint.rules` when installed, else the source tree's `rules` directory."""
    try:
        importlib.import_module("scopelint.rules")
        return "scopelint.rules"
    except ModuleNotFoundError as error:
        if error.name != "scopelint.rules":
            raise
    return "rules"


@lru_cache(maxsize=1)
def rule_modules() -> dict[str, ModuleType]:
    """File stem -> module, for every `rules/tfs*.py`."""
    package = _rules_package()
    return {path.stem: importlib.import_module(f"{package}.{path.stem}") for path in sorted(RULES_DIR.glob("tfs*.py"))}


def module_for(code: str) -> ModuleType:
    matches = [module for module in rule_modules().values() if module.RULE.code == code]
    assert len(matches) == 1, f"{code}: expected one rule module, found {len(matches)}"
    return matches[0]


def common_module() -> ModuleType:
    return importlib.import_module(f"{_rules_package()}._common")


def marked_lines(source: str) -> list[tuple[int, str]]:
    """(1-based line, code) of every `# error: CODE` marker."""
    return [
        (number, match.group(1))
        for number, line in enumerate(source.splitlines(), start=1)
        if (match := MARKER.search(line))
    ]


def marked_line(code: str) -> int:
    [(line, _)] = marked_lines(module_for(code).RULE.bad)
    return line


def expected_prints(source: str) -> list[str]:
    return [line.rsplit(PRINTS, 1)[1].rstrip() for line in source.splitlines() if PRINTS in line]


# --------------------------------------------------------------------------------------------------
# 1. Shape of every rule module


@pytest.mark.parametrize("stem", sorted(path.stem for path in RULES_DIR.glob("tfs*.py")))
def test_rule_info_matches_its_file(stem: str) -> None:
    module = rule_modules()[stem]
    info = module.RULE
    assert isinstance(info, RuleInfo)
    assert callable(module.check)
    number, _, snake = stem.partition("_")
    assert info.code == number.upper() and re.fullmatch(r"TFS\d{3}", info.code)
    assert info.name == snake.replace("_", "-") and KEBAB.match(info.name)
    assert info.severity in SEVERITIES
    for field_name in ("summary", "rationale", "bad", "good"):
        assert getattr(info, field_name).strip(), f"{info.code}: empty {field_name}"
    assert "\n" not in info.summary.strip()


def test_rule_codes_and_names_are_unique() -> None:
    infos = [module.RULE for module in rule_modules().values()]
    assert len({info.code for info in infos}) == len(infos)
    assert len({info.name for info in infos}) == len(infos)


def test_event_kind_table_matches_the_trace_schema() -> None:
    assert set(EVENT_KIND_OF.values()) == set(EVENT_KINDS) - {"parse_error"}
    raising_codes = {code for code, kind in EVENT_KIND_OF.items() if kind in RAISING_KINDS}
    assert set(RAISES) == raising_codes | {"TFS000"}


@pytest.mark.parametrize("code", DOCUMENTED_CODES)
def test_examples_are_documented(code: str) -> None:
    info = module_for(code).RULE
    assert marked_lines(info.bad) == [(marked_line(code), code)]
    assert marked_lines(info.good) == []
    for example in (info.bad, info.good):
        assert example.startswith(EXAMPLE_HEAD + "\n")
        assert len(example.splitlines()) <= MAX_EXAMPLE_LINES
    assert 3 <= len(info.rationale.strip().splitlines()) <= 8
    compile(info.good, f"<{code}-good>", "exec")
    if code == "TFS000":
        with pytest.raises(SyntaxError) as raised:
            compile(info.bad, f"<{code}-bad>", "exec")
        assert raised.value.lineno == marked_line(code)
    else:
        compile(info.bad, f"<{code}-bad>", "exec")


@pytest.mark.parametrize("code", SILENT_CODES)
def test_silent_rule_examples_show_their_effect(code: str) -> None:
    """A silent rule's examples print what differs; otherwise the docs would show nothing."""
    info = module_for(code).RULE
    assert expected_prints(info.bad), f"{code}: bad example prints nothing"
    assert expected_prints(info.good), f"{code}: good example prints nothing"
    assert expected_prints(info.bad) != expected_prints(info.good)


# --------------------------------------------------------------------------------------------------
# 2. The examples under real TensorFlow

# Runs in the child: every example in a fresh default graph, TF1 graph mode, stdout captured.
_RUNNER = r"""
import contextlib, io, json, os, sys, traceback
os.environ["TF_USE_LEGACY_KERAS"] = "1"
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import tensorflow.compat.v1 as tf
tf.disable_eager_execution()
examples_path, results_path = sys.argv[1], sys.argv[2]
with open(examples_path) as handle:
    examples = json.load(handle)
results = {}
for key, source in examples.items():
    filename = "<" + key + ">"
    printed = io.StringIO()
    outcome = {"error": None, "message": "", "line": None}
    try:
        program = compile(source, filename, "exec")
        with tf.Graph().as_default(), contextlib.redirect_stdout(printed):
            exec(program, {"__name__": "__main__"})
    except SyntaxError as error:
        outcome.update(error="SyntaxError", message=str(error.msg), line=error.lineno)
    except Exception as error:
        lines = [frame.lineno for frame in traceback.extract_tb(error.__traceback__) if frame.filename == filename]
        outcome.update(error=type(error).__name__, message=str(error), line=lines[-1] if lines else None)
    outcome["stdout"] = printed.getvalue().splitlines()
    results[key] = outcome
with open(results_path, "w") as handle:
    json.dump(results, handle)
"""


@pytest.fixture(scope="module")
def tf_outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """`CODE-bad` / `CODE-good` -> {error, message, line, stdout} from one TensorFlow process."""
    if importlib.util.find_spec("tensorflow") is None:  # importorskip without paying the import here
        pytest.skip("tensorflow is not installed")
    folder = tmp_path_factory.mktemp("rule_examples")
    examples = {}
    for code in RUN_CODES:
        info = module_for(code).RULE
        examples[f"{code}-bad"] = info.bad
        examples[f"{code}-good"] = info.good
    (folder / "examples.json").write_text(json.dumps(examples))
    completed = subprocess.run(
        [sys.executable, "-c", _RUNNER, str(folder / "examples.json"), str(folder / "results.json")],
        capture_output=True, text=True, timeout=600,
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    return json.loads((folder / "results.json").read_text())


@pytest.mark.parametrize("code", RUN_CODES)
def test_bad_example_under_tensorflow(code: str, tf_outcomes: dict[str, dict[str, Any]]) -> None:
    outcome = tf_outcomes[f"{code}-bad"]
    if code in RAISES:
        accepted, fragment = RAISES[code]
        assert outcome["error"] in accepted, outcome
        assert fragment in outcome["message"], outcome
        assert outcome["line"] == marked_line(code), outcome
    else:
        assert outcome["error"] is None, outcome
        assert outcome["stdout"] == expected_prints(module_for(code).RULE.bad)


@pytest.mark.parametrize("code", RUN_CODES)
def test_good_example_under_tensorflow(code: str, tf_outcomes: dict[str, dict[str, Any]]) -> None:
    outcome = tf_outcomes[f"{code}-good"]
    assert outcome["error"] is None, outcome
    assert outcome["stdout"] == expected_prints(module_for(code).RULE.good)


# --------------------------------------------------------------------------------------------------
# 3. The examples under scopelint's analysis (skipped per test until the interpreter exists)


def analyze(source: str) -> Trace:
    pytest.importorskip("scopelint.analysis.interpreter")
    from scopelint.analysis import analyze_source

    return analyze_source(source, "example.py")


@pytest.mark.parametrize("code", DOCUMENTED_CODES)
def test_bad_example_is_reported_at_the_marked_line(code: str) -> None:
    module = module_for(code)
    if code == "TFS000":
        pytest.importorskip("scopelint.analysis.interpreter")
        from scopelint.analysis import ParseFailure, analyze_source

        with pytest.raises(ParseFailure) as failure:
            analyze_source(module.RULE.bad, "example.py")
        assert failure.value.line == marked_line(code)
        return
    diagnostics = list(module.check(analyze(module.RULE.bad)))
    assert [(d.code, d.site.line) for d in diagnostics] == [(code, marked_line(code))], diagnostics
    assert diagnostics[0].site.path == "example.py"


@pytest.mark.parametrize("code", DOCUMENTED_CODES)
def test_good_example_is_clean(code: str) -> None:
    module = module_for(code)
    trace = analyze(module.RULE.good)  # TFS000: parsing must succeed
    assert list(module.check(trace)) == []


@pytest.mark.parametrize("code", sorted(set(RAISES) - {"TFS000"}))
def test_predicted_message_quotes_tensorflow(code: str, tf_outcomes: dict[str, dict[str, Any]]) -> None:
    """The analyzer's message carries TensorFlow's own first line, store key included."""
    module = module_for(code)
    diagnostics = list(module.check(analyze(module.RULE.bad)))
    assert diagnostics, f"{code}: nothing reported"
    tf_first_line = tf_outcomes[f"{code}-bad"]["message"].splitlines()[0]
    assert diagnostics[0].message.startswith(common_module().RAISES_LEAD)
    assert tf_first_line in diagnostics[0].message


# --------------------------------------------------------------------------------------------------
# 4. The shared events -> diagnostics mapping, on hand-built traces


def site(line: int) -> Site:
    return Site("model.py", line, 5, line, 30)


FIRST_CREATED = Related(site(3), "first created here")
EXISTS_MESSAGE = (
    "Variable enc/dense/kernel already exists, disallowed. "
    "Did you mean to set reuse=True or reuse=tf.AUTO_REUSE in VarScope?"
)


def test_certain_raising_event_becomes_a_diagnostic() -> None:
    common = common_module()
    info = module_for("TFS101").RULE
    trace = Trace("model.py", events=[Event("already_exists", site(9), EXISTS_MESSAGE, related=(FIRST_CREATED,))])
    [diagnostic] = common.report_events(trace, info, "already_exists")
    assert (diagnostic.code, diagnostic.name, diagnostic.severity) == ("TFS101", info.name, "error")
    assert diagnostic.site == site(9)
    assert diagnostic.related == (FIRST_CREATED,)
    assert diagnostic.certain is True
    assert diagnostic.message == "TensorFlow raises at graph build: " + EXISTS_MESSAGE


def test_uncertain_and_other_kinds_are_not_reported() -> None:
    common = common_module()
    info = module_for("TFS101").RULE
    trace = Trace(
        "model.py",
        events=[
            Event("already_exists", site(9), EXISTS_MESSAGE, certain=False),
            Event("does_not_exist", site(11), "Variable x does not exist"),
            Event("already_exists", site(12), EXISTS_MESSAGE),
        ],
    )
    assert [d.site.line for d in common.report_events(trace, info, "already_exists")] == [12]


def test_silent_event_message_is_a_plain_sentence() -> None:
    common = common_module()
    info = module_for("TFS201").RULE
    trace = Trace(
        "model.py",
        events=[
            Event("variable_ignores_reuse", site(4), "tf.Variable shared_1/w is created under reuse=True"),
            Event("variable_ignores_reuse", site(5), "each call creates a new variable  "),
            Event("variable_ignores_reuse", site(6), ""),
        ],
    )
    messages = [d.message for d in common.report_events(trace, info, "variable_ignores_reuse")]
    assert messages == [
        "tf.Variable shared_1/w is created under reuse=True.",  # an identifier keeps its spelling
        "Each call creates a new variable.",
        common.as_sentence(EVENT_KINDS["variable_ignores_reuse"]),  # no message: the kind's meaning
    ]
    assert not any(message.startswith(common.RAISES_LEAD) for message in messages)


def test_complete_trace_requirement_and_unknown_kind() -> None:
    common = common_module()
    info = module_for("TFS102").RULE
    event = Event("does_not_exist", site(7), "Variable e/t does not exist, or was not created with tf.get_variable().")
    assert common.report_events(Trace("model.py", events=[event]), info, "does_not_exist", needs_complete_trace=True)
    incomplete = Trace("model.py", events=[event], complete=False)
    assert common.report_events(incomplete, info, "does_not_exist", needs_complete_trace=True) == []
    with pytest.raises(ValueError):
        common.report_events(incomplete, info, "no_such_kind")


def test_each_rule_reports_only_its_own_certain_events() -> None:
    """One certain and one uncertain event of every kind; each rule picks out exactly its own."""
    events = []
    line_of: dict[str, int] = {}
    for number, kind in enumerate(sorted(EVENT_KINDS), start=1):
        line_of[kind] = 10 * number
        events.append(Event(kind, site(10 * number), f"message for {kind}"))
        events.append(Event(kind, site(10 * number + 1), f"message for {kind}", certain=False))
    trace = Trace("model.py", events=events)
    for code, kind in EVENT_KIND_OF.items():
        if code in CONSEQUENCE_CODES:
            assert list(module_for(code).check(trace)) == [], f"{code}: an event without consequence"
            continue
        module = module_for(code)
        reported = list(module.check(trace))
        assert [(d.code, d.severity, d.site.line) for d in reported] == [(code, module.RULE.severity, line_of[kind])]
    assert list(module_for("TFS000").check(trace)) == []
    # A certain "does not exist" was proven when its graph was still complete (model/graph.py):
    # what the program did afterwards, which may leave the trace incomplete, does not undo it.
    trace.complete = False
    assert [d.site.line for d in module_for("TFS102").check(trace)] == [line_of["does_not_exist"]]


def _failure(line: int, key: str, origin_line: int, creation: str = "get_variable", **data: object) -> Event:
    return Event("does_not_exist", site(line), f"Variable {key} does not exist, or was not created with tf.get_variable().",
                 data={"key": key, "reuse_origin": Related(site(origin_line), "reuse_variables() here"),
                       "creation": creation, **data})


def test_sticky_reuse_is_reported_with_the_creation_it_breaks() -> None:
    module = module_for("TFS105")
    sticky = Event("sticky_reuse", site(5), "reuse_variables() on the root variable scope")
    alone = Trace("model.py", events=[sticky])
    assert list(module.check(alone)) == []  # reuse on purpose that affects nothing
    slot = _failure(128, "d_h0_conv/w/Adam/", 5, "slot")
    other = _failure(130, "d_h0_conv/w/Adam_1/", 5, "slot", same_mistake=True)
    other.certain = False
    unrelated = _failure(140, "x", 7)  # reuse from somewhere else
    [diagnostic] = module.check(Trace("model.py", events=[sticky, slot, other, unrelated]))
    assert diagnostic.site == site(5)
    assert "the Adam slot `d_h0_conv/w/Adam` created at line 128 then fails" in diagnostic.message
    assert "1 more creation fails" in diagnostic.message
    assert [r.site.line for r in diagnostic.related] == [128, 130]
    # Never on a partly unknown name, never on an uncertain failure.
    unknown = _failure(128, "?/?/dense/kernel", 5, "layer")
    maybe = _failure(129, "dense/kernel", 5, "layer")
    maybe.certain = False
    assert list(module.check(Trace("model.py", events=[sticky, unknown, maybe]))) == []


# --- the generated pages that every rule URL points at -----------------------------------------------


def test_rule_pages_are_up_to_date() -> None:
    """docs/rules/ holds exactly what `python -m scopelint.rule_docs` writes from the rule modules."""
    from scopelint import engine
    from scopelint.rule_docs import rule_pages

    expected = rule_pages(engine.known_rules())
    folder = REPO / "docs" / "rules"
    committed = {page.name: page.read_text(encoding="utf-8") for page in folder.glob("*.md")}
    stale = sorted(name for name in expected.keys() | committed.keys() if expected.get(name) != committed.get(name))
    assert not stale, f"run `python -m scopelint.rule_docs`: {stale} differ"


def test_every_rule_url_names_its_generated_page() -> None:
    """`rule`, JSON `url` and SARIF `helpUri` pointed at a README anchor that did not exist."""
    from scopelint import engine
    from scopelint.diagnostics import DOCS_URL
    from scopelint.output.json_format import rule_url
    from scopelint.output.sarif import format_sarif
    from scopelint.engine import RunResult
    from scopelint.output.options import FormatOptions

    sarif_rules = json.loads(format_sarif(RunResult(files=[]), FormatOptions()))["runs"][0]["tool"]["driver"]["rules"]
    help_uris = {rule["id"]: rule["helpUri"] for rule in sarif_rules}
    for info in engine.known_rules():
        for url in (info.url, rule_url(info.code), help_uris[info.code]):
            assert url.startswith(DOCS_URL + "/"), url
            page = REPO / "docs" / "rules" / url[len(DOCS_URL) + 1:]
            assert page.is_file() and page.read_text(encoding="utf-8").startswith(f"# {info.code} {info.name}\n"), url
    assert DOCS_URL.endswith("/blob/main/docs/rules")  # the folder's place in the repository

"""A fake analyzer and fake rules for testing the engine, CLI and output without the interpreter.

The fake analyzer reads marker comments, one per line:
    # event: already_exists             -> an Event of that kind at this line's first non-blank column
    # event: already_exists related=2   -> the same, with a Related note pointing at line 2
    # parse-failure                     -> ParseFailure at this line
    # analyzer-crash                    -> RuntimeError from the analyzer
The fake rules turn events into diagnostics: TFS101 <- already_exists, TFS102 <- does_not_exist,
TFS201 <- variable_ignores_reuse (a warning); TFS102 raises when it sees a `boom` event.
"""
from __future__ import annotations

import re
import types

import pytest

import scopelint.analysis
from scopelint import engine
from scopelint.diagnostics import Diagnostic, RuleInfo
from scopelint.trace import Event, Related, Site, Trace

_MARKER = re.compile(r"#\s*(event: (?P<kind>\w+)(?: related=(?P<related>\d+))?|(?P<parse>parse-failure)|(?P<crash>analyzer-crash))")


def fake_analyze_source(source: str, path: str) -> Trace:
    trace = Trace(path=path)
    for number, line in enumerate(source.splitlines(), start=1):
        match = _MARKER.search(line)
        if match is None:
            continue
        if match["parse"]:
            raise scopelint.analysis.ParseFailure("invalid syntax", number, 5)
        if match["crash"]:
            raise RuntimeError("the fake analyzer crashed")
        column = len(line) - len(line.lstrip()) + 1
        end = match.start() if line[: match.start()].strip() else len(line) + 1
        site = Site(path, number, column, number, max(end, column + 1))
        related = ()
        if match["related"]:
            other = int(match["related"])
            related = (Related(Site(path, other, 1, other, 2), "first created"),)
        trace.events.append(Event(kind=match["kind"], site=site, message=f"{match['kind']} here", related=related))
    return trace


def _info(code: str, name: str, severity: str = "error") -> RuleInfo:
    return RuleInfo(code=code, name=name, severity=severity, summary=f"summary of {name}",
                    rationale=f"why {name}", bad="import tensorflow as tf\nbad()\n", good="import tensorflow as tf\ngood()\n")


def _event_rule(info: RuleInfo, kind: str, explode_on: str | None = None) -> types.ModuleType:
    module = types.ModuleType(f"fake_{info.code.lower()}")
    module.RULE = info

    def check(trace: Trace):
        if explode_on and trace.events_of(explode_on):
            raise ValueError(f"{info.code} exploded")
        return [
            Diagnostic(code=info.code, name=info.name, severity=info.severity, message=event.message,
                       site=event.site, related=event.related)
            for event in trace.events_of(kind)
        ]

    module.check = check
    return module


def fake_rule_modules() -> tuple[types.ModuleType, ...]:
    from scopelint.rules import tfs900_unused_noqa

    return (
        _event_rule(_info("TFS101", "variable-already-exists"), "already_exists"),
        _event_rule(_info("TFS102", "variable-does-not-exist"), "does_not_exist", explode_on="boom"),
        _event_rule(_info("TFS201", "variable-ignores-reuse", "warning"), "variable_ignores_reuse"),
        tfs900_unused_noqa,
    )


@pytest.fixture
def fake_analyzer(monkeypatch: pytest.MonkeyPatch) -> None:
    """Replace the analyzer and the rule set; TFS000 comes from the engine's fallback RuleInfo."""
    monkeypatch.setattr(scopelint.analysis, "analyze_source", fake_analyze_source)
    modules = fake_rule_modules()
    monkeypatch.setattr(engine, "_rule_modules", lambda: modules)


TF_HEADER = "import tensorflow.compat.v1 as tf\n"

"""The unreached-functions phase recorded in one run of a module and replayed in another
(analysis/replay.py) gives exactly the traces that running it again gives."""
from __future__ import annotations

import dataclasses
import textwrap
from pathlib import Path

import pytest

from scopelint.analysis import paths, replay

PROGRAMS = Path(__file__).parent / "fixtures" / "programs"


GAN = textwrap.dedent('''
    import tensorflow.compat.v1 as tf
    flags = tf.app.flags
    flags.DEFINE_boolean("train", False, "")
    flags.DEFINE_string("dataset", "celebA", "")
    FLAGS = flags.FLAGS
    REGISTRY = []

    def unused_builder(x, reuse=False):
        with tf.variable_scope("unused"):
            REGISTRY.append(1)
            return tf.get_variable("w", [3])

    def depends_on_registry(x, reuse=False):
        if len(REGISTRY) > 1:
            tf.get_variable("v", [1])

    def other_unused(x):
        return tf.get_variable("w", [len(REGISTRY)])

    def main(_):
        if FLAGS.dataset == "mnist":
            tf.get_variable("m", [1])
        if FLAGS.train:
            REGISTRY.append(2)
            other_unused(1)
        with tf.variable_scope("d"):
            tf.get_variable("w", [2])

    tf.app.run()
''')


def test_replayed_phase_equals_a_real_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(replay, "MIN_REUSED_STEPS", 0)
    with_memo = paths.analyze(GAN, "gan.py")
    monkeypatch.setattr(replay, "run_unreached",
                        lambda interp, module, env, memo: interp.run_unreached_functions(module, env))
    without = paths.analyze(GAN, "gan.py")
    assert len(with_memo.other_paths) >= 2
    assert _plain(with_memo) == _plain(without)
    # The state the phase starts from matters: with --train, main() grew REGISTRY, so that
    # depends_on_registry creates a variable (and its unused `reuse` is reported) in that run only.
    ignored = [[e for e in run.events if e.kind == "reuse_param_ignored" and "depends_on_registry" in e.message]
               for run in [with_memo, *with_memo.other_paths]]
    assert [bool(found) for found in ignored] == [False, False, True, True]


def _memos_made(monkeypatch: pytest.MonkeyPatch) -> list[replay.PhaseMemo]:
    """The PhaseMemo of every module explored from now on, in order."""
    memos: list[replay.PhaseMemo] = []
    original = replay.PhaseMemo

    def made() -> replay.PhaseMemo:
        memo = original()
        memos.append(memo)
        return memo

    monkeypatch.setattr(replay, "PhaseMemo", made)
    return memos


def test_the_phase_is_reused_when_the_state_is_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    memos = _memos_made(monkeypatch)
    monkeypatch.setattr(replay, "MIN_REUSED_STEPS", 0)  # this phase is small: reuse it all the same
    paths.analyze(GAN, "gan.py")
    # The --dataset=mnist run leaves the same unreached functions in the same state; --train
    # reaches other_unused and changes REGISTRY, so its phase runs again.
    assert memos and memos[0].recordings and memos[0].reused >= 1


@pytest.mark.parametrize("program", sorted(PROGRAMS.glob("*/*.py")), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_program_fixtures_same_with_and_without_replay(program: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(program.parent)
    monkeypatch.setattr(replay, "MIN_REUSED_STEPS", 0)
    source = program.read_text()
    with_memo = _plain(paths.analyze(source, program.name))
    monkeypatch.setattr(replay, "run_unreached",
                        lambda interp, module, env, memo: interp.run_unreached_functions(module, env))
    assert with_memo == _plain(paths.analyze(source, program.name))


def _plain(trace: object) -> str:
    def strip(d: dict) -> dict:
        d.pop("steps", None)
        d["other_paths"] = [strip(o) for o in d["other_paths"]]
        return d
    return repr(strip(dataclasses.asdict(trace)))  # type: ignore[call-overload]


# The imported modules' namespaces are compared only when the phase read them: a module whose
# globals differ between runs (t2t's mlperf_log adds a log handler when $COMPLIANCE_FILE is set)
# does not keep the phase from being reused when no unreached function looks at it.
LOGGING = textwrap.dedent('''
    import os
    LOG_FILE = os.environ.get("COMPLIANCE_FILE")
    if LOG_FILE:
        HANDLER = "file"

    def log_file():
        return LOG_FILE
''')

USES_LOGGING_NOWHERE = textwrap.dedent('''
    import tensorflow.compat.v1 as tf
    import logging_setup

    def builder(x):
        with tf.variable_scope("b"):
            return tf.get_variable("w", [3])

    def other(x):
        return tf.get_variable("w", [2])
''')

USES_LOGGING = textwrap.dedent('''
    import tensorflow.compat.v1 as tf
    import logging_setup

    def builder(x, reuse=False):
        if logging_setup.LOG_FILE:
            with tf.variable_scope("b"):
                return tf.get_variable("w", [3])
''')
# The same read, made by a function of the module from its own globals.
USES_LOGGING_THROUGH_ITS_FUNCTION = textwrap.dedent('''
    import tensorflow.compat.v1 as tf
    from logging_setup import log_file

    def builder(x, reuse=False):
        if log_file():
            with tf.variable_scope("b"):
                return tf.get_variable("w", [3])
''')

# Two modules holding one list in one run and two equal lists in the other: walked apart they
# spell the same, so which objects they share is compared too.
REGISTRY = "REG = []\n"
MAYBE_ALIAS = textwrap.dedent('''
    import os
    import registry
    if os.environ.get("ALIAS"):
        SHARED = registry.REG
    else:
        SHARED = []
''')
USES_ALIAS = textwrap.dedent('''
    import tensorflow.compat.v1 as tf
    import registry
    import maybe_alias

    def builder(x, reuse=False):
        registry.REG.append(1)
        if len(maybe_alias.SHARED) > 0:
            return tf.get_variable("w", [1])
''')


def _project(folder: Path, files: dict[str, str]) -> None:
    for name, source in files.items():
        (folder / name).write_text(source)


def _with_and_without_replay(main: str, monkeypatch: pytest.MonkeyPatch) -> tuple[object, object, int]:
    memos = _memos_made(monkeypatch)
    monkeypatch.setattr(replay, "MIN_REUSED_STEPS", 0)
    with_memo = paths.analyze(main, "main.py")
    monkeypatch.setattr(replay, "run_unreached",
                        lambda interp, module, env, memo: interp.run_unreached_functions(module, env))
    return with_memo, paths.analyze(main, "main.py"), memos[0].reused


def test_a_module_the_phase_does_not_read_may_differ(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _project(tmp_path, {"logging_setup.py": LOGGING})
    monkeypatch.chdir(tmp_path)
    with_memo, without, reused = _with_and_without_replay(USES_LOGGING_NOWHERE, monkeypatch)
    assert [run.condition.label for run in with_memo.other_paths] == ["when $COMPLIANCE_FILE is set"]
    assert reused == 1
    assert _plain(with_memo) == _plain(without)


@pytest.mark.parametrize("main", [USES_LOGGING, USES_LOGGING_THROUGH_ITS_FUNCTION], ids=["attribute", "global"])
def test_a_module_the_phase_reads_is_compared(main: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _project(tmp_path, {"logging_setup.py": LOGGING})
    monkeypatch.chdir(tmp_path)
    with_memo, without, reused = _with_and_without_replay(main, monkeypatch)
    assert reused == 0
    assert _plain(with_memo) == _plain(without)
    # builder() creates a variable (and ignores its `reuse`) only when $COMPLIANCE_FILE is set
    assert [_kinds(run) for run in [with_memo, *with_memo.other_paths]] == [set(), {"reuse_param_ignored"}]


def test_modules_sharing_an_object_are_told_from_modules_holding_equal_ones(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _project(tmp_path, {"registry.py": REGISTRY, "maybe_alias.py": MAYBE_ALIAS})
    monkeypatch.chdir(tmp_path)
    with_memo, without, reused = _with_and_without_replay(USES_ALIAS, monkeypatch)
    assert reused == 0
    assert _plain(with_memo) == _plain(without)
    assert [_kinds(run) for run in [with_memo, *with_memo.other_paths]] == [set(), {"reuse_param_ignored"}]


def _kinds(trace: object) -> set[str]:
    return {event.kind for event in trace.events if event.kind == "reuse_param_ignored"}  # type: ignore[attr-defined]

"""The interpreter on small programs: parse failures, unknown values, bounded work."""
from __future__ import annotations

import pytest

from scopelint.analysis import ParseFailure, analyze_source


def test_parse_failure_uses_pythons_message_and_position() -> None:
    with pytest.raises(ParseFailure) as failure:
        analyze_source('import tensorflow as tf\nprint "x"\n', "old.py")
    assert (failure.value.line, failure.value.column) == (2, 1)
    assert "Missing parentheses in call to 'print'" in failure.value.message


def test_or_with_an_unknown_operand_stays_unknown() -> None:
    # `scope or "Linear"` with an unknown scope is either value: no argument error may follow.
    source = (
        "import tensorflow.compat.v1 as tf\n"
        "def linear(x, scope=None):\n"
        "    with tf.variable_scope(scope or 'Linear'):\n"
        "        return tf.get_variable('w', [2])\n"
    )
    trace = analyze_source(source, "m.py")
    assert [event for event in trace.events if event.certain] == []


def test_nested_unknown_loops_stay_bounded() -> None:
    loops = "".join("    " * depth + f"for i{depth} in xs{depth}:\n" for depth in range(1, 25))
    source = "import tensorflow.compat.v1 as tf\ndef f(xs1):\n" + loops + "    " * 25 + "tf.get_variable('w', [1])\n"
    trace = analyze_source(source, "deep.py")  # used to take exponential time
    assert all(not record.certain for record in trace.variables)


def test_partial_names_from_unknown_format_arguments() -> None:
    source = (
        "import tensorflow.compat.v1 as tf\n"
        "import sys\n"
        "n = len(sys.argv)\n"
        "with tf.variable_scope('tower_%d' % n):\n"
        "    w = tf.get_variable('w', [2])\n"
    )
    trace = analyze_source(source, "m.py")
    assert [(record.name, record.certain) for record in trace.variables] == [("tower_?/w", False)]


def test_relative_and_circular_project_imports(tmp_path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text(
        "import tensorflow.compat.v1 as tf\n"
        "from . import b\n"
        "def block(name):\n"
        "    with tf.variable_scope(name):\n"
        "        return tf.get_variable('w', [2])\n"
    )
    (package / "b.py").write_text("from . import a\nSCOPE = 'enc'\n")  # a cycle: a -> b -> a
    main = package / "main.py"
    main.write_text(
        "import tensorflow.compat.v1 as tf\n"
        "from .a import block\n"
        "from .b import SCOPE\n"
        "block(SCOPE)\n"
        "block(SCOPE)\n"
    )
    trace = analyze_source(main.read_text(), str(main))
    assert [record.name for record in trace.variables] == ["enc/w"]
    errors = [event for event in trace.events if event.kind == "already_exists" and event.certain]
    assert len(errors) == 1 and errors[0].site.path == str(package / "a.py") and errors[0].site.line == 5


@pytest.mark.parametrize(
    ("literal", "value"),
    [('"a"', "a"), ("'b'", "b"), ('"""doc"""', "doc"), ("r'x\\y'", "x\\y"), ('"a\\nb"', "a\nb"),
     ("u'z'", "z"), ("''", ""), ("b'x'", None)],
)
def test_string_literals(literal: str, value: str | None) -> None:
    from scopelint.analysis.interpreter import _string_literal
    from scopelint.analysis.values import UNKNOWN

    assert _string_literal(literal) == (UNKNOWN if value is None else value)


def test_an_imported_module_is_reused_only_while_unchanged(tmp_path) -> None:
    lib = tmp_path / "lib.py"
    lib.write_text("SCOPE = 'one'\n")
    main = tmp_path / "main.py"
    main.write_text(
        "import tensorflow.compat.v1 as tf\n"
        "from lib import SCOPE\n"
        "with tf.variable_scope(SCOPE):\n"
        "    tf.get_variable('w', [1])\n"
    )
    assert [r.name for r in analyze_source(main.read_text(), str(main)).variables] == ["one/w"]
    lib.write_text("SCOPE = 'second'\n")  # a different size, so the stamp changes whatever the clock
    assert [r.name for r in analyze_source(main.read_text(), str(main)).variables] == ["second/w"]


def test_estimator_model_fn_builds_its_own_graph_per_call() -> None:
    source = (
        "import tensorflow.compat.v1 as tf\n"
        "def model_fn(features, labels, mode, params):\n"
        "    w = tf.get_variable('w', [params['units'], 1])\n"
        "    loss = tf.reduce_sum(w)\n"
        "    if mode == tf.estimator.ModeKeys.TRAIN:\n"
        "        op = tf.train.AdamOptimizer(0.1).minimize(loss)\n"
        "        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=op)\n"
        "    return tf.estimator.EstimatorSpec(mode, loss=loss)\n"
        "estimator = tf.estimator.Estimator(model_fn, params={'units': 3})\n"
        "estimator.train(input_fn=None)\n"
        "estimator.evaluate(input_fn=None)\n"
    )
    trace = analyze_source(source, "est.py")
    by_graph: dict[int, list[str]] = {}
    for record in trace.variables:
        assert record.certain
        by_graph.setdefault(record.graph, []).append(record.name)
    assert by_graph == {1: ["w", "beta1_power", "beta2_power", "w/Adam", "w/Adam_1"], 2: ["w"]}
    assert trace.final_graph == 0 and trace.final_variables() == [] and trace.complete


def test_flag_values_are_their_defaults_and_each_choice_is_a_path() -> None:
    source = (
        "import tensorflow.compat.v1 as tf\n"
        "flags = tf.flags\n"
        "FLAGS = flags.FLAGS\n"
        "flags.DEFINE_bool('do_train', False, 'train')\n"
        "if FLAGS.do_train:\n"
        "    w = tf.get_variable('w', [1])\n"
        "if FLAGS.undeclared:\n"  # defined nowhere the analysis sees: unknown, not truthy
        "    v = tf.get_variable('v', [1])\n"
    )
    trace = analyze_source(source, "flags.py")
    assert [(record.name, record.certain) for record in trace.variables] == [("v", False)]
    assert trace.condition is not None and trace.condition.label == "with the default flags"
    [train] = trace.other_paths
    assert train.condition is not None and train.condition.label == "when --do_train"
    assert train.condition.argv == ("--do_train",)
    assert [(record.name, record.certain) for record in train.variables] == [("w", True), ("v", False)]

"""Project classes derived from Keras Layer/Model (analysis/user_layers.py): named at construction,
built at the first call under their name scope, called under the caller's variable scope.

The expected names are TensorFlow's (tf_keras 2.21, graph mode); the two fixtures
tests/fixtures/rules/tfs101_*keras_layer* are also run under TensorFlow by the oracle tests."""
from __future__ import annotations

import textwrap

from scopelint.analysis import analyze_source
from scopelint.engine import CheckSettings, check_source, known_rules

SETTINGS = CheckSettings(enabled=frozenset(info.code for info in known_rules()))
HEADER = "import tensorflow.compat.v1 as tf\nfrom tensorflow.keras.layers import Layer\n"


def names(body: str) -> list[tuple[str, bool]]:
    trace = analyze_source(HEADER + textwrap.dedent(body), "m.py")
    return [(record.name, record.certain) for record in trace.variables]


def findings(body: str) -> list[tuple[str, int, str | None]]:
    result = check_source((HEADER + textwrap.dedent(body)).encode(), "m.py", SETTINGS)
    return [(d.code, d.site.line, d.condition) for d in result.diagnostics]


def test_names_come_from_the_class_name_and_follow_the_name_scope() -> None:
    # TF: outer/keras_dense/b, then the second call of the same object builds nothing;
    # a class without __init__ takes Keras's (name=...); HTTPLayer2D -> http_layer2d.
    assert names("""\
        class KerasDense(Layer):
            def build(self, input_shape):
                self.b = self.add_weight("b", shape=[int(input_shape[-1])])
            def call(self, x):
                return x + self.b
        class HTTPLayer2D(KerasDense):
            pass
        x = tf.zeros([2, 5])
        with tf.variable_scope("outer"):
            layer = KerasDense()
            layer(x)
            layer(x)
        KerasDense(name="mine")(x)
        HTTPLayer2D()(x)
        KerasDense()(x)
        """) == [("outer/keras_dense/b", True), ("mine/b", True), ("http_layer2d/b", True),
                 ("keras_dense_1/b", True)]


def test_get_variable_in_call_runs_at_every_call() -> None:
    # TF: the second call raises "Variable w already exists" (Keras opens no variable scope).
    assert findings("""\
        class InCall(Layer):
            def call(self, x):
                return tf.matmul(x, tf.get_variable("w", [5, 4]))
        layer = InCall()
        x = tf.zeros([2, 5])
        layer(x)
        layer(x)
        """) == [("TFS101", 5, "on every path")]


def test_add_weight_in_init_has_no_layer_scope() -> None:
    # TF: k (made in __init__, before any call) and nested/z.
    assert names("""\
        class InInit(Layer):
            def __init__(self):
                super().__init__(name="ii")
                self.k = self.add_weight("k", shape=[3], initializer="zeros")
            def call(self, x):
                return x
        class Nested(Layer):
            def __init__(self):
                super().__init__()
                self.inner = InInit()
            def build(self, input_shape):
                self.z = self.add_weight(name="z", shape=(int(input_shape[-1]),))
                super().build(input_shape)
            def call(self, x):
                return self.inner(x) * self.z
        Nested()(tf.zeros([2, 5]))
        """) == [("k", True), ("nested/z", True)]


def test_a_layer_first_called_on_one_branch_builds_for_certain_only_if_it_was_not_built() -> None:
    # Called in a branch that may not run, then for certain: the second build may or may not
    # happen, so nothing is certain about it and no "already exists" is claimed.
    assert findings("""\
        import random
        class Dense(Layer):
            def build(self, input_shape):
                self.w = tf.get_variable("w", [int(input_shape[-1]), 2])
            def call(self, x):
                return tf.matmul(x, self.w)
        layer = Dense()
        x = tf.zeros([2, 5])
        if random.random() > 0.5:
            layer(x)
        layer(x)
        """) == []
    assert names("""\
        import random
        class Dense(Layer):
            def build(self, input_shape):
                self.w = self.add_weight("w", [int(input_shape[-1]), 2])
            def call(self, x):
                return tf.matmul(x, self.w)
        layer = Dense()
        x = tf.zeros([2, 5])
        if random.random() > 0.5:
            layer(x)
        layer(x)
        """) == [("dense/w", False), ("dense_1/w", False)]


def test_the_layer_name_and_built_flag_read_as_keras_sets_them() -> None:
    assert names("""\
        class Probe(Layer):
            def call(self, x):
                if self.built and self.name == "probe":
                    tf.get_variable("seen", [1])
                return x
        Probe()(tf.zeros([1]))
        """) == [("seen", True)]


def test_a_user_dunder_call_still_wins() -> None:
    assert names("""\
        class Own(Layer):
            def build(self, input_shape):
                tf.get_variable("never", [1])
            def __call__(self, x):
                return tf.get_variable("own", [1])
        Own()(tf.zeros([1]))
        """) == [("own", True)]


def test_tf_layers_subclass_names_its_scope_at_the_first_call() -> None:
    # TF: self.name is my_dense_1 (one-based), the scopes my_dense and outer/my_dense; the second
    # call of the same object re-enters my_dense with reuse, so get_variable in call() shares.
    assert names("""\
        class MyDense(tf.layers.Layer):
            def build(self, input_shape):
                self.k = self.add_weight("kernel", [int(input_shape[-1]), 4])
            def call(self, x):
                if self.name == "my_dense_1":
                    tf.get_variable("in_call", [1])
                return tf.matmul(x, self.k)
        x = tf.zeros([2, 5])
        layer = MyDense()
        layer(x)
        layer(x)
        with tf.variable_scope("outer"):
            MyDense()(x)
        """) == [("my_dense/kernel", True), ("my_dense/in_call", True), ("outer/my_dense/kernel", True)]


def test_subclasses_of_concrete_keras_layers_build_what_the_base_builds() -> None:
    # TF: scaled_dense/kernel [3, 4] and bias from Dense's build (the subclass overrides call only);
    # gated/kernel, gated/bias by super().build, then its own gated/gate [5] from self.units;
    # a second call of the same object builds nothing.
    assert names("""\
        class ScaledDense(tf.keras.layers.Dense):
            def __init__(self, units, scale, **kwargs):
                super().__init__(units, **kwargs)
                self.scale = scale
            def call(self, inputs):
                return super().call(inputs) * self.scale
        class Gated(tf.keras.layers.Dense):
            def build(self, input_shape):
                super().build(input_shape)
                self.gate = self.add_weight("gate", shape=[self.units])
        x = tf.zeros([2, 3])
        layer = ScaledDense(4, 2.0)
        y = layer(x)
        layer(x)
        Gated(5, name="gated")(y)
        """) == [("scaled_dense/kernel", True), ("scaled_dense/bias", True), ("gated/kernel", True),
                 ("gated/bias", True), ("gated/gate", True)]
    trace = analyze_source(HEADER + textwrap.dedent("""\
        class Wide(tf.keras.layers.Dense):
            pass
        out = Wide(7)(tf.zeros([2, 3]))
        Wide(1)(out)
        """), "m.py")
    assert [(record.name, record.shape) for record in trace.variables] == [
        ("wide/kernel", (3, 7)), ("wide/bias", (7,)), ("wide_1/kernel", (7, 1)), ("wide_1/bias", (1,))]

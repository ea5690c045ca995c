"""Known gaps of the interpreter (issue 9, item 8), each on a few lines of code."""
from __future__ import annotations

from scopelint.analysis import analyze_source


def _names(source: str, certain_only: bool = True) -> list[str]:
    trace = analyze_source(source, "m.py")
    return [record.name for record in trace.variables if record.certain or not certain_only]


def _certain_kinds(source: str) -> list[str]:
    trace = analyze_source(source, "m.py")
    return [event.kind for event in trace.events if event.certain]


def test_return_inside_a_contextmanager_body_runs_the_generators_finally() -> None:
    source = (
        "import contextlib\n"
        "import tensorflow.compat.v1 as tf\n"
        "@contextlib.contextmanager\n"
        "def scoped(name):\n"
        "    try:\n"
        "        with tf.variable_scope(name):\n"
        "            yield\n"
        "    finally:\n"
        "        tf.get_variable('closed', [1])\n"
        "def build():\n"
        "    with scoped('s'):\n"
        "        w = tf.get_variable('w', [1])\n"
        "        return w\n"
        "    tf.get_variable('never', [1])\n"
        "build()\n"
        "tf.get_variable('after', [1])\n"
    )
    assert _names(source) == ["s/w", "closed", "after"]


def test_a_contextmanager_that_never_yields_ends_the_run() -> None:
    source = (
        "import contextlib\n"
        "import tensorflow.compat.v1 as tf\n"
        "@contextlib.contextmanager\n"
        "def broken():\n"
        "    tf.get_variable('before', [1])\n"
        "with broken():\n"
        "    tf.get_variable('body', [1])\n"
    )
    assert _names(source) == ["before"]


def test_introspection_stays_unknown_where_it_is_not_proven() -> None:
    # A class with an unknown base may have any attribute and ancestor; an instance handed to code
    # the analysis does not follow (setattr here) may have gained attributes there.
    source = (
        "import tensorflow.compat.v1 as tf\n"
        "from somewhere import Layer, NAME\n"
        "class A(Layer):\n"
        "    pass\n"
        "class B:\n"
        "    pass\n"
        "a = A()\n"
        "b = B()\n"
        "setattr(b, NAME, 1)\n"
        "if isinstance(a, dict):\n"
        "    tf.get_variable('w1', [1])\n"
        "if hasattr(a, 'x'):\n"
        "    tf.get_variable('w2', [1])\n"
        "if not hasattr(b, 'y'):\n"
        "    tf.get_variable('w3', [1])\n"
        "if callable(a):\n"
        "    tf.get_variable('w4', [1])\n"
        "if not hasattr(B(), 'y'):\n"
        "    tf.get_variable('w5', [1])\n"
    )
    trace = analyze_source(source, "m.py")
    assert [(r.name, r.certain) for r in trace.variables] == [
        ("w1", False), ("w2", False), ("w3", False), ("w4", False), ("w5", True)]


def test_super_in_a_classmethod_and_a_diamond() -> None:
    source = (
        "import tensorflow.compat.v1 as tf\n"
        "class A:\n"
        "    def name(self):\n"
        "        return 'a'\n"
        "class B(A):\n"
        "    def name(self):\n"
        "        return 'b' + super().name()\n"
        "class C(A):\n"
        "    def name(self):\n"
        "        return 'c' + super().name()\n"
        "class D(B, C):\n"
        "    def name(self):\n"
        "        return 'd' + super().name()\n"
        "    @classmethod\n"
        "    def make(cls):\n"
        "        return super().__new__(cls)\n"
        "tf.get_variable(D().name(), [1])\n"
    )
    assert _names(source) == ["dbca"]


def test_containers_changed_where_the_analysis_cannot_follow_become_unknown() -> None:
    # Each container below may or may not hold what it held: a variable built from it is uncertain.
    source = (
        "import sys\n"
        "import tensorflow.compat.v1 as tf\n"
        "cond = len(sys.argv) > 5\n"
        "d = {'a': 1}\n"
        "if cond:\n"
        "    d.update(b=2)\n"
        "e = {'a': 1}\n"
        "def add(key):\n"
        "    if cond:\n"
        "        e[key] = 2\n"
        "add('b')\n"
        "alias = f = [1]\n"
        "for _ in sys.argv:\n"
        "    f += [2]\n"
        "g = [1, 2]\n"
        "g.insert(len(sys.argv), 3)\n"
        "h = {'a': 1, 'b': 2}\n"
        "if cond:\n"
        "    del h['b']\n"
        "tf.get_variable('d%d' % len(d), [1])\n"
        "tf.get_variable('e%d' % ('b' in e), [1])\n"
        "tf.get_variable('alias%d' % len(alias), [1])\n"
        "tf.get_variable('g%d' % g[-1], [1])\n"
        "tf.get_variable('h%d' % len(h), [1])\n"
    )
    trace = analyze_source(source, "m.py")
    assert [record.certain for record in trace.variables] == [False] * 5


def test_certain_mutations_stay_known_and_shared_by_aliases() -> None:
    source = (
        "import tensorflow.compat.v1 as tf\n"
        "a = b = [1]\n"
        "b += [2]\n"
        "d = {'x': 1, 'y': 2}\n"
        "del d['x']\n"
        "s = {1}\n"
        "s.add(2)\n"
        "tf.get_variable('v%d_%d_%d' % (len(a), len(d), len(s)), [1])\n"
    )
    assert _names(source) == ["v2_1_2"]


def test_a_graph_opened_in_an_unknown_branch_is_uncertain() -> None:
    source = (
        "import sys\n"
        "import tensorflow.compat.v1 as tf\n"
        "if len(sys.argv) > 5:\n"
        "    with tf.Graph().as_default():\n"
        "        tf.get_variable('w', [1])\n"
        "        tf.get_variable('w', [1])\n"
        "with tf.Graph().as_default():\n"
        "    tf.get_variable('v', [1])\n"
    )
    trace = analyze_source(source, "m.py")
    assert [(r.name, r.certain) for r in trace.variables] == [("w", False), ("v", True)]
    assert [e.kind for e in trace.events if e.certain] == []


def test_a_certain_creation_after_the_graph_became_incomplete_is_present_for_sure() -> None:
    source = (
        "import tensorflow.compat.v1 as tf\n"
        "import unknown_lib\n"
        "unknown_lib.build(tf.placeholder(tf.float32, [1]))\n"  # may create anything
        "tf.get_variable('w', [1])\n"
        "tf.get_variable('w', [1])\n"
        "tf.get_variable(unknown_lib.NAME, [1])\n"
    )
    trace = analyze_source(source, "m.py")
    assert [(e.kind, e.site.line) for e in trace.events if e.certain] == [("already_exists", 5)]


def test_an_imported_module_is_fresh_for_each_analysed_file(tmp_path) -> None:
    # One file's analysis sets a class attribute of a shared module: the next file must not see it.
    (tmp_path / "helper.py").write_text(
        "import tensorflow.compat.v1 as tf\n"
        "class Builder:\n"
        "    reuse = False\n"
        "    def build(self):\n"
        "        with tf.variable_scope('net', reuse=Builder.reuse):\n"
        "            tf.get_variable('w', [1])\n"
        "        Builder.reuse = True\n"
    )
    source = "import tensorflow.compat.v1 as tf\nfrom helper import Builder\nBuilder().build()\n"
    first = analyze_source(source, str(tmp_path / "a.py"))
    second = analyze_source(source, str(tmp_path / "b.py"))
    assert [e.kind for e in first.events if e.certain] == [e.kind for e in second.events if e.certain] == []
    assert [r.name for r in second.variables if r.certain] == ["net/w"]


_UNKNOWN_TEST = "import tensorflow.compat.v1 as tf\nflag = open('f.txt').read()\n"


def test_a_return_in_a_branch_that_may_not_run_makes_the_result_unknown() -> None:
    # `name(flag)` is 'disc' or 'gen': the second creation collides only on one of the paths.
    source = _UNKNOWN_TEST + (
        "def name(x):\n"
        "    if x:\n"
        "        return 'disc'\n"
        "    return 'gen'\n"
        "with tf.variable_scope(name(flag)):\n"
        "    tf.get_variable('w', [1])\n"
        "tf.get_variable('gen/w', [1])\n"
    )
    assert "already_exists" not in _certain_kinds(source)


def test_code_after_branches_that_all_return_or_raise_never_runs() -> None:
    source = _UNKNOWN_TEST + (
        "def name(x):\n"
        "    if x == 'a':\n"
        "        return 'disc'\n"
        "    else:\n"
        "        raise ValueError(x)\n"
        "    tf.get_variable('dead', [1])\n"
        "    tf.get_variable('dead', [1])\n"
        "with tf.variable_scope(name(flag)):\n"
        "    tf.get_variable('w', [1])\n"
    )
    assert _certain_kinds(source) == []
    # The only path that goes on is the one that returned 'disc'.
    assert _names(source) == ["disc/w"]


def test_a_raise_after_a_return_that_may_run_leaves_that_return() -> None:
    source = _UNKNOWN_TEST + (
        "def name(x):\n"
        "    if x:\n"
        "        return 'disc'\n"
        "    raise ValueError(x)\n"
        "with tf.variable_scope(name(flag)):\n"
        "    tf.get_variable('w', [1])\n"
    )
    assert _names(source) == ["disc/w"]


def test_a_finding_inside_a_contextmanager_body_names_the_calls_around_the_with() -> None:
    # The with body runs at the generator's yield, but on the caller's stack (generators.py): the
    # finding names the calls that reached the `with`, never the generator's own frame.
    source = (
        "import contextlib\n"
        "import tensorflow.compat.v1 as tf\n"
        "@contextlib.contextmanager\n"
        "def block(name):\n"
        "    with tf.variable_scope(name):\n"
        "        yield\n"
        "def layer():\n"
        "    return tf.get_variable('w', [1])\n"
        "def build():\n"
        "    with block('a'):\n"
        "        layer()\n"
        "build()\n"
        "build()\n"
    )
    trace = analyze_source(source, "m.py")
    [event] = [event for event in trace.events if event.kind == "already_exists" and event.certain]
    assert [(note.note, note.site.line if note.site else None) for note in event.related] == [
        ("second call of `build`", 13), ("second call of `layer`", 11),
        ("first created here", 8), ("first call of `build`", 12), ("first call of `layer`", 11),
    ]

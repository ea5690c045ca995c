"""The TFS4xx facts from the interpreter: what is reported, and what must stay silent."""
from __future__ import annotations

from scopelint.analysis import analyze_source

HEAD = "import tensorflow.compat.v1 as tf\n"


def kinds(source: str) -> list[tuple[str, int]]:
    trace = analyze_source(source, "m.py")
    return [(event.kind, event.site.line) for event in trace.events if event.certain and event.kind.startswith(
        ("device_", "local_session"))]


def test_setter_used_through_a_function_or_attribute_is_not_unused() -> None:
    source = HEAD + (
        "def build(device_fn):\n"
        "    with tf.device(device_fn):\n"
        "        return tf.get_variable('w', [2])\n"
        "s = tf.train.replica_device_setter(ps_tasks=2)\n"
        "build(s)\n"
        "class Config: pass\n"
        "config = Config()\n"
        "config.setter = tf.train.replica_device_setter(ps_tasks=2)\n"
        "other = tf.train.replica_device_setter(ps_tasks=2)\n"
        "print(other)\n"
    )
    assert kinds(source) == []


def test_unused_setter_in_a_loop_is_reported_once() -> None:
    source = HEAD + "for i in range(3):\n    tf.train.replica_device_setter(ps_tasks=2)\n"
    assert kinds(source) == [("device_setter_unused", 3)]


def test_bad_arguments_stop_the_program() -> None:
    trace = analyze_source(HEAD + "s = tf.train.replica_device_setter(1, '/job:ps', '/job:worker', True, None, None, None, 5)\n"
                           "w = tf.get_variable('w', [2])\n", "m.py")
    assert [(e.kind, e.data.get("error")) for e in trace.events] == [("device_setter_bad_argument", "TypeError")]
    assert trace.variables == []


def test_unknown_task_count_is_not_none() -> None:
    source = HEAD + "import sys\nn = int(sys.argv[1])\nwith tf.device(tf.train.replica_device_setter(ps_tasks=n)):\n    w = tf.get_variable('w', [2])\n"
    assert kinds(source) == []
    source = HEAD + "c = {'ps': ['a:1']}\nwith tf.device(tf.train.replica_device_setter(cluster=c, ps_device='/job:param')):\n    w = tf.get_variable('w', [2])\n"
    assert kinds(source) == [("device_setter_returns_none", 3)]


def test_sessions_with_a_target_or_a_local_graph_are_fine() -> None:
    source = HEAD + (
        "with tf.device('/job:localhost/replica:0/task:0/device:CPU:0'):\n"
        "    a = tf.get_variable('a', [2])\n"
        "s1 = tf.Session()\n"
        "with tf.device('/job:ps/task:0'):\n"
        "    b = tf.get_variable('b', [2])\n"
        "s2 = tf.Session('grpc://localhost:2222')\n"
        "s3 = tf.Session(target='grpc://localhost:2222')\n"
        "s4 = tf.InteractiveSession()\n"
    )
    assert kinds(source) == [("local_session_for_cluster_graph", 9)]


def test_tf2_device_needs_proof_of_tf2_and_an_unrebound_name() -> None:
    plain_tf2 = "import tensorflow as tf\ns = tf.compat.v1.train.replica_device_setter(ps_tasks=2)\nwith tf.device(s):\n    pass\n"
    assert kinds(plain_tf2) == [("device_function_in_tf2_device", 3)]
    # No tf.compat.v1 anywhere: the file may be TF1, whose tf.device takes functions.
    tf1 = "import tensorflow as tf\ns = tf.train.replica_device_setter(ps_tasks=2)\nwith tf.device(s):\n    pass\n"
    assert kinds(tf1) == []
    rebound = "import tensorflow as tf\ntf = tf.compat.v1\ns = tf.train.replica_device_setter(ps_tasks=2)\nwith tf.device(s):\n    pass\n"
    assert kinds(rebound) == []
    string_device = "import tensorflow as tf\nv1 = tf.compat.v1\nwith tf.device('/cpu:0'):\n    pass\n"
    assert kinds(string_device) == []

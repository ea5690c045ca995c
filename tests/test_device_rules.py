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


def test_bad_arguments_are_reported_and_the_program_goes_on() -> None:
    """After the TypeError the analysis goes on with the setter the remaining arguments give (as
    after the fix), so its other findings are visible: here it is never used (TFS401)."""
    trace = analyze_source(HEAD + "s = tf.train.replica_device_setter(1, '/job:ps', '/job:worker', True, None, None, None, 5)\n"
                           "w = tf.get_variable('w', [2])\n", "m.py")
    assert [(e.kind, e.data.get("error")) for e in trace.events] == [
        ("device_setter_bad_argument", "TypeError"), ("device_setter_unused", None)]
    assert [v.name for v in trace.variables] == ["w"]


def test_bad_keyword_with_a_discarded_result_gets_both_findings() -> None:
    source = HEAD + "tf.train.replica_device_setter(ps_tasks=2, task_index=0)\nw = tf.get_variable('w', [2])\n"
    assert kinds(source) == [("device_setter_bad_argument", 2), ("device_setter_unused", 2)]
    source = HEAD + ("s = tf.train.replica_device_setter(ps_tasks=2, task_index=0)\n"
                     "with tf.device(s):\n    w = tf.get_variable('w', [2])\n")
    trace = analyze_source(source, "m.py")
    assert [(e.kind, e.site.line) for e in trace.events] == [("device_setter_bad_argument", 2)]
    assert [(v.name, v.device) for v in trace.variables] == [("w", "/job:ps/task:0")]


def test_unknown_task_count_is_not_none() -> None:
    source = HEAD + "import sys\nn = int(sys.argv[1])\nwith tf.device(tf.train.replica_device_setter(ps_tasks=n)):\n    w = tf.get_variable('w', [2])\n"
    assert kinds(source) == []
    source = HEAD + ("c = {'ps': ['a:1']}\nwith tf.device('/job:worker/task:0'):\n"
                     "  with tf.device(tf.train.replica_device_setter(cluster=c, ps_device='/job:param')):\n"
                     "    w = tf.get_variable('w', [2])\n")
    assert kinds(source) == [("device_setter_returns_none", 4)]


def test_a_none_setter_is_reported_only_where_it_drops_an_enclosing_device() -> None:
    setter = "tf.train.replica_device_setter(cluster={'worker': ['a:1']})"
    # Nothing around it: device(None) drops nothing, every device is what it was without the setter.
    assert kinds(HEAD + f"with tf.device({setter}):\n    w = tf.get_variable('w', [2])\n") == []
    assert kinds(HEAD + f"with tf.device(''):\n  with tf.device({setter}):\n    w = tf.get_variable('w', [2])\n") == []
    # Bound to a name, entered inside a GPU scope: reported at the setter, the device() site related.
    source = HEAD + (f"s = {setter}\nwith tf.device('/gpu:0'):\n  with tf.device(s):\n"
                     "    w = tf.get_variable('w', [2])\n")
    trace = analyze_source(source, "m.py")
    [event] = trace.events
    assert (event.kind, event.site.line, event.certain) == ("device_setter_returns_none", 2, True)
    assert "'/device:GPU:0'" in event.message and [r.site.line for r in event.related] == [4]
    # A None from elsewhere is not the setter's: an unused None setter before it is no finding.
    source = HEAD + (f"unused = {setter}\nplacement = None\nwith tf.device('/gpu:0'):\n  with tf.device(placement):\n"
                     "    w = tf.get_variable('w', [2])\n")
    assert kinds(source) == [("device_setter_unused", 2)]  # TFS401 for the unused one, no TFS404
    # An enclosing device whose value is unknown: maybe dropped, never a certain finding.
    source = HEAD + (f"import somelib\nwith tf.device(somelib.device()):\n  with tf.device({setter}):\n"
                     "    w = tf.get_variable('w', [2])\n")
    assert [e.certain for e in analyze_source(source, "m.py").events if e.kind == "device_setter_returns_none"] == [False]
    # A literal device(None) says what it means.
    assert kinds(HEAD + "with tf.device('/gpu:0'):\n  with tf.device(None):\n    w = tf.get_variable('w', [2])\n") == []


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


# ---------------------------------------------------------------------------------------------
# Setters and placements in the trace, and the rules that read them (TFS403/406/408/409/410/411)

def findings(source: str, *codes: str) -> list[tuple[str, int]]:
    from scopelint.rules import rule_by_code_or_name

    trace = analyze_source(source, "m.py")
    found = []
    for code in codes:
        module = rule_by_code_or_name(code)
        assert module is not None
        found.extend((diagnostic.code, diagnostic.site.line) for diagnostic in module.check(trace))
    return found


DISTRIBUTED = ("TFS403", "TFS406", "TFS408", "TFS409", "TFS410", "TFS411")


def test_placements_link_each_variable_to_the_setter_that_ran() -> None:
    trace = analyze_source(HEAD + (
        "outside = tf.get_variable('outside', [2])\n"
        "s = tf.train.replica_device_setter(ps_tasks=2)\n"
        "with tf.device('/gpu:0'):\n"
        "    with tf.device(s):\n"
        "        a = tf.get_variable('a', [2])\n"
        "        with tf.device(None):\n"
        "            n = tf.get_variable('n', [2])\n"
        "        b = tf.get_variable('b', [2])\n"
    ), "m.py")
    assert [(s.site.line, s.ps_tasks, s.pushed, s.returns_none) for s in trace.setters] == [(3, 2, True, False)]
    rows = [(trace.variables[p.variable].name, trace.variables[p.variable].device, p.setter, p.setter_device,
             p.round_robin_task, p.next_task, p.cleared) for p in trace.placements]
    assert rows == [
        ("outside", "", None, None, None, None, False),
        ("a", "/job:ps/task:0/device:GPU:0", 0, "/job:ps/task:0", 0, 1, False),
        ("n", "", None, None, None, None, True),
        ("b", "/job:ps/task:1/device:GPU:0", 0, "/job:ps/task:1", 1, 0, False),
    ]


def test_a_variable_that_may_not_exist_makes_the_counter_unknown() -> None:
    source = HEAD + (
        "import sys\n"
        "with tf.device(tf.train.replica_device_setter(ps_tasks=2)):\n"
        "    if len(sys.argv) > 1:\n"
        "        maybe = tf.get_variable('maybe', [2])\n"
        "    after = tf.get_variable('after', [2])\n"
        "with tf.device(tf.train.replica_device_setter(ps_tasks=2)):\n"
        "    fresh = tf.get_variable('fresh', [2])\n"
    )
    trace = analyze_source(source, "m.py")
    devices = {record.name: record.device for record in trace.variables}
    assert devices["after"] == "/job:ps/task:?"  # 0 or 1, depending on the branch
    assert findings(source, *DISTRIBUTED) == []  # TFS408 needs the earlier counter


def test_outside_variable_needs_a_proven_setter_and_no_device_at_all() -> None:
    unknown_count = HEAD + (
        "import sys\n"
        "step = tf.train.get_or_create_global_step()\n"
        "with tf.device(tf.train.replica_device_setter(ps_tasks=int(sys.argv[1]))):\n"
        "    w = tf.get_variable('w', [2])\n"
    )
    assert findings(unknown_count, "TFS403") == []
    unknown_scope = HEAD + (
        "import sys\n"
        "with tf.device(sys.argv[1]):\n"
        "    step = tf.train.get_or_create_global_step()\n"
        "with tf.device(tf.train.replica_device_setter(ps_tasks=2)):\n"
        "    w = tf.get_variable('w', [2])\n"
    )
    assert findings(unknown_scope, "TFS403") == []
    other_graph = HEAD + (
        "step = tf.train.get_or_create_global_step()\n"
        "with tf.Graph().as_default():\n"
        "    with tf.device(tf.train.replica_device_setter(ps_tasks=2)):\n"
        "        w = tf.get_variable('w', [2])\n"
    )
    assert findings(other_graph, "TFS403") == []


def test_worker_device_rule_needs_a_literal_cluster_with_several_workers() -> None:
    from_flags = HEAD + (
        "import sys\n"
        "cluster = tf.train.ClusterSpec({'ps': ['a:1'], 'worker': sys.argv[1].split(',')})\n"
        "with tf.device(tf.train.replica_device_setter(cluster=cluster)):\n"
        "    w = tf.get_variable('w', [2])\n"
    )
    assert findings(from_flags, "TFS406") == []
    unused = HEAD + "s = tf.train.replica_device_setter(cluster={'ps': ['a:1'], 'worker': ['b:1', 'c:1']})\n"
    assert findings(unused, "TFS406") == []  # TFS401's business
    partial = HEAD + (
        "import sys\n"
        "c = {'ps': ['a:1'], 'worker': ['b:1', 'c:1']}\n"
        "with tf.device(tf.train.replica_device_setter(cluster=c, worker_device='/job:worker/task:' + sys.argv[1])):\n"
        "    w = tf.get_variable('w', [2])\n"
    )
    assert findings(partial, "TFS406") == []


def test_load_imbalance_threshold_and_unknowns() -> None:
    setter = "with tf.device(tf.train.replica_device_setter(ps_tasks=2)):\n"
    # 4 MiB against 0: reported; 600 KiB against 0: under the 1 MiB difference.
    assert findings(HEAD + setter + "    big = tf.get_variable('big', [1024, 1024])\n", "TFS409") == [("TFS409", 2)]
    assert findings(HEAD + setter + "    small = tf.get_variable('small', [150, 1024])\n", "TFS409") == []
    # 4 MiB against 2.5 MiB: under twice the lightest.
    assert findings(HEAD + setter + "    a = tf.get_variable('a', [1024, 1024])\n"
                    "    b = tf.get_variable('b', [640, 1024])\n", "TFS409") == []
    # A variable of unknown dtype size, or something unmodelled that may create variables: silent.
    assert findings(HEAD + setter + "    a = tf.get_variable('a', [1024, 1024])\n"
                    "    s = tf.get_variable('s', [2], dtype=tf.string)\n", "TFS409") == []
    assert findings(HEAD + setter + "    a = tf.get_variable('a', [1024, 1024])\n"
                    "    tf.metrics.mean(tf.ones([2]))\n", "TFS409") == []


def test_inner_scopes_and_worker_devices_are_not_leaks_or_local_on_ps() -> None:
    source = HEAD + (
        "with tf.device(tf.train.replica_device_setter(ps_tasks=2)):\n"
        "    with tf.device('/gpu:0'):\n"
        "        w = tf.get_variable('w', [2])\n"
        "    with tf.device('/job:worker/task:0'):\n"
        "        total = tf.get_local_variable('total', [])\n"
        "    with tf.device('/job:ps/task:1'):\n"
        "        pinned = tf.get_variable('pinned', [2])\n"
    )
    assert findings(source, *DISTRIBUTED) == []


def test_a_ps_tasks_flag_is_a_decision_of_tensorflow_and_the_condition_says_so() -> None:
    # ps_tasks=FLAGS.ps_tasks (default 0) inside a worker device: None only with the default, so
    # the finding holds "with the default flags", and a run with --ps_tasks=1 has none.
    source = HEAD + ("tf.app.flags.DEFINE_integer('ps_tasks', 0, '')\nFLAGS = tf.app.flags.FLAGS\n"
                     "with tf.device('/job:worker/task:0'):\n"
                     "  with tf.device(tf.train.replica_device_setter(ps_tasks=FLAGS.ps_tasks)):\n"
                     "    w = tf.get_variable('w', [2])\n")
    trace = analyze_source(source, "m.py")
    assert [(e.kind, e.site.line) for e in trace.events if e.certain] == [("device_setter_returns_none", 5)]
    assert trace.condition is not None and trace.condition.is_default
    assert [[e.kind for e in other.events if e.certain] for other in trace.other_paths] == [[]]
    assert "--ps_tasks=1" in trace.other_paths[0].condition.argv
    # No device around it: no finding on any path.
    quiet = source.replace("with tf.device('/job:worker/task:0'):\n  ", "if True:\n  ")
    trace = analyze_source(quiet, "m.py")
    assert [e for t in [trace, *trace.other_paths] for e in t.events if e.certain] == []


def test_a_rejected_setter_call_is_not_also_a_setter_returning_none() -> None:
    # ischlag's example.py with `cluster=` misspelt `cluster_spec=`: TensorFlow raises the TypeError
    # (TFS402) and returns nothing; the None of the call recovered without the keyword is ours.
    source = HEAD + (
        'cluster = tf.train.ClusterSpec({"ps": ["a:1"], "worker": ["b:1"]})\n'
        'server = tf.train.Server(cluster, job_name="worker", task_index=0)\n'
        'with tf.device(tf.train.replica_device_setter(worker_device="/job:worker/task:0", cluster_spec=cluster)):\n'
        '    w = tf.get_variable("w", [2])\n')
    found = kinds(source)
    assert any(kind == "device_setter_bad_argument" for kind, _ in found), found
    assert not any(kind == "device_setter_returns_none" for kind, _ in found), found
    fixed = source.replace("cluster_spec=", "cluster=")
    assert not any(kind.startswith("device_setter") for kind, _ in kinds(fixed)), kinds(fixed)

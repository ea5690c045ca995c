"""What every harness shares: TensorFlow 1.x as the repositories knew it, and the result line.

A harness imports a repository's own modules, stubs only its data loading and its session, builds
the graph of one command line and prints, as its last line, `OK <n> variables <digest>` (the digest
of every global variable's name, shape and device) or `RAISED <type>: <message>`.  It always exits 0.
"""
from __future__ import annotations

import hashlib
import os
import sys
import traceback
import types
from collections.abc import Callable

os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import tensorflow as real_tf  # noqa: E402

# The two names tf_slim reaches and TensorFlow 2.21 lost, as `scopelint verify` puts them back.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from scopelint.verify.tf1 import repair_what_tf_slim_reaches  # noqa: E402

repair_what_tf_slim_reaches()
v1 = real_tf.compat.v1
# TF 1.x as a whole: graph mode, `shape[1].value`, ref variables, layers that keep their input's dtype.
v1.disable_v2_behavior()


class GraphBuilt(Exception):
    """Raised by a stubbed session or training loop: the graph is complete, nothing runs."""


class _Module(types.ModuleType):
    """`tensorflow` as a TF 1.x program sees it: tf.compat.v1, with the given names added."""

    def __init__(self, name: str, base: object, extra: dict[str, object]) -> None:
        super().__init__(name)
        self._base = base
        self.__dict__.update(extra)

    def __getattr__(self, attr: str) -> object:
        return getattr(self._base, attr)


def old_tensorflow(extra: dict[str, object], nn_extra: dict[str, object] | None = None,
                   contrib: dict[str, object] | None = None) -> types.ModuleType:
    """Install `tensorflow` (and tensorflow.contrib) in sys.modules as TF 1.x code imports it."""
    nn = _Module("tensorflow.nn", v1.nn, nn_extra or {})
    module = _Module("tensorflow", v1, {"nn": nn, **extra})
    if contrib is not None:
        module.contrib = _Module("tensorflow.contrib", types.SimpleNamespace(), contrib)  # type: ignore[attr-defined]
        sys.modules["tensorflow.contrib"] = module.contrib  # type: ignore[attr-defined]
    sys.modules["tensorflow"] = module
    return module


def variables_line(graph: "v1.Graph") -> str:
    with graph.as_default():
        rows = sorted(f"{v.op.name} {v.shape.as_list()} {v.device}" for v in v1.global_variables())
    for row in rows:
        print(row)
    digest = hashlib.sha256("\n".join(rows).encode()).hexdigest()[:12]
    return f"OK {len(rows)} variables {digest}"


def run(build: Callable[[], "v1.Graph"]) -> None:
    """Print the result line of `build`, which returns the graph it built (or raises GraphBuilt
    after storing it in `built`)."""
    try:
        try:
            graph = build()
        except GraphBuilt:
            graph = built[0]
        line = variables_line(graph)
    except BaseException as error:  # noqa: BLE001: the line must say what the program raised
        traceback.print_exc(file=sys.stderr)
        message = str(error).strip().splitlines()[0] if str(error).strip() else ""
        line = f"RAISED {type(error).__name__}: {message[:200]}"
    print(line, flush=True)


built: list["v1.Graph"] = []


def stop_here(*_args: object, **_kwargs: object) -> None:
    """A stand-in for the program's session: remember the graph, stop."""
    built.append(v1.get_default_graph())
    raise GraphBuilt

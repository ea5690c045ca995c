"""The runtime oracle: run fixture programs under real TensorFlow and record what happened.

`observe(paths)` starts ONE child Python process (this file run as a script) that executes every
fixture in turn, each in a fresh default graph and a fresh `__main__` globals dict, in TF1 graph
mode, and reports the variables that exist afterwards and the first exception, if any.  The parent
never imports TensorFlow, so importing this module is cheap.

Results are cached on disk keyed by (fixture content hash, TensorFlow and tf-keras versions, runner
source hash), so only changed fixtures are re-run.
"""
from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

CHILD_TIMEOUT_SECONDS = 300
VARIABLE_COLLECTIONS = ("variables", "local_variables", "trainable_variables", "moving_average_variables")
SESSION_MARKER = "# oracle: session"

_RUNNER_ENV = {
    "TF_USE_LEGACY_KERAS": "1",
    "TF_CPP_MIN_LOG_LEVEL": "3",
    "CUDA_VISIBLE_DEVICES": "",
    "PYTHONHASHSEED": "0",
}


@dataclass
class ObservedVariable:
    name: str  # graph name without ":0"
    shape: tuple[int | None, ...] | None  # None only when even the rank is unknown
    dtype: str  # base dtype name ("float32", never "float32_ref")
    device: str
    trainable: bool
    collections: tuple[str, ...]  # subset of VARIABLE_COLLECTIONS, in that order


@dataclass
class ObservedError:
    type: str  # exception class name, e.g. "ValueError"
    message: str
    line: int  # line in the fixture of the innermost traceback frame in the fixture (0 if none)


@dataclass
class Observation:
    variables: list[ObservedVariable]
    error: ObservedError | None

    @property
    def variable_names(self) -> list[str]:
        return [variable.name for variable in self.variables]

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @staticmethod
    def from_json(data: dict[str, Any]) -> Observation:
        variables = [
            ObservedVariable(
                name=item["name"],
                shape=None if item["shape"] is None else tuple(item["shape"]),
                dtype=item["dtype"],
                device=item["device"],
                trainable=item["trainable"],
                collections=tuple(item["collections"]),
            )
            for item in data["variables"]
        ]
        error = ObservedError(**data["error"]) if data["error"] is not None else None
        return Observation(variables=variables, error=error)


class OracleFailure(RuntimeError):
    """The child process crashed, timed out or returned something unreadable."""


# ---------------------------------------------------------------------------------------------
# Parent side


def _package_version(*names: str) -> str:
    for name in names:
        try:
            return importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return "absent"


def environment_key() -> str:
    """What, besides the fixture text, decides TensorFlow's behaviour (and so the cache key)."""
    runner_hash = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:16]
    tensorflow = _package_version("tensorflow", "tensorflow-cpu")
    keras = _package_version("tf-keras", "tf_keras")
    return f"tf={tensorflow};tf-keras={keras};runner={runner_hash};py={sys.version_info[:2]}"


def _cache_file(cache_dir: Path, path: Path, env_key: str) -> Path:
    # A fixture may import the `_*.py` modules beside it: their text is part of its identity.
    imported = b"".join(helper.read_bytes() for helper in sorted(path.parent.glob("_*.py")))
    digest = hashlib.sha256(env_key.encode() + b"\0" + path.read_bytes() + b"\0" + imported).hexdigest()
    return cache_dir / f"{digest}.json"


def default_cache_dir() -> Path:
    return Path(tempfile.gettempdir()) / f"scopelint-oracle-{os.getuid()}"


def observe(
    paths: list[Path], cache_dir: Path | None = None, timeout: float = CHILD_TIMEOUT_SECONDS
) -> dict[Path, Observation]:
    """Run each fixture under TensorFlow (one child process for all uncached ones).

    Keys of the result are the given paths.  `cache_dir=None` uses a per-user temp directory; pass
    a fresh directory to force real runs.
    """
    cache_dir = cache_dir if cache_dir is not None else default_cache_dir()
    cache_dir.mkdir(parents=True, exist_ok=True)
    env_key = environment_key()
    results: dict[Path, Observation] = {}
    to_run: list[Path] = []
    for path in paths:
        cached = _cache_file(cache_dir, path, env_key)
        if cached.exists():
            try:
                results[path] = Observation.from_json(json.loads(cached.read_text()))
                continue
            except (ValueError, KeyError, TypeError):
                cached.unlink(missing_ok=True)  # a corrupt entry is simply recomputed
        to_run.append(path)
    if to_run:
        fresh = _run_child([path.resolve() for path in to_run], timeout)
        for path in to_run:
            observation = fresh[str(path.resolve())]
            _cache_file(cache_dir, path, env_key).write_text(json.dumps(observation.to_json()))
            results[path] = observation
    return results


def _run_child(paths: list[Path], timeout: float) -> dict[str, Observation]:
    env = dict(os.environ)
    env.update(_RUNNER_ENV)
    with tempfile.TemporaryDirectory(prefix="scopelint-oracle-") as tmp:
        request = Path(tmp) / "request.json"
        response = Path(tmp) / "response.json"
        request.write_text(json.dumps([str(path) for path in paths]))
        try:
            # subprocess.run kills the child when the timeout expires.
            completed = subprocess.run(
                [sys.executable, str(Path(__file__).resolve()), str(request), str(response)],
                env=env,
                cwd=tmp,
                capture_output=True,
                text=True,
                timeout=timeout,
            )
        except subprocess.TimeoutExpired as exc:
            raise OracleFailure(f"oracle child timed out after {timeout} s") from exc
        if completed.returncode != 0 or not response.exists():
            raise OracleFailure(
                f"oracle child failed with exit code {completed.returncode}:\n{completed.stderr[-4000:]}"
            )
        raw = json.loads(response.read_text())
    return {key: Observation.from_json(value) for key, value in raw.items()}


# ---------------------------------------------------------------------------------------------
# Child side: everything below runs only in the child process.


def _error_of(exc: BaseException, path: str) -> ObservedError:
    import traceback

    line = 0
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename == path and frame.lineno is not None:
            line = frame.lineno  # keep the innermost frame that belongs to the fixture
    if line == 0 and isinstance(exc, SyntaxError) and exc.filename == path:
        line = exc.lineno or 0
    return ObservedError(type=type(exc).__name__, message=str(exc), line=line)


def _variables_of(tf: Any) -> list[ObservedVariable]:
    v1 = tf.compat.v1
    graph = v1.get_default_graph()
    keys = {
        "variables": v1.GraphKeys.GLOBAL_VARIABLES,
        "local_variables": v1.GraphKeys.LOCAL_VARIABLES,
        "trainable_variables": v1.GraphKeys.TRAINABLE_VARIABLES,
        "moving_average_variables": v1.GraphKeys.MOVING_AVERAGE_VARIABLES,
    }
    members = {label: {id(v) for v in graph.get_collection(key)} for label, key in keys.items()}
    ordered: list[Any] = []
    seen: set[int] = set()
    # Global, then local; then variables that a custom `collections=` list kept out of both but
    # that still exist (trainable ones stay in TRAINABLE_VARIABLES, tf1-semantics 6.1).
    candidates = [graph.get_collection(keys[label]) for label in ("variables", "local_variables")]
    candidates += [graph.get_collection(keys[label]) for label in ("trainable_variables", "moving_average_variables")]
    for variable in (item for collection in candidates for item in collection):
        if id(variable) not in seen:
            seen.add(id(variable))
            ordered.append(variable)
    observed = []
    for variable in ordered:
        name = variable.name[:-2] if variable.name.endswith(":0") else variable.name
        dims = variable.shape.as_list() if variable.shape.rank is not None else None
        observed.append(
            ObservedVariable(
                name=name,
                shape=tuple(dims) if dims is not None else None,
                dtype=variable.dtype.base_dtype.name,
                device=variable.device,
                trainable=id(variable) in members["trainable_variables"],
                collections=tuple(label for label in VARIABLE_COLLECTIONS if id(variable) in members[label]),
            )
        )
    return observed


def _fresh_state(tf: Any, keras_backend: Any) -> None:
    """A new default graph and fresh Keras name uids, as if each fixture ran in its own process."""
    if keras_backend is not None:
        keras_backend.clear_session()  # resets the default graph, Keras graph and layer-name uids
        keras_backend.reset_uids()
    tf.compat.v1.reset_default_graph()


def _restore_behaviour(tf: Any) -> None:
    """Undo a fixture's own `disable_v2_behavior()` so that the next fixture starts alike.

    `enable_v2_behavior()` cannot be used: it re-enables eager execution, which TensorFlow refuses
    once a graph exists.  So switch back everything it switches except eager execution.
    """
    from tensorflow.python import tf2
    from tensorflow.python.compat import v2_compat
    from tensorflow.python.framework import tensor, tensor_shape
    from tensorflow.python.ops import control_flow_v2_toggles, resource_variables_toggle

    if tf2.enabled() and resource_variables_toggle.resource_variables_enabled():
        return
    tf2.enable()
    tensor_shape.enable_v2_tensorshape()
    resource_variables_toggle.enable_resource_variables()
    tensor.enable_tensor_equality()
    control_flow_v2_toggles.enable_control_flow_v2()
    for enabler_name in v2_compat._DATA_V2_CALLBACKS.list():
        v2_compat._DATA_V2_CALLBACKS.lookup(enabler_name)()
    tf.compat.v1.disable_eager_execution()


def _tf_slim_compat() -> None:
    """tf_slim 1.1 (standing in for tf.contrib.slim) against TF 2.21: its batch_norm imports
    `tf_keras.legacy_tf_layers` (now `tf_keras.src.legacy_tf_layers`) and tests `ops.Tensor`
    (now `tensor.Tensor`).  Alias both so that fixtures can use it; nothing else changes."""
    try:
        import tf_keras.src.legacy_tf_layers as legacy
        import tf_keras.src.legacy_tf_layers.normalization as normalization
    except ImportError:
        return
    sys.modules.setdefault("tf_keras.legacy_tf_layers", legacy)
    sys.modules.setdefault("tf_keras.legacy_tf_layers.normalization", normalization)
    from tensorflow.python.framework import ops, tensor

    if not hasattr(ops, "Tensor"):
        ops.Tensor = tensor.Tensor


def _child_main(request: Path, response: Path) -> None:
    import builtins

    import tensorflow as tf

    tf.compat.v1.disable_eager_execution()
    _tf_slim_compat()
    try:
        from tf_keras import backend as keras_backend
    except ImportError:
        keras_backend = None
    paths = json.loads(request.read_text())
    results: dict[str, Any] = {}
    for path in paths:
        _fresh_state(tf, keras_backend)
        source = Path(path).read_text()
        scope = {"__name__": "__main__", "__file__": path, "__builtins__": builtins}
        error = None
        folder = str(Path(path).parent)
        sys.path.insert(0, folder)  # as `python fixture.py` would: its sibling modules import
        try:
            exec(compile(source, path, "exec"), scope)
        except (Exception, SystemExit) as exc:  # noqa: BLE001 - any failure is an observation
            error = _error_of(exc, path)
        finally:
            sys.path.remove(folder)
            for name, module in list(sys.modules.items()):
                if str(getattr(module, "__file__", "") or "").startswith(folder + os.sep):
                    del sys.modules[name]  # the next fixture imports its own fresh copy
        results[path] = Observation(variables=_variables_of(tf), error=error).to_json()
        _restore_behaviour(tf)
    response.write_text(json.dumps(results))


if __name__ == "__main__":
    _child_main(Path(sys.argv[1]), Path(sys.argv[2]))

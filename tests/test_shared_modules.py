"""Project modules whose import leaves no state a file can change are shared by the files checked
in one process (shared_modules.SHARED): the modelled standard modules (`math`, `re`, `six`,
`collections`, `os`) and what they make (a compiled pattern, a namedtuple class) count as
immutable, as functions do; the lists, dicts and sets a module owns are given back to each file as
the import left them (shared_modules.py)."""
from __future__ import annotations

from pathlib import Path

import pytest

from scopelint.analysis import analyze_source, shared_modules

HELPERS = '''
import collections
import math
import os
import re
import six
import tensorflow.compat.v1 as tf

PATTERN = re.compile("[a-z]+")
MATCH = PATTERN.match
Point = collections.namedtuple("Point", "x y")
ROOT = os.path.join("a", "b")

def build(size):
    with tf.variable_scope("helper"):
        return tf.get_variable("w", [int(math.sqrt(size))])
'''
MAIN = "import tensorflow.compat.v1 as tf\nfrom helpers import build\nbuild(16)\nbuild(16)\n"


def _shared() -> list[str]:
    return sorted(Path(path).name for path, _ in shared_modules.SHARED)


def _duplicates(trace: object) -> list[tuple[str, int]]:
    return [(Path(e.site.path).name, e.site.line) for e in trace.events  # type: ignore[attr-defined]
            if e.kind == "already_exists" and e.certain]


@pytest.mark.parametrize("extra, shared", [
    ("", True),
    ("Default = collections.namedtuple('Default', 'a', defaults=((1, 2),))\n", True),
    ("Mutable = collections.namedtuple('Mutable', 'a', defaults=([],))\n", True),
    ("CACHE = {}\n", True),
    ("def dense(x, init=tf.zeros_initializer(), reuse=tf.AUTO_REUSE):\n    return x\n", True),
    ("class Config:\n    def register(self, fn):\n        return fn\n\nCONFIG = Config()\nREGISTER = CONFIG.register\n", True),
    # Not shared: an import that reads the configuration runs again in each file (its paths), and
    # a TensorFlow object belongs to the graph of the file that made it.
    ("DEBUG = os.environ.get('DEBUG')\n", False),
    ("ZERO = tf.constant(0.0)\n", False),
])
def test_a_module_of_modelled_standard_objects_is_shared(extra: str, shared: bool, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shared_modules, "SHARED", {})
    (tmp_path / "helpers.py").write_text(HELPERS + extra)
    first = analyze_source(MAIN, str(tmp_path / "main.py"))
    assert _shared() == (["helpers.py"] if shared else [])
    assert _duplicates(first) == [("helpers.py", 16)]
    # The next file gets the module from the process and finds the same
    second = analyze_source(MAIN, str(tmp_path / "other.py"))
    assert _duplicates(second) == [("helpers.py", 16)]
    assert [v.name for v in second.variables] == [v.name for v in first.variables] == ["helper/w"]


def test_a_module_that_imports_an_unshared_one_loaded_earlier_is_not_shared(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`mid` imports `logsetup`, which reads $COMPLIANCE_FILE (so it is run by every file).  A file
    that imported logsetup before mid used to share mid as pure: the next file importing mid
    alone then skipped logsetup and lost its "$COMPLIANCE_FILE is set" run (seen on tensor2tensor,
    where mlperf_log plays logsetup)."""
    from scopelint.analysis import paths

    monkeypatch.setattr(shared_modules, "SHARED", {})
    (tmp_path / "logsetup.py").write_text("import os\nLOG = os.environ.get('COMPLIANCE_FILE')\nif LOG:\n    X = 1\n")
    (tmp_path / "mid.py").write_text("import logsetup\n\ndef build():\n    return 1\n")
    later = "import tensorflow.compat.v1 as tf\nimport mid\ntf.get_variable('w', [mid.build()])\n"

    def labels(trace: object) -> list[str]:
        return [run.condition.label for run in [trace, *trace.other_paths]]  # type: ignore[attr-defined]

    alone = labels(paths.analyze(later, str(tmp_path / "b.py")))
    assert alone == ["with the default flags", "when $COMPLIANCE_FILE is set"]
    monkeypatch.setattr(shared_modules, "SHARED", {})
    paths.analyze("import tensorflow.compat.v1 as tf\nimport logsetup\nimport mid\n", str(tmp_path / "a.py"))
    assert labels(paths.analyze(later, str(tmp_path / "b.py"))) == alone


def _variables(trace: object) -> list[tuple[str, object]]:
    return [(v.name, v.shape) for v in trace.variables]  # type: ignore[attr-defined]


def _two_files(tmp_path: Path, modules: dict[str, str], main: str) -> tuple[object, list[str], object]:
    """The trace of `main` checked as a first file, the modules it left shared, and its trace
    checked again as the next file of the process."""
    for name, text in modules.items():
        (tmp_path / name).write_text(text)
    first = analyze_source(main, str(tmp_path / "main.py"))
    shared = _shared()
    return first, shared, analyze_source(main, str(tmp_path / "other.py"))


def test_a_cache_one_file_filled_is_empty_for_the_next(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """helpers keeps the variable it made in a module-level dict: the second file must start from
    the empty dict the import left, or its first call would return the first file's variable."""
    monkeypatch.setattr(shared_modules, "SHARED", {})
    helpers = ("import tensorflow.compat.v1 as tf\nCACHE = {}\n\ndef build(size):\n    if size in CACHE:\n"
               "        return CACHE[size]\n    CACHE[size] = tf.get_variable('w', [size])\n    return CACHE[size]\n")
    main = "import tensorflow.compat.v1 as tf\nfrom helpers import build\nbuild(3)\nbuild(3)\n"
    first, shared, second = _two_files(tmp_path, {"helpers.py": helpers}, main)
    assert shared == ["helpers.py"]
    assert _variables(second) == _variables(first) == [("w", (3,))]
    assert _duplicates(second) == _duplicates(first) == []


@pytest.mark.parametrize("key", ["'net'", "fn.__name__"])  # an unknown key: the dict's contents are lost
def test_a_module_that_fills_another_modules_registry_is_not_shared(
        key: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Taking `nets` from the process would not register `net` in `registry` again."""
    monkeypatch.setattr(shared_modules, "SHARED", {})
    registry = f"MODELS = {{}}\n\ndef register(fn):\n    MODELS[{key}] = fn\n    return fn\n"
    nets = ("import tensorflow.compat.v1 as tf\nimport registry\n\n@registry.register\ndef net():\n"
            "    return tf.get_variable('w', [2])\n")
    main = "import tensorflow.compat.v1 as tf\nimport registry\nimport nets\nregistry.MODELS['net']()\n"
    first, shared, second = _two_files(tmp_path, {"registry.py": registry, "nets.py": nets}, main)
    assert shared == ["registry.py"]
    assert _variables(second) == _variables(first) == ([("w", (2,))] if key == "'net'" else [])


def test_a_module_is_run_again_when_the_file_changed_what_it_reads(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`reader` counts data.FILES at import: a file that appended to the list first gets its own count."""
    monkeypatch.setattr(shared_modules, "SHARED", {})
    (tmp_path / "data.py").write_text("FILES = ['a']\n")
    (tmp_path / "reader.py").write_text("from data import FILES\nCOUNT = len(FILES)\n")
    analyze_source("import tensorflow.compat.v1 as tf\nimport reader\n", str(tmp_path / "first.py"))
    assert _shared() == ["data.py", "reader.py"]
    changed = ("import tensorflow.compat.v1 as tf\nimport data\ndata.FILES.append('b')\nimport reader\n"
               "tf.get_variable('w', [reader.COUNT])\n")
    assert _variables(analyze_source(changed, str(tmp_path / "second.py"))) == [("w", (2,))]
    plain = "import tensorflow.compat.v1 as tf\nimport reader\ntf.get_variable('w', [reader.COUNT])\n"
    assert _variables(analyze_source(plain, str(tmp_path / "third.py"))) == [("w", (1,))]


def test_an_instance_one_file_changed_is_given_back_as_the_import_left_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`CONFIG.size = 4` in the first file must not reach the second, which reads the module's 2."""
    monkeypatch.setattr(shared_modules, "SHARED", {})
    config = "class Config:\n    def __init__(self):\n        self.size = 2\n\nCONFIG = Config()\n"
    main = ("import tensorflow.compat.v1 as tf\nfrom config import CONFIG\n"
            "tf.get_variable('w', [CONFIG.size])\nCONFIG.size = 4\n")
    first, shared, second = _two_files(tmp_path, {"config.py": config}, main)
    assert shared == ["config.py"]
    assert _variables(second) == _variables(first) == [("w", (2,))]

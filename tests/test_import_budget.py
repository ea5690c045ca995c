"""Project imports are followed by a work budget, not a depth limit (issue 9 item 8).

A depth limit of 3 cut real entry points whose chains of small modules run deeper (tensor2tensor,
Sonnet, seq2seq).  Now a chain is followed however deep, up to a budget of modules and lines per
checked file; past the budget imported names stay unknown, which makes the graph incomplete and
never produces a finding.
"""
from __future__ import annotations

from pathlib import Path

from scopelint.analysis import analyze_source, project

MAIN = "import tensorflow.compat.v1 as tf\nfrom m0 import build\nbuild()\nbuild()\n"
LAST = "import tensorflow.compat.v1 as tf\n\ndef build():\n    with tf.variable_scope('deep'):\n        return tf.get_variable('w', [2])\n"


def write_chain(folder: Path, length: int) -> None:
    """m0 -> m1 -> ... -> m{length-1}, each re-exporting `build`; the last defines it."""
    for index in range(length - 1):
        (folder / f"m{index}.py").write_text(f"from m{index + 1} import build\n")
    (folder / f"m{length - 1}.py").write_text(LAST)


def duplicates(folder: Path) -> list[tuple[str, int]]:
    trace = analyze_source(MAIN, str(folder / "main.py"))
    return [(Path(e.site.path).name, e.site.line) for e in trace.events if e.kind == "already_exists" and e.certain]


def test_a_deep_chain_of_small_modules_is_followed(tmp_path: Path) -> None:
    length = 40  # far beyond the old depth limit of 3, within the module budget
    assert length < project.MAX_IMPORTED_MODULES
    write_chain(tmp_path, length)
    assert duplicates(tmp_path) == [(f"m{length - 1}.py", 5)]


def test_past_the_module_budget_imports_stay_unknown(tmp_path: Path, monkeypatch) -> None:
    within, beyond = tmp_path / "within", tmp_path / "beyond"  # two folders: no module cached across
    for folder in (within, beyond):
        folder.mkdir()
        write_chain(folder, 8)
    monkeypatch.setattr(project, "MAX_IMPORTED_MODULES", 8)
    assert duplicates(within) == [("m7.py", 5)]
    monkeypatch.setattr(project, "MAX_IMPORTED_MODULES", 5)
    trace = analyze_source(MAIN, str(beyond / "main.py"))
    assert [e for e in trace.events if e.certain and e.kind == "already_exists"] == []
    assert trace.variables == []  # `build` is unknown past the budget: nothing is predicted


def test_a_chain_beyond_the_module_budget_does_not_crash(tmp_path: Path) -> None:
    write_chain(tmp_path, project.MAX_IMPORTED_MODULES + 20)
    trace = analyze_source(MAIN, str(tmp_path / "main.py"))
    assert [e for e in trace.events if e.certain and e.kind == "already_exists"] == []


def test_a_module_shared_across_files_spends_the_budget_as_its_import_would(tmp_path: Path, monkeypatch) -> None:
    """Project modules whose import is pure are shared by the files checked in one process; the
    next file must still see what its own imports would give it, whatever was checked before:
    restoring m3 with m4..m7 past this file's budget made `build` known (an order-dependent
    finding, seen on tensor2tensor's video tests)."""
    from scopelint.analysis import shared_modules

    write_chain(tmp_path, 8)
    (tmp_path / "f0.py").write_text("X = 1\n")
    main = "import tensorflow.compat.v1 as tf\nimport f0\nfrom m0 import build\nbuild()\nbuild()\n"
    monkeypatch.setattr(project, "MAX_IMPORTED_MODULES", 5)
    monkeypatch.setattr(shared_modules, "SHARED", {})
    alone = analyze_source(main, str(tmp_path / "main.py"))
    assert [e for e in alone.events if e.certain and e.kind == "already_exists"] == []
    monkeypatch.setattr(shared_modules, "SHARED", {})
    analyze_source("import tensorflow.compat.v1 as tf\nfrom m3 import build\n", str(tmp_path / "other.py"))
    after_other = analyze_source(main, str(tmp_path / "main.py"))
    assert [e for e in after_other.events if e.certain and e.kind == "already_exists"] == []
    assert after_other.variables == alone.variables

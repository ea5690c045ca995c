"""The HTML pages, rendered by headless Chromium: `layout --output-format html` and the migration
report.  The numbers and widths come from the browser's layout (tests/browser.py)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import browser
from scopelint.cli import main

REPO = Path(__file__).resolve().parents[1]
PARTITIONED = REPO / "tests/fixtures/devices/setter_partitioned_variables.py"
MIGRATE_PROJECT = REPO / "tests/fixtures/migrate/project"
WINDOW = 1400

READ_LAYOUT = """
const text = cell => cell.innerText.trim();
const variables = [...document.querySelectorAll('table.variables tbody tr')].map(row => [...row.cells].map(text));
const tasks = [...document.querySelectorAll('table.tasks tbody tr')].map(row => ({
  cells: [...row.cells].map(text),
  track: row.querySelector('.track').getBoundingClientRect().width,
  bytesBar: row.querySelector('.bar.bytes').getBoundingClientRect().width,
  countBar: row.querySelector('.bar.count').getBoundingClientRect().width,
}));
document.getElementById('measured').textContent = JSON.stringify({
  variables, tasks, width: document.documentElement.scrollWidth,
  headings: [...document.querySelectorAll('h2')].map(text)});
"""


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    main(list(args))
    return capsys.readouterr().out


def _self_contained(page: str) -> None:
    assert "<script" not in page.lower()
    assert not re.search(r'(?:src|href)="(?!#)', page), "the page loads or links nothing outside itself"


@pytest.mark.parametrize("program", [PARTITIONED, REPO / "tests/fixtures/devices/tfs409_ps_load_imbalance.py",
                                     REPO / "tests/fixtures/devices/setter_optimizer_slots.py"], ids=lambda p: p.stem)
def test_layout_html_shows_the_json_numbers(capsys: pytest.CaptureFixture[str], program: Path) -> None:
    data = json.loads(_run(capsys, "layout", str(program), "--output-format", "json"))
    page = _run(capsys, "layout", str(program), "--output-format", "html")
    _self_contained(page)
    seen = browser.measure(page, READ_LAYOUT, WINDOW, 900)
    assert seen["headings"] == [data["path"]]
    assert seen["width"] <= WINDOW
    # The variable table, row by row: name, shape, dtype, exact bytes, device, kind, certain, location.
    assert len(seen["variables"]) == len(data["variables"])
    for cells, variable in zip(seen["variables"], data["variables"]):
        name, shape, dtype, exact, _size, device, kind, certain, location = cells
        assert name == variable["name"] and dtype == (variable["dtype"] or "?") and kind == variable["kind"]
        assert shape == ("?" if variable["shape"] is None else "[" + ", ".join("None" if d is None else str(d) for d in variable["shape"]) + "]")
        assert exact.replace(",", "") == ("?" if variable["bytes"] is None else str(variable["bytes"]))
        assert device == ("?" if variable["device"] is None else (variable["device"] or "(none)"))
        assert certain == ("yes" if variable["certain"] else "no") and location == variable["location"]
    # One row per ps task: bytes and count as in the JSON, each bar as long as its share of the largest.
    assert [task["cells"][0] for task in seen["tasks"]] == [task["device"] for task in data["ps_tasks"]]
    assert data["ps_tasks"], "the fixture places variables on ps tasks"
    most_bytes = max(task["bytes"] for task in data["ps_tasks"])
    most_variables = max(task["variables"] for task in data["ps_tasks"])
    for shown, task in zip(seen["tasks"], data["ps_tasks"]):
        assert shown["cells"][1].replace(",", "") == str(task["bytes"])
        assert shown["cells"][4] == str(task["variables"])
        assert shown["bytesBar"] == pytest.approx(shown["track"] * task["bytes"] / most_bytes, abs=1)
        assert shown["countBar"] == pytest.approx(shown["track"] * task["variables"] / most_variables, abs=1)


def test_layout_html_of_several_files_is_one_page(capsys: pytest.CaptureFixture[str]) -> None:
    folder = REPO / "tests/fixtures/devices"
    data = json.loads(_run(capsys, "layout", str(folder), "--output-format", "json"))
    page = _run(capsys, "layout", str(folder), "--output-format", "html")
    assert page.count("<html") == 1 and page.count("<section ") == len(data)


def test_layout_html_says_where_tensorflow_raises(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    program = tmp_path / "crash.py"
    program.write_text('import tensorflow.compat.v1 as tf\n\nw = tf.get_variable("w", [2])\nv = tf.get_variable("w", [2])\n')
    data = json.loads(_run(capsys, "layout", str(program), "--output-format", "json"))
    page = _run(capsys, "layout", str(program), "--output-format", "html")
    assert data["complete"] is False and 'data-complete="false"' in page
    assert f"TensorFlow raises at <code>{data['raises'][0]['location']}</code>" in page


MEASURE_PAGE = """
const wide = [...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > window.innerWidth + 0.5)
  .map(e => e.tagName + ':' + (e.id || e.textContent.slice(0, 40)));
const emptyHeaders = [...document.querySelectorAll('thead tr')].filter(row => ![...row.cells].some(c => c.innerText.trim())).length;
const links = [...document.querySelectorAll('a[href^="#"]')].map(a => a.getAttribute('href'));
const missing = links.filter(href => !document.getElementById(href.slice(1)));
const abbreviations = [...document.querySelectorAll('abbr')].filter(a => !a.title).length;
document.getElementById('measured').textContent = JSON.stringify({
  width: document.documentElement.scrollWidth, wide: wide.slice(0, 5), emptyHeaders, links: links.length, missing,
  abbreviations, explained: [...document.querySelectorAll('#abbreviations tbody th')].map(th => th.innerText.trim()),
  urls: [...document.querySelectorAll('a[href^="http"]')].length});
"""


def test_migration_report_fits_1400_pixels_and_explains_itself(capsys: pytest.CaptureFixture[str]) -> None:
    page = _run(capsys, "migrate", str(MIGRATE_PROJECT), "--output-format", "html")
    assert "<script" not in page.lower()
    seen = browser.measure(page, MEASURE_PAGE, WINDOW, 900)
    assert seen["width"] <= WINDOW and seen["wide"] == [], seen  # was 1645 px, the right-hand columns cut
    assert seen["emptyHeaders"] == 0  # the recipe cards had an empty header row each
    assert seen["links"] > 0 and seen["missing"] == []  # every #recipe-x reference leads to its card
    assert seen["urls"] > 0  # documentation references are links
    assert seen["abbreviations"] == 0
    for short in ("MM", "VC", "T12", "DS", "PST", "XS, S, M, L, XL"):
        assert short in seen["explained"]
    for used in set(re.findall(r"<abbr title=\"[^\"]+\">(\w+)</abbr>", page)):
        assert used in seen["explained"]


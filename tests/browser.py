"""Headless Chromium for the HTML tests: render a page and read back what the browser laid out.

`measure(page, script)` copies the page, appends the test's own measuring script (it writes JSON
into a <pre id="measured">), runs `chromium --headless --dump-dom` at the given window size and
returns the parsed JSON: the numbers come from the browser's layout (widths in pixels, text as
rendered in the DOM), not from parsing our HTML.  The page under test carries no script itself.
"""
from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
INSTALL = "apt-get install -y chromium (.ci/run installs it)"
_MEASURED = re.compile(r'<pre id="measured">(.*?)</pre>', re.DOTALL)


def find_chromium() -> str | None:
    explicit = os.environ.get("CHROMIUM")
    if explicit:
        return explicit
    for name in CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    return "/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None


def require_chromium() -> str:
    """The browser, or a skip that says why (the only reason these tests skip)."""
    found = find_chromium()
    if found is None:
        pytest.skip(f"headless Chromium not found on PATH ({', '.join(CANDIDATES)}): {INSTALL}")
    return found


def _flags(profile: str, width: int, height: int) -> list[str]:
    return ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run",
            f"--user-data-dir={profile}", f"--window-size={width},{height}", "--hide-scrollbars"]


def measure(page: str, script: str, width: int = 1400, height: int = 900) -> Any:
    """Render `page` (HTML text) in Chromium and return what `script` computed (it must set
    `document.getElementById('measured').textContent` to a JSON string)."""
    browser = require_chromium()
    with tempfile.TemporaryDirectory() as scratch:
        target = Path(scratch) / "page.html"
        probe = f'<pre id="measured"></pre><script>{script}</script>'
        target.write_text(page.replace("</body>", probe + "</body>", 1) if "</body>" in page else page + probe)
        done = subprocess.run([browser, *_flags(str(Path(scratch) / "profile"), width, height),
                               "--virtual-time-budget=5000", "--dump-dom", target.as_uri()],
                              capture_output=True, text=True, timeout=180)
        found = _MEASURED.search(done.stdout)
        assert found is not None and found.group(1), f"chromium rendered nothing: {done.stderr[-2000:]}"
        return json.loads(html.unescape(found.group(1)))


def screenshot(page: str, width: int = 1400, height: int = 900) -> bytes:
    """A PNG of the page as Chromium draws it in a window of this size."""
    browser = require_chromium()
    with tempfile.TemporaryDirectory() as scratch:
        target = Path(scratch) / "page.html"
        target.write_text(page)
        picture = Path(scratch) / "shot.png"
        subprocess.run([browser, *_flags(str(Path(scratch) / "profile"), width, height),
                        f"--screenshot={picture}", target.as_uri()], capture_output=True, timeout=180)
        assert picture.exists(), "chromium wrote no screenshot"
        return picture.read_bytes()

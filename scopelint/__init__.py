"""scopelint: a static analyzer for TensorFlow 1.x variable-scope code."""
from __future__ import annotations

from pathlib import Path

# The rule modules live in the checkout's top-level `rules/` folder, installed as `scopelint.rules`
# (setup.py's package_dir).  When this package is imported straight from a source checkout (for
# example `python -m pytest` at the root, which puts the checkout first on sys.path), let
# `scopelint.rules` resolve to that folder too.
_checkout_rules = Path(__file__).resolve().parent.parent / "rules"
if (_checkout_rules / "__init__.py").is_file() and not (Path(__file__).parent / "rules").exists():
    __path__.append(str(_checkout_rules.parent))  # type: ignore[name-defined]

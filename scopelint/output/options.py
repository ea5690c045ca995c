"""Choices that change how a format renders, not what it contains."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FormatOptions:
    show_source: bool = True  # full format: the source line and the underline
    unsafe_fixes: bool = False  # mark findings with an unsafe fix as fixable ([*]) too

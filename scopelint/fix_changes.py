"""What a fix changes in the program's variables, said in its message (unsafe fixes must say it).

The file is analysed before and after the fix, as scopelint predicts any program: the variables
that appear, disappear or move to another device are listed by name.
"""
from __future__ import annotations

from dataclasses import dataclass

from scopelint.trace import UNKNOWN_PART

# Names listed in a message before "and N more".
MAX_NAMES = 4


@dataclass(frozen=True)
class VariableChanges:
    added: tuple[str, ...]
    removed: tuple[str, ...]
    moved: tuple[tuple[str, str, str], ...]  # (name, device before, device after)

    def text(self) -> str:
        parts = []
        if self.moved:
            targets = sorted({after for _, _, after in self.moved})
            sources = sorted({before or "the worker (no device)" for _, before, _ in self.moved})
            if len(self.moved) <= MAX_NAMES:
                where = ", ".join(f"`{name}` to {after or 'no device'}" for name, _, after in self.moved)
                parts.append(f"moves from {', '.join(sources)}: {where}")
            else:
                parts.append(f"moves {_names([name for name, _, _ in self.moved])} from {', '.join(sources)} "
                             f"to {', '.join(targets)}")
        if self.added:
            parts.append(f"adds {_names(list(self.added))}")
        if self.removed:
            parts.append(f"no longer creates {_names(list(self.removed))}")
        return "; ".join(parts) if parts else "no variable changes"


def _names(names: list[str]) -> str:
    shown = ", ".join(f"`{name}`" for name in names[:MAX_NAMES])
    return shown + (f" and {len(names) - MAX_NAMES} more" if len(names) > MAX_NAMES else "")


def variable_changes(path: str, before: str, after: str) -> VariableChanges | None:
    """The difference between the two programs' predicted variables (certain ones, by name), or
    None when either cannot be analysed or has a partly unknown name."""
    from scopelint import analysis
    from scopelint.layout import build_layout

    try:
        old = build_layout(analysis.analyze_source(before, path)).rows
        new = build_layout(analysis.analyze_source(after, path)).rows
    except analysis.ParseFailure:
        return None
    if any(UNKNOWN_PART in row.name or not row.certain for row in (*old, *new)):
        return None
    old_devices = {row.name: row.device for row in old}
    new_devices = {row.name: row.device for row in new}
    return VariableChanges(
        added=tuple(name for name in new_devices if name not in old_devices),
        removed=tuple(name for name in old_devices if name not in new_devices),
        moved=tuple((name, old_devices[name] or "", new_devices[name] or "") for name in old_devices
                    if name in new_devices and old_devices[name] != new_devices[name]),
    )

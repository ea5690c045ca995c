"""The graph's `unique_name` algorithm (tf1-semantics 1.9): op names, name scopes, `_N` suffixes."""
from __future__ import annotations

from dataclasses import dataclass, field

from scopelint.trace import UNKNOWN_PART


@dataclass
class UniqueName:
    name: str
    certain: bool
    # The spelling already in use when the name collided only by case ("V" for a new "v").
    case_clash_with: str | None = None


@dataclass
class Namer:
    """Case-insensitive counter of names in use, as `Graph.unique_name` keeps it."""

    used: dict[str, int] = field(default_factory=dict)
    first_spelling: dict[str, str] = field(default_factory=dict)
    # Keys whose count depends on code the analysis could not follow; names derived from them are
    # reported as uncertain.
    uncertain: set[str] = field(default_factory=set)
    # Once a name with an unknown part was registered, any key might be taken.
    wildcard: bool = False

    def unique_name(self, name: str, speculative: bool = False) -> UniqueName:
        key = name.lower()
        certain = UNKNOWN_PART not in name and not self.wildcard and key not in self.uncertain
        if UNKNOWN_PART in name:
            self.wildcard = True
            return UniqueName(name, False)
        count = self.used.get(key, 0)
        self.used[key] = count + 1
        if speculative:
            self.uncertain.add(key)
        clash = None
        if count == 0:
            self.first_spelling[key] = name
            return UniqueName(name, certain)
        if self.first_spelling.get(key, name) != name:
            clash = self.first_spelling[key]
        base_key = key
        while key in self.used:
            key = f"{base_key}_{count}"
            count += 1
        self.used[key] = 1
        self.first_spelling.setdefault(key, f"{name}_{count - 1}")
        if speculative:
            self.uncertain.add(key)
        return UniqueName(f"{name}_{count - 1}", certain, clash)

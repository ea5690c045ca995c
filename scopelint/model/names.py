"""The graph's `unique_name` algorithm (tf1-semantics 1.9): op names, name scopes, `_N` suffixes."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from scopelint.trace import UNKNOWN_PART


@lru_cache(maxsize=4096)
def _pattern(name: str) -> re.Pattern[str]:
    return re.compile("^" + ".*".join(re.escape(part) for part in name.split(UNKNOWN_PART)) + "$")


def may_spell(partly_known: str, name: str) -> bool:
    """Could a name with unknown parts ("bert/encoder/layer_?/dense") be `name`?  An unknown part
    stands for any text, "/" included."""
    return _pattern(partly_known).match(name) is not None


@dataclass
class Wildcards:
    """Names registered with an unknown part: each makes uncertain only the names it may spell
    (`layer_?/dense` says nothing about `pooler/dense`)."""

    names: set[str] = field(default_factory=set)

    def add(self, name: str) -> None:
        self.names.add(name)

    def may_take(self, name: str) -> bool:
        return any(may_spell(pattern, name) for pattern in self.names)


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
    # Names registered with an unknown part (lower-cased): any key they may spell might be taken.
    wildcards: Wildcards = field(default_factory=Wildcards)

    def unique_name(self, name: str, speculative: bool = False) -> UniqueName:
        key = name.lower()
        if UNKNOWN_PART in name:
            self.wildcards.add(key)
            return UniqueName(name, False)
        certain = key not in self.uncertain and not self.wildcards.may_take(key)
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
            if self.wildcards.may_take(key):
                certain = False
        self.used[key] = 1
        self.first_spelling.setdefault(key, f"{name}_{count - 1}")
        if speculative:
            self.uncertain.add(key)
        return UniqueName(f"{name}_{count - 1}", certain, clash)

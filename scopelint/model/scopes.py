"""Variable scopes, name scopes and reuse (tf1-semantics sections 1 and 2).

Pure values and the bookkeeping TensorFlow keeps per graph: the scope-count table that hands out
default names, the current variable scope and the current name scope.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

from scopelint.model.names import Wildcards
from scopelint.model.unknown import UNKNOWN
from scopelint.trace import UNKNOWN_PART, Related


class Reuse(enum.Enum):
    FALSE = "False"
    TRUE = "True"
    AUTO = "AUTO_REUSE"
    UNKNOWN = "?"

    @property
    def allows_reuse(self) -> bool | None:
        """Whether an existing variable is returned (None: unknown)."""
        if self is Reuse.UNKNOWN:
            return None
        return self is not Reuse.FALSE

    @property
    def allows_creation(self) -> bool | None:
        if self is Reuse.UNKNOWN:
            return None
        return self is not Reuse.TRUE


def effective_reuse(parent: Reuse, requested: Reuse) -> Reuse:
    """Table 2.2: the requested value if truthy, otherwise the parent's."""
    if requested in (Reuse.TRUE, Reuse.AUTO):
        return requested
    if requested is Reuse.FALSE:
        return parent
    # Requested value unknown: it may be False (parent), True or AUTO.
    return Reuse.UNKNOWN


# Settings (partitioner, ...) whose value the analysis cannot know.
UNKNOWN_SETTING: Any = UNKNOWN


@dataclass(eq=False)
class VarScope:
    """A `VariableScope` object.  Identity matters: re-entering the same object differs from a string."""

    name: str
    reuse: Reuse
    original_name_scope: str  # with a trailing "/" or ""
    partitioner: Any = None  # a Partitioner, None, or UNKNOWN_SETTING
    dtype: str | None = None  # default dtype for get_variable ("float32" when None)
    custom_getter: bool = False  # a custom getter may rename or refuse: names below are uncertain
    is_root: bool = False
    # Where reuse=True came from when reuse is TRUE: a `reuse_variables()` call or a scope entered
    # with reuse=True, inherited by the scopes opened inside (TFS105 reads it off the failures).
    reuse_origin: Related | None = None

    @property
    def certain(self) -> bool:
        return UNKNOWN_PART not in self.name and not self.custom_getter


@dataclass
class ScopeCounts:
    """`_VariableScopeStore.variable_scopes_count`: how often each full var-scope name was opened."""

    counts: dict[str, int] = field(default_factory=dict)
    uncertain: set[str] = field(default_factory=set)
    # Scopes opened with an unknown part: each makes uncertain only the names it may spell.
    wildcards: Wildcards = field(default_factory=Wildcards)
    # Each scope name's names one level below it, every name opened and its ancestors: an exit
    # resets its subtree without scanning every count.
    children: dict[str, set[str]] = field(default_factory=dict)

    def open(self, full_name: str, speculative: bool) -> None:
        if UNKNOWN_PART in full_name:
            self.wildcards.add(full_name)
            return
        if full_name not in self.counts:
            self._link(full_name)
        self.counts[full_name] = self.counts.get(full_name, 0) + 1
        if speculative:
            self.uncertain.add(full_name)

    def close_subscopes(self, full_name: str) -> None:
        """A string scope's exit resets the counts of everything below it (rule 1.6)."""
        pending = list(self.children.get(full_name, ()))
        while pending:
            name = pending.pop()
            if name in self.counts:
                self.counts[name] = 0
            pending.extend(self.children.get(name, ()))

    def _link(self, name: str) -> None:
        while "/" in name:
            parent = name.rsplit("/", 1)[0]
            below = self.children.setdefault(parent, set())
            if name in below:
                return
            below.add(name)
            name = parent

    def unique_default(self, parent: str, prefix: str) -> tuple[str, bool]:
        """`_get_unique_variable_scope`: the first of prefix, prefix_1, ... unused under parent."""
        base = f"{parent}/{prefix}" if parent else prefix
        certain = UNKNOWN_PART not in base

        def taken(name: str) -> bool:
            nonlocal certain
            if name in self.uncertain or self.wildcards.may_take(name):
                certain = False
            return self.counts.get(name, 0) > 0

        if not taken(base):
            return prefix, certain
        index = 1
        while taken(f"{base}_{index}"):
            index += 1
        return f"{prefix}_{index}", certain

    def snapshot(self) -> dict[str, int]:
        return dict(self.counts)

    def restore(self, saved: dict[str, int]) -> None:
        self.counts = dict(saved)

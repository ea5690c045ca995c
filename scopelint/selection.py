"""Which rules are enabled: `--select`, `--extend-select`, `--ignore` and their config keys.

A selector is `ALL`, a code (`TFS101`), a code prefix (`TFS1`, `TFS`) or a rule name
(`variable-already-exists`).  As in ruff, settings come in layers (the config file, then the command
line); within a layer, more specific selectors win, and at equal specificity `ignore` beats `select`.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from scopelint.diagnostics import RuleInfo

# Rules that are off unless selected: unused-noqa only makes sense on request.
DEFAULT_DISABLED = frozenset({"TFS900"})

_CODE_PREFIX = re.compile(r"^TFS\d{0,3}$")


class SelectorError(ValueError):
    """A selector that names no rule and is no valid code prefix."""


@dataclass(frozen=True)
class Selector:
    text: str  # as the user wrote it
    codes: frozenset[str]  # the rules it names
    specificity: int  # ALL=0, TFS=1, TFS1=2, TFS10=3, full code or name=4


def parse_selector(text: str, rules: Sequence[RuleInfo]) -> Selector:
    """Resolve one selector against the known rules; raises SelectorError when it is invalid."""
    stripped = text.strip()
    if stripped.upper() == "ALL":
        return Selector(stripped, frozenset(rule.code for rule in rules), 0)
    upper = stripped.upper()
    if _CODE_PREFIX.match(upper):
        codes = frozenset(rule.code for rule in rules if rule.code.startswith(upper))
        # A complete code must name an existing rule; a shorter prefix may match none yet.
        if len(upper) == 6 and not codes:
            raise SelectorError(f"unknown rule code {stripped!r}")
        return Selector(stripped, codes, len(upper) - 2)
    for rule in rules:
        if rule.name == stripped.lower():
            return Selector(stripped, frozenset({rule.code}), 4)
    raise SelectorError(f"unknown rule selector {stripped!r} (expected ALL, a code, a code prefix or a rule name)")


def split_selectors(values: Iterable[str]) -> list[str]:
    """Flatten `["TFS1,TFS2", "TFS3"]` (repeated or comma-separated flags) into single selectors."""
    return [part.strip() for value in values for part in value.split(",") if part.strip()]


@dataclass(frozen=True)
class SelectionLayer:
    """One source of settings; `select=None` means "keep what the previous layer enabled"."""

    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()


def default_enabled(rules: Sequence[RuleInfo]) -> frozenset[str]:
    return frozenset(rule.code for rule in rules if rule.code not in DEFAULT_DISABLED)


def resolve_enabled(layers: Sequence[SelectionLayer], rules: Sequence[RuleInfo]) -> frozenset[str]:
    """The codes enabled after applying each layer in order."""
    enabled = set(default_enabled(rules))
    for layer in layers:
        if layer.select is not None:
            enabled = set()
            chosen = [*layer.select, *layer.extend_select]
        else:
            chosen = list(layer.extend_select)
        # (specificity, is_ignore): applied in ascending order, so the most specific wins and an
        # ignore applied after a select of equal specificity wins over it.
        actions = [(parse_selector(text, rules), False) for text in chosen]
        actions += [(parse_selector(text, rules), True) for text in layer.ignore]
        for selector, is_ignore in sorted(actions, key=lambda action: (action[0].specificity, action[1])):
            if is_ignore:
                enabled -= selector.codes
            else:
                enabled |= selector.codes
    return frozenset(enabled)


def resolve_codes(selectors: Iterable[str], rules: Sequence[RuleInfo]) -> frozenset[str]:
    """The union of the codes the selectors name (for per-file-ignores)."""
    codes: set[str] = set()
    for text in selectors:
        codes |= parse_selector(text, rules).codes
    return frozenset(codes)

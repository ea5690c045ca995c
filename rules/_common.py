"""The mapping every event-backed rule shares: certain events of one kind become diagnostics.

A leading underscore keeps the rule registry from taking this module for a rule.
"""
from __future__ import annotations

from collections.abc import Iterable

from scopelint.diagnostics import Diagnostic, RuleInfo
from scopelint.trace import EVENT_KINDS, RAISING_KINDS, Event, Site, Trace

# Lead-in for kinds where TensorFlow itself raises; the event message is then TensorFlow's own text.
RAISES_LEAD = "TensorFlow raises at graph build: "


def report_events(trace: Trace, rule: RuleInfo, kind: str, *, needs_complete_trace: bool = False) -> list[Diagnostic]:
    """One diagnostic per certain event of `kind`, in trace order.

    Uncertain events are never reported (precision first).  `needs_complete_trace` is for facts
    that are proven only when nothing unmodelled could have created variables ("does not exist").
    """
    if kind not in EVENT_KINDS:
        raise ValueError(f"{rule.code}: unknown event kind {kind!r}")
    if needs_complete_trace and not trace.complete:
        return []
    return [
        Diagnostic(
            code=rule.code,
            name=rule.name,
            severity=rule.severity,
            message=diagnostic_message(event),
            site=event.site,
            related=event.related,
            certain=event.certain,
        )
        for event in first_of_each(event for event in trace.events_of(kind) if event.certain)
    ]


def first_of_each(events: Iterable[Event]) -> list[Event]:
    """One event per site and message: the analysis goes on past errors, so a line that fails on
    every call of its function fails again on the next call; the user fixes it once."""
    seen: set[tuple[Site, str]] = set()
    result = []
    for event in events:
        if (event.site, event.message) not in seen:
            seen.add((event.site, event.message))
            result.append(event)
    return result


def diagnostic_message(event: Event) -> str:
    """What the user reads: TensorFlow's outcome first for raising kinds, else a plain sentence."""
    text = event.message.strip() or EVENT_KINDS.get(event.kind, event.kind)
    if event.kind in RAISING_KINDS:
        return RAISES_LEAD + text
    return as_sentence(text)


def as_sentence(text: str) -> str:
    """Closed with a full stop; capitalised only when it opens with a plain word, so that a leading
    identifier such as `tf.Variable` or `reuse=False` keeps its exact spelling."""
    if not text:
        return text
    first_word = text.split(maxsplit=1)[0]
    if first_word.isalpha() and first_word.islower():
        text = text[0].upper() + text[1:]
    return text if text[-1] in ".!?" else text + "."

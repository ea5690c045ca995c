"""The mapping every event-backed rule shares: certain events of one kind become diagnostics.

A leading underscore keeps the rule registry from taking this module for a rule.
"""
from __future__ import annotations

from scopelint.diagnostics import Diagnostic, RuleInfo
from scopelint.trace import EVENT_KINDS, RAISING_KINDS, Event, Trace

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
        for event in trace.events_of(kind)
        if event.certain
    ]


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

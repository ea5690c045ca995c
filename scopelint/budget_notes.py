"""What the user is told when the analysis of a file ran out of its work budget.

The interpreter bounds each run of a program (analysis/interpreter.py: MAX_STEPS per entry point,
MAX_TOTAL_STEPS per module), so that no file stalls a check.  A run that reaches the bound ends
there, and whatever the program does past that point goes unanalysed: "All checks passed!" for
such a file would claim more than was checked (openai/pixel-cnn's train.py builds its model 25
times with the default 8 GPUs, and its runs stop inside the second tower).  `check` prints the
note on stderr, as it does for files it could not read, and the exit code stays the findings':
the program is not at fault.
"""
from __future__ import annotations

from dataclasses import dataclass
from scopelint.trace import Site, Trace

# Test methods named in the note; the rest are counted.
_NAMED_METHODS = 3


@dataclass(frozen=True)
class BudgetNote:
    runs: int  # the configurations explored (1 when the program reads none)
    stopped_runs: int  # those whose top level the budget ended
    default_stopped: bool  # the default configuration among them
    call_site: Site | None  # the call the first of them was in (the innermost made from this file)
    function: str | None  # the function that call runs
    test_methods: tuple[str, ...] = ()  # test methods the budget ended, in any configuration


def note_of(trace: Trace) -> BudgetNote | None:
    """The note for a file's analysis (its default run and the other configurations explored), or
    None when no run reached the budget."""
    runs = [trace, *trace.other_paths]
    top_level = [[stop for stop in run.budget_stops if not stop.entry] for run in runs]
    methods = sorted({stop.entry for run in runs for stop in run.budget_stops if stop.entry})
    stopped = [stops[0] for stops in top_level if stops]
    if not stopped and not methods:
        return None
    first = stopped[0] if stopped else None
    return BudgetNote(len(runs), len(stopped), bool(top_level[0]), first.call_site if first else None,
                      first.function if first else None, tuple(methods))


def describe(note: BudgetNote) -> str:
    parts = []
    if note.stopped_runs:
        text = "the analysis stopped at its work budget"
        if note.call_site is not None and note.function is not None:
            place = f"cell {note.call_site.cell}, line {note.call_site.line}" if note.call_site.cell is not None \
                else f"line {note.call_site.line}"
            text += f" inside `{note.function}`, called at {place}"
        if note.runs > 1 and note.stopped_runs == note.runs:
            text += f", in all {note.runs} configurations explored"
        elif note.runs > 1:
            which = "the default flags among them" if note.default_stopped else "not the default flags"
            text += f", in {note.stopped_runs} of the {note.runs} configurations explored ({which})"
        parts.append(text + "; what the program does after that point is not checked")
    if note.test_methods:
        methods = note.test_methods
        named = ", ".join(methods[:_NAMED_METHODS]) + (f" and {len(methods) - _NAMED_METHODS} more"
                                                         if len(methods) > _NAMED_METHODS else "")
        if len(methods) == 1:
            parts.append(f"the analysis stopped at its work budget in 1 test method ({named}); the rest of it is not checked")
        else:
            parts.append(f"the analysis stopped at its work budget in {len(methods)} test methods ({named}); the rest "
                         "of each is not checked")
    return "; ".join(parts)

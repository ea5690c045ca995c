"""What the distributed rules (TFS403, 406, 408-411) share: reading devices, setters and placements.

A leading underscore keeps the rule registry from taking this module for a rule.  Every helper
answers None for anything unknown, so a rule that needs a value stays silent without it.
"""
from __future__ import annotations

from scopelint.diagnostics import Diagnostic, RuleInfo
from scopelint.model.devices import DeviceSpec, DeviceSpecError
from scopelint.trace import UNKNOWN_PART, Placement, Related, SetterRecord, Site, Trace, VariableRecord

from ._common import as_sentence


def spec_of(device: str | None) -> DeviceSpec | None:
    """The parsed device when it is wholly known ("" parses to the empty spec)."""
    if device is None or UNKNOWN_PART in device:
        return None
    try:
        return DeviceSpec.parse_or_none(device)
    except DeviceSpecError:
        return None


def job_of(device: str | None) -> str | None:
    spec = spec_of(device)
    return None if spec is None else spec.job


def is_known(device: str | None) -> bool:
    return spec_of(device) is not None


def working_setter(trace: Trace, index: int | None) -> SetterRecord | None:
    """The setter at `index` when it certainly ran, returned a device function and reached device()."""
    if index is None:
        return None
    setter = trace.setters[index]
    if setter.certain and setter.returns_none is False and setter.pushed:
        return setter
    return None


def ps_placed(trace: Trace, placement: Placement) -> tuple[VariableRecord, SetterRecord] | None:
    """The variable and its setter when a working setter certainly put this certain variable on the
    setter's ps job (not colocated, every device scope known)."""
    setter = working_setter(trace, placement.setter)
    record = trace.variables[placement.variable]
    if setter is None or not record.certain or not placement.known or placement.colocated:
        return None
    ps_job = job_of(setter.ps_device)
    if ps_job is None or job_of(placement.setter_device) != ps_job or job_of(record.device) != ps_job:
        return None
    return record, setter


def diagnostic(rule: RuleInfo, site: Site, message: str, related: tuple[Related, ...] = ()) -> Diagnostic:
    return Diagnostic(code=rule.code, name=rule.name, severity=rule.severity, message=as_sentence(message),
                      site=site, related=related)


def size_text(size: int) -> str:
    """Bytes as people read them: 256 B, 12.5 KiB, 24.4 MiB."""
    value = float(size)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            return f"{size} B" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    raise AssertionError("unreachable")

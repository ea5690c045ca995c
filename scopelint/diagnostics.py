"""What rules produce and what output formats print."""
from __future__ import annotations

from dataclasses import dataclass, field

from scopelint.trace import Related, Site

SEVERITIES = ("error", "warning", "info")

DOCS_URL = "https://github.com/scopelint/scopelint/blob/main/README.md#rules"


@dataclass(frozen=True)
class RuleInfo:
    """A rule's documentation: shown by `scopelint rule CODE`; its examples are tested."""

    code: str  # TFS101
    name: str  # variable-already-exists
    severity: str  # error | warning | info
    summary: str  # one line
    rationale: str  # a paragraph: what TensorFlow does and why it matters
    bad: str  # a runnable example that triggers the rule
    good: str  # the corrected example, which must not trigger it

    @property
    def url(self) -> str:
        return f"{DOCS_URL}-{self.code.lower()}"


@dataclass
class Diagnostic:
    code: str
    name: str
    severity: str
    message: str
    site: Site
    related: tuple[Related, ...] = ()
    certain: bool = True
    extra: dict = field(default_factory=dict)

    @property
    def path(self) -> str:
        return self.site.path

    @property
    def condition(self) -> str | None:
        """On which configurations it happens ("with the default flags", "when --is_train"), for
        programs that read flags, arguments or environment variables (see conditions.py)."""
        return self.extra.get("condition")

"""`azure`: Azure Pipelines logging commands, one issue per finding, shown in the run's summary.

    ##vso[task.logissue type=error;sourcepath=model.py;linenumber=7;columnnumber=17;code=TFS101;]message

Azure has only `error` and `warning` issues: `info` findings are warnings.  Values are escaped as
the agent unescapes them (`%AZP25` for `%`, `%0D`/`%0A` for line breaks, and `%3B`/`%5D` for `;`
and `]` in properties)."""
from __future__ import annotations

from scopelint.diagnostics import Diagnostic
from scopelint.engine import RunResult
from scopelint.output.paths import cell_prefix, file_lines, workspace_path
from scopelint.output.options import FormatOptions

TYPES = {"error": "error", "warning": "warning", "info": "warning"}


def escape_data(text: str) -> str:
    return text.replace("%", "%AZP25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(";", "%3B").replace("]", "%5D")


def logissue(diagnostic: Diagnostic) -> str:
    site = diagnostic.site
    properties = {
        "type": TYPES.get(diagnostic.severity, "warning"),
        "sourcepath": workspace_path(site.path),
        "linenumber": str(file_lines(site)[0]),
        "columnnumber": str(file_lines(site)[1]),
        "code": diagnostic.code,
    }
    written = "".join(f"{name}={escape_property(value)};" for name, value in properties.items())
    return f"##vso[task.logissue {written}]{escape_data(f'{cell_prefix(site)}{diagnostic.code} {diagnostic.message_with_condition}')}"


def format_azure(run: RunResult, options: FormatOptions) -> str:
    return "".join(logissue(diagnostic) + "\n" for diagnostic in run.diagnostics)

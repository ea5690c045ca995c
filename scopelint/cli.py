"""Command line: argument parsing and dispatch only.

Each subcommand is one `add_<name>_command(subparsers)` function that declares its arguments and
sets `handler` to a `command_<name>(args) -> int` function; SUBCOMMANDS maps each command's name to its
registrar, so a new subcommand (layout, verify, migrate) is one function pair and one entry there.
Exit codes, as in ruff: 0 clean, 1 findings, 2 usage or internal error.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import asdict
from pathlib import Path

from rich.text import Text

from scopelint import baseline, engine, gc_tuning
from scopelint.add_noqa import add_noqa
from scopelint.budget_notes import describe as describe_budget_note
from scopelint.cache import ResultCache
from scopelint.config import Config, ConfigError, load_config, parse_override
from scopelint.diagnostics import RuleInfo
from scopelint.fix_command import add_fix_arguments
from scopelint.output import FORMATTERS, STATISTICS_FORMATTERS, SUMMARY_FORMATS, FormatOptions, summary_line
from scopelint.output.progress import progress_bar
from scopelint.output.terminal import emit, make_console, use_styles
from scopelint.project_settings import CommandLineSettings, SettingsResolver, settings_from
from scopelint.selection import SelectorError, split_selectors

PROGRAM = "scopelint"
VERSION = "0.1.0"

EXIT_CLEAN = 0
EXIT_FINDINGS = 1
EXIT_ERROR = 2


class UsageError(Exception):
    """A problem with the command line or the configuration: exit code 2."""


def _error(message: str) -> None:
    print(f"{PROGRAM}: error: {message}", file=sys.stderr)


# ---------------------------------------------------------------------------------------------------
# check


def add_check_command(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("check", help="check files for variable-scope problems", parents=[_color_options()])
    parser.add_argument("paths", nargs="*", default=["."], metavar="PATH", help="files or directories to check ('-' reads stdin; default: .)")
    rules_group = parser.add_argument_group("rule selection (codes, code prefixes such as TFS1, rule names, or ALL; comma-separated or repeated)")
    rules_group.add_argument("--select", action="append", metavar="RULES", help="enable exactly these rules (replaces the configured selection)")
    rules_group.add_argument("--extend-select", action="append", default=[], metavar="RULES", help="enable these rules in addition")
    rules_group.add_argument("--ignore", action="append", default=[], metavar="RULES", help="disable these rules")
    rules_group.add_argument("--show-unused-noqa", action="store_true", help="report noqa directives that suppress nothing (TFS900)")
    files_group = parser.add_argument_group("file selection")
    files_group.add_argument("--exclude", action="append", metavar="GLOBS", help="exclude these globs when walking directories (replaces the defaults)")
    files_group.add_argument("--extend-exclude", action="append", default=[], metavar="GLOBS", help="exclude these globs in addition")
    files_group.add_argument("--respect-gitignore", action=argparse.BooleanOptionalAction, default=None,
                             help="skip what .gitignore files list when walking folders (default: on, inside a git work tree)")
    files_group.add_argument("--force-exclude", action=argparse.BooleanOptionalAction, default=None,
                             help="apply exclude patterns to files named on the command line too (for pre-commit)")
    files_group.add_argument("--stdin-filename", metavar="PATH", help="the name to report for source read from stdin")
    files_group.add_argument("--config", action="append", default=[], metavar="FILE|KEY=VALUE",
                             help="use this pyproject.toml or scopelint.toml for every file (default: each file's nearest); "
                                  "or override one setting in TOML, on top of any file: --config 'ignore = [\"TFS302\"]' (repeatable)")
    files_group.add_argument("--isolated", action="store_true", help="ignore any configuration file")
    files_group.add_argument("--show-files", action="store_true", help="list the files that would be checked, and check nothing")
    files_group.add_argument("--show-settings", action="store_true",
                             help="print the settings the first path is checked with (its configuration file, rules, excludes), and check nothing")
    output_group = parser.add_argument_group("output")
    output_group.add_argument("--output-format", choices=sorted(FORMATTERS), default="full", help="how findings are printed (default: full)")
    output_group.add_argument("--show-source", action=argparse.BooleanOptionalAction, default=True, help="show the source line under each finding (full format)")
    output_group.add_argument("--statistics", action="store_true", help="print the number of findings per rule instead of the findings")
    output_group.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings (usage and internal errors still exit 2)")
    output_group.add_argument("-q", "--quiet", action="store_true", help="print the findings and nothing else (no summary, progress or warnings)")
    output_group.add_argument("-s", "--silent", action="store_true", help="print nothing but errors; the exit code tells the result")
    output_group.add_argument("-v", "--verbose", action="store_true", help="show tracebacks of internal errors")
    parser.add_argument("--jobs", "-j", type=_positive_int, default=None, metavar="N", help="worker processes (default: one per core; 1 runs in-process)")
    parser.add_argument("--no-cache", action="store_true", help="neither read nor write the results cache (.scopelint_cache/ under the project root)")
    adoption_group = parser.add_argument_group("adopting on existing code")
    adoption_group.add_argument("--baseline", metavar="FILE", help="report only findings that are not in this baseline file")
    writers = adoption_group.add_mutually_exclusive_group()
    writers.add_argument("--write-baseline", metavar="FILE", help="write every current finding to this baseline file, report nothing, exit 0")
    writers.add_argument("--add-noqa", action="store_true", help="add `# noqa: CODE` to the line of every current finding, exit 0")
    add_fix_arguments(parser)
    parser.set_defaults(handler=command_check)


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {text!r}")
    return value


def _config_files(args: argparse.Namespace) -> list[str]:
    """The --config values that name files (ruff: an existing file, or a value without `=`)."""
    return [value for value in args.config if os.path.isfile(value) or "=" not in value]


def _fixed_config(args: argparse.Namespace) -> Config | None:
    """The one configuration for every file (--isolated, --config FILE), or None: each file's nearest."""
    files = _config_files(args)
    if len(files) > 1:
        raise ConfigError(f"--config names one file, not {len(files)}: {', '.join(files)}")
    if args.isolated:
        return Config(root=Path.cwd().resolve())
    if files:
        return load_config(Path(files[0]))
    return None


def _config_overrides(args: argparse.Namespace) -> dict:
    """--config KEY=VALUE settings, later ones winning."""
    overrides: dict = {}
    for value in args.config:
        if value not in _config_files(args):
            overrides.update(parse_override(value))
    return overrides


def _first_path(args: argparse.Namespace) -> str:
    first = args.paths[0] if args.paths else "."
    return (args.stdin_filename or ".") if first == engine.STDIN_PATH else first


def command_line_settings(args: argparse.Namespace) -> CommandLineSettings:
    """Raises SelectorError for `--select ""`: an empty selection would turn every rule off and pass."""
    if args.select is not None and not split_selectors(args.select):
        raise SelectorError("--select needs at least one rule selector (a code, a prefix, a rule name or ALL)")
    cli_extend = split_selectors(args.extend_select) + (["TFS900"] if args.show_unused_noqa else [])
    return CommandLineSettings(
        select=tuple(split_selectors(args.select)) if args.select is not None else None,
        extend_select=tuple(cli_extend),
        ignore=tuple(split_selectors(args.ignore)),
        exclude=tuple(split_selectors(args.exclude)) if args.exclude is not None else None,
        extend_exclude=tuple(split_selectors(args.extend_exclude)),
        respect_gitignore=args.respect_gitignore,
        force_exclude=args.force_exclude,
    )


def build_settings(args: argparse.Namespace, config: Config) -> engine.CheckSettings:
    """Config first, command line on top (ruff's layering)."""
    return settings_from(config, command_line_settings(args))


def _describe_internal_error(error: engine.InternalError) -> str:
    if error.rule is None:
        where = "the analyzer"
    else:
        info = engine.rule_info(error.rule)
        where = f"rule {error.rule}" + (f" ({info.name})" if info else "")
    return f"{PROGRAM}: internal error in {where} on {error.path}: {error.message}"


def command_check(args: argparse.Namespace) -> int:
    if args.statistics and args.output_format not in STATISTICS_FORMATTERS:
        _error(f"--statistics has no {args.output_format} form (use --output-format "
               f"{', '.join(sorted(STATISTICS_FORMATTERS))}): it would not be valid {args.output_format} output")
        return EXIT_ERROR
    try:
        resolver = SettingsResolver(command_line_settings(args), _fixed_config(args), _config_overrides(args))
        config = resolver.config_for(_first_path(args))
        settings = resolver(_first_path(args))
    except (ConfigError, SelectorError) as problem:
        _error(str(problem))
        return EXIT_ERROR
    if args.stdin_filename and engine.STDIN_PATH not in args.paths and args.paths == ["."]:
        args.paths = [engine.STDIN_PATH]  # ruff: --stdin-filename alone means "read stdin"
    if args.show_files or args.show_settings:
        return _show(args, resolver)
    if args.add_noqa and engine.STDIN_PATH in args.paths:
        _error("--add-noqa edits files and cannot be used with stdin")
        return EXIT_ERROR
    if (args.fix or args.diff) and engine.STDIN_PATH in args.paths:
        _error(f"--{'fix' if args.fix else 'diff'} works on files and cannot be used with stdin")
        return EXIT_ERROR
    known_findings = None
    if args.baseline:
        try:
            known_findings = baseline.load_baseline(Path(args.baseline))
        except baseline.BaselineError as problem:
            _error(str(problem))
            return EXIT_ERROR
    stdin_data = sys.stdin.buffer.read() if engine.STDIN_PATH in args.paths else None
    cache = None if args.no_cache else ResultCache.under(config.root, engine.analyzer_identity())
    if args.silent:
        args.quiet = True  # silent is quiet without the findings
    def run_once() -> engine.RunResult:
        bar = None if args.quiet else progress_bar(sys.stderr)
        try:
            return engine.run(args.paths, settings, jobs=args.jobs, stdin_data=stdin_data, stdin_filename=args.stdin_filename,
                              cache=cache, progress=bar, settings_for=resolver)
        finally:
            if bar is not None:
                bar.close()

    try:
        result = run_once()
    except (ConfigError, SelectorError) as problem:  # a nested configuration met during the walk
        _error(str(problem))
        return EXIT_ERROR

    for unreadable in result.read_errors:
        print(f"{PROGRAM}: {unreadable.path}: {unreadable.error}", file=sys.stderr)
    for error in result.internal_errors:
        print(_describe_internal_error(error), file=sys.stderr)
        if args.verbose:
            print(error.details, file=sys.stderr, end="")
    if result.internal_errors and not args.verbose:
        print(f"{PROGRAM}: this is a bug in scopelint; rerun with --verbose for the traceback", file=sys.stderr)
    if not args.quiet:
        for checked in result.files:
            if checked.budget_note is not None:
                print(f"{PROGRAM}: note: {checked.path}: {describe_budget_note(checked.budget_note)}", file=sys.stderr)

    if not result.files and not args.quiet and not settings.force_exclude:
        # ruff's warning: `check` of a folder with no Python file (a typo, an over-wide exclude)
        # would otherwise pass as "All checks passed!".  Not with --force-exclude: pre-commit
        # naming only excluded files is no mistake.
        print(f"{PROGRAM}: warning: no Python files found under {', '.join(args.paths)}", file=sys.stderr)
    failed = bool(result.read_errors or result.internal_errors)
    if args.write_baseline:
        try:
            written = baseline.write_baseline(result, Path(args.write_baseline))
        except OSError as problem:
            _error(f"cannot write baseline {args.write_baseline}: {problem.strerror or problem}")
            return EXIT_ERROR
        if not args.silent:
            print(f"{PROGRAM}: wrote {written} finding{'s' if written != 1 else ''} to {args.write_baseline}", file=sys.stderr)
        return EXIT_ERROR if failed else EXIT_CLEAN
    if known_findings is not None:
        result, _ = baseline.without_baselined(result, known_findings)
    if args.add_noqa:
        report = add_noqa(result)
        for path, line, why in report.skipped:
            print(f"{PROGRAM}: {path}:{line}: no noqa added: {why}", file=sys.stderr)
        if not args.silent:
            print(f"Added {report.added} noqa directive{'s' if report.added != 1 else ''}.", file=sys.stderr)
        return EXIT_ERROR if failed else EXIT_CLEAN

    fixed = None  # with --fix: how many findings were repaired
    if args.fix or args.diff:
        from scopelint import fix_command

        outcomes, problems = fix_command.run_fixes(args, result, resolver)
        for problem in problems:
            print(problem, file=sys.stderr)
        if args.diff:
            would_fix = fix_command.print_diff(outcomes)
            if not args.silent:
                if not args.unsafe_fixes:  # the fixes the patch leaves out, for the hint
                    fix_command.attach(result, args, stdin_data, resolver)
                print(fix_command.diff_summary(would_fix, result.diagnostics, args.unsafe_fixes), file=sys.stderr)
            return EXIT_ERROR if failed else (EXIT_FINDINGS if would_fix else EXIT_CLEAN)
        fix_command.write_fixed(outcomes)
        fixed = sum(len(outcome.applied) for outcome in outcomes)
        if args.show_fixes and not args.silent:
            sys.stdout.write(fix_command.show_fixes(outcomes))
        if fixed:
            result = run_once()  # what is left, as the files now are
            if known_findings is not None:
                result, _ = baseline.without_baselined(result, known_findings)
    if not args.silent and not args.statistics:
        from scopelint import fix_command

        fix_command.attach(result, args, stdin_data, resolver)

    findings = result.diagnostics
    if args.silent:
        pass
    elif args.statistics:
        emit(STATISTICS_FORMATTERS[args.output_format](result), sys.stdout, args.no_color)
    else:
        options = FormatOptions(show_source=args.show_source, unsafe_fixes=args.unsafe_fixes)
        emit(FORMATTERS[args.output_format](result, options), sys.stdout, args.no_color)
        if args.output_format in SUMMARY_FORMATS and not args.quiet:
            if findings and (args.output_format == "full" and args.show_source or args.output_format == "grouped"):
                print()
            from scopelint import fix_command

            print(fix_command.fixed_summary(fixed, findings) if fixed else summary_line(findings, result.files_unchecked))
            hint = fix_command.fix_summary(findings, args.unsafe_fixes)
            if hint:
                print(hint)

    if result.read_errors or result.internal_errors:
        return EXIT_ERROR
    if findings and not args.exit_zero:
        return EXIT_FINDINGS
    return EXIT_CLEAN


def _show(args: argparse.Namespace, resolver: SettingsResolver) -> int:
    """--show-files / --show-settings: print what a run would use instead of running."""
    from scopelint import show

    try:
        if args.show_settings:
            sys.stdout.write(show.settings_text(_first_path(args), resolver))
        if args.show_files:
            files, missing = show.files_to_check(args.paths, resolver)
            sys.stdout.write("".join(f"{path}\n" for path in files))
            for path in missing:
                print(f"{PROGRAM}: {path}: No such file or directory", file=sys.stderr)
            if missing:
                return EXIT_ERROR
    except (ConfigError, SelectorError) as problem:
        _error(str(problem))
        return EXIT_ERROR
    return EXIT_CLEAN


# ---------------------------------------------------------------------------------------------------
# rules, rule


def add_rules_command(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("rules", help="list every rule", parents=[_color_options()])
    parser.add_argument("--output-format", choices=["text", "json"], default="text")
    parser.set_defaults(handler=command_rules)


def _rule_summary_json(info: RuleInfo) -> dict[str, str]:
    return {"code": info.code, "name": info.name, "severity": info.severity, "summary": info.summary, "url": info.url}


def command_rules(args: argparse.Namespace) -> int:
    rules = engine.known_rules()
    if args.output_format == "json":
        sys.stdout.write(json.dumps([_rule_summary_json(info) for info in rules], indent=2) + "\n")
        return EXIT_CLEAN
    name_width = max((len(info.name) for info in rules), default=0)
    lines = [
        Text.assemble(
            (info.code, "bold"), "  ", (f"{info.name:<{name_width}}", "cyan"), "  ", f"{info.severity:<7}", "  ", info.summary
        )
        for info in rules
    ]
    emit(Text("\n").join(lines), sys.stdout, args.no_color)
    return EXIT_CLEAN


def add_rule_command(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("rule", help="explain one rule", parents=[_color_options()])
    parser.add_argument("rule", metavar="CODE|NAME", help="a rule code (TFS101) or name (variable-already-exists)")
    parser.add_argument("--output-format", choices=["text", "json"], default="text")
    parser.set_defaults(handler=command_rule)


def command_rule(args: argparse.Namespace) -> int:
    from rich.syntax import Syntax  # pygments: only this command needs it (30 ms of every start-up)

    info = next(
        (known for known in engine.known_rules() if known.code == args.rule.upper() or known.name == args.rule.lower()),
        None,
    )
    if info is None:
        _error(f"unknown rule {args.rule!r} (see `{PROGRAM} rules`)")
        return EXIT_ERROR
    from scopelint.fixes import fix_info

    fixing = fix_info(info.code)
    if args.output_format == "json":
        fix_json = {"applicability": fixing.applicability, "description": fixing.description} if fixing else None
        sys.stdout.write(json.dumps({**asdict(info), "url": info.url, "fix": fix_json}, indent=2) + "\n")
        return EXIT_CLEAN
    console = make_console(sys.stdout, args.no_color)
    styled = use_styles(console, args.no_color)
    heading = Text.assemble((f"{info.code} {info.name}", "bold"), f" ({info.severity})")
    sections: list[tuple[str, str]] = [("", info.summary), ("Why", info.rationale)]
    sections.append((f"Fix ({fixing.applicability})", fixing.description) if fixing
                    else ("Fix", "none: `check --fix` does not repair this rule's findings."))
    if not styled:
        parts = [heading.plain, ""]
        for title, body in sections:
            parts += ([f"{title}:"] if title else []) + [body, ""]
        for title, example in (("Bad", info.bad), ("Good", info.good)):
            parts += [f"{title}:", "", *("    " + line if line else "" for line in example.rstrip("\n").splitlines()), ""]
        parts.append(f"Documentation: {info.url}")
        sys.stdout.write("\n".join(parts) + "\n")
        return EXIT_CLEAN
    console.print(heading)
    for title, body in sections:
        console.print()
        if title:
            console.print(Text(f"{title}:", style="bold"))
        console.print(body)
    for title, example in (("Bad", info.bad), ("Good", info.good)):
        console.print()
        console.print(Text(f"{title}:", style="bold red" if title == "Bad" else "bold green"))
        console.print(Syntax(example.rstrip("\n"), "python", theme="ansi_dark", background_color="default", padding=(0, 4)))
    console.print()
    console.print(f"Documentation: {info.url}")
    return EXIT_CLEAN


# ---------------------------------------------------------------------------------------------------
# layout


def add_layout_command(subparsers: argparse._SubParsersAction) -> None:
    """`scopelint layout`: arguments and handler live in scopelint/layout_command.py."""
    from scopelint.layout_command import register

    register(subparsers, parents=[_color_options()])


# ---------------------------------------------------------------------------------------------------
# verify


def add_verify_command(subparsers: argparse._SubParsersAction) -> None:
    """`scopelint verify`: arguments and handler live in scopelint/verify/command.py."""
    from scopelint.verify.command import register

    register(subparsers, parents=[_color_options()])


# ---------------------------------------------------------------------------------------------------
# migrate


def add_migrate_command(subparsers: argparse._SubParsersAction) -> None:
    """`scopelint migrate`: arguments and handler live in scopelint/migrate/command.py."""
    from scopelint.migrate.command import register

    register(subparsers, parents=[_color_options()])


def add_server_command(subparsers: argparse._SubParsersAction) -> None:
    """`scopelint server`: the Language Server lives in scopelint/server.py."""
    from scopelint.server import register

    register(subparsers, parents=[])


# ---------------------------------------------------------------------------------------------------
# parser and entry point


def _color_options() -> argparse.ArgumentParser:
    parent = argparse.ArgumentParser(add_help=False)
    parent.add_argument("--no-color", action="store_true", default=bool(os.environ.get("NO_COLOR")), help="never use colours (default: colours on a terminal)")
    return parent


# Each command's name and registrar, in help order. A run registers its own command in full and the
# others by name only (layout, verify and the server import their modules to register, 35 ms of
# every start-up).
SUBCOMMANDS: dict[str, Callable[[argparse._SubParsersAction], None]] = {
    "check": add_check_command,
    "rules": add_rules_command,
    "rule": add_rule_command,
    "layout": add_layout_command,
    "verify": add_verify_command,
    "migrate": add_migrate_command,
    "server": add_server_command,
}


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The command-line parser; given the arguments, only the command they name is built in full."""
    parser = argparse.ArgumentParser(
        prog=PROGRAM,
        description="A linter for TensorFlow 1.x variable scopes, reuse and device placement.",
    )
    parser.add_argument("--version", action="version", version=f"{PROGRAM} {VERSION}")
    subparsers = parser.add_subparsers(title="commands", metavar="COMMAND")
    chosen = _chosen_command(argv)
    for name, register in SUBCOMMANDS.items():
        if chosen is None or name == chosen:
            register(subparsers)
        else:
            subparsers.add_parser(name)  # never parsed in this run: argparse descends into `chosen` only
    # No abbreviations (`--exit` was taken as `--exit-zero`): set on every subcommand, including
    # those registered by other modules, since argparse reads the attribute when parsing.
    parser.allow_abbrev = False
    for subparser in subparsers.choices.values():
        subparser.allow_abbrev = False
    parser.set_defaults(handler=None)
    return parser


def _chosen_command(argv: Sequence[str] | None) -> str | None:
    """The command the arguments name, or None (none yet, `--help`, or a typo argparse reports)."""
    if argv is None:
        return None
    for argument in argv:
        if argument.startswith("-"):
            return None  # `scopelint --version`, `scopelint -h check`: the whole parser
        return argument if argument in SUBCOMMANDS else None
    return None


def main(argv: Sequence[str] | None = None) -> int:
    gc_tuning.tune()
    parser = build_parser(sys.argv[1:] if argv is None else argv)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_request:  # argparse: --help, --version (0) or a usage error (2)
        return exit_request.code if isinstance(exit_request.code, int) else EXIT_ERROR
    if args.handler is None:
        parser.print_help(sys.stderr)
        return EXIT_ERROR
    try:
        return args.handler(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (`| head -1`): it had what it wanted, so this is no error (ruff exits 0
        # too).  Point stdout at /dev/null so that the interpreter's final flush raises nothing.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_CLEAN
    except Exception as error:  # a bug in scopelint outside any one file
        import traceback

        print(f"{PROGRAM}: internal error: {type(error).__name__}: {error}", file=sys.stderr)
        traceback.print_exc(file=sys.stderr)
        return EXIT_ERROR

"""`scopelint layout PATH...`: arguments and handler (the formatting is in scopelint/layout.py).

Paths are chosen as `check` chooses them: files, folders (walked with the same excludes and
.gitignore), `-` for stdin; files are decoded as Python decodes them (a PEP 263 coding line,
a BOM), so a latin-1 file `check` reads is read here too.  One file gives one JSON object (as
before); several files, or a folder, give a JSON array of them, CSV rows under one header, and
one table each.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from scopelint import engine, layout, notebooks
from scopelint.config import ConfigError
from scopelint.output.terminal import make_console
from scopelint.selection import SelectorError
from scopelint.trace import Trace

EXIT_CLEAN = 0
EXIT_ERROR = 2


def register(subparsers: argparse._SubParsersAction, parents: list[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("layout", help="show the predicted variables, devices and load per ps task", parents=parents)
    parser.add_argument("paths", nargs="+", metavar="PATH", help="programs to analyse: files, folders ('-' reads stdin)")
    # --format was the first spelling; `check` says --output-format, so both are accepted.
    parser.add_argument("--output-format", "--format", dest="output_format", choices=[*layout.FORMATS, "html"], default="table",
                        help="output format (default: table)")
    parser.add_argument("--stdin-filename", metavar="PATH", help="the name to report for source read from stdin")
    parser.set_defaults(handler=command_layout)


def _error(message: str) -> None:
    print(f"scopelint: error: {message}", file=sys.stderr)


def _tasks(paths: list[str]) -> list[engine.FileTask]:
    """The files `check` would check for these paths (same excludes, .gitignore, nearest config)."""
    from scopelint.project_settings import CommandLineSettings, SettingsResolver

    resolver = SettingsResolver(CommandLineSettings())
    return engine.discover(paths, resolver("."), resolver)


def _layout_of(task: engine.FileTask, stdin_data: bytes | None, shown_as: str) -> layout.Layout | str:
    """The file's layout, or why there is none (a message for stderr).  Read, size-limited and
    decoded as `check` does it: a FIFO is refused, not waited on."""
    from scopelint.analysis import ParseFailure, analyze_source

    data, unreadable = engine.read_task(task, stdin_data)
    if unreadable is not None:
        return f"{shown_as}: {unreadable.error}"
    assert data is not None
    if engine.PREFILTER_MARKER not in data:
        return layout.build_layout(Trace(shown_as, uses_tensorflow=False))  # no TensorFlow, no variables
    oversize = engine.too_large(data)
    if oversize is not None:
        return f"{shown_as}: {oversize}"
    concatenated = None
    if notebooks.is_notebook(shown_as):
        # A notebook's code cells are one program (notebooks.py), its places at cell:line.
        try:
            document = notebooks.read_notebook(data)
        except notebooks.NotANotebook as problem:
            return f"{shown_as}: {problem}"
        if not notebooks.is_python_notebook(document):
            return layout.build_layout(Trace(shown_as, uses_tensorflow=False))
        concatenated = notebooks.concatenate(document)
        source: str | None = concatenated.source
    else:
        source, failure = engine.decode_source(data, shown_as)
        if failure is not None:
            return f"{shown_as}:{failure.site.line}:{failure.site.column}: {failure.message}"
    assert source is not None
    try:
        trace = analyze_source(source, shown_as)
    except ParseFailure as parse_failure:
        where = (f"cell {concatenated.cell_of(parse_failure.line)[0]}:{concatenated.cell_of(parse_failure.line)[1]}"
                 if concatenated is not None else str(parse_failure.line))
        return f"{shown_as}:{where}:{parse_failure.column}: {parse_failure.message}"
    if concatenated is not None:
        notebooks.translate_trace(trace, shown_as, concatenated)
    return layout.build_layout(trace)


def command_layout(args: argparse.Namespace) -> int:
    try:
        tasks = _tasks(args.paths)
    except (ConfigError, SelectorError) as problem:
        _error(str(problem))
        return EXIT_ERROR
    stdin_data = sys.stdin.buffer.read() if any(task.path == engine.STDIN_PATH for task in tasks) else None
    layouts: list[layout.Layout] = []
    failed = False
    for task in tasks:
        shown_as = (args.stdin_filename or engine.STDIN_PATH) if task.path == engine.STDIN_PATH else task.display_path
        result = _layout_of(task, stdin_data, shown_as)
        if isinstance(result, str):
            _error(result)
            failed = True
        else:
            layouts.append(result)
    if not tasks:
        _error(f"no Python file found in {', '.join(args.paths)}")
        return EXIT_ERROR
    # One file named on the command line: one object, as before; otherwise a list.
    single = len(args.paths) == 1 and len(tasks) == 1 and not Path(args.paths[0]).is_dir()
    if args.output_format == "json":
        documents = [layout.layout_data(one) for one in layouts]
        if single and documents:
            sys.stdout.write(json.dumps(documents[0], indent=2) + "\n")
        elif not single:
            sys.stdout.write(json.dumps(documents, indent=2) + "\n")
    elif args.output_format == "html":
        from scopelint.layout_html import layout_html

        sys.stdout.write(layout_html(layouts))  # one page, every file a section of it
    elif args.output_format == "csv":
        if layouts:
            sys.stdout.write(layout.layout_csv_many(layouts))
    else:
        console = make_console(sys.stdout, args.no_color)
        width = console.width if console.is_terminal else None
        if width is None:
            console.width = layout.PIPED_WIDTH  # piped: never cut names and devices short
        for index, one in enumerate(layouts):
            if index:
                console.print()
            console.print(layout.layout_table(one, width=width))
    return EXIT_ERROR if failed else EXIT_CLEAN

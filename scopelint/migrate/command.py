"""`scopelint migrate PATH ...`: arguments and handler (cli.py registers it).

Exit codes: 0 report written; 1 report written and `--checkpoint` found differences; 2 usage error
(a path that does not exist), unreadable checkpoint, or TensorFlow missing for `--checkpoint`.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from scopelint.migrate import FORMATS, SHIM_ATTRIBUTE_PLACEHOLDER, render

PROGRAM = "scopelint"
EXIT_CLEAN, EXIT_DIFFERENCES, EXIT_ERROR = 0, 1, 2


def register(subparsers: argparse._SubParsersAction, parents: list[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "migrate", parents=parents,
        help="write a TF1 -> TF2 migration report (variables, reuse, recipes, checkpoint keys, effort)")
    parser.add_argument("paths", nargs="*", default=["."], metavar="PATH", help="files or directories ('-' reads stdin; default: .)")
    parser.add_argument("--stdin-filename", metavar="PATH", help="the name to report for source read from stdin")
    # --output-format as `check` spells it; --format, the first spelling, stays.
    parser.add_argument("--output-format", "--format", dest="format", choices=sorted(FORMATS), default="markdown",
                        help="report format (default: markdown)")
    parser.add_argument("-o", "--output", metavar="FILE", help="write the report here instead of stdout")
    parser.add_argument("--name-map", metavar="FILE",
                        help="also write the checkpoint name map (CSV if FILE ends in .csv, else JSON)")
    parser.add_argument("--shim-attr", default=SHIM_ATTRIBUTE_PLACEHOLDER, metavar="NAME",
                        help="the tf.train.Checkpoint attribute holding the shim layer, for the name map's shim keys "
                             f"(default: the placeholder {SHIM_ATTRIBUTE_PLACEHOLDER})")
    parser.add_argument("--checkpoint", metavar="PATH",
                        help="cross-check the keys of a TF1 checkpoint (prefix or directory; needs TensorFlow)")
    parser.add_argument("--extend-exclude", action="append", default=[], metavar="GLOBS",
                        help="exclude these globs in addition to the defaults")
    parser.add_argument("--jobs", "-j", type=int, default=None, metavar="N", help="worker processes (default: one per core)")
    parser.set_defaults(handler=command_migrate)


def _error(message: str) -> None:
    print(f"{PROGRAM}: error: {message}", file=sys.stderr)


def command_migrate(args: argparse.Namespace) -> int:
    # Imported here: the analysis and report modules are only needed when a report is written.
    from scopelint import engine
    from scopelint.migrate.checkpoint import read_checkpoint
    from scopelint.migrate.collect import collect
    from scopelint.migrate.inventory import name_map_text
    from scopelint.migrate.report import build_report

    # A path that does not exist is a usage error: it was counted as a scanned file, and exit 0.
    missing = [path for path in args.paths if path != engine.STDIN_PATH and not os.path.lexists(path)]
    if missing:
        for path in missing:
            _error(f"{path}: No such file or directory")
        return EXIT_ERROR
    checkpoint = None
    if args.checkpoint:
        try:
            checkpoint = (args.checkpoint, read_checkpoint(args.checkpoint))
        except ImportError:
            _error("--checkpoint needs TensorFlow: pip install tensorflow-cpu")
            return EXIT_ERROR
        except ValueError as problem:
            _error(str(problem))
            return EXIT_ERROR
    exclude = engine.DEFAULT_EXCLUDE + tuple(
        pattern.strip() for given in args.extend_exclude for pattern in given.split(",") if pattern.strip())
    stdin_data = sys.stdin.buffer.read() if engine.STDIN_PATH in args.paths else None
    facts = collect(args.paths, exclude=exclude, jobs=args.jobs, stdin_data=stdin_data, stdin_filename=args.stdin_filename)
    report = build_report(facts, args.paths, checkpoint)
    text = render(report, args.format)
    try:
        if args.output:
            Path(args.output).write_text(text, encoding="utf-8")
        else:
            sys.stdout.write(text)
        if args.name_map:
            Path(args.name_map).write_text(name_map_text(report.inventory, args.name_map, args.shim_attr), encoding="utf-8")
    except OSError as problem:
        _error(str(problem))
        return EXIT_ERROR
    if report.checkpoint is not None and not report.checkpoint.full_agreement:
        return EXIT_DIFFERENCES
    return EXIT_CLEAN

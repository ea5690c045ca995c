"""The `scopelint verify` subcommand: its arguments and its handler (cli.py only registers it)."""
from __future__ import annotations

import argparse
import sys

EXIT_ERROR = 2


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be positive: {text!r}")
    return value


def _steps(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more: {text!r}")
    return value


def _workers(text: str) -> int:
    from scopelint.verify.plan import MAX_WORKERS

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 1 <= value <= MAX_WORKERS:
        raise argparse.ArgumentTypeError(f"must be 1 to {MAX_WORKERS}: {text!r}")
    return value


def register(subparsers: argparse._SubParsersAction, parents: list[argparse.ArgumentParser]) -> None:
    from scopelint.verify import DEFAULT_STEPS, DEFAULT_TIMEOUT_SECONDS

    parser = subparsers.add_parser(
        "verify",
        help="run the program on an in-process TensorFlow cluster and compare with the prediction",
        description="Run FILE as __main__ (or call --entry module:function) in a child process on an "
                    "in-process TensorFlow cluster on 127.0.0.1, then compare the variables, shapes and "
                    "devices TensorFlow produced with scopelint's prediction. Exit 0 when they agree, 1 "
                    "when they differ, 2 on a usage or internal error.",
        parents=parents,
    )
    parser.add_argument("file", nargs="?", metavar="FILE", help="the program to run (optional with --entry)")
    parser.add_argument("--entry", metavar="MODULE:FUNCTION", help="import MODULE and call FUNCTION() to build the graph")
    parser.add_argument("--cluster", metavar="JSON", help='the cluster to start, e.g. \'{"ps": 2, "worker": 1}\' '
                        "(default: the program's ClusterSpec, else 2 ps + 1 worker)")
    parser.add_argument("--steps", type=_steps, default=DEFAULT_STEPS, metavar="N",
                        help=f"cut the program after N session runs (default: {DEFAULT_STEPS})")
    parser.add_argument("--timeout", type=_positive_float, default=DEFAULT_TIMEOUT_SECONDS, metavar="SECONDS",
                        help=f"kill the run after this long (default: {DEFAULT_TIMEOUT_SECONDS:g})")
    parser.add_argument("--workers", type=_workers, default=1, metavar="N",
                        help="run N copies of the program as workers of one shared cluster; the literal {task} in "
                             "the program's arguments becomes each copy's task index, and TF_CONFIG is set")
    parser.add_argument("--target", metavar="grpc://HOST:PORT",
                        help="run against this existing cluster instead of starting one (--cluster then "
                             "describes its jobs, with addresses if you have them)")
    tf1 = parser.add_mutually_exclusive_group()
    tf1.add_argument("--tf1", dest="tf1", action="store_const", const=True, default=None,
                     help="run the program as TF1: `tensorflow` is tf.compat.v1 with v2 behaviour disabled, "
                          "tf.contrib.slim/layers/framework are tf_slim, tf.contrib.rnn is tf.compat.v1.nn.rnn_cell "
                          "(default: detected from the program)")
    tf1.add_argument("--no-tf1", dest="tf1", action="store_const", const=False, help="never use TF1 mode")
    parser.add_argument("--stub-data", action="store_true",
                        help="replace the data reads verify knows (TF1's MNIST input_data) with zeros of the "
                             "declared shape; what was stubbed is listed")
    parser.add_argument("--confirm", action="store_true",
                        help="run the program once per finding's path condition (its flag values) and report "
                             "each finding as confirmed, refuted or not reached")
    parser.add_argument("--no-isolate", action="store_true",
                        help="do not try a private network namespace for the child")
    # --output-format as `check` spells it; --format, the first spelling, stays.
    parser.add_argument("--output-format", "--format", dest="format", choices=["text", "json"], default="text",
                        help="output format (default: text)")
    parser.set_defaults(handler=command_verify, program_args=[])
    parser.epilog = ("Arguments for the program go after --: scopelint verify train.py --steps 5 -- --job_name=worker; "
                     "with --workers N, {task} in them is each copy's task index: -- --task_index={task}")
    _split_program_args(parser)


def _split_program_args(parser: argparse.ArgumentParser) -> None:
    """Everything after the first `--` belongs to the program, wherever verify's own options are.

    argparse alone cannot do this: a trailing positional list is consumed (empty) together with
    FILE, so `FILE --steps 2 -- ARGS` would be an error.  The subcommand action calls the
    subparser's parse_known_args with the subcommand's arguments, `--` included.
    """
    original = parser.parse_known_args

    def parse_known_args(args: list[str] | None = None, namespace: argparse.Namespace | None = None):  # type: ignore[no-untyped-def]
        arguments = list(sys.argv[1:] if args is None else args)
        program_args: list[str] = []
        if "--" in arguments:
            cut = arguments.index("--")
            arguments, program_args = arguments[:cut], arguments[cut + 1:]
        parsed, extras = original(arguments, namespace)
        parsed.program_args = program_args
        return parsed, extras

    parser.parse_known_args = parse_known_args  # type: ignore[method-assign]


def command_verify(args: argparse.Namespace) -> int:
    from scopelint.verify import VerifyOptions, VerifyUsageError, parse_cluster_option, verify
    from scopelint.verify.plan import PlanError, parse_cluster_addresses, parse_target
    from scopelint.verify.report import format_json, format_text

    if args.confirm:
        return _command_confirm(args)

    try:
        cluster = parse_cluster_option(args.cluster) if args.cluster is not None else None
        addresses = parse_cluster_addresses(args.cluster) if args.cluster is not None else None
        target = parse_target(args.target) if args.target is not None else None
        report = verify(VerifyOptions(
            path=args.file, args=list(args.program_args), entry=args.entry, cluster=cluster,
            steps=args.steps, timeout=args.timeout, isolate=not args.no_isolate, workers=args.workers,
            target=target, cluster_addresses=addresses if target is not None else None,
            tf1=args.tf1, stub_data=args.stub_data,
        ))
    except (VerifyUsageError, PlanError) as problem:
        print(f"scopelint: error: {problem}", file=sys.stderr)
        return EXIT_ERROR
    sys.stdout.write(format_json(report) if args.format == "json" else format_text(report))
    return report.exit_code


def _command_confirm(args: argparse.Namespace) -> int:
    from scopelint.verify import VerifyOptions, VerifyUsageError, parse_cluster_option
    from scopelint.verify.confirm import confirm, format_confirm_json, format_confirm_text
    from scopelint.verify.plan import PlanError

    try:
        if args.workers != 1 or args.target is not None:
            raise VerifyUsageError("--confirm runs one copy of the program on its own cluster: "
                                   "not with --workers or --target")
        cluster = parse_cluster_option(args.cluster) if args.cluster is not None else None
        report = confirm(VerifyOptions(
            path=args.file, args=list(args.program_args), entry=args.entry, cluster=cluster, steps=args.steps,
            timeout=args.timeout, isolate=not args.no_isolate, tf1=args.tf1, stub_data=args.stub_data,
        ))
    except (VerifyUsageError, PlanError) as problem:
        print(f"scopelint: error: {problem}", file=sys.stderr)
        return EXIT_ERROR
    sys.stdout.write(format_confirm_json(report) if args.format == "json" else format_confirm_text(report))
    return report.exit_code

"""How fast `scopelint check` is: lines per second, files per second, peak memory, cache, tf_upgrade_v2.

    python3 benchmarks/check_speed.py                 # a synthetic TF1 corpus of 200 files
    python3 benchmarks/check_speed.py --files 1000
    python3 benchmarks/check_speed.py PATH [PATH ...]  # any folders of real code

It copies the folders given into a scratch directory and runs the command-line tool on the copies
in child processes, in a scratch working directory with `--isolated` (so the results cache,
`.scopelint_cache/`, lives there, and the measured folders are never changed):

- cold: an empty cache, `--jobs 1` (the per-core figure) and the default of one worker per core;
- warm: the same tree again with the cache the cold run left (nothing changed);
- one file: single-file checks without the cache (the pre-commit case, start-up included) of nine
  files spread over the corpus in path order: the median, fastest and slowest; when the median is
  over 0.3 s, the imports that cost most (`python -X importtime`);
- one file edited: the warm tree again after a line is appended to one file (the middle one of the
  one-file sample), and how many files were analysed again (it and the files that import it);
- parse and interpretation: in one child process, LibCST's parse of every file the pre-filter
  lets through, then the analysis of the same files (their parses cached), side by side;
- tf_upgrade_v2 (installed with tensorflow), when it is on PATH: `--intree SRC --outtree DST
  --reportfile R` over the same corpus, and the ratio of its time to scopelint's.

It prints figures and asserts nothing.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parent.parent


def _this_checkout_first() -> dict[str, str]:
    """The scopelint of this checkout, not whichever one is installed (the figures are about it),
    with its bytecode kept as an installed copy's is: under PYTHONDONTWRITEBYTECODE every run would
    compile the checkout's modules again (0.15 s of a 0.6 s one-file check), which no installed
    scopelint does."""
    environment = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    return {**environment, "PYTHONPATH": os.pathsep.join(filter(None, [str(CHECKOUT), os.environ.get("PYTHONPATH")]))}

TEMPLATE = '''import tensorflow.compat.v1 as tf

HIDDEN = {hidden}


def encoder_{index}(x, reuse=False):
    with tf.variable_scope("encoder_{index}", reuse=reuse):
        for layer in range({layers}):
            x = tf.layers.dense(x, HIDDEN, activation=tf.nn.relu, name="fc_%d" % layer)
        w = tf.get_variable("w", [HIDDEN, {out}], initializer=tf.zeros_initializer())
        return tf.matmul(x, w)


def tower_{index}(inputs, towers={towers}):
    outputs = []
    for i in range(towers):
        with tf.variable_scope(tf.get_variable_scope(), reuse=i > 0):
            with tf.name_scope("tower_%d" % i):
                outputs.append(encoder_{index}(inputs))
    return tf.add_n(outputs)


class Model{index}:
    def __init__(self, units):
        self.units = units

    def build(self, x):
        with tf.variable_scope("model_{index}"):
            cell = tf.nn.rnn_cell.LSTMCell(self.units)
            out, _ = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
            return tf.layers.dense(out, 1)


def main():
    x = tf.placeholder(tf.float32, [None, HIDDEN])
    y = tower_{index}(x)
    loss = tf.reduce_mean(y)
    train = tf.train.AdamOptimizer(0.001).minimize(loss)
    seq = tf.placeholder(tf.float32, [None, 5, {out}])
    Model{index}({hidden}).build(seq)
    return train


if __name__ == "__main__":
    main()
'''


def make_corpus(folder: Path, files: int) -> None:
    rng = random.Random(0)
    for index in range(files):
        text = TEMPLATE.format(index=index, hidden=rng.choice([16, 32, 64]), layers=rng.randint(1, 4),
                               out=rng.choice([4, 8]), towers=rng.randint(1, 4))
        (folder / f"model_{index}.py").write_text(text)


def count_lines(paths: list[str]) -> tuple[int, int]:
    lines = files = 0
    for root in paths:
        for path in Path(root).rglob("*.py") if Path(root).is_dir() else [Path(root)]:
            files += 1
            lines += len(path.read_bytes().splitlines())
    return lines, files


def run(paths: list[str], jobs: int | None, workdir: Path, cache: bool = True) -> float:
    """Seconds for one `scopelint check` run in `workdir` (where its cache lives)."""
    command = [sys.executable, "-m", "scopelint", "check", "--isolated", "--exit-zero", "-q", "--output-format", "concise"]
    if jobs is not None:
        command += ["--jobs", str(jobs)]
    if not cache:
        command.append("--no-cache")
    start = time.perf_counter()
    subprocess.run(command + [os.path.abspath(path) for path in paths], stdout=subprocess.DEVNULL, check=True, cwd=workdir,
                   env=_this_checkout_first())
    return time.perf_counter() - start


def clear_cache(workdir: Path) -> None:
    shutil.rmtree(workdir / ".scopelint_cache", ignore_errors=True)


def run_tf_upgrade_v2(source: Path, scratch: Path) -> float | str | None:
    """Seconds for tf_upgrade_v2 over `source` (a folder); None when it is not installed; the
    reason when it fails (it stops the whole tree at a file its parser, pasta, cannot annotate)."""
    program = shutil.which("tf_upgrade_v2")
    if program is None:
        return None
    outtree = scratch / "tf_upgrade_v2_out"
    shutil.rmtree(outtree, ignore_errors=True)
    command = [program, "--intree", str(source), "--outtree", str(outtree), "--reportfile", str(scratch / "report.txt")]
    start = time.perf_counter()
    completed = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"})
    if completed.returncode != 0:
        last = (completed.stderr.strip().splitlines() or ["no message"])[-3:]
        return f"exit {completed.returncode}: " + " | ".join(line.strip() for line in last)
    return time.perf_counter() - start


PHASES_CHILD = """
import json, sys, time, tokenize
from scopelint.analysis import analyze_source, project
from scopelint.engine import PREFILTER_MARKER
sources = []
for path in sys.argv[1:]:
    try:
        with open(path, "rb") as handle:
            if PREFILTER_MARKER not in handle.read():
                continue
        with tokenize.open(path) as handle:
            sources.append((path, handle.read()))
    except (OSError, SyntaxError, UnicodeDecodeError):
        continue
start = time.perf_counter()
for path, source in sources:
    try:
        project.parse_text(source)  # cached: the analysis below reuses it
    except Exception:
        pass
parsed = time.perf_counter()
for path, source in sources:
    try:
        analyze_source(source, path)
    except Exception:
        pass
print(json.dumps({"files": len(sources), "parse": parsed - start, "analysis": time.perf_counter() - parsed}))
"""


def parse_and_analysis(paths: list[str]) -> dict[str, float]:
    """LibCST's parse of the files the pre-filter keeps, then their analysis, in one child process."""
    files = [str(path) for root in paths for path in (sorted(Path(root).rglob("*.py")) if Path(root).is_dir() else [Path(root)])]
    completed = subprocess.run([sys.executable, "-c", PHASES_CHILD, *files], capture_output=True, text=True, check=True,
                               env=_this_checkout_first())
    return json.loads(completed.stdout.strip().splitlines()[-1])


def copy_corpus(paths: list[str], scratch: Path) -> list[str]:
    """The folders (or files) to measure, copied into the scratch folder (without .git)."""
    copies = []
    for index, path in enumerate(map(Path, paths)):
        target = scratch / f"corpus-{index}" / path.resolve().name
        target.parent.mkdir()
        if path.is_dir():
            shutil.copytree(path, target, symlinks=True, ignore=shutil.ignore_patterns(".git", ".scopelint_cache"))
        else:
            shutil.copy2(path, target)
        copies.append(str(target))
    return copies


def one_file_sample(paths: list[str], count: int = 9) -> list[Path]:
    """The pre-commit case: files spread evenly over the corpus in path order, among those the
    pre-filter keeps (a file that never mentions TensorFlow costs start-up alone)."""
    files = sorted(path for root in paths
                   for path in (Path(root).rglob("*.py") if Path(root).is_dir() else [Path(root)])
                   if b"tensorflow" in path.read_bytes())
    if len(files) <= count:
        return files
    return [files[i * (len(files) - 1) // (count - 1)] for i in range(count)]


def costliest_imports(one_file: Path, workdir: Path, most: int = 8) -> list[tuple[float, str]]:
    """The imports of a one-file check with the largest cumulative time (`python -X importtime`)."""
    command = [sys.executable, "-X", "importtime", "-m", "scopelint", "check", "--isolated", "--exit-zero", "-q",
               "--no-cache", str(one_file.resolve())]
    completed = subprocess.run(command, capture_output=True, text=True, cwd=workdir, env=_this_checkout_first())
    rows = []
    for line in completed.stderr.splitlines():
        if line.startswith("import time:") and "|" in line and "cumulative" not in line:
            _, cumulative, name = line.removeprefix("import time:").split("|")
            rows.append((int(cumulative) / 1e6, name.rstrip()))
    return sorted(rows, reverse=True)[:most]


def rate(label: str, seconds: float, lines: int, files: int) -> str:
    return f"{label:>22}: {seconds:7.2f} s  {lines / seconds:9.0f} lines/s  {files / seconds:7.1f} files/s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="*")
    parser.add_argument("--files", type=int, default=200)
    parser.add_argument("--no-tf-upgrade", action="store_true", help="do not run tf_upgrade_v2")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch_name:
        scratch = Path(scratch_name)
        workdir = scratch / "work"
        workdir.mkdir()
        paths = args.paths
        if not paths:
            corpus = scratch / "corpus"
            corpus.mkdir()
            make_corpus(corpus, args.files)
            paths = [str(corpus)]
        else:
            paths = copy_corpus(paths, scratch)  # the edited-file run below changes a file: never the user's
        lines, files = count_lines(paths)
        print(f"corpus: {files} files, {lines} lines (machine: {os.cpu_count()} cores, Python {sys.version.split()[0]})")
        timings: dict[str, float] = {}
        for jobs in (1, None):
            clear_cache(workdir)
            label = "cold, --jobs 1" if jobs == 1 else "cold, default jobs"
            timings[label] = run(paths, jobs, workdir)
            print(rate(label, timings[label], lines, files))
        # The default-jobs cold run above left the cache behind: the tree is unchanged.
        timings["warm"] = run(paths, None, workdir)
        print(rate("warm (cache)", timings["warm"], lines, files))
        print(f"{'warm speed-up':>22}: {timings['cold, default jobs'] / timings['warm']:7.1f}x faster than cold")
        sample = one_file_sample(paths)
        singles = sorted((run([str(path)], None, workdir, cache=False), path) for path in sample)
        median, median_file = singles[len(singles) // 2]
        print(f"{'one file, no cache':>22}: {median:7.2f} s  median of {len(singles)} files (start-up included; "
              f"{median_file.name})")
        print(f"{'':>22}  {singles[0][0]:7.2f} s  fastest ({singles[0][1].name}), "
              f"{singles[-1][0]:.2f} s slowest ({singles[-1][1].name})")
        if median > 0.3:
            for seconds, name in costliest_imports(median_file, workdir):
                print(f"{'import':>22}: {seconds:7.3f} s  {name}")
        # One file edited in the warm tree: it and the files whose analysis imported it run again
        # (each rewrites its cache entry); the middle file of the sample in path order.
        edited = sample[len(sample) // 2]
        before = time.time_ns()
        with edited.open("a", encoding="utf-8") as handle:
            handle.write("\n# edited by check_speed.py\n")
        timings["edited"] = run(paths, None, workdir)
        again = sum(1 for entry in (workdir / ".scopelint_cache").rglob("*.json") if entry.stat().st_mtime_ns >= before)
        print(f"{'one file edited, warm':>22}: {timings['edited']:7.2f} s  ({edited.name}; {again} "
              f"file{'s' if again != 1 else ''} analysed again: it and the files that import it)")
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        print(f"{'peak memory':>22}: {peak:7.0f} MiB  (largest scopelint check process)")
        phases = parse_and_analysis(paths)
        print(f"{'LibCST parse':>22}: {phases['parse']:7.2f} s  ({phases['files']:.0f} files the pre-filter keeps, one process)")
        print(f"{'analysis':>22}: {phases['analysis']:7.2f} s  ({phases['analysis'] / phases['parse']:.1f}x the parse)")
        if args.no_tf_upgrade:
            return
        if len(paths) != 1 or not Path(paths[0]).is_dir():
            print("tf_upgrade_v2: skipped (it takes one folder)")
            return
        upgrade = run_tf_upgrade_v2(Path(paths[0]), scratch)
        if upgrade is None:
            print("tf_upgrade_v2: not installed (it comes with tensorflow)")
            return
        if isinstance(upgrade, str):
            print(f"tf_upgrade_v2: failed on this corpus, no ratio ({upgrade})")
            return
        print(rate("tf_upgrade_v2", upgrade, lines, files))
        for label in ("cold, default jobs", "cold, --jobs 1"):
            print(f"{'ratio':>22}: scopelint {label} is {upgrade / timings[label]:.1f}x as fast as tf_upgrade_v2")


if __name__ == "__main__":
    main()

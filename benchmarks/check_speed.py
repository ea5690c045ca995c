"""How fast `scopelint check` is: lines per second, files per second, peak memory.

    python3 benchmarks/check_speed.py                 # a synthetic TF1 corpus of 200 files
    python3 benchmarks/check_speed.py --files 1000
    python3 benchmarks/check_speed.py PATH [PATH ...]  # any folders of real code

It runs the command-line tool in a child process (`--jobs 1` for the per-core figure, then the
default of one worker per core) and prints figures; it asserts nothing.
"""
from __future__ import annotations

import argparse
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

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


def run(paths: list[str], jobs: int | None) -> float:
    command = [sys.executable, "-m", "scopelint", "check", "--exit-zero", "-q", "--output-format", "concise"]
    if jobs is not None:
        command += ["--jobs", str(jobs)]
    start = time.perf_counter()
    subprocess.run(command + paths, stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="*")
    parser.add_argument("--files", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        paths = args.paths
        if not paths:
            make_corpus(Path(scratch), args.files)
            paths = [scratch]
        lines, files = count_lines(paths)
        print(f"corpus: {files} files, {lines} lines (machine: {os.cpu_count()} cores)")
        for jobs in (1, None):
            seconds = run(paths, jobs)
            label = "--jobs 1" if jobs == 1 else "default jobs"
            print(f"{label:>13}: {seconds:6.2f} s  {lines / seconds:8.0f} lines/s  {files / seconds:6.1f} files/s")
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        print(f"peak memory of a child: {peak:.0f} MiB")


if __name__ == "__main__":
    main()

"""Does `check --fix` repair the real-bug mutants?  (issue 11, acceptance 2)

For each mutant of real_bugs.tsv whose expected codes include a rule that fixes, this copies the
repository, applies the mutant's edit, runs `scopelint check . --fix [--unsafe-fixes]` in the copy,
and, when scopelint changed something, builds the fixed program's graph under TensorFlow with the
benchmark's harness (benchmarks/harness/<script>.py: our own script per repository that imports
the repository's modules, stubs data loading, builds the graph of the mutant's command line and
prints `OK <n> variables <digest of names, shapes, devices>` or `RAISED ...`).  A mutant is restored
when the fix gives back the upstream text (whose graph builds: real_bugs.py's mutants were confirmed
against it), or when the fixed copy's graph builds with exactly the upstream copy's variables (the
same harness line).  A repository without a harness script counts only the first.

    python3 benchmarks/real_bugs_fix.py --scratch /work/scratch/bench/repos --work /tmp/fixbench \\
        [--harness benchmarks/harness] [--only ID ...] [--unsafe-fixes]

The repositories stay outside this repository (third-party code).  Prints a line per mutant and
the counts; exits 0.
"""
from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import real_bugs  # noqa: E402

# The rules with a fix (rules/*.py that define FIX).
FIXABLE = {"TFS101", "TFS105", "TFS201", "TFS205", "TFS401", "TFS402"}
HARNESS_TIMEOUT = 900


def harness_command(mutant: real_bugs.Mutant, harness: Path, repo: Path) -> tuple[list[str], dict[str, str]] | None:
    """The harness of the mutant's repository, with what its command line selects (None: no script)."""
    owner_name = mutant.repo.split("/")[1]
    env: dict[str, str] = {}
    extra: list[str] = []
    script = {
        "DCGAN-tensorflow": "dcgan.py", "bert": "bert.py", "distributed-tensorflow-example": "ischlag.py",
        "Distributed-TensorFlow-Guide": "tmulc18.py", "lstm-language-model": "lstmlm.py", "t3f": "t3f.py",
        "tensorflow-mgpu-cifar10": "mgpucifar.py", "TensorFlow-Examples": "aymeric.py", "tf-slim": "tfslim.py",
        "tensorflow-generative-model-collections": "gmc.py", "pixel-cnn": "pixelcnn.py",
        "pix2pix-tensorflow": "pix2pix.py",
    }[owner_name]
    if not (harness / script).is_file():
        return None
    if script == "dcgan.py":  # the flags of `python main.py <flags>`
        extra += mutant.path.split()[2:]
    if script == "gmc.py":
        match = re.search(r"--gan_type (\S+)", mutant.path)
        env["GAN_TYPE"] = match.group(1) if match else "GAN"
    if script == "pix2pix.py" and "--mode export" in mutant.path:
        env["P2P_MODE"] = "export"
    if script in ("t3f.py", "tfslim.py"):
        test_file = mutant.path.split()[-1]
        extra.append(test_file.removesuffix(".py").replace("/", "."))
    return [sys.executable, str(harness / script), str(repo), *extra], env


def tree_digest(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        if ".scopelint_cache" in path.parts:
            continue
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def run_fix(root: Path, unsafe: bool) -> tuple[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in [str(ROOT), env.get("PYTHONPATH", "")] if p)
    command = [sys.executable, "-m", "scopelint", "check", ".", "--isolated", "--no-cache", "--fix", "--show-fixes",
               "--exit-zero", "--output-format", "concise", *(["--unsafe-fixes"] if unsafe else [])]
    proc = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True)
    fixed = re.findall(r"\d+ × (TFS\d+)", proc.stdout)
    return ",".join(sorted(set(fixed))) or "-", proc.stderr.strip()


def run_harness(mutant: real_bugs.Mutant, harness: Path, root: Path) -> str | None:
    """The harness's last line on the tree at root, or None when the repository has no harness."""
    selected = harness_command(mutant, harness, root)
    if selected is None:
        return None
    command, extra_env = selected
    env = {**os.environ, **extra_env}
    try:
        proc = subprocess.run(command, env=env, capture_output=True, text=True, timeout=HARNESS_TIMEOUT)
    except subprocess.TimeoutExpired:
        return "RAISED timeout"
    lines = proc.stdout.strip().splitlines()
    return lines[-1] if lines else f"RAISED no output (exit {proc.returncode}): {proc.stderr.strip()[-200:]}"


def _built_like_upstream(mutant: real_bugs.Mutant, harness: Path, source: Path, fixed: Path,
                         work: Path) -> tuple[str, bool]:
    """Whether the fixed copy's graph builds with exactly the variables of the upstream copy's."""
    after = run_harness(mutant, harness, fixed)
    if after is None:
        return f"differs from the upstream text (not built: no harness for {mutant.repo})", False
    upstream_copy = work / f"{mutant.id}.upstream"
    shutil.rmtree(upstream_copy, ignore_errors=True)
    real_bugs.copy_tree(source, upstream_copy)
    before = run_harness(mutant, harness, upstream_copy) or ""
    shutil.rmtree(upstream_copy, ignore_errors=True)
    if after.startswith("OK") and after == before:
        return f"differs from the upstream text, builds with its variables: {after}", True
    return f"differs from the upstream text: fixed {after}; upstream {before}", False


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scratch", type=Path, required=True, help="where the repositories are checked out")
    parser.add_argument("--harness", type=Path, default=HERE / "harness",
                        help="the folder of the harness scripts (default: benchmarks/harness); for a repository "
                             "without one, a fix counts as restoring the program only when it gives back the "
                             "upstream text (which builds: real_bugs.py checked it)")
    parser.add_argument("--work", type=Path, required=True, help="a folder for the mutated copies (emptied)")
    parser.add_argument("--only", nargs="*", default=None, metavar="ID")
    parser.add_argument("--unsafe-fixes", action="store_true", help="apply unsafe fixes too")
    args = parser.parse_args(argv)
    mutants = [m for m in real_bugs.load() if set(m.expected_codes) & FIXABLE]
    if args.only:
        mutants = [m for m in mutants if m.id in args.only]
    fixed = restored = 0
    for mutant in mutants:
        source = real_bugs.checkout_dir(args.scratch, mutant.repo)
        if not source.is_dir():
            print(f"{mutant.id}\tskipped: {source} missing", flush=True)
            continue
        copy = args.work / mutant.id
        shutil.rmtree(copy, ignore_errors=True)
        real_bugs.copy_tree(source, copy)
        upstream = tree_digest(copy)
        real_bugs.apply_edit(copy, mutant)
        before = tree_digest(copy)
        started = time.monotonic()
        codes, problems = run_fix(copy, args.unsafe_fixes)
        seconds = time.monotonic() - started
        if tree_digest(copy) == before:
            print(f"{mutant.id}\t{mutant.kind}\tno fix\t({seconds:.0f} s){' ' + problems[-200:] if problems else ''}", flush=True)
            shutil.rmtree(copy, ignore_errors=True)
            continue
        fixed += 1
        if tree_digest(copy) == upstream:
            outcome, builds = "the upstream text, restored", True
        else:
            outcome, builds = _built_like_upstream(mutant, args.harness, source, copy, args.work)
        restored += builds
        print(f"{mutant.id}\t{mutant.kind}\tfixed {codes}\t{'builds' if builds else 'not shown to build'}: {outcome[:160]}", flush=True)
        shutil.rmtree(copy, ignore_errors=True)
    print(f"mutants with a fixable expected code: {len(mutants)}; changed by --fix: {fixed}; "
          f"restored (upstream text, or built under TensorFlow with the upstream variables): {restored}/{fixed}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The real-code benchmark: single-edit mutants of public TF1 repositories (issue 9, acceptance 1).

    python3 benchmarks/real_bugs.py --scratch /work/scratch/bench/repos [--only ID] [--scopelint "python3 -m scopelint"]
    python3 benchmarks/real_bugs.py --print-setup      # the clone/checkout commands for the scratch folder

It fetches nothing. Each repository named in benchmarks/real_bugs.tsv is expected at
<scratch>/<owner>__<name>, checked out at the pinned commit. For each mutant it copies the tree to a
temporary folder, applies the one edit (the `old` text must be on that line), runs
`scopelint check . --output-format json --no-cache --isolated` there as a user would, and counts the
mutant caught when a finding with one of the expected codes appears that the unmutated copy does
not have (compared by code, file and message: the edit shifts no line).  The finding may be in
another file than the edit: TensorFlow raises where the variable is created, often in a helper
module (DCGAN's ops.py), and scopelint reports it there with the call chain from the edited line. It
prints one line per mutant, caught/total, caught-with-condition/total, the findings on each
unmutated copy and the wall time of every whole-repository check. It always exits 0.
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

TSV = Path(__file__).with_name("real_bugs.tsv")
COLUMNS = ["id", "repo", "commit", "file", "line", "old", "new", "kind", "expected_codes", "path", "tf_effect"]
ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Mutant:
    id: str
    repo: str
    commit: str
    file: str
    line: int
    old: str
    new: str
    kind: str
    expected_codes: tuple[str, ...]
    path: str
    tf_effect: str


@dataclass(frozen=True)
class Finding:
    code: str
    file: str  # relative to the checked copy's root
    message: str
    row: int
    condition: str  # "" when the finding carries none

    def key(self) -> tuple[str, str, str]:
        return (self.code, self.file, self.message)

    def text(self) -> str:
        cond = f" [{self.condition}]" if self.condition else ""
        return f"{self.file}:{self.row}: {self.code} {self.message}{cond}"


class EditError(Exception):
    pass


def load(tsv: Path = TSV) -> list[Mutant]:
    with tsv.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        if reader.fieldnames != COLUMNS:
            raise ValueError(f"{tsv}: header must be {COLUMNS}, got {reader.fieldnames}")
        return [
            Mutant(r["id"], r["repo"], r["commit"], r["file"], int(r["line"]), r["old"], r["new"], r["kind"],
                   tuple(c.strip() for c in r["expected_codes"].split(",") if c.strip()), r["path"], r["tf_effect"])
            for r in reader
        ]


def checkout_dir(scratch: Path, repo: str) -> Path:
    return scratch / repo.replace("/", "__")


def setup_commands(mutants: list[Mutant], scratch: Path) -> list[str]:
    seen: dict[str, str] = {}
    for m in mutants:
        seen.setdefault(m.repo, m.commit)
    return [f"git clone https://github.com/{repo} {checkout_dir(scratch, repo)} && "
            f"git -C {checkout_dir(scratch, repo)} checkout -q {commit}" for repo, commit in seen.items()]


def apply_edit(root: Path, mutant: Mutant) -> None:
    """Replace the first occurrence of `old` on the 1-based line; raise EditError when it is not there."""
    target = root / mutant.file
    if not target.is_file():
        raise EditError(f"{mutant.id}: {mutant.file} not found")
    text = target.read_text(encoding="utf-8")
    lines = text.split("\n")
    index = mutant.line - 1
    if not 0 <= index < len(lines) or mutant.old not in lines[index]:
        got = lines[index] if 0 <= index < len(lines) else "<past the end>"
        raise EditError(f"{mutant.id}: {mutant.old!r} is not on {mutant.file}:{mutant.line} (line is {got!r})")
    lines[index] = lines[index].replace(mutant.old, mutant.new, 1)
    target.write_text("\n".join(lines), encoding="utf-8")


def copy_tree(src: Path, dst: Path) -> None:
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns(".git", ".scopelint_cache"), symlinks=True)


def run_check(root: Path, scopelint: str) -> tuple[list[Finding], float, str]:
    """Run scopelint on the whole tree with cwd = root; returns findings, wall time, error text."""
    env = dict(os.environ)
    # `python3 -m scopelint` from a source checkout: make this repository's package importable.
    env["PYTHONPATH"] = os.pathsep.join(p for p in [str(ROOT), env.get("PYTHONPATH", "")] if p)
    command = shlex.split(scopelint) + ["check", ".", "--output-format", "json", "--no-cache", "--isolated", "--exit-zero"]
    start = time.monotonic()
    proc = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True)
    elapsed = time.monotonic() - start
    try:
        raw = json.loads(proc.stdout or "[]")
    except json.JSONDecodeError:
        return [], elapsed, f"exit {proc.returncode}: {proc.stderr.strip()[-300:]}"
    findings = []
    for item in raw:
        name = item.get("filename", "")
        try:
            rel = str(Path(name).resolve().relative_to(root.resolve()))
        except ValueError:
            rel = name
        findings.append(Finding(item.get("code", ""), rel, item.get("message", ""),
                                int((item.get("location") or {}).get("row", 0)), str(item.get("condition") or "")))
    return findings, elapsed, ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scratch", type=Path, default=Path("/work/scratch/bench/repos"))
    parser.add_argument("--only", action="append", default=[], help="run only this mutant id (repeatable)")
    parser.add_argument("--scopelint", default=f"{shlex.quote(sys.executable)} -m scopelint")
    parser.add_argument("--tsv", type=Path, default=TSV)
    parser.add_argument("--print-setup", action="store_true", help="print the clone/checkout commands and stop")
    args = parser.parse_args(argv)
    mutants = load(args.tsv)
    if args.print_setup:
        print("\n".join(setup_commands(mutants, args.scratch)))
        return 0
    if args.only:
        mutants = [m for m in mutants if m.id in args.only]
    baselines: dict[str, tuple[list[Finding], float, str]] = {}
    missing: set[str] = set()
    caught = with_condition = total = 0
    times: list[str] = []
    for m in mutants:
        src = checkout_dir(args.scratch, m.repo)
        if m.repo in missing:
            continue
        head = subprocess.run(["git", "-C", str(src), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
        if not src.is_dir() or head != m.commit:
            print(f"MISSING {m.repo} at {m.commit} in {src} (HEAD {head or 'none'}); get it with:\n  "
                  + setup_commands([m], args.scratch)[0] + "\n  skipping its mutants")
            missing.add(m.repo)
            continue
        if m.repo not in baselines:
            with tempfile.TemporaryDirectory(prefix="realbugs-") as tmp:
                copy = Path(tmp) / "repo"
                copy_tree(src, copy)
                baselines[m.repo] = run_check(copy, args.scopelint)
            times.append(f"  {m.repo} (unmutated): {baselines[m.repo][1]:.1f} s")
        base_keys = {f.key() for f in baselines[m.repo][0]}
        total += 1
        with tempfile.TemporaryDirectory(prefix="realbugs-") as tmp:
            copy = Path(tmp) / "repo"
            copy_tree(src, copy)
            try:
                apply_edit(copy, m)
            except EditError as error:
                print(f"{m.id}\t{m.kind}\tEDIT FAILED: {error}")
                continue
            findings, elapsed, error = run_check(copy, args.scopelint)
        times.append(f"  {m.id}: {elapsed:.1f} s")
        new = [f for f in findings if f.key() not in base_keys]
        hits = [f for f in new if f.code in m.expected_codes]
        conditioned = [f for f in hits if f.condition]
        caught += bool(hits)
        with_condition += bool(conditioned)
        codes = ",".join(sorted({f.code for f in new})) or "-"
        condition = conditioned[0].condition if conditioned else "-"
        note = f"\t(scopelint failed: {error})" if error else ""
        print(f"{m.id}\t{m.kind}\tcaught={'yes' if hits else 'no'}\tnew codes={codes}\tcondition={condition}{note}")
    print(f"\ncaught: {caught}/{total}")
    print(f"caught with a condition: {with_condition}/{total}")
    for repo, (findings, _elapsed, error) in baselines.items():
        print(f"\n{repo} unmutated: {len(findings)} findings" + (f" (scopelint failed: {error})" if error else ""))
        for f in findings:
            print("  " + f.text())
    print("\nwall time of each whole-repository check:")
    print("\n".join(times))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Builds side by side: every command's whole-process median, run by run alternating between builds.

    python bench/paired.py --build before=/tmp/before --build now=. [--build 1fe=/tmp/b1fe:categories]
                           [--sizes 1000,10000,100000] [--runs 9] [--only search --only inject]
                           [--instructions]
    python bench/paired.py --fresh-clone --build before=/tmp/before --build now=. [--cpus 0]

A build is a source tree put first on PYTHONPATH (``:categories``: timed on AITEAM-X category files,
as the builds before one file per memory were).  Every build gets its own copy of the same entries
(bench.py's generator, 100 entries a category, one file per entry), so no build reads another's
cache.  Each round runs every command once in every build and the floor (``python -c "import
tantivy"``) once, in turn: the machine's speed drifts from minute to minute and other work shares
it, so only runs made side by side compare.  Prints medians, the ratio to the floor measured in
the same rounds, and the ratio to the first build.  ``--instructions``: each command's
instructions under valgrind's callgrind instead (Python's own, one run after a settling run; the
same count whatever else shares the machine), floor included.

``--fresh-clone``: a git repository of N committed entry files is cloned (``git clone``, a real
checkout: every file new) and the first ``search`` in the clone timed, with no ``.vault/``; with
``--cpus 0`` under ``taskset`` (one core).  Wall time and CPU time (user + system of the process).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench import generate  # noqa: E402
from layouts import to_entry_files  # noqa: E402

ENV = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPATH")}
GIT_ENV = {"GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@example.com", "GIT_COMMITTER_NAME": "b"}
GIT_ENV["GIT_COMMITTER_EMAIL"] = "b@example.com"
COMMANDS = {  # name -> arguments; UNIQUE is the run's number, NEWEST the newest lesson's id of agent000
    "search": ["search", "redis timeout"],
    "search, a typo": ["search", "kubernets deploi"],
    "inject": ["inject", "agent000", "fix the redis timeout"],
    "inject, no command": ["inject", "agent001"],
    "status": ["status"],
    "add": ["add", "agent000", "lessons", "bench lesson about redis UNIQUE"],
    "list -n 5": ["list", "-n", "5"],
    "list agent -c lessons": ["list", "agent000", "-c", "lessons"],
    "show": ["show", "agent000", "NEWEST"],
    "edit": ["edit", "agent000", "NEWEST", "edited lesson about redis UNIQUE"],
    "recover (none)": ["recover", "agent001"],
    "--version": ["--version"],
    "SessionStart hook": ["agent-hook", "claude-code"],
}
# What a command reads on stdin (TREE: the tree it runs in), as the agent sends it.
STDIN = {"SessionStart hook": '{"session_id": "s", "cwd": "TREE", "hook_event_name": "SessionStart"}'}


def once(cmd: list[str], cwd: Path, env: dict, ok=(0, 3), stdin: str | None = None) -> tuple[float, float]:
    """(wall ms, CPU ms of the child) of one process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    result = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env, input=stdin)
    wall = (time.perf_counter() - start) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode not in ok:
        raise SystemExit(f"{' '.join(cmd)} failed in {cwd}: {result.stderr}")
    return wall, (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000


def parse_builds(specs: list[str]) -> dict[str, tuple[dict, bool]]:
    builds = {}
    for spec in specs:
        name, _, path = spec.partition("=")
        path, _, layout = path.partition(":")
        builds[name] = ({**ENV, "PYTHONPATH": str(Path(path).resolve())}, layout == "categories")
    return builds


def newest_lesson(tree: Path) -> str:
    folder = tree / ".memory" / "agent000" / "lessons"
    if folder.is_dir():
        return max(p.name.split("-", 1)[0] for p in folder.iterdir() if p.name.endswith(".md"))
    text = (tree / ".memory" / "agent000" / "lessons.md").read_text()
    return text.split("<!-- id:", 1)[1].split(" ", 1)[0]


def warm(tree: Path, build: tuple[dict, bool]) -> None:
    """An index and the caches each command uses (so each timed run is a warm run)."""
    for args in (["search", "x"], ["inject", "agent000", "x"], ["status"], ["list", "-n", "5"]):
        once([sys.executable, "-m", "memcli", *args], tree, build[0])
    time.sleep(2.1)  # files written in the last 2 s are hashed again by design
    for args in (["search", "x"], ["status"], ["list", "-n", "5"]):
        once([sys.executable, "-m", "memcli", *args], tree, build[0])


def instructions(cmd: list[str], cwd: Path, env: dict, stdin: str | None = None) -> float:
    """Instructions of one process (Python's own, not its children's), in millions, by valgrind's
    callgrind: the same count run after run whatever else the machine does."""
    result = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *cmd],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        input=stdin,
    )
    for line in result.stderr.splitlines():
        if "Collected :" in line:
            return int(line.rsplit(":", 1)[1]) / 1e6
    raise SystemExit(f"valgrind gave no count for {' '.join(cmd)}: {result.stderr[-500:]}")


def paired(
    builds: dict[str, tuple[dict, bool]], sizes: list[int], runs: int, only: list[str] | None, count: bool = False
) -> None:
    work = Path(tempfile.mkdtemp(prefix="memcli-paired-"))
    names = [c for c in COMMANDS if not only or c in only]
    try:
        for n in sizes:
            categories = work / f"categories-{n}"
            generate(categories, n)
            entries = work / f"entries-{n}"
            to_entry_files(categories, entries)
            trees = {}
            for name, (env, cats) in builds.items():
                trees[name] = work / f"{name}-{n}"
                shutil.copytree(categories if cats else entries, trees[name], symlinks=True)
                warm(trees[name], (env, cats))
            newest = {name: newest_lesson(tree) for name, tree in trees.items()}
            results: dict[tuple[str, str], list[float]] = {}
            floor: list[float] = []
            for r in range(runs):
                tantivy = [sys.executable, "-c", "import tantivy"]
                floor.append(instructions(tantivy, work, ENV) if count else once(tantivy, work, ENV)[0])
                for command in names:
                    order = list(builds) if r % 2 == 0 else list(builds)[::-1]
                    for name in order:
                        args = [a.replace("UNIQUE", str(r)).replace("NEWEST", newest[name]) for a in COMMANDS[command]]
                        stdin = STDIN[command].replace("TREE", str(trees[name])) if command in STDIN else None
                        cmd = [sys.executable, "-m", "memcli", *args]
                        if count:  # settled by a plain run first (a new entry's index update, caches)
                            settle = [a.replace("UNIQUE", f"{r} settling") for a in COMMANDS[command]]
                            settle = [a.replace("NEWEST", newest[name]) for a in settle]
                            once([sys.executable, "-m", "memcli", *settle], trees[name], builds[name][0], stdin=stdin)
                            ms = instructions(cmd, trees[name], builds[name][0], stdin=stdin)
                        else:
                            ms = once(cmd, trees[name], builds[name][0], stdin=stdin)[0]
                        results.setdefault((command, name), []).append(ms)
                if not count:
                    floor.append(once(tantivy, work, ENV)[0])
            base = statistics.median(floor)
            first = next(iter(builds))
            unit = "M instructions" if count else "ms"
            print(f"\n{n:,} entries; floor `python -c 'import tantivy'` {base:.1f} {unit}; medians of {runs}\n")
            print("| command | " + " | ".join(builds) + " |")
            print("|---|" + "---|" * len(builds))
            for command in names:
                ref = statistics.median(results[(command, first)])
                cells = []
                for name in builds:
                    ms = statistics.median(results[(command, name)])
                    cells.append(f"{ms:.{1 if count else 0}f} {unit} ({ms / base:.2f}x floor, {ms / ref:.2f}x {first})")
                print(f"| {command} | " + " | ".join(cells) + " |")
            sys.stdout.flush()
            for tree in trees.values():
                shutil.rmtree(tree)
            shutil.rmtree(categories)
            shutil.rmtree(entries)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, env={**os.environ, **GIT_ENV})


def fresh_clone(builds: dict[str, tuple[dict, bool]], sizes: list[int], runs: int, cpus: str | None) -> None:
    work = Path(tempfile.mkdtemp(prefix="memcli-clone-"))
    try:
        for n in sizes:
            categories = work / f"categories-{n}"
            generate(categories, n)
            origin = work / f"origin-{n}"
            to_entry_files(categories, origin)
            (origin / ".gitignore").write_text(".memory/.vault/\n")
            git("init", "-q", "-b", "main", cwd=origin)
            git("add", "-A", cwd=origin)
            git("commit", "-qm", "memory", cwd=origin)
            floor = []
            results: dict[str, list[tuple[float, float]]] = {}
            for r in range(runs):
                order = list(builds) if r % 2 == 0 else list(builds)[::-1]
                for name in order:
                    clone = work / f"clone-{n}"
                    shutil.rmtree(clone, ignore_errors=True)
                    git("clone", "-q", str(origin), str(clone), cwd=work)
                    prefix = ["taskset", "-c", cpus] if cpus is not None else []
                    cmd = [*prefix, sys.executable, "-m", "memcli", "search", "redis timeout"]
                    results.setdefault(name, []).append(once(cmd, clone, builds[name][0]))
                floor.append(once([*prefix, sys.executable, "-c", "import tantivy"], work, ENV)[0])
            base = statistics.median(floor)
            cores = f"one core (taskset -c {cpus})" if cpus is not None else f"{os.cpu_count()} cores"
            print(f"\nfirst search in a fresh clone of {n:,} entries, {cores}; floor {base:.0f} ms; medians of {runs}")
            for name, pairs in results.items():
                wall = statistics.median(p[0] for p in pairs)
                cpu = statistics.median(p[1] for p in pairs)
                print(f"| {name} | {wall:.0f} ms wall | {cpu:.0f} ms CPU |")
            sys.stdout.flush()
            shutil.rmtree(work / f"clone-{n}", ignore_errors=True)
            shutil.rmtree(origin)
            shutil.rmtree(categories)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def editable_finder() -> str | None:
    """An editable install's start-up hook in this Python (``pip install -e``): it runs in every
    process, the floor's too (pathlib, importlib.util and more: 47 M instructions, half of
    ``python -c "import tantivy"``), so every ratio to the floor would read too low."""
    import site
    import sysconfig

    folders = {*site.getsitepackages(), sysconfig.get_paths()["purelib"]}
    for folder in folders:
        for pth in Path(folder).glob("__editable__*.pth"):
            return str(pth)
    return None


def main() -> int:
    hook = editable_finder()
    if hook:
        raise SystemExit(
            f"this Python runs an editable install's hook at start-up ({hook}): every process pays for it,"
            " the floor too; run the bench with a Python that has memcli's dependencies but not memcli"
            " installed (python -m venv /tmp/bench && /tmp/bench/bin/pip install typer tantivy orjson)"
        )
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", action="append", required=True, help="NAME=PATH[:categories]")
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--only", action="append", help="a command to time (its name as printed; repeatable)")
    parser.add_argument("--instructions", action="store_true", help="count instructions (valgrind) instead of time")
    parser.add_argument("--fresh-clone", action="store_true")
    parser.add_argument("--cpus", help="with --fresh-clone: taskset's CPU list (0: one core)")
    args = parser.parse_args()
    builds = parse_builds(args.build)
    sizes = [int(s) for s in args.sizes.split(",")]
    if args.fresh_clone:
        fresh_clone(builds, sizes, args.runs, args.cpus)
    else:
        paired(builds, sizes, args.runs, args.only, args.instructions)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

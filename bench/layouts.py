"""The entry-file layout side by side with the category-file layout, on the same entries.

    python bench/layouts.py [--sizes 10000,100000] [--runs 9] [--previous PATH]

For each size the same entries (bench.py's generator: 100 per category, deterministic words) are
written twice: as AITEAM-X category files (``<agent>/<category>.md``) and as entry files
(``<agent>/<category>/<id>-<slug>.md``, what memcli writes now).  Whole processes, in alternating
runs (the machine's speed drifts from minute to minute): ``search`` and ``inject`` with a warm
index, and the first search of an unindexed tree.  With ``--previous PATH`` (a checkout of the
build before one file per memory), the category layout is also timed with that build: today's
medians as they were.  Prints medians, the ratio of each to the category layout's, and the floor.
"""

from __future__ import annotations

import argparse
import os
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
from memcli.storage import vault  # noqa: E402
from memcli.storage.store import entry_file_name  # noqa: E402

HOUR_AGO = time.time() - 3600


def to_entry_files(source: Path, target: Path) -> int:
    """Copy a category-file tree as entry files, the same entries; returns the number of files."""
    shutil.copytree(source, target)
    memory = target / ".memory"
    count = 0
    for path in sorted(memory.glob("*/*.md")):
        folder = path.with_suffix("")
        folder.mkdir()
        for entry in vault.parse(path.read_text()):
            file = folder / entry_file_name(entry)
            file.write_text(vault.serialize([entry]))
            os.utime(file, (HOUR_AGO, HOUR_AGO))
            count += 1
        os.utime(folder, (HOUR_AGO, HOUR_AGO))
        path.unlink()
    for folder in memory.iterdir():
        if folder.is_dir() and not folder.name.startswith("."):
            os.utime(folder, (HOUR_AGO, HOUR_AGO))
    return count


def once(cmd: list[str], cwd: Path, env: dict, setup=None) -> float:
    if setup:
        setup()
    start = time.perf_counter()
    result = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env)
    seconds = time.perf_counter() - start
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed in {cwd}: {result.stderr}")
    return seconds * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--first-runs", type=int, default=3, help="runs of the first search (default 3)")
    parser.add_argument("--previous", help="a checkout of the previous build, timed on the category layout")
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPATH")}
    builds = {"now": env}
    if args.previous:
        builds["before"] = {**env, "PYTHONPATH": str(Path(args.previous).resolve())}
    memcli = [sys.executable, "-m", "memcli"]
    work = Path(tempfile.mkdtemp(prefix="memcli-layouts-"))
    try:
        floor = statistics.median(once([sys.executable, "-c", "import tantivy"], work, env) for _ in range(15))
        print(f"floor (python -c 'import tantivy'): {floor:.0f} ms; runs per cell: {args.runs}")
        for n in (int(s) for s in args.sizes.split(",")):
            categories = work / f"categories-{n}"
            generate(categories, n)
            entries = work / f"entries-{n}"
            files = to_entry_files(categories, entries)
            trees = {("category files", "now"): categories, ("entry files", "now"): entries}
            cases = [("category files", "now")]
            if "before" in builds:  # a copy of its own: the two builds' indexes differ
                cases.insert(0, ("category files", "before"))
                trees[("category files", "before")] = work / f"categories-before-{n}"
                shutil.copytree(categories, trees[("category files", "before")])
            cases.append(("entry files", "now"))
            commands = {
                "search, warm index": memcli + ["search", "redis timeout"],
                "inject, warm index": memcli + ["inject", "agent000", "fix the redis timeout"],
            }
            results: dict[tuple[str, str, str], list[float]] = {}
            for layout, build in cases:  # warm each index (and bytecode) first
                once(commands["search, warm index"], trees[(layout, build)], builds[build])
            for _ in range(args.runs):
                for name, cmd in commands.items():
                    for layout, build in cases:
                        results.setdefault((name, layout, build), []).append(
                            once(cmd, trees[(layout, build)], builds[build])
                        )
            first = "first search, unindexed"
            for _ in range(args.first_runs):
                for layout, build in cases:
                    index = trees[(layout, build)] / ".memory" / ".vault"
                    ms = once(
                        commands["search, warm index"],
                        trees[(layout, build)],
                        builds[build],
                        setup=lambda index=index: shutil.rmtree(index, ignore_errors=True),
                    )
                    results.setdefault((first, layout, build), []).append(ms)
            print(
                f"\n{n:,} entries ({files:,} entry files; {len(list(categories.glob('.memory/*/*.md'))):,} category files)"
            )
            header = [f"{layout}, {build} build" for layout, build in cases]
            print("| whole process, median | " + " | ".join(header) + " |")
            print("|---|" + "---|" * len(cases))
            for name in [*commands, first]:
                base = statistics.median(results[(name, "category files", "before" if "before" in builds else "now")])
                cells = []
                for layout, build in cases:
                    ms = statistics.median(results[(name, layout, build)])
                    cells.append(f"{ms:.0f} ms ({ms / base:.2f}x; {ms / floor:.1f}x floor)")
                print(f"| {name} | " + " | ".join(cells) + " |")
            for tree in trees.values():
                shutil.rmtree(tree)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

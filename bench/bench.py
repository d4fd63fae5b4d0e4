"""Whole-process timings of memcli at 1k, 10k and 100k entries, against the floor.

    python bench/bench.py [--sizes 1000,10000,100000] [--runs 7]

Generates vaults on disk (deterministic words, 100 entries per category, one file per entry as
memcli writes them; ``--category-files`` for AITEAM-X category files), then
times real processes — what a shell wrapper pays — and prints medians as a table,
with the ratio to the floor (``python -c "import tantivy"``).  Also times the
no-change freshness check inside the process at 100 and 1,000 vault files.
"""

from __future__ import annotations

import argparse
import os
import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from memcli.storage import vault  # noqa: E402
from memcli.storage.vault import Entry  # noqa: E402

WORDS = (
    "login redirect session token cache proxy stream socket event queue worker retry timeout deploy build test "
    "schema migration index query latency memory agent prompt budget handoff decision lesson task project branch "
    "merge commit review release rollback feature flag config secret vault search ranking snippet parser format "
    "react typescript python rust postgres redis kafka nginx docker kubernetes terraform grafana sentry webhook "
    "rollout canary"
).split()
CATEGORIES = ("decisions", "lessons", "tasks", "projects", "handoffs")
MEMCLI = [sys.executable, "-m", "memcli"]
# As after `pip install`: bytecode is written and reused (some environments disable it).
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
HOUR_AGO = time.time() - 3600
LAST: list[str] = []  # the id the last setup made, for a command line's "LAST"


def sentence(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."


def generate(root: Path, entries: int, per_file: int = 100, entry_files: bool = False, citing: int = 0) -> int:
    """A vault of ``entries`` entries, ``per_file`` per category: in AITEAM-X category files, or
    (``entry_files``) one file per entry as memcli writes them; returns the number of categories.
    ``citing``: that many entries of agent000's decisions and lessons (the ones inject reads) name a
    repository file about the redis timeout, half of which exist."""
    rng = random.Random(entries)
    memory = root / ".memory"
    (memory / ".vault").mkdir(parents=True)
    (memory / "_project.md").write_text("# Bench project\n\nStack: Python, tantivy.\n")
    files = max(1, entries // per_file)
    next_id = 1_700_000_000_000
    for f in range(files):
        agent, category = f"agent{f // len(CATEGORIES):03d}", CATEGORIES[f % len(CATEGORIES)]
        items = []
        for _ in range(per_file):
            body = sentence(rng, rng.randint(8, 30)) + f" See item{next_id - 1_700_000_000_000}."  # a ticket id
            if category == "tasks":
                body = f"- [ ] {body}"
            if citing and agent == "agent000" and category in ("decisions", "lessons"):
                k = next_id - 1_700_000_000_000
                body += f" The redis timeout is handled in `src/redis_{k}.py:12`."
                citing -= 1
                if k % 2 == 0:
                    (root / "src").mkdir(exist_ok=True)
                    (root / "src" / f"redis_{k}.py").write_text("")
            items.append(Entry(next_id, None, [rng.choice(WORDS)], body))
            next_id += 1
        path = memory / agent / f"{category}.md"
        path.parent.mkdir(exist_ok=True)
        if entry_files:
            from memcli.storage.store import entry_file_name

            folder = path.with_suffix("")
            folder.mkdir()
            for item in items:
                file = folder / entry_file_name(item)
                file.write_text(vault.serialize([item]))
                os.utime(file, (HOUR_AGO, HOUR_AGO))
            os.utime(folder, (HOUR_AGO, HOUR_AGO))
            continue
        path.write_text(vault.serialize(items[::-1]))
        os.utime(path, (HOUR_AGO, HOUR_AGO))  # not "racy": files written this second are always hashed
    return files


def timed(cmd: list[str], runs: int, cwd: Path, setup=None, ok=(0,)) -> float:
    """Median wall time of ``runs`` runs (after one warm-up run), in ms; ``ok``: the exit codes expected."""
    times = []
    for n in range(runs + 1):
        if setup:
            setup()
        run_cmd = [LAST[0] if a == "LAST" and LAST else a.replace("UNIQUE", str(n)) for a in cmd]
        start = time.perf_counter()
        result = subprocess.run(run_cmd, cwd=cwd, capture_output=True, text=True, env=ENV)
        if n:
            times.append(time.perf_counter() - start)
        if result.returncode not in ok:
            raise SystemExit(f"{' '.join(cmd)} failed: {result.stderr}")
    return statistics.median(times) * 1000


def every_command(root: Path, runs: int) -> dict[str, float]:
    """The other commands, each on the vault at ``root`` (with a warm index)."""
    from memcli.storage.paths import Layout
    from memcli.storage.store import Store

    store = Store(Layout(root))
    newest = store.read("agent000", "lessons")[0].id
    conversation = root / "session.json"
    conversation.write_text(
        json.dumps(
            [{"role": "user" if i % 2 == 0 else "assistant", "text": sentence(random.Random(i), 12)} for i in range(20)]
        )
    )

    def new_entry(category: str = "tasks") -> None:
        LAST[:] = [str(store.add("agent000", category, "- [ ] bench task about redis").id)]

    cells = {
        "list -n 5 (every agent)": timed(MEMCLI + ["list", "-n", "5"], runs, root),
        "list one agent and category": timed(MEMCLI + ["list", "agent000", "-c", "lessons"], runs, root),
        "show AGENT ID": timed(MEMCLI + ["show", "agent000", str(newest)], runs, root),
        "status": timed(MEMCLI + ["status"], runs, root),
        "recover AGENT (none saved: exit 3)": timed(MEMCLI + ["recover", "agent001"], runs, root, ok=(3,)),
        "--version": timed(MEMCLI + ["--version"], runs, root),
        "edit AGENT ID TEXT": timed(
            MEMCLI + ["edit", "agent000", str(newest), "edited lesson about redis"], runs, root
        ),
        "done AGENT ID": timed(MEMCLI + ["done", "agent000", "LAST"], runs, root, setup=new_entry),
        "rm AGENT ID": timed(MEMCLI + ["rm", "agent000", "LAST", "--yes"], runs, root, setup=new_entry),
        "checkpoint AGENT FILE (20 messages)": timed(
            MEMCLI + ["checkpoint", "agent000", str(conversation), "-q"], runs, root
        ),
    }
    return cells


def freshness_ms(root: Path, repeat: int = 200) -> float:
    from memcli.search.index import SearchIndex
    from memcli.storage.paths import Layout
    from memcli.storage.store import Store

    time.sleep(2.1)  # files changed in the last 2 s are always hashed (their times could still move)
    index = SearchIndex(Store(Layout(root)))
    index.ensure_fresh()
    for _ in range(repeat):  # warm-up: the first calls after writing the files are slower
        index.changed_files(index.load_manifest())
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        manifest = index.load_manifest()
        changed, restat = index.changed_files(manifest)
        times.append(time.perf_counter() - start)
        assert not changed and not restat
    return statistics.median(times) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument(
        "--category-files", action="store_true", help="AITEAM-X category files instead of one file per entry"
    )
    parser.add_argument(
        "--citing", type=int, default=0, help="entries of the injected agent that cite repository files (half gone)"
    )
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    runs = args.runs
    work = Path(tempfile.mkdtemp(prefix="memcli-bench-"))
    try:
        floor = timed([sys.executable, "-c", "import tantivy"], runs * 2, work)
        bare = timed([sys.executable, "-c", "pass"], runs * 2, work)
        print(
            f"python -c pass: {bare:.0f} ms; floor (python -c 'import tantivy'): {floor:.0f} ms; runs per cell: {runs}"
        )
        rows: dict[str, list[str]] = {}
        for n in sizes:
            root = work / f"v{n}"
            files = generate(root, n, entry_files=not args.category_files, citing=args.citing)
            index_dir = root / ".memory" / ".vault" / "index"
            cells = {}
            cells["full rebuild (rm index; search)"] = timed(
                MEMCLI + ["search", "redis timeout"],
                max(3, runs // 2),
                root,
                setup=lambda: shutil.rmtree(index_dir, ignore_errors=True),
            )
            cells["search, warm index"] = timed(MEMCLI + ["search", "redis timeout"], runs, root)
            cells["search with a typo, warm"] = timed(MEMCLI + ["search", "kubernets deploi"], runs, root)
            cells["inject, warm index"] = timed(MEMCLI + ["inject", "agent000", "fix the redis timeout"], runs, root)
            cells["add one entry (index updated)"] = timed(
                MEMCLI + ["add", "agent000", "lessons", "bench lesson about redis UNIQUE"], runs, root
            )
            cells.update(every_command(root, runs))
            rank = "-"
            if n > 4321:  # an exact identifier against its typos and common words
                found = subprocess.run(
                    MEMCLI + ["search", "rollout canary item4321", "--json"],
                    cwd=root,
                    capture_output=True,
                    text=True,
                    env=ENV,
                )
                rank = str(
                    next((i + 1 for i, h in enumerate(json.loads(found.stdout)) if "item4321." in h["body"]), None)
                )
            rows.setdefault('rank of item4321 for "rollout canary item4321"', []).append(rank)
            cells["--help"] = timed(MEMCLI + ["--help"], runs, root)
            for name, ms in cells.items():
                rows.setdefault(name, []).append(f"{ms:.0f} ms ({ms / floor:.1f}x)")
            rows.setdefault("categories", []).append(str(files))
            shutil.rmtree(root)
        print()
        print("| whole process, median | " + " | ".join(f"{n:,} entries" for n in sizes) + " |")
        print("|---|" + "---|" * len(sizes))
        for name, values in rows.items():
            print(f"| {name} | " + " | ".join(values) + " |")
        print()
        for files in (100, 1000):
            root = work / f"f{files}"
            generate(root, files * 10, per_file=10, entry_files=not args.category_files)
            print(
                f"freshness check, nothing changed, {files} categories of 10 entries: {freshness_ms(root):.2f} ms (in process, median)"
            )
            shutil.rmtree(root)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

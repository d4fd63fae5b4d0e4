"""kill -9 trials: memcli add / checkpoint / compact killed at random moments, then every command must work.

    python bench/crash_trials.py [--trials 100] [--seed 1] [--entries 3000]

Each trial starts a real memcli process on a vault with an up-to-date index (so that
``add`` re-indexes a file inside tantivy's commit), kills it after a random delay drawn
around the time such a command takes, and then runs ``search`` and ``inject``: both must
exit 0 with no internal error, the search must find every entry stored on disk, and
``inject`` must print a block.  Prints one line per failure and a summary; exits 1 on any.
"""

from __future__ import annotations

import argparse
import json
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from memcli.storage import vault  # noqa: E402
from memcli.storage.paths import Layout  # noqa: E402
from memcli.storage.store import Store  # noqa: E402


def memcli(*args: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "memcli", *args], cwd=cwd, input=stdin, capture_output=True, text=True, timeout=120
    )


def setup(folder: Path, entries: int) -> None:
    memcli("init", "--no-hooks", cwd=folder)
    for c, category in enumerate(("decisions", "lessons", "projects")):
        items = [
            vault.Entry(1_700_000_000_000 + c * 1_000_000 + i, None, [], f"{category} {i} about queues and retries")
            for i in range(entries // 3)
        ]
        path = folder / ".memory" / "dev" / f"{category}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(vault.serialize(items))
    memcli("search", "queues", cwd=folder)


def timed(args: list[str], cwd: Path, stdin: str | None) -> float:
    started = time.monotonic()
    memcli(*args, cwd=cwd, stdin=stdin)
    return time.monotonic() - started


def run_trials(folder: Path, trials: int, seed: int, entries: int, log=print) -> int:
    """``trials`` kill -9 trials in ``folder`` (set up here); returns how many failed."""
    rng = random.Random(seed)
    conversation = json.dumps(
        [{"role": "user" if i % 2 == 0 else "agent", "text": f"message {i} about queues"} for i in range(40)]
    )
    failures = 0
    setup(folder, entries)
    kinds = [
        (["add", "dev", "lessons", "a lesson about queues"], None),
        (["checkpoint", "dev", "-", "--close"], conversation),
        (["compact"], None),
    ]
    durations = {tuple(a): timed(a, folder, s) for a, s in kinds}
    for trial in range(trials):
        args, stdin = kinds[0] if trial % 2 == 0 else kinds[rng.randrange(1, 3)]
        if trial % 5 == 0:
            path = folder / ".memory" / "dev" / "projects.md"
            path.write_text(path.read_text() + f"\nhand note {trial} about queues\n")
        proc = subprocess.Popen(
            [sys.executable, "-m", "memcli", *args],
            cwd=folder,
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        if stdin:
            proc.stdin.write(stdin.encode())
        proc.stdin.close()
        time.sleep(rng.uniform(0.3, 1.0) * durations[tuple(args)])
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        problem = check(folder)
        if problem:
            failures += 1
            log(f"trial {trial} ({args[0]}): {problem}")
    return failures


def check(folder: Path) -> str | None:
    """What is wrong after a kill: search must find every stored entry, inject must print a block."""
    result = memcli("search", "queues", "--limit", "1000000", "--json", cwd=folder)
    problem = None
    if result.returncode != 0 or "internal error" in result.stderr or "Traceback" in result.stderr:
        problem = f"search failed: {result.stderr.strip()[:200]}"
    else:
        found = {h["id"] for h in json.loads(result.stdout)}
        store = Store(Layout(folder))
        stored = {e.id for c in ("decisions", "lessons", "projects") for e in store.read("dev", c)}
        if not stored <= found:
            problem = f"search misses {len(stored - found)} stored entries"
    block = memcli("inject", "dev", "queues", cwd=folder)
    if block.returncode != 0 or "MEMORY CONTEXT" not in block.stdout:
        problem = (problem or "") + f" inject printed no block: {block.stderr.strip()[:200]}"
    return problem


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--entries", type=int, default=3000)
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        failures = run_trials(Path(tmp), opts.trials, opts.seed, opts.entries)
    print(f"{opts.trials} trials, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

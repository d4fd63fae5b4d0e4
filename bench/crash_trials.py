"""kill -9 trials: memcli add / checkpoint / compact killed at random moments, then every command must work.

    python bench/crash_trials.py [--trials 100] [--seed 1] [--entries 3000]

Each trial starts a real memcli process on a vault with an up-to-date index (so that
``add`` re-indexes a file inside tantivy's commit), kills it after a random delay drawn
around the time such a command takes, and then runs ``search`` and ``inject``: both must
exit 0 with no internal error, the search must find every entry stored on disk, and
``inject`` must print a block.  The vault is a git repository (``memcli init`` wrote its
``.gitignore`` lines): after those commands ``git status --porcelain`` must show no temporary
file of memcli's (``.<name>.<pid>-<random>.tmp``, what a killed write leaves), so ``git add -A``
can never commit one.  After the last trial a ``memcli compact`` must leave no temporary file on
disk at all.  Prints one line per failure and a summary (with how many temporary files the kills
left on disk, and how many the next write removed); exits 1 on any failure.
"""

from __future__ import annotations

import argparse
import json
import os
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


def git(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x", "GIT_COMMITTER_NAME": "t"}
    env["GIT_COMMITTER_EMAIL"] = "t@x"
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=120)


def temp_files(folder: Path) -> list[str]:
    """memcli's temporary files anywhere under .memory/ (tantivy's own index files aside)."""
    memory = folder / ".memory"
    return sorted(
        str(p.relative_to(folder))
        for p in memory.rglob(".*.tmp")
        if p.is_file() and "index" not in p.relative_to(memory).parts[:2]
    )


def setup(folder: Path, entries: int) -> None:
    git("init", "-q", "-b", "main", cwd=folder)
    memcli("init", "--no-hooks", cwd=folder)
    for c, category in enumerate(("decisions", "lessons", "projects")):
        items = [
            vault.Entry(1_700_000_000_000 + c * 1_000_000 + i, None, [], f"{category} {i} about queues and retries")
            for i in range(entries // 3)
        ]
        path = folder / ".memory" / "dev" / f"{category}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(vault.serialize(items))
    git("add", "-A", cwd=folder)
    git("commit", "-qm", "memory", cwd=folder)
    memcli("search", "queues", cwd=folder)


def timed(args: list[str], cwd: Path, stdin: str | None) -> float:
    started = time.monotonic()
    memcli(*args, cwd=cwd, stdin=stdin)
    return time.monotonic() - started


def run_trials(folder: Path, trials: int, seed: int, entries: int, log=print, counts: dict | None = None) -> int:
    """``trials`` kill -9 trials in ``folder`` (set up here); returns how many failed.  ``counts``
    (if given) gets ``left`` (temporary files on disk after the kills, summed), ``removed_by_next_write``
    (of those, how many the next command's write removed) and ``shown_by_git``."""
    counts = counts if counts is not None else {}
    counts.update(left=0, removed_by_next_write=0, shown_by_git=0)
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
    previous: list[str] = []
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
        if rng.random() < 0.5:  # half the kills land while a memory file is being written
            counts["killed_at_a_write"] = counts.get("killed_at_a_write", 0) + kill_at_a_write(
                proc, folder, 2 * durations[tuple(args)]
            )
        else:
            time.sleep(rng.uniform(0.3, 1.0) * durations[tuple(args)])
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        # The temporary files the kill before this one left in the folders this command wrote to
        # (the next write's clean-up runs under the lock, after its own files are written).
        now = temp_files(folder)
        counts["removed_by_next_write"] += len([p for p in previous if p not in now])
        counts["left"] += len([p for p in now if p not in previous])
        previous = now
        problem = check(folder, counts)
        if problem:
            failures += 1
            log(f"trial {trial} ({args[0]}): {problem}")
    done = memcli("compact", cwd=folder)
    left = temp_files(folder)
    if done.returncode != 0 or left:
        failures += 1
        log(f"after the trials: compact (rc={done.returncode}) left temporary files {left} {done.stderr.strip()[:200]}")
    return failures


WATCHED = ("dev/lessons", "dev/handoffs", "dev/decisions", "dev/projects", "dev", "conversations/dev")


def kill_at_a_write(proc: subprocess.Popen, folder: Path, within: float) -> bool:
    """kill -9 ``proc`` the moment a temporary file shows in a tracked memory folder (a write under
    way: between its temporary file and the rename), or after ``within`` seconds; whether it hit one."""
    watched = [str(folder / ".memory" / w) for w in WATCHED]
    deadline = time.monotonic() + within
    while proc.poll() is None and time.monotonic() < deadline:
        for path in watched:
            try:
                names = os.listdir(path)
            except OSError:
                continue
            if any(n.startswith(".") and n.endswith(".tmp") for n in names):
                proc.send_signal(signal.SIGKILL)
                return True
    return False


def check(folder: Path, counts: dict | None = None) -> str | None:
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
    status = git("status", "--porcelain", "--untracked-files=all", cwd=folder)
    shown = [line for line in status.stdout.splitlines() if line.endswith(".tmp")]
    if counts is not None:
        counts["shown_by_git"] = counts.get("shown_by_git", 0) + len(shown)
    if status.returncode != 0 or shown:
        problem = (problem or "") + f" git status shows temporary files: {shown[:3]} {status.stderr.strip()[:100]}"
    return problem


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--entries", type=int, default=3000)
    opts = parser.parse_args()
    counts: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        failures = run_trials(Path(tmp), opts.trials, opts.seed, opts.entries, counts=counts)
    print(
        f"{opts.trials} trials, {failures} failed; temporary files left on disk by the kills {counts['left']},"
        f" removed by the next write {counts['removed_by_next_write']}, shown by git status {counts['shown_by_git']}"
        f" ({counts.get('killed_at_a_write', 0)} kills landed during a write)"
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

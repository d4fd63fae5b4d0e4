"""What trusted memory costs `inject` and the agent hook, paired against the build before.

    python bench/trust_speed.py [--sizes 10000,100000] [--runs 15] [--before REV]

Makes a git repository of N entries (one file per entry, committed, with ``origin/main`` as the
trusted branch) and times whole processes, alternating between this build and REV (default: the
commit before trusted memory, d6d3b9b) checked out in a temporary worktree: ``memcli inject`` for a
task, and the Claude Code SessionStart hook.  Three states: nothing changed since the last check
(the provenance cache holds: no git process), on a contributor's branch (a held entry, cache
holding), and the first call after a checkout (provenance recomputed with git).  Prints medians
and the ratio to the build before.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from bench import generate  # noqa: E402

GIT_ENV = {**os.environ, "GIT_AUTHOR_NAME": "B", "GIT_AUTHOR_EMAIL": "b@x", "GIT_COMMITTER_NAME": "B"}
GIT_ENV["GIT_COMMITTER_EMAIL"] = "b@x"


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, env=GIT_ENV)


def repository(root: Path, entries: int) -> None:
    generate(root, entries, entry_files=True)
    (root / ".gitignore").write_text(".memory/.vault/\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "memory")
    git(root, "remote", "add", "origin", "/nonexistent")
    git(root, "update-ref", "refs/remotes/origin/main", "HEAD")
    git(root, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/main")
    # A contributor's branch: one commit by another author, made "elsewhere" (no reflog entry here).
    folder = root / ".memory" / "agent000" / "decisions"
    (folder / "1799999999999-ci-note.md").write_text(
        "<!-- id:1799999999999 -->\n## 2026-11-26T09:00\n\nRedis timeout note from a contributor.\n\n---\n"
    )
    git(root, "add", "-A")
    tree = subprocess.run(["git", "write-tree"], cwd=root, capture_output=True, text=True, check=True).stdout.strip()
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True).stdout.strip()
    commit = subprocess.run(
        ["git", "commit-tree", tree, "-p", head, "-m", "fix typo"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
        env={**GIT_ENV, "GIT_AUTHOR_NAME": "Mallory"},
    ).stdout.strip()
    git(root, "reset", "-q", "--hard", "HEAD")
    git(root, "update-ref", "refs/remotes/origin/pr", commit)


def timed(cmd: list[str], cwd: Path, env: dict, stdin: str | None = None, setup=None) -> float:
    if setup:
        setup()
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env, input=stdin)
    took = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{cmd} failed: {done.stderr}")
    return took * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--before", default="d6d3b9b")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="memcli-trust-speed-"))
    before = work / "before"
    subprocess.run(["git", "worktree", "add", "-q", "--detach", str(before), args.before], cwd=ROOT, check=True)
    builds = {"before": before, "now": ROOT}
    base = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # bytecode reused, as installed
    envs = {name: {**base, "PYTHONPATH": str(path), "NO_COLOR": "1"} for name, path in builds.items()}
    try:
        print(f"| entries | state | command | {args.before} (ms) | this build (ms) | ratio |")
        print("|---|---|---|---|---|---|")
        for size in (int(s) for s in args.sizes.split(",")):
            root = work / f"repo{size}"
            root.mkdir()
            repository(root, size)
            hook_input = json.dumps({"session_id": "s", "cwd": str(root), "hook_event_name": "SessionStart"})
            commands = {
                "inject": ([sys.executable, "-m", "memcli", "inject", "agent000", "fix the redis timeout"], None),
                "SessionStart hook": ([sys.executable, "-m", "memcli", "agent-hook", "claude-code"], hook_input),
            }
            for name, env in envs.items():  # warm: the index built, the caches written
                for cmd, stdin in commands.values():
                    timed(cmd, root, env, stdin)

            def checkout(ref: str):
                return lambda: git(root, "checkout", "-q", ref)

            states = {
                "nothing changed": None,
                "on their branch": checkout("origin/pr"),
                "first call after a checkout": "alternate",
            }
            for state, setup in states.items():
                if setup is not None and setup != "alternate":
                    setup()
                for label, (cmd, stdin) in commands.items():
                    times: dict[str, list[float]] = {n: [] for n in builds}
                    for n in range(args.runs):
                        for name, env in envs.items():
                            prep = None
                            if setup == "alternate":
                                prep = checkout("main" if n % 2 else "origin/pr")
                            times[name].append(timed(cmd, root, env, stdin, prep))
                    b, a = statistics.median(times["before"]), statistics.median(times["now"])
                    print(f"| {size:,} | {state} | {label} | {b:.0f} | {a:.0f} | {a / b:.2f}x |", flush=True)
                    if setup == "alternate":
                        git(root, "checkout", "-q", "main")
            git(root, "checkout", "-q", "main")
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(before)], cwd=ROOT, capture_output=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

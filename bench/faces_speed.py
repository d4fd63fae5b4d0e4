"""What the operations layer costs the hot commands, paired against the build before it.

    python bench/faces_speed.py [--sizes 10000,100000] [--runs 11] [--before REV]

A git repository of N entries (bench/trust_speed.py's), and whole processes alternating run by run
between this build and REV (default 7d39093, the last build before ``api.OPERATIONS``) checked out in
a temporary worktree: ``search``, ``inject``, ``add`` (a new text each run) and the Claude Code
SessionStart hook.  Prints medians, the ratio to the build before, and the floor
(``python -c "import tantivy"``) measured in the same runs.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from trust_speed import repository, timed  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--before", default="7d39093")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="memcli-faces-speed-"))
    before = work / "before"
    subprocess.run(["git", "worktree", "add", "-q", "--detach", str(before), args.before], cwd=ROOT, check=True)
    builds = {"before": before, "now": ROOT}
    base = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # bytecode reused, as installed
    envs = {name: {**base, "PYTHONPATH": str(path), "NO_COLOR": "1"} for name, path in builds.items()}
    try:
        print(f"| entries | command | {args.before} (ms) | this build (ms) | ratio | floor (ms) |")
        print("|---|---|---|---|---|---|")
        for size in (int(s) for s in args.sizes.split(",")):
            root = work / f"repo{size}"
            root.mkdir()
            repository(root, size)
            hook_input = json.dumps({"session_id": "s", "cwd": str(root), "hook_event_name": "SessionStart"})
            memcli = [sys.executable, "-m", "memcli"]
            commands = {
                "search": (lambda n: [*memcli, "search", "redis timeout"], None),
                "inject": (lambda n: [*memcli, "inject", "agent000", "fix the redis timeout"], None),
                "add": (lambda n: [*memcli, "add", "agent000", "lessons", f"lesson {n} about retry {n * 7919}"], None),
                "SessionStart hook": (lambda n: [*memcli, "agent-hook", "claude-code"], hook_input),
            }
            for name, env in envs.items():  # warm: the index built, the caches written
                for make, stdin in commands.values():
                    timed(make(-1 if name == "before" else -2), root, env, stdin)
            floor: list[float] = []
            for label, (make, stdin) in commands.items():
                times: dict[str, list[float]] = {n: [] for n in builds}
                for n in range(args.runs):
                    for k, (name, env) in enumerate(envs.items()):
                        times[name].append(timed(make(2 * n + k), root, env, stdin))
                    floor.append(timed([sys.executable, "-c", "import tantivy"], root, envs["now"]))
                b, a = statistics.median(times["before"]), statistics.median(times["now"])
                f = statistics.median(floor)
                print(f"| {size:,} | {label} | {b:.0f} | {a:.0f} | {a / b:.2f}x | {f:.0f} |", flush=True)
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(before)], cwd=ROOT, capture_output=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

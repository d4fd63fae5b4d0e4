"""The content guard against a peer: payloads caught, honest lines flagged, time per text.

    python bench/guard_eval.py [--lines ../shared/eval/instruction-lines/lines.jsonl] [--extra more.jsonl ...]

Corpora: ``tests/fixtures/attacks.jsonl`` (payloads, per kind), ``tests/fixtures/honest.jsonl``
(honest lines the project wrote, near-misses included), and the shared real instruction lines
(evaluation data, read in place from beside the project and never copied into it; skipped with a
message when absent).  ``--extra`` adds JSONL files of payloads (``kind``, ``text``) or honest
lines (``text`` only), e.g. a held-out set written after the rules were frozen.

Peer: OWASP's agent-memory-guard 0.3.3 (``pip install agent-memory-guard==0.3.3``; not a memcli
dependency), two ways: its one-call API ``agent_memory_guard.scan.scan(text)`` (flagged = not
``safe``; prompt injection, secrets, self-reinforcement), and every text detector it ships run on
a memory write (``MemoryPersistenceInjection``, ``ToolAbuse``, ``PrivilegeEscalation``,
``ExcessiveAutonomy`` added), which is the most it can catch.  A flagged text is one with any
finding; for memcli, "own rule" is the share a payload's own kind's rule caught.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from memcli.storage import guard  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures"
LINES = ROOT.parent / "shared" / "eval" / "instruction-lines" / "lines.jsonl"


def peer():
    """The peer's two ways of flagging a text, or None when it is not installed."""
    try:
        from agent_memory_guard.detectors import (
            ExcessiveAutonomyDetector,
            MemoryPersistenceInjectionDetector,
            PrivilegeEscalationDetector,
            PromptInjectionDetector,
            SensitiveDataDetector,
            ToolAbuseDetector,
        )
        from agent_memory_guard.scan import scan as amg_scan
    except ImportError:
        return None
    detectors = [
        PromptInjectionDetector(),
        MemoryPersistenceInjectionDetector(),
        SensitiveDataDetector(),
        ToolAbuseDetector(),
        PrivilegeEscalationDetector(),
        ExcessiveAutonomyDetector(),
    ]

    def one_call(text: str) -> bool:
        return not amg_scan(text).safe

    def every_detector(text: str) -> bool:
        return any(d.inspect("memory", text, operation="write").matched for d in detectors)

    return one_call, every_detector


def per_text_us(flag, texts: list[str], repeat: int) -> float:
    """Mean time per text, best of ``repeat`` passes (a warm-up pass first: compiling is not counted)."""
    for text in texts:
        flag(text)
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for text in texts:
            flag(text)
        best = min(best, time.perf_counter() - start)
    return best / max(1, len(texts)) * 1e6


def import_ms(module: str) -> float:
    """The module's own import time (``python -X importtime``, median of 5 fresh processes, with
    bytecode cached the way an installed package has it, in a temporary folder)."""
    times = []
    with tempfile.TemporaryDirectory() as cache:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"} | {"PYTHONPYCACHEPREFIX": cache}
        command = [sys.executable, "-X", "importtime", "-c", f"import {module}"]
        subprocess.run(command, capture_output=True, cwd=ROOT, env=env)  # writes the bytecode
        for _ in range(5):
            result = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, env=env)
            for line in result.stderr.splitlines():
                if line.rstrip().endswith(f"| {module}"):
                    times.append(int(line.split("|")[1]) / 1000)
    times.sort()
    return times[len(times) // 2] if times else float("nan")


def share(flags: list[bool]) -> str:
    return f"{sum(flags) / len(flags):6.1%}" if flags else "   n/a"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lines", type=Path, default=LINES, help="the shared real instruction lines (JSONL)")
    parser.add_argument(
        "--extra", type=Path, nargs="*", default=[], action="extend", help="more JSONL corpora (payloads or lines)"
    )
    parser.add_argument("--repeat", type=int, default=5, help="timing passes (best is kept)")
    parser.add_argument("--show", action="store_true", help="list what memcli misses and flags")
    args = parser.parse_args()

    attacks = [json.loads(line) for line in (FIXTURES / "attacks.jsonl").read_text().splitlines()]
    corpora: list[tuple[str, list[str], str | None]] = []  # (name, texts, kind of payload or None)
    by_kind = defaultdict(list)
    for a in attacks:
        by_kind[a["kind"]].append(a["text"])
    corpora.append(("attacks (fixture), all", [a["text"] for a in attacks], "*"))
    corpora += [(f"  {kind}", texts, kind) for kind, texts in sorted(by_kind.items())]
    honest = [json.loads(line)["text"] for line in (FIXTURES / "honest.jsonl").read_text().splitlines()]
    corpora.append(("honest lines (fixture)", honest, None))
    for extra in args.extra:
        rows = [json.loads(line) for line in extra.read_text().splitlines() if line.strip()]
        kind = "*" if rows and "kind" in rows[0] else None
        corpora.append((f"{extra.name}", [r["text"] for r in rows], kind))
        if kind:
            extra_kinds = defaultdict(list)
            for r in rows:
                extra_kinds[r["kind"]].append(r["text"])
            corpora += [(f"  {k}", texts, k) for k, texts in sorted(extra_kinds.items())]
    if args.lines.exists():
        real = [json.loads(line)["text"] for line in args.lines.read_text().splitlines() if line.strip()]
        corpora.append(("real instruction lines (shared, eval)", real, None))
    else:
        print(f"(no {args.lines}: the shared real lines are skipped)\n")

    amg = peer()
    if amg is None:
        print("(agent-memory-guard is not installed: pip install agent-memory-guard==0.3.3)\n")

    start = time.perf_counter()
    for alternative in guard._alternatives():
        alternative.pattern()
    compile_ms = (time.perf_counter() - start) * 1000

    header = (
        "| corpus | texts | memcli flagged | memcli, own rule | agent-memory-guard scan() | "
        "agent-memory-guard, every detector |"
    )
    print(header)
    print("|---|---:|---:|---:|---:|---:|")
    shown: list[str] = []
    for name, texts, kind in corpora:
        findings = [guard.scan(t) for t in texts]
        ours = [bool(f) for f in findings]
        own = [any(x.rule == kind for x in f) for f in findings] if kind not in (None, "*") else []
        if amg:
            theirs_one = [amg[0](t) for t in texts]
            theirs_all = [amg[1](t) for t in texts]
        else:
            theirs_one = theirs_all = []
        print(
            f"| {name} | {len(texts)} | {share(ours)} | {share(own) if own else '—'} | {share(theirs_one)} "
            f"| {share(theirs_all)} |"
        )
        if args.show:
            for t, f in zip(texts, findings):
                if kind is not None and not f:
                    shown.append(f"missed [{kind if kind != '*' else ''}] {t[:140]!r}")
                if kind is None and f:
                    shown.append(f"flagged {[(x.rule, x.excerpt) for x in f]} {t[:140]!r}")

    every = [t for _, texts, _ in corpora[:1] for t in texts] + honest
    print()
    print("| time per text (µs, best of passes, after a warm-up) | memcli | agent-memory-guard scan() |")
    print("|---|---:|---:|")
    timing_sets = [("attacks + honest fixture", every)]
    if args.lines.exists():
        timing_sets.append(("real instruction lines", corpora[-1][1]))
    for name, texts in timing_sets:
        theirs = f"{per_text_us(amg[0], texts, args.repeat):.0f}" if amg else "n/a"
        print(f"| {name} | {per_text_us(guard.scan, texts, args.repeat):.0f} | {theirs} |")
    floor = per_text_us(lambda _: sum(range(1000)), ["x"] * 1000, args.repeat)
    print(f"| (floor: `sum(range(1000))` on this machine) | {floor:.1f} | |")
    print()
    print(f"memcli.storage.guard import: {import_ms('memcli.storage.guard'):.2f} ms (self, median of 5)")
    if amg:
        print(f"agent_memory_guard.scan import: {import_ms('agent_memory_guard.scan'):.2f} ms (self, median of 5)")
    print(f"memcli: compiling every pattern ({len(guard._ALTERNATIVES)}) once: {compile_ms:.0f} ms")
    if shown:
        print()
        print("\n".join(shown))


if __name__ == "__main__":
    main()

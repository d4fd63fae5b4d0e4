"""Retrieval quality on LoCoMo (Maharana et al., ACL 2024) under the paper's Table 3 protocol.

    python bench/locomo_eval.py [--locomo ../shared/eval/locomo]

One memcli agent per conversation; every dialog turn is one entry whose body is
``<speaker> said, "<text>"`` (plus `` and shared <caption>``); each question is searched
with memcli's default search, filtered to its conversation's agent.  recall@k = the
fraction of a question's evidence turns in the top k, averaged over the questions that
have usable evidence (n = 1,982).  The data is read from the shared folder and written
only to a temporary folder: it never enters the project.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from memcli.storage import vault  # noqa: E402
from memcli.search.index import SearchIndex  # noqa: E402
from memcli.storage.paths import Layout  # noqa: E402
from memcli.storage.store import Store, entry_file_name  # noqa: E402
from memcli.storage.vault import Entry  # noqa: E402

KS = (5, 10, 25, 50)
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
REFERENCE = [
    ("original AITEAM-X search (MiniSearch)", (0.470, 0.543, 0.635, 0.708)),
    ("plain Okapi BM25", (0.457, 0.533, 0.626, 0.704)),
    ("tantivy en_stem, lenient OR query", (0.498, 0.579, 0.683, 0.748)),
    ("DRAGON dense retriever (paper)", (0.567, 0.662, 0.767, 0.827)),
]


def load(locomo: Path, out: Path) -> tuple[list[dict], list[dict]]:
    subprocess.run(
        [sys.executable, str(locomo / "locomo_to_queries.py"), str(locomo / "locomo10.json"), "--out-dir", str(out)],
        check=True,
        capture_output=True,
    )
    memories = [json.loads(line) for line in (out / "locomo_memories.jsonl").open()]
    queries = [json.loads(line) for line in (out / "locomo_queries.jsonl").open()]
    return memories, queries


def session_id(when: str) -> int:
    """The id memcli gives an entry written at a session's time (``1:56 pm on 8 May, 2023``)."""
    moment = datetime.strptime(when, "%I:%M %p on %d %B, %Y").replace(tzinfo=timezone.utc)
    return int(moment.timestamp()) * 1000


def build_memory(root: Path, memories: list[dict]) -> dict[tuple[str, int], str]:
    """Write one entry file per turn, one agent per conversation, each entry's id the time of its
    session (one second apart within it), as memcli dates what it writes; return (agent, entry
    id) -> dia_id."""
    (root / ".memory" / ".vault").mkdir(parents=True)
    by_agent: dict[str, list[Entry]] = defaultdict(list)
    ids: dict[tuple[str, int], str] = {}
    turn, session = 0, None
    for m in memories:
        agent = m["sample_id"].lower()
        body = f'{m["speaker"]} said, "{m["text"]}"'
        if m.get("blip_caption"):
            body += f" and shared {m['blip_caption']}"
        turn = turn + 1 if (agent, m["session"]) == session else 0
        session = (agent, m["session"])
        entry = Entry(session_id(m["session_date_time"]) + turn * 1000, None, [], body)
        by_agent[agent].append(entry)
        ids[(agent, entry.id)] = m["dia_id"]
    for agent, entries in by_agent.items():  # one file per memory, as memcli writes them
        folder = root / ".memory" / agent / "lessons"
        folder.mkdir(parents=True)
        for entry in entries:
            (folder / entry_file_name(entry)).write_text(vault.serialize([entry]))
    return ids


def evaluate(root: Path, ids: dict, queries: list[dict]) -> tuple[dict, int, float]:
    index = SearchIndex(Store(Layout(root)))
    index.ensure_fresh()
    samples = list(dict.fromkeys(q["sample_id"] for q in queries))
    halves = {"all": set(samples), "1-5": set(samples[:5]), "6-10": set(samples[5:])}
    sums = {name: dict.fromkeys(KS, 0.0) for name in halves}
    counts = dict.fromkeys(halves, 0)
    started = time.perf_counter()
    for q in queries:
        evidence = set(q["evidence"])
        if not evidence:
            continue
        agent = q["sample_id"].lower()
        hits = index.search(q["question"], agent=agent, limit=max(KS), fresh=False)
        ranked = [ids[(agent, h.id)] for h in hits]
        for name, members in halves.items():
            if q["sample_id"] in members:
                keys = [name] if name == "all" else [name, f"{name} {CATEGORIES[q['category']]}"]
                for key in keys:
                    counts[key] = counts.get(key, 0) + 1
                    row = sums.setdefault(key, dict.fromkeys(KS, 0.0))
                    for k in KS:
                        row[k] += len(evidence & set(ranked[:k])) / len(evidence)
    elapsed = time.perf_counter() - started
    self_recall = {name: {k: sums[name][k] / max(1, counts[name]) for k in KS} for name in sums}
    return self_recall, counts, elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--locomo", type=Path, default=ROOT.parent / "shared" / "eval" / "locomo")
    args = parser.parse_args()
    if not (args.locomo / "locomo10.json").exists():
        print(f"LoCoMo not found at {args.locomo}; skipping the retrieval benchmark")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        memories, queries = load(args.locomo, Path(tmp) / "data")
        root = Path(tmp) / "memory"
        ids = build_memory(root, memories)
        recalls, counts, elapsed = evaluate(root, ids, queries)
    recall, n = recalls["all"], counts["all"]
    print(
        f"LoCoMo retrieval, n = {n} questions (4 without usable evidence left out), {elapsed / n * 1000:.2f} ms/query"
    )
    print(f"| retriever | {' | '.join(f'R@{k}' for k in KS)} |")
    print(f"|---|{'---|' * len(KS)}")
    for name, row in REFERENCE[:3]:
        print(f"| {name} | {' | '.join(f'{v:.3f}' for v in row)} |")
    print(f"| **memcli search (default)** | {' | '.join(f'**{recall[k]:.3f}**' for k in KS)} |")
    for half in ("1-5", "6-10"):
        row = recalls[half]
        print(f"| memcli, conversations {half} (n = {counts[half]}) | {' | '.join(f'{row[k]:.3f}' for k in KS)} |")
        for name in CATEGORIES.values():
            key = f"{half} {name}"
            row = recalls[key]
            print(f"| &nbsp;&nbsp;{half}, {name} (n = {counts[key]}) | {' | '.join(f'{row[k]:.3f}' for k in KS)} |")
    name, row = REFERENCE[3]
    print(f"| {name} | {' | '.join(f'{v:.3f}' for v in row)} |")
    floor = REFERENCE[2][1]
    ok = all(recall[k] >= floor[i] for i, k in enumerate(KS))
    print("at or above the plain tantivy row at every k" if ok else "BELOW the plain tantivy row at some k")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())

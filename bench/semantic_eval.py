"""Would an offline embedding model help search?  LoCoMo recall of memcli's BM25, of WordLlama's
embeddings alone, and of the two fused by reciprocal rank fusion (RRF), the fusion's two
parameters chosen on conversations 1-5 and reported on 6-10 (issue 23, point 3).

    pip install wordllama && python bench/semantic_eval.py [--locomo ../shared/eval/locomo]

WordLlama's wheel carries its weights (``l2_supercat_256.safetensors``, 16 MB), but its
``WordLlama.load()`` looks for the tokenizer in ``wordllama/tokenizer/`` while the wheel ships it in
``wordllama/tokenizers/``; offline, ``cache_dir=<the package>`` and ``disable_download=True`` find
both.  Nothing here is a dependency of memcli: without wordllama the script says so and exits 0.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import locomo_eval  # noqa: E402

from memcli.search.index import SearchIndex  # noqa: E402
from memcli.storage.paths import Layout  # noqa: E402
from memcli.storage.store import Store  # noqa: E402

KS = (5, 10, 25, 50)
DEPTH = 200  # candidates taken from each ranking before fusion


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--locomo", type=Path, default=ROOT.parent / "shared" / "eval" / "locomo")
    args = parser.parse_args()
    try:
        import numpy as np
        import wordllama
        from wordllama import WordLlama
    except ImportError:
        print("wordllama is not installed (pip install wordllama); nothing measured")
        return 0
    if not (args.locomo / "locomo10.json").exists():
        print(f"LoCoMo not found at {args.locomo}; nothing measured")
        return 0
    started = time.perf_counter()
    model = WordLlama.load(cache_dir=Path(wordllama.__file__).parent, disable_download=True)
    load_ms = (time.perf_counter() - started) * 1000
    with tempfile.TemporaryDirectory() as tmp:
        memories, queries = locomo_eval.load(args.locomo, Path(tmp) / "data")
        root = Path(tmp) / "memory"
        ids = locomo_eval.build_memory(root, memories)
        index = SearchIndex(Store(Layout(root)))
        index.ensure_fresh()
        turns: dict[str, list[tuple[int, str]]] = defaultdict(list)
        for n, m in enumerate(memories):
            body = f'{m["speaker"]} said, "{m["text"]}"'
            if m.get("blip_caption"):
                body += f" and shared {m['blip_caption']}"
            turns[m["sample_id"].lower()].append((1_700_000_000_000 + n, body))
        started = time.perf_counter()
        vectors = {
            agent: (np.array([i for i, _ in rows]), model.embed([b for _, b in rows], norm=True))
            for agent, rows in turns.items()
        }
        embed_ms = (time.perf_counter() - started) * 1000 / len(memories) * 1000
        samples = list(dict.fromkeys(q["sample_id"] for q in queries))
        tuning = set(samples[:5])
        rows = []
        query_ms = 0.0
        for q in queries:
            if not q["evidence"]:
                continue
            agent = q["sample_id"].lower()
            bm25 = [h.id for h in index.search(q["question"], agent=agent, limit=DEPTH, fresh=False)]
            started = time.perf_counter()
            entry_ids, matrix = vectors[agent]
            query = model.embed([q["question"]], norm=True)[0]
            semantic = entry_ids[np.argsort(-(matrix @ query))][:DEPTH].tolist()
            query_ms += (time.perf_counter() - started) * 1000
            rows.append((q["sample_id"] in tuning, set(q["evidence"]), agent, bm25, semantic))

    def recall(subset, fuse) -> dict[int, float]:
        sums = dict.fromkeys(KS, 0.0)
        for _, evidence, agent, bm25, semantic in subset:
            ranked = [ids[(agent, i)] for i in fuse(bm25, semantic)]
            for k in KS:
                sums[k] += len(evidence & set(ranked[:k])) / len(evidence)
        return {k: sums[k] / len(subset) for k in KS}

    def rrf(k: int, weight: float):
        def fuse(bm25: list[int], semantic: list[int]) -> list[int]:
            score: dict[int, float] = defaultdict(float)
            for rank, i in enumerate(bm25):
                score[i] += 1 / (k + rank)
            for rank, i in enumerate(semantic):
                score[i] += weight / (k + rank)
            return sorted(score, key=score.__getitem__, reverse=True)

        return fuse

    tune = [r for r in rows if r[0]]
    held = [r for r in rows if not r[0]]
    grid = [(k, w) for k in (5, 10, 20, 40, 60) for w in (0.3, 0.5, 0.7, 1.0, 1.5)]
    k, w = max(grid, key=lambda kw: sum(recall(tune, rrf(*kw)).values()))
    table = [
        ("memcli search (BM25)", lambda b, s: b),
        ("WordLlama l2_supercat_256 alone", lambda b, s: s),
        (f"RRF, k = {k}, semantic weight {w} (chosen on 1-5)", rrf(k, w)),
    ]
    print(f"| retriever | {' | '.join(f'R@{k} 1-5' for k in KS)} | {' | '.join(f'R@{k} 6-10' for k in KS)} |")
    print(f"|---|{'---|' * 2 * len(KS)}")
    for name, fuse in table:
        a, b = recall(tune, fuse), recall(held, fuse)
        print(f"| {name} | {' | '.join(f'{a[k]:.3f}' for k in KS)} | {' | '.join(f'{b[k]:.3f}' for k in KS)} |")
    print(
        f"model load {load_ms:.0f} ms; {embed_ms:.0f} ms per 1,000 entries embedded;"
        f" {query_ms / len(rows):.2f} ms per query (embedding it and ranking its conversation)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

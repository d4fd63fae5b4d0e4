"""Where a first search's time goes when there is no index (a fresh clone): each step of a build
timed alone, in one process, on the same entries.

    python bench/build_floor.py [--sizes 10000,100000]

Steps: reading every entry file (``category_sources``: open, fstat, read, close), parsing them
(``parse_sources``), stemming the bodies, the fields of every document (``SearchIndex._documents``,
which parses and stems again, and marks), then tantivy alone: ``add_document`` of the documents
made and ``commit``.  The floor of any build is the reading plus tantivy's part.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench import generate  # noqa: E402
from layouts import to_entry_files  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000")
    args = parser.parse_args()
    import tantivy as tv

    from memcli.search.index import SearchIndex
    from memcli.search.words import stemmed_texts
    from memcli.storage.paths import Layout
    from memcli.storage.store import Store, category_sources, parse_sources

    work = Path(tempfile.mkdtemp(prefix="memcli-floor-"))
    try:
        for n in (int(s) for s in args.sizes.split(",")):
            generate(work / f"c{n}", n)
            root = work / f"e{n}"
            to_entry_files(work / f"c{n}", root)
            store = Store(Layout(root))
            index = SearchIndex(store)
            units = sorted(index.freshness.scan())
            memory = store.layout.memory
            steps: dict[str, float] = {}
            start = time.perf_counter()
            sources = {k: category_sources(memory, *k.split("/"), []) for k in units}
            steps["read every entry file"] = time.perf_counter() - start
            start = time.perf_counter()
            parsed = {k: parse_sources(s, memory) for k, s in sources.items()}
            steps["parse"] = time.perf_counter() - start
            start = time.perf_counter()
            for entries in parsed.values():
                stemmed_texts([e.body for e in entries])
            steps["stem the bodies"] = time.perf_counter() - start
            docs: list = []
            start = time.perf_counter()
            for k, s in sources.items():
                index._documents(*k.split("/"), s, set(), docs.append)
            steps["documents (parse, stem, fields, marks)"] = time.perf_counter() - start
            folder = work / "index"
            shutil.rmtree(folder, ignore_errors=True)
            os.makedirs(folder)
            writer = tv.Index(index.schema, path=str(folder)).writer(
                heap_size=256_000_000, num_threads=min(2, os.cpu_count() or 1)
            )
            start = time.perf_counter()
            for d in docs:
                writer.add_document(d)
            steps["tantivy: add_document"] = time.perf_counter() - start
            start = time.perf_counter()
            writer.commit()
            writer.wait_merging_threads()
            steps["tantivy: commit"] = time.perf_counter() - start
            print(f"\n{n:,} entries ({len(units)} categories), one process, {os.cpu_count()} cores\n")
            print("| step | s | us per entry |")
            print("|---|---|---|")
            for name, seconds in steps.items():
                print(f"| {name} | {seconds:.2f} | {seconds / n * 1e6:.0f} |")
            floor = steps["read every entry file"] + steps["tantivy: add_document"] + steps["tantivy: commit"]
            print(f"| floor: reading + tantivy | {floor:.2f} | {floor / n * 1e6:.0f} |")
            shutil.rmtree(root)
            shutil.rmtree(work / f"c{n}")
            del writer
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

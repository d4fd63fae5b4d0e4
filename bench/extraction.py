"""Precision and recall of the insight extractor (memcli.capture.extract) on a labelled corpus.

    python bench/extraction.py [--corpus FILE]... [--show]

The corpora hold single lines as agents and users write them (Markdown, bullets, labels, tool
narration, descriptions of code, Portuguese), each labelled decision, lesson or none by meaning.
Each line is given to the extractor as one message of its role; what it files as a decision or a
lesson is compared with the label.  --show prints every line it gets wrong.

Three files in tests/fixtures, written at three times (bench/RESULTS.md says how each was used):
extraction-lines.jsonl, the lines the rules were tuned on; extraction-heldout.jsonl, held out
until the first measurement, then tuned against; extraction-heldout2.jsonl, never tuned against.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from memcli.capture import extract  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures"
CORPORA = [FIXTURES / f"extraction-{name}.jsonl" for name in ("lines", "heldout", "heldout2")]
KINDS = ("decision", "lesson")


def predict(line: dict) -> str:
    found = extract.extract([{"role": line["role"], "text": line["text"]}])
    if found.decisions:
        return "decision"
    if found.lessons:
        return "lesson"
    return "none"


def measure(lines: list[dict]) -> dict[str, dict[str, float]]:
    """Per kind: precision, recall, and the counts behind them."""
    guesses = [predict(line) for line in lines]
    out = {}
    for kind in KINDS:
        tp = sum(1 for line, g in zip(lines, guesses) if g == kind and line["label"] == kind)
        predicted = sum(1 for g in guesses if g == kind)
        actual = sum(1 for line in lines if line["label"] == kind)
        out[kind] = {
            "precision": tp / predicted if predicted else 1.0,
            "recall": tp / actual if actual else 1.0,
            "tp": tp,
            "predicted": predicted,
            "actual": actual,
        }
    return out


def load(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, action="append", help="a JSONL corpus (default: the three fixtures)")
    parser.add_argument("--show", action="store_true", help="print every line the extractor gets wrong")
    args = parser.parse_args(argv)
    corpora = args.corpus or CORPORA
    print("| corpus | lines (decision / lesson / none) | kind | precision | recall | found / filed / labelled |")
    print("|---|---|---|---|---|---|")
    every: list[dict] = []
    for path in [*corpora, None] if len(corpora) > 1 else corpora:
        lines = every if path is None else load(path)
        if path is not None:
            every += lines
        counts = " / ".join(str(sum(1 for x in lines if x["label"] == k)) for k in (*KINDS, "none"))
        name = "all" if path is None else path.name
        for kind, m in measure(lines).items():
            print(
                f"| {name} | {len(lines)} ({counts}) | {kind} | {m['precision']:.3f} | {m['recall']:.3f}"
                f" | {m['tp']} / {m['predicted']} / {m['actual']} |"
            )
    if args.show:
        for line in every:
            got = predict(line)
            if got != line["label"]:
                print(f"[{line['label']} -> {got}] ({line['role']}, {line.get('style')}) {line['text']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

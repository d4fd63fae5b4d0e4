"""False alarms of stale-reference detection on prose: how many lines are taken to cite a path.

    python bench/citations.py [--locomo ../shared/eval/locomo]

Reads every turn of LoCoMo's ten conversations (evaluation data beside the project; skipped when
it is not there) and the developer prose in tests/fixtures/dev-prose.txt, and prints how many
lines ``memcli.storage.citations.cited_paths`` finds a repository path in, with those lines.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from memcli.storage.citations import cited_paths  # noqa: E402


def turns(locomo: Path) -> list[str]:
    data = json.loads((locomo / "locomo10.json").read_text(encoding="utf-8"))
    out = []
    for conversation in data:
        for value in conversation["conversation"].values():
            if isinstance(value, list):
                out.extend(t["text"] for t in value if isinstance(t, dict) and isinstance(t.get("text"), str))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--locomo", type=Path, default=ROOT.parent / "shared" / "eval" / "locomo")
    args = parser.parse_args(argv)
    sets = {"dev-prose.txt": (ROOT / "tests" / "fixtures" / "dev-prose.txt").read_text().splitlines()}
    if (args.locomo / "locomo10.json").is_file():
        sets["LoCoMo turns"] = turns(args.locomo)
    else:
        print(f"LoCoMo not found at {args.locomo}: skipped")
    for name, lines in sets.items():
        flagged = [(cited_paths(line), line) for line in lines if cited_paths(line)]
        print(f"{name}: {len(lines)} lines, {len(flagged)} citing a path")
        for paths, line in flagged:
            print(f"    {paths}  <- {line[:100]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

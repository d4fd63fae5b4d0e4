"""A few small trials of the randomized history fuzzer (bench/merge_fuzz.py): real CLI, real git.

Each trial drives two clones of one remote through random memcli writes, commits, pulls
(merge and rebase), pushes, side branches, stashes and concurrent edits, then checks that
nothing was lost, resurrected or left conflicted, and that both clones agree; with ``server``,
every merge is a plain text merge with no driver, as a hosting service makes it.  For longer
runs: ``python bench/merge_fuzz.py --trials 20 --steps 60``.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench" / "merge_fuzz.py"


def _load():
    name = "memcli_bench_merge_fuzz"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, BENCH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


merge_fuzz = _load()


@pytest.mark.parametrize(
    ("seed", "compact_often", "b_init", "server"),
    [
        (1, False, True, False),  # both clones initialised, default compaction
        (2, True, True, False),  # every commit compacts (tiny caps): trimmed conversations and summaries meet merges
        (3, False, False, False),  # B never runs `memcli init`: its first write registers the driver
        (4, False, True, True),  # every merge as a hosting service makes it: no driver, plain text
        (5, True, True, True),  # ... with compaction on every commit
    ],
)
def test_random_histories_lose_nothing(tmp_path: Path, seed: int, compact_often: bool, b_init: bool, server: bool):
    result = merge_fuzz.run_trial(
        seed, steps=25, workdir=tmp_path, compact_often=compact_often, b_init=b_init, server=server
    )
    if not result.ok:
        commands = [x for x in result.log_path.read_text().splitlines() if not x.startswith("    |")]
        pytest.fail(
            "\n".join(
                [
                    result.line(),
                    *result.violations,
                    f"every command and its output: {result.log_path}",
                    "last commands:",
                    *commands[-25:],
                ]
            ),
            pytrace=False,
        )
    counts = result.counts
    # the trial did what it is for: the model saw writes, and both clones integrated each other's work
    assert counts["entries_added"] > 0 and counts["messages_checkpointed"] > 0
    assert counts["pulls_merge"] + counts["pulls_rebase"] >= 4
    assert counts["commits"] > 0 and counts["pushes"] > 0

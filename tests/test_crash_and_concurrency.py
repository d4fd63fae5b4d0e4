"""Nothing lost: concurrent writers with a live index, and kill -9 in the middle of writes."""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from memcli import vault
from memcli.paths import Layout
from memcli.store import Store

from .conftest import run

WRITER = """
import sys
from memcli.cli.common import STATE, open_store
STATE["dir"] = sys.argv[1]
store = open_store()  # with the listener that updates the index after each write
for i in range(int(sys.argv[3])):
    store.add("dev", "lessons", f"writer {sys.argv[2]} lesson {i} about queues " + "x" * 200)
"""


def test_concurrent_writers_with_an_index_lose_nothing(mem: Path):
    Store(Layout(mem)).add("dev", "lessons", "seed lesson about queues")
    run("search", "queues", cwd=mem, check=True)  # the index exists: every add updates it
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(mem), str(w), "10"], stderr=subprocess.PIPE, text=True)
             for w in range(4)]
    errors = [p.communicate(timeout=180)[1] for p in procs]
    assert all(p.returncode == 0 for p in procs), errors
    hits = json.loads(run("search", "queues", "--limit", "100", "--json", cwd=mem, check=True).stdout)
    assert len(hits) == 41 and len({h["id"] for h in hits}) == 41
    assert not list((mem / ".memory" / "dev").glob(".*.tmp")), "no temporary files left behind"


def test_kill_9_leaves_every_file_old_or_new(mem: Path):
    path = mem / ".memory" / "dev" / "lessons.md"
    run("search", "x", cwd=mem)  # an index to keep up to date as well
    rng = random.Random(7)
    for round_ in range(6):
        before = path.read_text() if path.exists() else ""
        writer = subprocess.Popen([sys.executable, "-c", WRITER, str(mem), f"r{round_}", "50"])
        time.sleep(0.3 + rng.random() * 0.7)
        writer.send_signal(signal.SIGKILL)
        writer.wait()
        text = path.read_text() if path.exists() else ""
        entries = vault.parse(text)
        # Every entry is whole: a body is exactly what a writer wrote, never a fragment.
        assert all(e.id is not None and e.body.endswith("x" * 200) or e.body == "" for e in entries)
        assert text == "" or text.endswith("---\n")
        assert len(entries) >= len(vault.parse(before)), "nothing that was there before is lost"
    # The index recovers from whatever the kills left behind, and finds every entry.
    total = len(Store(Layout(mem)).read("dev", "lessons"))
    hits = json.loads(run("search", "queues", "--limit", "1000", "--json", cwd=mem, check=True).stdout)
    assert len(hits) == total > 0

"""AITEAM-X trees (one file per category) keep working, and `memcli migrate` moves them into entry files.

The tree is the tests' own, written the way AITEAM-X writes it: category files with the entry
format, hand-written text without a marker, two entries sharing an id, a legacy JSON conversation.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from memcli.storage import vault
from memcli.storage.vault import Entry

from .conftest import clean_env, entry_files, run, tree

DECISIONS = """<!-- id:1773679871839 -->
## 2026-03-16T16:51 · #react #typescript #components

Adopt SSE instead of WebSockets: the host drops long-lived sockets.

---

Notes typed by hand, with no marker at all.

---

<!-- id:1773600000000 -->
## 2026-03-15T18:40 · #auto-handoff

Twin one, as branch one left it.

---

<!-- id:1773600000000 -->
## 2026-03-15T18:40 · #auto-handoff

Twin two, as branch two left it.

---
"""
LESSONS = "".join(
    vault.serialize([Entry(1773500000000 + n * 60_000, None, ["nginx"], f"lesson {n}: the proxy buffers")])
    for n in range(3)
)
TASKS = vault.serialize([Entry(1773400000000, None, [], "- [ ] migrate the login\n- [x] write the spec")])
CONVERSATION = {
    "agentId": "bmad-master",
    "savedAt": "2026-03-15T23:04:23.463Z",
    "messages": [{"role": "user", "text": "olá"}, {"role": "agent", "text": "oi, tudo bem"}],
}


def aiteam_tree(root: Path) -> Path:
    memory = root / ".memory"
    (memory / "bmad-master").mkdir(parents=True)
    (memory / "_project.md").write_text("# Shop\n\nStack: Next.js, SSE.\n")
    (memory / "bmad-master" / "decisions.md").write_text(DECISIONS)
    (memory / "bmad-master" / "lessons.md").write_text(LESSONS)
    (memory / "bmad-master" / "tasks.md").write_text(TASKS)
    (memory / "conversations").mkdir()
    (memory / "conversations" / "bmad-master.json").write_text(json.dumps(CONVERSATION))
    return root


def listing(root: Path) -> list[dict]:
    return json.loads(run("list", "--json", cwd=root, check=True).stdout)


def test_a_category_tree_reads_as_it_is_and_says_how_to_migrate(tmp_path: Path):
    root = aiteam_tree(tmp_path / "shop")
    before = tree(root / ".memory")
    rows = listing(root)
    assert len(rows) == 8 and {r["category"] for r in rows} == {"decisions", "lessons", "tasks"}
    assert "Notes typed by hand, with no marker at all." in [r["body"] for r in rows]
    hits = json.loads(run("search", "websockets", "--json", cwd=root, check=True).stdout)
    assert hits[0]["id"] == 1773679871839
    block = run("inject", "bmad-master", "proxy", cwd=root, check=True).stdout
    assert "migrate the login" in block and "the proxy buffers" in block
    status = run("status", cwd=root, check=True).stdout
    assert "3 category files in the AITEAM-X layout" in status and "memcli migrate" in status
    assert json.loads(run("status", "--json", cwd=root, check=True).stdout)["category_files"] == [
        "bmad-master/decisions.md",
        "bmad-master/lessons.md",
        "bmad-master/tasks.md",
    ]
    init = run("init", "--no-hooks", cwd=root, check=True).stdout
    assert "memcli migrate" in init
    # A new entry goes into a file of its own, never into the category file; the write gives the
    # category file's second twin an id of its own (the next free one), and changes nothing else.
    new = int(run("add", "bmad-master", "decisions", "Use Redis streams for fan-out", cwd=root, check=True).stdout)
    head, _, tail = DECISIONS.rpartition("<!-- id:1773600000000 -->")
    assert (root / ".memory" / "bmad-master" / "decisions.md").read_text() == f"{head}<!-- id:1773600000001 -->{tail}"
    assert [p.name for p in entry_files(root, "bmad-master", "decisions")] == [
        f"{new}-use-redis-streams-for-fan-out.md"
    ]
    # An entry of a category file is edited and removed where it is.
    run("edit", "bmad-master", "1773679871839", "Adopt SSE, decided again", cwd=root, check=True)
    assert "Adopt SSE, decided again" in (root / ".memory" / "bmad-master" / "decisions.md").read_text()
    run("rm", "bmad-master", "1773500000000", "--yes", cwd=root, check=True)
    assert "lesson 0:" not in (root / ".memory" / "bmad-master" / "lessons.md").read_text()
    assert {k for k in tree(root / ".memory") if not k.startswith(".vault")} >= {
        k for k in before if not k.startswith(".vault")
    }


def test_migrate_moves_every_entry_into_its_own_file_and_the_listing_stays_the_same(tmp_path: Path):
    root = aiteam_tree(tmp_path / "shop")
    before = listing(root)
    dry = json.loads(run("migrate", "--dry-run", "--json", cwd=root, check=True).stdout)
    assert dry["entries"] == {"bmad-master/decisions": 4, "bmad-master/lessons": 3, "bmad-master/tasks": 1}
    assert (root / ".memory" / "bmad-master" / "decisions.md").read_text() == DECISIONS, "a dry run writes nothing"
    out = run("migrate", cwd=root, check=True)
    assert "migrated" in out.stdout
    after = listing(root)
    assert after == before, "ids, dates, tags and text kept"
    memory = root / ".memory" / "bmad-master"
    assert not (memory / "decisions.md").exists() and (memory / "decisions.md.bak").read_text() == DECISIONS
    names = sorted(p.name for p in entry_files(root, "bmad-master", "decisions"))
    assert "1773679871839-adopt-sse-instead-of-websockets-the-host.md" in names
    assert len(names) == 4 and len(set(names)) == 4, "twins get a file each"
    for path in entry_files(root, "bmad-master", "lessons"):
        assert len(vault.parse(path.read_text())) == 1
    from memcli.storage.conversations import read_conversation
    from memcli.storage.paths import Layout

    assert [m["text"] for m in read_conversation(Layout(root), "bmad-master")] == ["olá", "oi, tudo bem"]
    # Idempotent: nothing left to do, nothing changed.
    snapshot = tree(root / ".memory")
    assert "nothing to migrate" in run("migrate", cwd=root, check=True).stdout
    assert tree(root / ".memory") == snapshot
    assert "category file" not in run("status", cwd=root, check=True).stdout
    hits = json.loads(run("search", "websockets", "--json", cwd=root, check=True).stdout)
    assert hits[0]["id"] == 1773679871839
    # compact removes the backups and then changes nothing that git tracks.
    run("compact", cwd=root, check=True)
    assert not (memory / "decisions.md.bak").exists()
    compacted = listing(root)  # the twins tidied: one of them has the next free id
    assert sorted((r["body"], r["date"], r["tags"]) for r in compacted) == sorted(
        (r["body"], r["date"], r["tags"]) for r in before
    )
    assert len({r["id"] for r in compacted}) == len(compacted)


def test_a_migration_cut_short_is_finished_by_the_next_run(tmp_path: Path):
    """kill -9 while migrate writes entry files: the next run writes each entry once, and the
    listing is the same as before either run."""
    root = tmp_path / "big"
    folder = root / ".memory" / "dev"
    folder.mkdir(parents=True)
    entries = [Entry(1_700_000_000_000 + n, None, ["bulk"], f"bulk lesson {n} about queues") for n in range(3000)]
    (folder / "lessons.md").write_text(vault.serialize(entries[::-1]))
    before = listing(root)
    killed = 0
    for delay in (0.4, 0.8, 1.2):
        process = subprocess.Popen(
            [sys.executable, "-m", "memcli", "migrate"], cwd=root, env=clean_env(), stdout=subprocess.DEVNULL
        )
        time.sleep(delay)
        if process.poll() is None:
            os.kill(process.pid, signal.SIGKILL)
            killed += 1
        process.wait()
        if not (folder / "lessons.md").exists():
            break
        assert listing(root) == before, "a reader sees every entry once, mid-migration too"
    assert killed, "the migration was cut short at least once (the test needs it to take a while)"
    run("migrate", cwd=root, check=True)
    assert not (folder / "lessons.md").exists() and (folder / "lessons.md.bak").exists()
    assert len(entry_files(root, "dev", "lessons")) == 3000, "each entry once"
    assert listing(root) == before

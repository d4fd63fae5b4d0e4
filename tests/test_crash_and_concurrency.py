"""Nothing lost: concurrent writers with a live index, and kill -9 in the middle of writes."""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memcli.storage import vault
from memcli.storage.paths import Layout
from memcli.storage.store import Store

from .conftest import conversation_text, entry_files, git, run

WRITER = """
import sys
from memcli.cli.common import open_store
store = open_store(sys.argv[1])  # with the listener that updates the index after each write
for i in range(int(sys.argv[3])):
    store.add("dev", "lessons", f"writer {sys.argv[2]} lesson {i} about queues " + "x" * 200)
"""


def test_concurrent_writers_with_an_index_lose_nothing(mem: Path):
    Store(Layout(mem)).add("dev", "lessons", "seed lesson about queues")
    run("search", "queues", cwd=mem, check=True)  # the index exists: every add updates it
    procs = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(mem), str(w), "10"], stderr=subprocess.PIPE, text=True)
        for w in range(4)
    ]
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


def test_kill_9_at_any_point_never_breaks_search_or_inject(tmp_path: Path):
    """kill -9 of add, checkpoint --close and compact at random moments; every later command works.

    A few of bench/crash_trials.py's trials (its 100-trial runs are quoted in bench/RESULTS.md)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "memcli_bench_crash_trials", Path(__file__).resolve().parent.parent / "bench" / "crash_trials.py"
    )
    trials = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(trials)
    problems: list[str] = []
    counts: dict = {}
    assert trials.run_trials(tmp_path, 12, seed=11, entries=1500, log=problems.append, counts=counts) == 0, problems
    assert counts["shown_by_git"] == 0 and trials.temp_files(tmp_path) == [], "no temporary file for git to commit"
    leftovers = [p.name for p in (tmp_path / ".memory" / ".vault").iterdir() if p.name.startswith("index.")]
    assert leftovers == [], "temporary index folders are cleaned up"


def test_every_index_file_corrupted_in_turn_is_healed(mem: Path):
    store = Store(Layout(mem))
    store.add("dev", "lessons", "the healing lesson about queues")
    run("search", "queues", cwd=mem, check=True)
    index = mem / ".memory" / ".vault" / "index"
    for name in sorted(p.name for p in index.iterdir()):
        target = index / name
        if target.is_dir():
            continue
        target.write_bytes(b"\x00garbage" * 10)
        result = run("search", "healing", "--json", cwd=mem)
        assert result.returncode == 0 and "internal error" not in result.stderr, (name, result.stderr)
        assert [h["body"] for h in json.loads(result.stdout)] == ["the healing lesson about queues"], name
        assert "healing lesson" in run("inject", "dev", "healing", cwd=mem, check=True).stdout


def test_stale_rebuild_folders_are_removed(mem: Path):
    Store(Layout(mem)).add("dev", "lessons", "x lesson")
    state = mem / ".memory" / ".vault"
    (state / "index.new-99999").mkdir(parents=True)
    (state / "index.new-99999" / "junk").write_text("left by a killed rebuild")
    (state / "index").mkdir(exist_ok=True)
    (state / "index" / "meta.json").write_text("{not json")
    run("search", "lesson", cwd=mem, check=True)
    assert not (state / "index.new-99999").exists()


def test_a_rebuild_left_by_a_killed_search_goes_at_the_next_update(mem: Path):
    """The first test covers a broken index; here the index is fine and only a vault file changed."""
    Store(Layout(mem)).add("dev", "lessons", "x lesson")
    run("search", "lesson", cwd=mem, check=True)
    state = mem / ".memory" / ".vault"
    (state / "index.new-99999").mkdir()
    (state / "index.new-99999" / "junk").write_text("left by a search killed while it built")
    Store(Layout(mem)).add("dev", "lessons", "y lesson")
    run("search", "lesson", cwd=mem, check=True)
    assert not (state / "index.new-99999").exists()


PENDING_BUILD = """
import subprocess, sys
from pathlib import Path
from memcli.search.index import SearchIndex
from memcli.storage.paths import Layout
from memcli.storage.store import Store

class Index(SearchIndex):
    def _build(self, progress=True):
        tmp = super()._build(progress)
        # Another process takes the lock between the build and the swap.
        self.holder = subprocess.Popen([sys.executable, "-c", sys.argv[2], sys.argv[3]], stdout=subprocess.PIPE, text=True)
        assert self.holder.stdout.readline().strip() == "locked"
        return tmp

index = Index(Store(Layout(Path(sys.argv[1]))))
print(len(index.search("lesson")), index.stale, sorted(p.name for p in index.layout.state.glob("index.new-*")))
index.holder.kill()
"""
HOLD = "import fcntl,sys,time; f=open(sys.argv[1],'a'); fcntl.flock(f,fcntl.LOCK_EX); print('locked',flush=True); time.sleep(60)"


def test_a_built_index_that_could_not_be_swapped_in_answers_once_and_is_removed(mem: Path):
    for i in range(3):
        Store(Layout(mem)).add("dev", "lessons", f"lesson {i}")
    lock = mem / ".memory" / ".vault" / "lock"
    out = subprocess.run(
        [sys.executable, "-c", PENDING_BUILD, str(mem), HOLD, str(lock)], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    count, stale, folders = out.stdout.split(" ", 2)
    assert (count, stale) == ("3", "True") and folders.startswith("['index.new-")  # answered from its own build
    assert not list((mem / ".memory" / ".vault").glob("index.new-*"))  # gone when the process ended
    assert json.loads(run("search", "lesson", "--json", cwd=mem, check=True).stdout)


def test_readers_never_wait_and_still_see_a_hand_added_entry(mem: Path):
    from .conftest import lock_held

    store = Store(Layout(mem))
    store.add("dev", "lessons", "an indexed lesson about caching")
    run("search", "caching", cwd=mem, check=True)
    (path,) = entry_files(mem, "dev", "lessons")
    path.write_text(path.read_text() + "\nA hand-written lesson about caching layers.\n")
    with lock_held(mem):
        started = time.monotonic()
        result = run("search", "caching", "--json", cwd=mem, check=True)
        assert time.monotonic() - started < 2.5, "a search does not wait for the lock"
        assert sorted(h["body"] for h in json.loads(result.stdout)) == [
            "A hand-written lesson about caching layers.",
            "an indexed lesson about caching",
        ]
        assert result.stderr == "", "a busy cache is nothing to tell: the answer is right"
        assert "cache was not updated" in run("search", "caching", "--explain", cwd=mem, check=True).stderr
        block = run("inject", "dev", "caching layers", cwd=mem, check=True)
        assert "hand-written lesson" in block.stdout and block.stderr == ""
    assert "cache was not updated" not in run("search", "caching", "--explain", cwd=mem, check=True).stderr


def test_a_file_dated_in_the_future_is_not_rehashed_on_every_search(mem: Path):
    import os

    Store(Layout(mem)).add("dev", "lessons", "future lesson")
    (path,) = entry_files(mem, "dev", "lessons")
    future = time.time() + 10 * 365 * 86400
    for dated in (path, path.parent):
        os.utime(dated, (future, future))
    run("search", "future", cwd=mem, check=True)
    manifest = json.loads((mem / ".memory" / ".vault" / "index" / "memcli-manifest.json").read_text())
    files, quick, full, _digest = manifest["files"]["dev/lessons"]
    assert files == 1 and quick and full, "stamps recorded, so no re-hash next time"


def test_search_and_add_during_a_long_compaction(mem: Path):
    """compact prepares each file without the lock: a search answers at once, an add gets in."""
    for agent in ("dev", "qa", "ops", "web"):
        for c, category in enumerate(("decisions", "lessons", "projects")):
            entries = [
                vault.Entry(1_700_000_000_000 + c * 1_000_000 + i, None, [], f"{agent} {category} {i} about queues")
                for i in range(4000)
            ]
            path = mem / ".memory" / agent / f"{category}.md"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(vault.serialize(entries))
    run("search", "queues", cwd=mem, check=True)
    compactor = subprocess.Popen(
        [sys.executable, "-m", "memcli", "compact", "--json"],
        cwd=mem,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(1.0)
    assert compactor.poll() is None, "compaction still running: the test needs it to take a while"
    started = time.monotonic()
    result = run("search", "queues", "--json", cwd=mem)
    searched = time.monotonic() - started
    added = run("add", "dev", "lessons", "added during the compaction", cwd=mem)
    out, err = compactor.communicate(timeout=600)
    assert compactor.returncode == 0, err
    assert result.returncode == 0 and searched < 5, f"search took {searched:.1f}s during compaction"
    assert added.returncode == 0, added.stderr
    new_id = int(added.stdout)
    assert Store(Layout(mem)).find("dev", new_id).entry.body == "added during the compaction"
    assert json.loads(out)["vaultEntriesMerged"] > 0


def test_transform_never_overwrites_a_newer_file(mem: Path):
    store = Store(Layout(mem))
    store.add("dev", "lessons", "first")
    (path,) = entry_files(mem, "dev", "lessons")
    calls = []

    def change(entries, _sources, _total):
        calls.append(sorted(e.body for e in entries))
        if len(calls) == 1:  # while memcli prepares without the lock, someone edits the file
            path.write_text(path.read_text() + "\nwritten by hand meanwhile\n")
        plan: dict = {}
        for e in entries:
            plan.setdefault(e.source, []).append(vault.Entry(e.id, e.date, e.tags + ["tidied"], e.body, e.marked))
        return plan

    assert store.transform("dev", "lessons", change) is True
    assert calls[1] == ["first", "written by hand meanwhile"], "prepared again on the newer file"
    assert sorted(e.body for e in store.read("dev", "lessons")) == ["first", "written by hand meanwhile"]
    assert "tidied" in next(e for e in store.read("dev", "lessons") if e.body == "first").tags


def test_an_unreadable_vault_file_is_reported_and_the_rest_is_compacted(mem: Path):
    store = Store(Layout(mem))
    for i in range(35):
        store.add("dev", "lessons", f"lesson {i}")
    bad = mem / ".memory" / "dev" / "decisions.md"
    bad.write_bytes(b"\xff\xfe not utf-8 \x00")
    run(
        "checkpoint",
        "dev",
        "-",
        "--close",
        cwd=mem,
        check=True,
        input=json.dumps([{"role": "user" if i % 2 == 0 else "agent", "text": f"m{i}"} for i in range(30)]),
    )
    result = run("compact", cwd=mem)
    assert result.returncode == 0 and "decisions.md" in result.stderr and "internal error" not in result.stderr
    assert bad.read_bytes() == b"\xff\xfe not utf-8 \x00", "left exactly as it was"
    assert any(e.body.startswith("Compacted 15 older entries") for e in store.read("dev", "lessons"))
    assert (mem / ".memory" / ".vault" / "compact-log.json").exists()
    # Insights go into files of their own, never into the unreadable file: the trimming went ahead.
    assert '"m0"' not in conversation_text(mem, "dev")


def test_a_state_folder_that_is_a_file_gives_a_clear_error_and_inject_still_prints(mem: Path):
    import shutil

    Store(Layout(mem)).add("dev", "tasks", "- [ ] still listed")
    shutil.rmtree(mem / ".memory" / ".vault")
    (mem / ".memory" / ".vault").write_text("not a folder")
    result = run("add", "dev", "lessons", "x", cwd=mem)
    assert result.returncode == 1 and "not a folder" in result.stderr and "internal error" not in result.stderr
    block = run("inject", "dev", "anything", cwd=mem)
    assert block.returncode == 0 and "still listed" in block.stdout and "internal error" not in block.stderr
    assert run("search", "still", cwd=mem).returncode == 0


def test_checkpoint_close_writes_nothing_when_a_target_file_is_unreadable(mem: Path):
    Store(Layout(mem)).add("dev", "handoffs", "old handoff")
    (mem / ".memory" / "dev" / "lessons.md").write_bytes(b"\xff\xfe")
    before = {p: p.read_bytes() for p in (mem / ".memory").rglob("*") if p.is_file() and ".vault" not in str(p)}
    msgs = [{"role": "user", "text": "hi"}, {"role": "agent", "text": "We decided to use Redis for the cache layer."}]
    result = run("checkpoint", "dev", "-", "--close", cwd=mem, input=json.dumps(msgs))
    # New entries go into files of their own: the unreadable category file is named, and left as it is.
    assert result.returncode == 0 and "lessons.md" in result.stderr and "internal error" not in result.stderr
    after = {p: p.read_bytes() for p in (mem / ".memory").rglob("*") if p.is_file() and ".vault" not in str(p)}
    assert all(after[p] == data for p, data in before.items()), "nothing that was there changed"
    assert len(entry_files(mem, "dev", "handoffs")) == 2 and len(entry_files(mem, "dev", "decisions")) == 1


def test_a_flipped_byte_in_any_index_file_heals(mem: Path):
    Store(Layout(mem)).add("dev", "decisions", "entry about kafka")
    run("search", "kafka", cwd=mem, check=True)
    index = mem / ".memory" / ".vault" / "index"
    pristine = {p.name: p.read_bytes() for p in index.iterdir() if p.is_file()}
    for name, data in sorted(pristine.items()):
        for offset in (len(data) // 3, len(data) - 9):
            if not 0 <= offset < len(data):
                continue
            for p in list(index.iterdir()):  # back to the pristine index, then one byte flipped
                if p.is_file():
                    p.unlink()
            for n, d in pristine.items():
                (index / n).write_bytes(d)
            damaged = bytearray(data)
            damaged[offset] ^= 0x7F
            (index / name).write_bytes(bytes(damaged))
            for _ in range(2):
                result = run("search", "kafka", "--json", cwd=mem)
                assert result.returncode == 0 and "Traceback" not in result.stderr, (name, offset, result.stderr)
                assert "entry about kafka" in result.stdout, (name, offset)
                assert "internal error" not in result.stderr
            block = run("inject", "dev", "kafka", cwd=mem)
            assert block.returncode == 0 and "Traceback" not in block.stderr
            if not (index / "meta.json").exists():
                break


def test_a_rebuild_holds_no_lock_while_it_builds(mem: Path):
    """The index is built without the lock and swapped in under it: an add never waits for a rebuild."""
    for agent in ("a1", "a2", "a3", "a4", "a5", "a6"):
        entries = [
            vault.Entry(1_700_000_000_000 + i, None, [], f"{agent} entry {i} about queues and retries")
            for i in range(15_000)  # 90,000 entries: a build of a second or more, not a race
        ]
        path = mem / ".memory" / agent / "lessons.md"
        path.parent.mkdir(parents=True)
        path.write_text(vault.serialize(entries))
    searcher = subprocess.Popen(
        [sys.executable, "-m", "memcli", "search", "queues", "--json", "--limit", "3"],
        cwd=mem,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    state = mem / ".memory" / ".vault"
    while searcher.poll() is None and not list(state.glob("index.new-*")):
        time.sleep(0.01)  # the build has started
    added = run("add", "dev", "lessons", "added during the rebuild about queues", cwd=mem)
    add_done = searcher.poll() is None  # the add finished while the rebuild was still going
    out, err = searcher.communicate(timeout=300)
    assert added.returncode == 0 and searcher.returncode == 0, err
    assert add_done, "the add waited for the rebuild"
    assert len(json.loads(out)) == 3
    hits = json.loads(run("search", "added during the rebuild", "--json", cwd=mem, check=True).stdout)
    assert hits[0]["body"] == "added during the rebuild about queues"
    leftovers = [p.name for p in (mem / ".memory" / ".vault").iterdir() if p.name.startswith("index.")]
    assert leftovers == []


def test_a_search_answers_from_its_new_index_when_the_lock_is_busy_at_swap_time(mem: Path):
    from .conftest import lock_held

    Store(Layout(mem)).add("dev", "lessons", "a lesson about swapping")
    import shutil

    shutil.rmtree(mem / ".memory" / ".vault" / "index", ignore_errors=True)
    with lock_held(mem):
        result = run("search", "swapping", "--json", cwd=mem, check=True)
        assert [h["body"] for h in json.loads(result.stdout)] == ["a lesson about swapping"]
        assert result.stderr == ""
    run("search", "swapping", cwd=mem, check=True)
    assert (mem / ".memory" / ".vault" / "index" / "memcli-manifest.json").exists()


def test_numbers_too_long_for_an_id_never_break_a_command(mem: Path):
    """Python refuses int() of more than 4,300 digits; an id has at most 40 (vault.MAX_ID_DIGITS)."""
    huge = "1" * 5000
    Store(Layout(mem)).add("dev", "lessons", "a zebra lesson")
    (mem / ".memory" / "dev" / "tasks.md").write_text(f"<!-- id:{huge} -->\n## 2024-01-01\n\nzebra task\n\n---\n")
    (mem / ".memory" / "dev" / ".removed").write_text(f"lessons {huge}\n")
    for args in (["search", "zebra", "--json"], ["list", "dev", "--json"], ["status"], ["inject", "dev", "zebra"]):
        result = run(*args, cwd=mem)
        assert result.returncode == 0 and "error" not in result.stderr, (args, result.stderr)
    bodies = [h["body"] for h in json.loads(run("search", "zebra", "--json", cwd=mem, check=True).stdout)]
    assert "a zebra lesson" in bodies and "zebra task" in bodies


def test_a_folder_no_agent_could_have_is_left_out_of_search_not_fatal(mem: Path):
    Store(Layout(mem)).add("ops", "tasks", "deploy the thing")
    Store(Layout(mem)).add("dev", "tasks", "deploy the other thing")
    run("search", "deploy", cwd=mem, check=True)
    (mem / ".memory" / "ops").rename(mem / ".memory" / "OPS")  # renamed by hand
    for _ in range(2):  # with the index updating, then with it fresh
        result = run("search", "deploy", "--json", cwd=mem)
        assert result.returncode == 0, result.stderr
        assert [h["body"] for h in json.loads(result.stdout)] == ["deploy the other thing"]
    shutil.rmtree(mem / ".memory" / ".vault" / "index")
    result = run("search", "deploy", "--json", cwd=mem)
    assert result.returncode == 0 and "invalid agent id 'OPS'" in result.stderr, result.stderr
    assert [h["body"] for h in json.loads(result.stdout)] == ["deploy the other thing"]


def test_a_segment_file_changed_with_its_mtime_put_back_is_still_seen(mem: Path):
    """A hostile test's case: a flipped bit in a deletions file brought an edited entry's old text back."""
    import os

    store = Store(Layout(mem))
    for i in range(8):
        store.add("dev", "tasks", f"deploy alpha {i}")
        store.add("dev", "lessons", f"lesson {i}")  # so that no segment holds the edited entry alone
    entry = store.add("dev", "lessons", "deploy beta")
    run("search", "deploy", cwd=mem, check=True)
    run("edit", "dev", str(entry.id), "ship gamma", cwd=mem, check=True)
    [deletions] = (mem / ".memory" / ".vault" / "index").glob("*.del")
    before = deletions.stat()
    data = bytearray(deletions.read_bytes())
    data[4] ^= 0x01
    deletions.write_bytes(bytes(data))
    os.utime(deletions, ns=(before.st_atime_ns, before.st_mtime_ns))  # as touch -r or cp -p would
    result = run("search", "beta", "--json", cwd=mem)
    assert result.returncode == 0 and json.loads(result.stdout) == [], result.stdout
    hits = json.loads(run("search", "gamma", "--json", cwd=mem, check=True).stdout)
    assert [h["body"] for h in hits if not h["related"]] == ["ship gamma"]  # (its neighbours match as related)


def test_a_manifest_record_changed_by_hand_costs_one_rebuild_not_every_search(mem: Path):
    Store(Layout(mem)).add("qa", "tasks", "deploy the thing")
    run("search", "deploy", cwd=mem, check=True)
    manifest_path = mem / ".memory" / ".vault" / "index" / "memcli-manifest.json"
    for bad in (5, [1], "ab", {"x": 1}):
        manifest = json.loads(manifest_path.read_text())
        manifest["files"]["qa/tasks"] = bad
        manifest_path.write_text(json.dumps(manifest))
        result = run("search", "deploy", "--json", cwd=mem)
        assert result.returncode == 0 and result.stderr == "", (bad, result.stderr)
        assert [h["body"] for h in json.loads(result.stdout)] == ["deploy the thing"]
        assert json.loads(manifest_path.read_text())["files"]["qa/tasks"] != bad  # rebuilt, written anew
    for name in ("../../../../etc/passwd", ".hidden", "a\x00b"):
        manifest = json.loads(manifest_path.read_text())
        manifest["segments"][name] = [1, 2]
        manifest_path.write_text(json.dumps(manifest))
        result = run("search", "deploy", "--json", cwd=mem)
        assert result.returncode == 0 and result.stderr == "", (name, result.stderr)
        assert name not in json.loads(manifest_path.read_text())["segments"]


@pytest.mark.parametrize("crash_after", [0, 1, 5, 20, 39])
def test_a_compaction_cut_short_between_two_files_loses_no_entry(mem: Path, monkeypatch, crash_after: int):
    """The cap writes the summary first and deletes the folded entries' files after it: a crash
    between any two of those writes leaves an entry twice at worst (its file and the summary)."""
    from memcli.upkeep import compact
    from memcli.storage import store as storage

    store = Store(Layout(mem))
    bodies = [f"lesson {i} about queues" for i in range(60)]
    for body in bodies:
        store.add("dev", "lessons", body)
    calls = {"n": 0}
    real_remove = storage.remove

    def crashing_remove(path, within):
        if calls["n"] >= crash_after:
            raise KeyboardInterrupt("killed")  # as kill -9 would stop it: nothing after this runs
        calls["n"] += 1
        real_remove(path, within)

    monkeypatch.setattr(storage, "remove", crashing_remove)
    with pytest.raises(KeyboardInterrupt):
        compact.compact(Store(Layout(mem)))
    monkeypatch.setattr(storage, "remove", real_remove)
    compact.compact(Store(Layout(mem)))  # the next run finishes the work
    entries = Store(Layout(mem)).read("dev", "lessons")
    text = "\n".join(e.body for e in entries)
    assert all(body in text for body in bodies), "every lesson is an entry or a line of a summary"
    assert any(e.body.startswith("Compacted ") for e in entries)
    # At worst a copy: the files the crash left are kept beside the summary until a later cap folds them.
    assert 20 <= sum(not e.body.startswith("Compacted ") for e in entries) <= 20 + (40 - crash_after)


def _gone_pid() -> int:
    """The id of a process that has ended (what a kill -9 leaves a temporary file naming)."""
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    return int(done.stdout)


def test_git_never_sees_memcli_temporary_files_and_the_next_write_removes_stale_ones(repo: Path):
    """What kill -9 in a write leaves (``.<name>.<pid>-<random>.tmp`` beside the file) is ignored by the
    .gitignore lines `init` writes, and removed by the next write to that folder, or by compact."""
    memory = repo / ".memory"
    dead = _gone_pid()
    entry = memory / "dev" / "decisions" / f".1795680722590-entry-5.md.{dead}-b95vbivt.tmp"
    session = memory / "conversations" / "dev" / f".2026-11-26-ab12.jsonl.{dead}-x1y2z3w4.tmp"
    older = memory / "dev" / "lessons" / ".1795680722591-old.md.b95vbivt.tmp"  # an earlier memcli's name: no pid
    alive = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        busy = memory / "dev" / "decisions" / f".1795680722592-busy.md.{alive.pid}-abcdefgh.tmp"
        for path in (entry, session, older, busy):
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("half a write")
        os.utime(older, (time.time() - 3600, time.time() - 3600))
        status = git("status", "--porcelain", "--untracked-files=all", cwd=repo).stdout
        assert ".tmp" not in status, status
        run("add", "dev", "decisions", "the next write", cwd=repo, check=True)
        assert not entry.exists(), "the next write in that folder removes what a killed write left"
        assert busy.exists(), "never a temporary file whose process still runs"
        conversation = json.dumps([{"role": "user", "text": "hello"}])
        run("checkpoint", "dev", "-", cwd=repo, input=conversation, check=True)
        assert not session.exists()
        assert older.exists()
        report = json.loads(run("compact", "--json", cwd=repo, check=True).stdout)
        assert not older.exists() and busy.exists() and report["tempFilesCleaned"] == 1
        os.utime(busy, (time.time() - 3600, time.time() - 3600))  # its process id, taken by a later process
        run("add", "dev", "decisions", "one more", cwd=repo, check=True)
        assert not busy.exists(), "a temporary file an hour old is never a write under way"
    finally:
        alive.kill()
        alive.wait()


def test_an_existing_repository_gets_the_temporary_files_line_from_status_and_init(repo: Path):
    ignore = repo / ".gitignore"
    ignore.write_text(ignore.read_text().replace(".memory/**/.*.tmp\n", ""))
    status = run("status", cwd=repo, check=True)
    assert "memcli init" in status.stderr and ".memory/**/.*.tmp" in status.stderr
    assert any("temporary files" in p for p in json.loads(run("status", "--json", cwd=repo).stdout)["problems"])
    assert "updated .gitignore (+1 lines)" in run("init", "--no-hooks", cwd=repo, check=True).stdout
    assert "temporary" not in run("status", cwd=repo, check=True).stderr


WRITERS = """
import subprocess, sys
for i in range(12):
    subprocess.run([sys.executable, "-m", "memcli", "add", "dev", "lessons", f"a lesson about caching, number {i}"])
    if i % 3 == 0:
        subprocess.run([sys.executable, "-m", "memcli", "compact", "--quiet"])
"""


def test_inject_beside_a_compaction_and_adds_says_nothing_on_stderr(mem: Path):
    """An agent's hook shows what inject prints on stderr to the user, on every prompt.  A cache that
    is merely busy (another process holds the lock: a compaction, an add) is answered from the files
    and is nothing to tell; real processes, a held lock first, then writers running beside it."""
    from .conftest import clean_env, lock_held

    store = Store(Layout(mem))
    for i in range(40):
        store.add("dev", "lessons", f"an older lesson about caching layers {i}")
    run("search", "caching", cwd=mem, check=True)
    store.add("dev", "lessons", "zeppelins: the newest lesson, written after the index was built")
    with lock_held(mem):
        held = run("inject", "dev", "zeppelins", cwd=mem, process=True)
        assert held.returncode == 0 and "after the index was built" in held.stdout
        assert held.stderr == "", held.stderr
        debug = run("inject", "dev", "zeppelins", cwd=mem, env=clean_env(MEMCLI_DEBUG="1"), process=True)
        assert "cache was not updated" in debug.stderr, "MEMCLI_DEBUG says it"
    writers = subprocess.Popen([sys.executable, "-c", WRITERS], cwd=mem, env=clean_env(), stderr=subprocess.PIPE)
    results = []
    try:
        while writers.poll() is None or not results:
            results.append(run("inject", "dev", "caching", cwd=mem, process=True))
    finally:
        writers.wait(timeout=300)
    assert all(r.returncode == 0 and "MEMORY CONTEXT" in r.stdout for r in results)
    assert [r.stderr for r in results if r.stderr] == []


def test_two_imports_at_once_store_each_item_once_and_the_index_sees_them(mem: Path):
    """An import holds the lock from its look at memory to its last write (one at a time: the second
    finds the first's entries), and updates the index once per category, not once per entry."""
    (mem / "AGENTS.md").write_text("".join(f"- Rule {i}: the queue {i} drains before deploys\n" for i in range(60)))
    run("search", "queue", cwd=mem, check=True)  # an index exists: the import keeps it current
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "memcli", "import", "AGENTS.md"], cwd=mem, stderr=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    errors = [p.communicate(timeout=180)[1] for p in procs]
    assert all(p.returncode == 0 for p in procs), errors
    bodies = [e.entry.body for e in Store(Layout(mem)).iter_entries("dev")]
    assert len(bodies) == 60 == len(set(bodies))
    found = json.loads(run("search", "queue 37 drains", "--json", "--dir", str(mem), cwd=mem, check=True).stdout)
    assert "Rule 37" in found[0]["body"]

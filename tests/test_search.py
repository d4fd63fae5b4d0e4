"""Search that is never stale: real tantivy indexes, real git, real concurrent processes."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memcli.storage import vault
from memcli.search.freshness import MANIFEST
from memcli.search.index import SearchIndex
from memcli.search.ranking import neighbour_terms
from memcli.search.snippets import Matcher, make_snippet
from memcli.storage.paths import Layout
from memcli.storage.store import Store

from .conftest import category_text, entry_files, clean_env, git, lock_held, run


def search(path: Path, *args: str) -> list[dict]:
    result = run("search", *args, "--json", cwd=path)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def bodies(path: Path, *args: str) -> list[str]:
    """The entries that hold the words (hits found only through their neighbours left out)."""
    return [h["body"] for h in search(path, *args) if not h["related"]]


def test_finds_by_stem_tag_typo_and_prefix(mem: Path):
    store = Store(Layout(mem))
    store.add("dev", "decisions", "Adopt server-sent events for streaming responses", ["architecture"])
    store.add("dev", "lessons", "The proxy buffers output unless flushing is forced")
    store.add("qa", "lessons", "Flaky login test: wait for the redirect")
    assert bodies(mem, "stream") == ["Adopt server-sent events for streaming responses"]
    assert bodies(mem, "architecture") == ["Adopt server-sent events for streaming responses"]
    assert bodies(mem, "strem")[0].startswith("Adopt")  # one typo
    assert bodies(mem, "flush")[0].startswith("The proxy")  # stem: flushing
    assert bodies(mem, "redir")[0].startswith("Flaky")  # prefix
    assert bodies(mem, "lessons", "--agent", "qa") == []
    assert bodies(mem, "login", "--agent", "dev") == []
    assert bodies(mem, "proxy", "--category", "decisions") == []
    assert len(search(mem, "the", "--limit", "1")) == 1


def test_tags_weigh_more_than_body_words(mem: Path):
    store = Store(Layout(mem))
    for i in range(8):
        store.add("dev", "lessons", f"unrelated lesson {i} about the build")
    store.add("dev", "lessons", "Put caching in front of the rendered page")
    tagged = store.add("dev", "lessons", "Put a CDN in front of the static assets", ["caching"])
    assert search(mem, "caching")[0]["id"] == tagged.id


@pytest.mark.parametrize(
    "query",
    [
        "what's the lock file?",
        "[WIP] fix",
        "time: 10:30",
        "foo:bar",
        '"unclosed',
        "a AND b OR",
        "-",
        "((",
        "NOT",
        "日本語 テスト",
        '+-&&||!(){}[]^"~*?:\\/',
        "title:x^2",
        "   ",
    ],
)
def test_any_text_is_a_valid_query(mem: Path, query: str):
    Store(Layout(mem)).add("dev", "lessons", "fix the lock file: 10:30 [WIP] 日本語")
    result = run("search", "--json", "--", query, cwd=mem)
    assert result.returncode == 0, result.stderr
    json.loads(result.stdout)


def test_snippet_marks_fuzzy_matches():
    text, matches = make_snippet("We adopted websockets for the admin panel only", Matcher(["websokets"], 0.2))
    assert matches == ["websockets"] and "\x00websockets\x01" in text


def test_plain_output_has_no_escape_codes(mem: Path):
    Store(Layout(mem)).add("dev", "lessons", "streaming needs flush")
    out = run("search", "stream", cwd=mem, env=clean_env(TERM="xterm")).stdout
    assert "stream" in out and "\x1b" not in out and "\x00" not in out


def test_limit_zero_is_a_usage_error(mem: Path):
    result = run("search", "x", "--limit", "0", cwd=mem)
    assert result.returncode == 2 and "Traceback" not in result.stderr


def test_hand_edits_are_seen_at_once(mem: Path):
    store = Store(Layout(mem))
    e = store.add("dev", "lessons", "original wording about kafka")
    assert bodies(mem, "kafka")
    (path,) = entry_files(mem, "dev", "lessons")  # edited in place: its folder does not change
    path.write_text(path.read_text().replace("kafka", "rabbitmq"))
    assert bodies(mem, "kafka") == [] and bodies(mem, "rabbitmq") == ["original wording about rabbitmq"]
    # An agent appends an entry by hand, without a marker.
    with path.open("a") as f:
        f.write("\n## 2026-05-01T10:00 · #by-hand\n\nzookeeper is gone\n\n---\n")
    assert bodies(mem, "zookeeper") == ["zookeeper is gone"]
    path.unlink()
    assert bodies(mem, "rabbitmq") == [] and bodies(mem, "zookeeper") == []
    assert e.id


def test_same_size_same_second_edit_is_seen(mem: Path):
    store = Store(Layout(mem))
    store.add("dev", "lessons", "alpha beta")
    assert bodies(mem, "alpha")
    (path,) = entry_files(mem, "dev", "lessons")
    stat = path.stat()
    path.write_text(path.read_text().replace("alpha", "gamma"))  # same size
    import os

    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # and the same mtime
    assert bodies(mem, "gamma") == ["gamma beta"]


def test_deleting_the_vault_cache_loses_nothing(mem: Path):
    store = Store(Layout(mem))
    for i in range(5):
        store.add("dev", "decisions", f"decision number {i} about postgres")
    assert len(search(mem, "postgres")) == 5
    shutil.rmtree(mem / ".memory" / ".vault")
    assert len(search(mem, "postgres")) == 5
    assert (mem / ".memory" / ".vault" / "index" / MANIFEST).exists()


def test_an_open_index_takes_no_lock_file_of_its_own_after_another_process_commits(mem: Path):
    """A long-lived process (the MCP server, the page) holds the index open; tantivy's default
    reader would notice another process's commit and reload by itself, taking a lock file inside
    the folder at a moment memcli does not choose (a removal of .vault/ then failed with
    "Directory not empty" in CI).  The index reloads when memcli says so, and only then."""
    Store(Layout(mem)).add("dev", "decisions", "choose postgres")
    assert bodies(mem, "postgres")
    held = SearchIndex(Store(Layout(mem)))._open()
    assert held.searcher().num_docs == 1
    run("add", "dev", "decisions", "choose postgres for billing", cwd=mem, check=True, process=True)
    time.sleep(1.5)  # tantivy's watcher polls meta.json every 500 ms
    assert held.searcher().num_docs == 1  # not reloaded behind memcli's back
    held.reload()
    assert held.searcher().num_docs == 2


def test_an_index_knows_whose_files_it_has_checked(mem: Path):
    """inject reads the index several times and checks freshness once: the first read that runs
    does it, told by the index (``up_to_date``), not by the order of the reads."""
    store = Store(Layout(mem))
    store.add("dev", "decisions", "choose postgres")
    store.add("ops", "decisions", "postgres backups nightly")
    index = SearchIndex(store)
    assert not index.up_to_date("dev")
    index.search("postgres", agent="dev", fresh=False)  # answered (from the files: no index yet), not checked
    assert not index.up_to_date("dev")
    assert [h.body for h in index.search("postgres", agent="dev")] == ["choose postgres"]
    assert index.up_to_date("dev") and not index.up_to_date("ops") and not index.up_to_date(None)
    index.search("postgres")  # every agent's files
    assert index.up_to_date("ops") and index.up_to_date(None)


def test_corrupt_or_incompatible_index_is_rebuilt(mem: Path):
    Store(Layout(mem)).add("dev", "decisions", "choose postgres")
    assert bodies(mem, "postgres")
    index_dir = mem / ".memory" / ".vault" / "index"
    manifest = json.loads((index_dir / MANIFEST).read_text())
    manifest["schema"] = 0  # an index from another memcli version
    (index_dir / MANIFEST).write_text(json.dumps(manifest))
    assert bodies(mem, "postgres") == ["choose postgres"]
    for f in index_dir.iterdir():  # garbage in every index file
        if f.name != MANIFEST:
            f.write_bytes(b"garbage")
    assert bodies(mem, "postgres") == ["choose postgres"]
    (index_dir / "meta.json").unlink()
    assert bodies(mem, "postgres") == ["choose postgres"]


def test_memcli_writes_update_the_index_incrementally(mem: Path):
    store = Store(Layout(mem))
    store.add("dev", "decisions", "first decision")
    search(mem, "decision")  # builds the index
    run("add", "dev", "decisions", "second decision about redis", cwd=mem, check=True)
    index = SearchIndex(Store(Layout(mem)))
    manifest = index.load_manifest()
    changed, restat = index.changed_files(manifest)
    assert changed == [], "the add already updated the index and its manifest"
    assert [h.body for h in index.search("redis", fresh=False) if not h.related] == ["second decision about redis"]
    e = store.find("dev", index.search("redis", fresh=False)[0].id).entry
    run("rm", "dev", str(e.id), "--yes", cwd=mem, check=True)
    assert index.search("redis", fresh=False) == []


def test_git_checkout_of_branches(repo: Path):
    run("add", "dev", "decisions", "main branch decision about mysql", cwd=repo, check=True)
    git("add", "-A", cwd=repo)
    git("commit", "-qm", "main memory", cwd=repo)
    assert bodies(repo, "mysql")
    git("checkout", "-qb", "feature", cwd=repo)
    run("add", "dev", "decisions", "feature branch decision about cassandra", cwd=repo, check=True)
    git("add", "-A", cwd=repo)
    git("commit", "-qm", "feature memory", cwd=repo)
    assert bodies(repo, "cassandra") == ["feature branch decision about cassandra"]
    git("checkout", "-q", "main", cwd=repo)
    assert bodies(repo, "cassandra") == []
    assert bodies(repo, "mysql") == ["main branch decision about mysql"]
    git("checkout", "-q", "feature", cwd=repo)
    assert bodies(repo, "cassandra") == ["feature branch decision about cassandra"]
    git("checkout", "-q", "main", cwd=repo)
    git("merge", "-q", "feature", cwd=repo)
    assert len(bodies(repo, "decision")) == 2
    # git stash: an uncommitted hand edit disappears and comes back
    (path,) = [p for p in entry_files(repo, "dev", "decisions") if "mysql" in p.read_text()]
    path.write_text(path.read_text().replace("mysql", "sqlite"))
    assert bodies(repo, "sqlite")
    git("stash", "-q", cwd=repo)
    assert bodies(repo, "sqlite") == [] and bodies(repo, "mysql")
    git("stash", "pop", "-q", cwd=repo)
    assert bodies(repo, "sqlite")


WRITER = """
import sys, pathlib
from memcli.cli.common import open_store
store = open_store(sys.argv[1])
for i in range(40):
    store.add("dev", "lessons", f"concurrent lesson {i} about queues")
"""


def test_search_while_another_process_writes(mem: Path):
    Store(Layout(mem)).add("dev", "lessons", "seed lesson about queues")
    assert bodies(mem, "queues")
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(mem)], stderr=subprocess.PIPE, text=True)
    results = []
    try:
        while writer.poll() is None:
            result = run("search", "queues", "--json", "--limit", "100", cwd=mem)
            assert result.returncode == 0, result.stderr
            results.append(len(json.loads(result.stdout)))
    finally:
        _, err = writer.communicate(timeout=120)
    assert writer.returncode == 0, err
    assert results, "searched at least once during the writes"
    assert len(search(mem, "queues", "--limit", "100")) == 41


def test_search_without_memory_says_init(tmp_path: Path):
    result = run("search", "x", cwd=tmp_path)
    assert result.returncode == 1 and "memcli init" in result.stderr and "Traceback" not in result.stderr


def test_search_works_while_the_lock_is_held_and_there_is_no_index(mem: Path):
    Store(Layout(mem)).add("dev", "lessons", "kubernetes probes need timeouts")
    with lock_held(mem):
        started = time.monotonic()
        result = run("search", "kubernetes", "--json", cwd=mem)
        assert result.returncode == 0 and time.monotonic() - started < 30
        assert [h["body"] for h in json.loads(result.stdout)] == ["kubernetes probes need timeouts"]
        assert result.stderr == ""
        debug = run("search", "kubernetes", cwd=mem, env=clean_env(MEMCLI_DEBUG="1"))
        assert "cache was not updated (another memcli process holds the memory lock)" in debug.stderr


def test_an_exact_identifier_beats_its_typos_and_common_words(mem: Path):
    import random

    rng = random.Random(4321)
    words = "rollout canary deploy cache proxy login redirect queue worker retry".split()
    for f in range(6):
        entries = []
        for i in range(400):
            n = f * 1000 + i + 4000
            body = " ".join(rng.choice(words) for _ in range(12)) + f" item{n}"
            entries.append(vault.Entry(1_700_000_000_000 + n, None, [], body))
        path = mem / ".memory" / f"agent{f}" / "decisions.md"
        path.parent.mkdir(parents=True)
        path.write_text(vault.serialize(entries))
    target = next(e for e in vault.parse(category_text(mem, "agent0", "decisions")) if e.body.endswith(" item4321"))
    hits = json.loads(run("search", "rollout canary item4321", "--json", cwd=mem, check=True).stdout)
    assert hits[0]["id"] == target.id, [h["body"][-9:] for h in hits[:5]]


def test_function_words_alone_never_make_an_entry_relevant(mem: Path):
    store = Store(Layout(mem))
    store.add("dev", "decisions", "Use the blue-green strategy for the database.")
    store.add("dev", "decisions", "Fix login redirect loops by checking the session cookie first.")
    hits = json.loads(run("search", "fix the login redirect", "--json", cwd=mem, check=True).stdout)
    assert [h["body"] for h in hits if not h["related"]] == [
        "Fix login redirect loops by checking the session cookie first."
    ]
    assert hits[0]["body"].startswith("Fix login redirect")
    block = run("inject", "dev", "fix the login redirect", cwd=mem, check=True).stdout
    assert "blue-green" not in block
    assert json.loads(run("search", "the", "--json", cwd=mem, check=True).stdout), (
        "a query of function words still searches"
    )


@pytest.mark.parametrize(
    "query,needle",
    [
        ("login_redirect", "login_redirect"),
        ("src/auth.py", "src/auth.py"),
        ("E1234", "E1234"),
        ("auth.py", "src/auth.py"),
    ],
)
def test_identifiers_paths_and_codes_match_as_typed(mem: Path, query: str, needle: str):
    store = Store(Layout(mem))
    store.add("dev", "lessons", f"The bug was in {needle}: it swallowed the error.")
    for i in range(5):
        store.add("dev", "lessons", f"Unrelated lesson {i} about caching and queues.")
    hits = json.loads(run("search", query, "--json", cwd=mem, check=True).stdout)
    assert hits and needle in hits[0]["body"]


def test_a_direct_match_ranks_above_entries_that_only_sit_next_to_it(mem: Path):
    store = Store(Layout(mem))
    for text in [
        "Deploys run on Tuesdays.",
        "Kafka consumers must commit offsets manually.",
        "Grafana dashboards live in the ops repo.",
        "Kafka topics use seven day retention.",
        "Sentry alerts go to the on-call channel.",
    ]:
        store.add("dev", "decisions", text)
    hits = json.loads(run("search", "kafka offsets", "--json", cwd=mem, check=True).stdout)
    assert hits[0]["body"] == "Kafka consumers must commit offsets manually."
    assert {h["body"] for h in hits[:2]} == {
        "Kafka consumers must commit offsets manually.",
        "Kafka topics use seven day retention.",
    }


def test_a_neighbour_of_an_identifier_never_beats_two_direct_words(mem: Path):
    import random

    rng = random.Random(7)
    words = "rollout canary deploy service traffic percent config team review".split()
    entries = [
        vault.Entry(1_700_000_000_000 + n, None, [], " ".join(rng.sample(words, 4)) + f" item{n}")
        for n in range(4000, 5000)
    ]
    path = mem / ".memory" / "dev" / "decisions.md"
    path.parent.mkdir(parents=True)
    path.write_text(vault.serialize(entries))
    hits = json.loads(run("search", "rollout canary item4321", "--json", "-n", "30", cwd=mem, check=True).stdout)
    assert hits[0]["body"].endswith("item4321")
    both = [i for i, h in enumerate(hits) if "rollout" in h["body"] and "canary" in h["body"]]
    related = [i for i, h in enumerate(hits) if h["related"]]
    assert not related or not both or min(related) > min(both[1:] or both)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["", "a", "b c", "d e f"]), max_size=9), st.integers(min_value=1, max_value=4))
def test_an_entrys_context_holds_the_terms_of_its_neighbours_and_not_its_own(terms, span):
    terms = [f"{t} n{i}".strip() for i, t in enumerate(terms)]  # each entry's terms told apart
    expected = [" ".join(terms[max(0, i - span) : i] + terms[i + 1 : i + 1 + span]).split() for i in range(len(terms))]
    assert [c.split() for c in neighbour_terms(terms, span)] == expected


def test_in_a_large_tree_an_edit_in_place_is_seen_within_files_over_the_sweep_checks(mem: Path, monkeypatch):
    """Folders that did not change are verified SWEEP_FILES files a check, in turns: an edit in place
    (which changes no folder) is seen within files / SWEEP_FILES checks, never missed for good."""
    import os

    from memcli.search import freshness
    from memcli.search.index import SearchIndex

    store = Store(Layout(mem))
    for agent in ("dev", "qa", "ops"):
        for i in range(4):
            store.add(agent, "lessons", f"{agent} lesson {i} about kafka")
    monkeypatch.setattr(freshness, "SWEEP_FILES", 4)  # 12 entry files: one folder a check
    assert len(SearchIndex(store).search("kafka", limit=50)) == 12
    time.sleep(2.1)  # then the stamps are old enough to be trusted
    SearchIndex(store).search("kafka")  # records them
    (mem / ".memory" / ".vault" / freshness.CURSOR).write_text("2")  # the next turn: qa, then dev, then ops
    path = entry_files(mem, "ops", "lessons")[0]
    stat = path.stat()
    path.write_text(path.read_text().replace("kafka", "redis"))  # same size, in place: no folder changes
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert path.stat().st_size == stat.st_size and path.stat().st_mtime_ns == stat.st_mtime_ns
    found = [[h.body for h in SearchIndex(store).search("redis", limit=5) if not h.related] for _ in range(4)]
    assert found == [[], [], ["ops lesson 0 about redis"], ["ops lesson 0 about redis"]], found


def test_a_pipe_in_a_category_folder_never_blocks_a_search(mem: Path):
    import os

    Store(Layout(mem)).add("dev", "lessons", "a lesson about pipes")
    os.mkfifo(mem / ".memory" / "dev" / "lessons" / "1700000000000-a-pipe.md")
    result = run("search", "pipes", "--json", cwd=mem)  # run() times out after 120 s: a hang fails
    assert result.returncode == 0 and [h["body"] for h in json.loads(result.stdout)] == ["a lesson about pipes"]
    assert "not a regular file" in result.stderr


@st.composite
def _spans(draw) -> list[tuple[int, int]]:
    """Matches as a text holds them: in order, none overlapping."""
    out, pos = [], 0
    for gap, size in draw(st.lists(st.tuples(st.integers(0, 40), st.integers(1, 30)), min_size=1, max_size=60)):
        out.append((pos + gap, pos + gap + size))
        pos += gap + size + 1
    return out


@given(_spans(), st.sampled_from([1, 5, 20, 160]))
@settings(max_examples=300, deadline=None)
def test_the_snippet_window_is_the_one_that_covers_the_most_matches(spans, width):
    """The linear window search answers as counting every window afresh does (which took 13 s for
    one 64 KB entry full of matches, on every search that showed it)."""
    from memcli.search.snippets import best_window

    best, most = spans[0][0], 0
    for s, _ in spans:
        count = sum(1 for a, b in spans if s <= a and b <= s + width)
        if count > most:
            best, most = s, count
    assert best_window(spans, width) == best


def test_a_huge_entry_gets_its_snippet_at_once():
    from memcli.search.snippets import make_snippet

    body = "redis timeout word " * 20_000  # 380 KB, as a file pulled in by hand may be
    text, words = make_snippet(body, lambda w: w in ("redis", "timeout"))
    assert words == ["redis", "timeout"] and text.endswith("…") and len(text) < 400

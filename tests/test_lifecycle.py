"""Memory that stays true: archive, pin, duplicates, stale references, compaction that keeps what
matters, and supersede, each through the real CLI, git merges with and without memcli's driver
included."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from .conftest import FIXTURES, run


def hosted(repo: Path, driver: bool) -> None:
    """Without the driver, merges go as on GitHub or GitLab: plain text."""
    if not driver:
        (repo / ".git" / "info" / "attributes").write_text("* merge=text\n")


def commit_all(repo: Path, message: str) -> None:
    from .conftest import git

    git("add", "-A", cwd=repo)
    git("commit", "-qm", message, cwd=repo)


def branched(repo: Path, driver: bool, text: str, branch: str) -> str:
    """A decision committed on main (merged later as a host would, ``driver`` aside), then a new
    branch checked out; the decision's id."""
    from .conftest import git

    hosted(repo, driver)
    entry = run("add", "dev", "decisions", text, cwd=repo, check=True).stdout.strip()
    commit_all(repo, "add")
    git("checkout", "-qb", branch, cwd=repo)
    return entry


def bodies(root: Path, category: str) -> list[str]:
    """The texts of dev's entries of a category, newest first."""
    return [e["body"] for e in json.loads(run("list", "dev", "-c", category, "--json", cwd=root, check=True).stdout)]


# -- archive (issue 20, first part) -------------------------------------------------------------------


def test_an_archived_entry_leaves_inject_list_and_search_and_comes_back(mem: Path):
    old = run(
        "add", "dev", "decisions", "Use WebSockets for the live feed #realtime", cwd=mem, check=True
    ).stdout.strip()
    new = run("add", "dev", "decisions", "Use SSE for the live feed #realtime", cwd=mem, check=True).stdout.strip()
    task = run("add", "dev", "tasks", "- [ ] wire the live feed to WebSockets", cwd=mem, check=True).stdout.strip()
    archived = run("archive", "dev", old, task, "--json", cwd=mem, check=True)
    assert [(e["id"], e["changed"], "archived" in e["tags"]) for e in json.loads(archived.stdout)] == [
        (int(old), True, True),
        (int(task), True, True),
    ]
    again = run("archive", old, cwd=mem, check=True)
    assert "was archived already" in again.stderr
    listed = [e["id"] for e in json.loads(run("list", "dev", "--json", cwd=mem, check=True).stdout)]
    assert listed == [int(new)]
    assert [e["id"] for e in json.loads(run("list", "dev", "-n", "5", "--json", cwd=mem, check=True).stdout)] == [
        int(new)
    ]
    everything = json.loads(run("list", "dev", "--archived", "--json", cwd=mem, check=True).stdout)
    assert {e["id"] for e in everything} == {int(old), int(new), int(task)}
    found = json.loads(run("search", "live feed websockets", "--json", cwd=mem, check=True).stdout)
    assert [h["id"] for h in found] == [int(new)]
    found = json.loads(run("search", "live feed websockets", "--archived", "--json", cwd=mem, check=True).stdout)
    assert int(old) in [h["id"] for h in found]
    shown = run("inject", "dev", "live feed websockets", "--explain", cwd=mem, check=True)
    block = shown.stdout
    assert "Use SSE for the live feed" in block and "WebSockets" not in block
    assert f"decision {old} (archived)" in shown.stderr
    bare = run("inject", "dev", cwd=mem, check=True).stdout  # no task: the newest, archived left out
    assert "WebSockets" not in bare
    run("unarchive", old, cwd=mem, check=True)
    assert "Use WebSockets" in run("inject", "dev", "live feed websockets", cwd=mem, check=True).stdout
    refused = run("archive", "dev", "123", cwd=mem)
    assert refused.returncode == 1 and "no entry 123" in refused.stderr
    missing_id = run("archive", "dev", cwd=mem)
    assert missing_id.returncode == 1 and "`memcli archive AGENT ID...`" in missing_id.stderr
    twice = json.loads(run("unarchive", old, old, "--json", cwd=mem, check=True).stdout)
    assert [e["id"] for e in twice] == [int(old)]  # an id given twice counts once
    both = run("archive", "dev", new, "123", cwd=mem)
    assert (
        both.returncode == 1
        and "archived" not in json.loads(run("show", "dev", new, "--json", cwd=mem, check=True).stdout)["tags"]
    ), "an unknown id archives nothing"


@pytest.mark.parametrize("driver", [True, False])
def test_archived_on_one_branch_and_edited_on_another_merges_to_an_archived_edit(repo: Path, driver: bool):
    from .conftest import git

    entry = branched(repo, driver, "Use WebSockets for the live feed", "edit")
    run("edit", "dev", entry, "Use WebSockets for the live feed, behind the gateway", cwd=repo, check=True)
    git("commit", "-qam", "edit", cwd=repo)
    git("checkout", "-q", "main", cwd=repo)
    run("archive", "dev", entry, cwd=repo, check=True)
    git("commit", "-qam", "archive", cwd=repo)
    merged = git("merge", "-q", "--no-edit", "edit", cwd=repo, check=False)
    assert merged.returncode == 0, merged.stdout + merged.stderr
    shown = json.loads(run("show", "dev", entry, "--json", cwd=repo, check=True).stdout)
    assert shown["body"] == "Use WebSockets for the live feed, behind the gateway" and "archived" in shown["tags"]
    assert len(json.loads(run("list", "dev", "--archived", "--json", cwd=repo, check=True).stdout)) == 1
    assert git("status", "--porcelain", cwd=repo).stdout == ""


# -- pin (issue 20, second part) ----------------------------------------------------------------------


def test_a_pinned_entry_is_injected_first_whatever_the_task_and_survives_compaction(mem: Path):
    from memcli.storage.paths import Layout
    from memcli.storage.store import Store

    store = Store(Layout(mem))
    rule = store.add("dev", "decisions", "All money is integer cents; never floats #billing").id
    for n in range(100):
        store.add("dev", "decisions", f"decision {n} about the search module")
    store.add("dev", "handoffs", "Asked: tidy the search module")
    pinned = json.loads(run("pin", str(rule), "--json", cwd=mem, check=True).stdout)
    assert pinned[0]["changed"] and "pinned" in pinned[0]["tags"]
    result = run("inject", "dev", "search module", "--explain", cwd=mem, check=True)
    block = result.stdout
    assert block.index("Pinned:\n- All money is integer cents") < block.index("Last Session:")
    assert block.count("All money is integer cents") == 1
    assert f"pinned: {rule} (shown first" in result.stderr
    data = json.loads(run("inject", "dev", "search", "--format", "json", cwd=mem, check=True).stdout)
    assert [p["id"] for p in data["sections"]["pinned"]] == [rule]
    # 90 tokens: the frame's line (what memory is, ~28 tokens) and the pinned entry, no decision
    tight = json.loads(run("inject", "dev", "search module", "-b", "90", "-f", "json", cwd=mem, check=True).stdout)
    assert [p["id"] for p in tight["sections"]["pinned"]] == [rule] and tight["tokens"] <= 90
    assert any(c.startswith("decision") for c in tight["cut"]), "decisions go before the pinned entry"
    compacted = run("compact", cwd=mem, check=True)
    assert "summarised" in compacted.stdout + compacted.stderr
    kept = json.loads(run("show", "dev", str(rule), "--json", cwd=mem, check=True).stdout)
    assert kept["body"] == "All money is integer cents; never floats #billing" and "pinned" in kept["tags"]
    run("unpin", str(rule), cwd=mem, check=True)
    assert "Pinned:" not in run("inject", "dev", "search module", cwd=mem, check=True).stdout


def test_an_archived_pinned_entry_is_not_injected(mem: Path):
    rule = run(
        "add", "dev", "lessons", "The CI proxy drops idle sockets after 30 s", cwd=mem, check=True
    ).stdout.strip()
    run("pin", "dev", rule, cwd=mem, check=True)
    run("archive", "dev", rule, cwd=mem, check=True)
    assert "CI proxy" not in run("inject", "dev", "proxy", cwd=mem, check=True).stdout


# -- duplicates (issue 20, third part) ----------------------------------------------------------------


def test_the_same_memory_is_stored_once(mem: Path):
    first = run("add", "dev", "lessons", "The CI proxy drops idle sockets after 30 seconds #ci", cwd=mem, check=True)
    again = run("add", "dev", "lessons", "the ci proxy drops idle sockets after 30 seconds.", cwd=mem, check=True)
    assert again.stdout == first.stdout and "already stored as dev/lessons" in again.stderr
    other = run("add", "dev", "lessons", "The CI proxy drops idle sockets after 60 seconds", cwd=mem, check=True)
    assert other.stdout != first.stdout, "a different fact is not a copy"
    long_text = "When the nightly export runs during the deploy window the database locks the orders table for minutes"
    run("add", "dev", "lessons", long_text, cwd=mem, check=True)
    near = run("add", "dev", "lessons", long_text.replace("minutes", "several minutes"), cwd=mem, check=True)
    assert "already stored" in near.stderr  # one word more in 20: the same memory
    assert len(json.loads(run("list", "dev", "--json", cwd=mem, check=True).stdout)) == 3


def test_the_same_lesson_from_three_sessions_is_stored_once(mem: Path):
    for n in range(3):
        messages = [
            {"role": "user", "text": f"fix the flaky upload test, take {n}"},
            {"role": "agent", "text": "Lesson: the upload test needs its own tmp dir, the shared one leaks files."},
        ]
        run("checkpoint", "dev", "-", "--close", "--chat-id", f"s{n}", cwd=mem, input=json.dumps(messages), check=True)
    assert bodies(mem, "lessons") == ["Lesson: the upload test needs its own tmp dir, the shared one leaks files."]


def test_compaction_merges_copies_into_the_oldest_with_every_tag(mem: Path):
    from memcli.storage.paths import Layout
    from memcli.storage.store import Store

    store = Store(Layout(mem))  # copies as two branches would leave them: added on each side
    oldest = store.add("dev", "decisions", "Use SSE for the live feed #sse").id
    store.add("dev", "decisions", "use SSE for the live feed! #realtime")
    store.add("dev", "decisions", "Use WebSockets for chat")
    dry = json.loads(run("compact", "--dry-run", "--json", cwd=mem, check=True).stdout)
    assert dry["duplicatesDropped"] == 1 and len(bodies(mem, "decisions")) == 3
    run("compact", cwd=mem, check=True)
    rows = json.loads(run("list", "dev", "--json", cwd=mem, check=True).stdout)
    assert sorted(r["body"] for r in rows) == ["Use SSE for the live feed #sse", "Use WebSockets for chat"]
    merged = next(r for r in rows if r["id"] == oldest)
    assert set(merged["tags"]) == {"sse", "realtime"}
    assert json.loads(run("compact", "--json", cwd=mem, check=True).stdout)["duplicatesDropped"] == 0  # idempotent


# -- stale references (issue 20, fourth part) ---------------------------------------------------------


def test_an_entry_citing_a_deleted_file_is_marked_until_the_file_comes_back(repo: Path):
    from .conftest import git

    (repo / "src").mkdir()
    (repo / "src" / "auth.py").write_text("def login(): ...\n")
    stale = run("add", "dev", "decisions", "The login retry lives in `src/auth.py:12` #auth", cwd=repo, check=True)
    fresh = run("add", "dev", "decisions", "The login form validates on blur #auth", cwd=repo, check=True)
    commit_all(repo, "auth")
    assert "no longer exist" not in run("list", "dev", cwd=repo, check=True).stdout
    git("rm", "-q", "src/auth.py", cwd=repo)
    note = "(cites src/auth.py, which no longer exists)"
    listed = {e["id"]: e["stale"] for e in json.loads(run("list", "dev", "--json", cwd=repo, check=True).stdout)}
    assert listed == {int(stale.stdout): ["src/auth.py"], int(fresh.stdout): []}
    assert note in run("list", "dev", cwd=repo, check=True).stdout
    assert note in run("search", "login retry", cwd=repo, check=True).stdout
    shown = run("inject", "dev", "login", "--explain", cwd=repo, check=True)
    decisions = shown.stdout.split("Relevant Decisions:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert decisions[0] == "- The login form validates on blur #auth"  # the fresh one first
    assert decisions[1].endswith(note) and "src/auth.py, gone from the work tree" in shown.stderr
    status = json.loads(run("status", "--json", cwd=repo, check=True).stdout)
    assert status["stale"] == [
        {"agent": "dev", "category": "decisions", "id": int(stale.stdout), "cites": ["src/auth.py"]}
    ]
    git("checkout", "-q", "HEAD", "--", "src/auth.py", cwd=repo)
    assert "no longer exist" not in run("list", "dev", cwd=repo, check=True).stdout
    assert json.loads(run("status", "--json", cwd=repo, check=True).stdout)["stale"] == []


def test_prose_is_not_taken_for_paths():
    from memcli.storage.citations import cited_paths

    prose = [
        "See https://github.com/org/repo/blob/main/src/app.py for upstream.",
        "e.g. the v1.2.3 release on 2024/01/02, and/or TCP/IP, I/O bound, 3/4 of users, km/h.",
        "On the server it is /etc/nginx/nginx.conf; locally ~/notes/todo.md.",
        "a/b testing showed it; the client/server model; make test/unit; 1.5/2.0; 50/50.",
        "github.com/org/repo/README.md and ../other/repo/file.py are elsewhere.",
    ]
    assert [cited_paths(p) for p in prose] == [[]] * len(prose)
    lines = (FIXTURES / "dev-prose.txt").read_text().splitlines()
    flagged = [line for line in lines if cited_paths(line)]
    assert all("src/auth.py" in f or "settings/prod.py" in f for f in flagged), flagged  # the two real paths there
    assert cited_paths("edit `memcli/store.py:120`, ./scripts/deploy.sh and .github/workflows/ci.yml") == [
        "memcli/store.py",
        "scripts/deploy.sh",
        ".github/workflows/ci.yml",
    ]


# -- compaction keeps what matters (issue 20, sixth part) ---------------------------------------------


def test_a_capped_category_keeps_what_was_used_recently_before_the_newest(mem: Path):
    from memcli.storage.paths import Layout
    from memcli.storage.store import Store

    store = Store(Layout(mem))
    used = store.add("dev", "decisions", "The flux capacitor needs exactly 1.21 gigawatts").id
    for n in range(34):
        store.add("dev", "decisions", f"decision {n} about the billing module")
    assert "flux capacitor" in run("inject", "dev", "flux capacitor", cwd=mem, check=True).stdout  # a use
    dry = json.loads(run("compact", "--dry-run", "--json", cwd=mem, check=True).stdout)
    [action] = [a for a in dry["actions"] if a.startswith("cap dev/decisions")]
    assert str(used) not in action and "15 older entries" in action
    run("compact", cwd=mem, check=True)
    kept = bodies(mem, "decisions")
    assert "The flux capacitor needs exactly 1.21 gigawatts" in kept  # the oldest, but used
    assert "decision 15 about the billing module" in kept and "decision 14 about the billing module" not in kept
    assert ".vault" in str(next((mem / ".memory" / ".vault").glob("usage.json")))  # never tracked


# -- supersede (issue 20, fifth part) -----------------------------------------------------------------


def test_a_decision_superseded_twice_shows_only_the_newest(mem: Path):
    first = run(
        "add", "dev", "decisions", "Use polling for the dashboard #realtime", cwd=mem, check=True
    ).stdout.strip()
    before = {p: p.read_bytes() for p in (mem / ".memory" / "dev" / "decisions").iterdir()}
    second = run("supersede", first, "Use WebSockets for the dashboard", cwd=mem, check=True).stdout.strip()
    assert {p: p.read_bytes() for p in before} == before, "the old version's file is left as it is"
    run("pin", second, cwd=mem, check=True)
    third = run("supersede", "dev", second, "Use SSE for the dashboard: the proxy drops sockets", cwd=mem, check=True)
    third_id = third.stdout.strip()
    shown = run("inject", "dev", "dashboard", "--explain", cwd=mem, check=True)
    block = shown.stdout
    assert "Use SSE for the dashboard" in block and "polling" not in block and "WebSockets" not in block
    assert f"decision {first} (superseded by {third_id})" in shown.stderr  # the account names what was left out
    assert "Pinned:\n- Use SSE for the dashboard" in block, "the pin moved to the newest version"
    assert [e["id"] for e in json.loads(run("list", "dev", "--json", cwd=mem, check=True).stdout)] == [int(third_id)]
    found = json.loads(run("search", "dashboard", "--json", cwd=mem, check=True).stdout)
    assert [h["id"] for h in found] == [int(third_id)]
    chain = json.loads(run("search", "dashboard", "--all", "--json", cwd=mem, check=True).stdout)
    assert sorted((h["id"], h["superseded_by"]) for h in chain) == sorted(
        [(int(first), int(third_id)), (int(second), int(third_id)), (int(third_id), None)]
    )
    assert f"(superseded by {third_id})" in run("search", "dashboard", "--all", cwd=mem, check=True).stdout
    listed = json.loads(run("list", "dev", "--archived", "--json", cwd=mem, check=True).stdout)
    assert {e["id"]: e["superseded_by"] for e in listed} == {
        int(first): int(third_id),
        int(second): int(third_id),
        int(third_id): None,
    }
    newest = json.loads(run("show", third_id, "--json", cwd=mem, check=True).stdout)
    assert newest["supersedes"] == [int(second)] and "realtime" in newest["tags"]  # the old tags carried
    old = run("show", first, cwd=mem, check=True)
    assert f"entry {first} is superseded; the newest version: memcli show {third_id}" in old.stderr
    assert json.loads(run("show", first, "--json", cwd=mem, check=True).stdout)["superseded_by"] == int(third_id)
    again = run("supersede", first, "Use long polling", cwd=mem)
    assert again.returncode == 1 and f"supersede {third_id} instead" in again.stderr
    assert again.stderr.count("\n") == 1
    run("archive", third_id, cwd=mem, check=True)
    archived = run("supersede", third_id, "Use HTTP/3", cwd=mem)
    assert archived.returncode == 1 and "is archived" in archived.stderr
    assert "dashboard" not in run("inject", "dev", "dashboard", cwd=mem, check=True).stdout, (
        "the newest version archived: the memory is archived, its old versions stay replaced"
    )


def test_removing_the_newest_version_brings_the_one_before_back(mem: Path):
    old = run("add", "dev", "lessons", "Builds take 4 minutes on CI", cwd=mem, check=True).stdout.strip()
    new = run("supersede", old, "Builds take 9 minutes on CI since the cache broke", cwd=mem, check=True)
    assert [e["id"] for e in json.loads(run("list", "dev", "--json", cwd=mem, check=True).stdout)] == [int(new.stdout)]
    run("rm", new.stdout.strip(), "--yes", cwd=mem, check=True)
    assert [e["id"] for e in json.loads(run("list", "dev", "--json", cwd=mem, check=True).stdout)] == [int(old)]


def test_a_cycle_of_supersedes_is_refused_and_a_hand_written_one_hides_nothing(mem: Path):
    old = run("add", "dev", "decisions", "Ship on Mondays", cwd=mem, check=True).stdout.strip()
    new = run("supersede", old, "Ship on Wednesdays", cwd=mem, check=True).stdout.strip()
    refused = run("edit", "dev", old, "--tag", f"supersedes-{new}", cwd=mem)
    assert refused.returncode == 1 and refused.stderr.count("\n") == 1
    assert f"#supersedes-{new} is a state memcli keeps" in refused.stderr  # `supersede` alone sets it
    (path,) = [p for p in (mem / ".memory" / "dev" / "decisions").iterdir() if p.name.startswith(old)]
    header = next(line for line in path.read_text().splitlines() if line.startswith("## "))
    path.write_text(path.read_text().replace(header, f"{header} · #supersedes-{new}"))
    shown = json.loads(run("show", old, "--json", cwd=mem, check=True).stdout)
    assert shown["supersedes"] == [int(new)]  # by hand: a tag naming a newer entry
    listed = [e["id"] for e in json.loads(run("list", "dev", "--json", cwd=mem, check=True).stdout)]
    assert listed == [int(new)], "the backward tag is ignored: the newest version is still shown"


@pytest.mark.parametrize("driver", [True, False])
def test_two_branches_superseding_one_entry_merge_to_one_visible_successor(repo: Path, driver: bool):
    from .conftest import git

    old = branched(repo, driver, "Deploy on Fridays", "theirs")
    theirs = run("supersede", old, "Deploy on Thursdays", cwd=repo, check=True).stdout.strip()
    commit_all(repo, "theirs")
    git("checkout", "-q", "main", cwd=repo)
    ours = run("supersede", old, "Deploy on Tuesdays", cwd=repo, check=True).stdout.strip()
    run("edit", "dev", old, "Deploy on Fridays, after the standup", cwd=repo, check=True)  # history edited too
    commit_all(repo, "ours")
    merged = git("merge", "-q", "--no-edit", "theirs", cwd=repo, check=False)
    assert merged.returncode == 0, merged.stdout + merged.stderr
    assert git("status", "--porcelain", cwd=repo).stdout == ""
    newest = max(int(ours), int(theirs))
    # at once, before any compaction: one current version on every clone, the newest by id
    shown = json.loads(run("show", old, "--json", cwd=repo, check=True).stdout)
    assert shown["superseded_by"] == newest and shown["body"] == "Deploy on Fridays, after the standup"
    visible = [e["id"] for e in json.loads(run("list", "dev", "--json", cwd=repo, check=True).stdout)]
    assert visible == [newest]
    assert [h["id"] for h in json.loads(run("search", "deploy", "--json", cwd=repo, check=True).stdout)] == [newest]
    block = run("inject", "dev", "deploy", cwd=repo, check=True).stdout
    assert block.count("Deploy on") == 1 and ("Tuesdays" if newest == int(ours) else "Thursdays") in block
    every = json.loads(run("search", "deploy", "--all", "--json", cwd=repo, check=True).stdout)
    assert len(every) == 3, "nothing lost"
    other = min(int(ours), int(theirs))
    refused = run("supersede", str(other), "Deploy on Mondays", cwd=repo)
    assert refused.returncode == 1 and f"supersede {newest} instead" in refused.stderr
    compacted = json.loads(run("compact", "--json", cwd=repo, check=True).stdout)
    assert not compacted["actions"], "nothing for compaction to join: the files already say it"


def test_compaction_that_folds_a_newest_version_keeps_its_old_versions_out(mem: Path):
    from memcli.storage.paths import Layout
    from memcli.storage.store import Store

    store = Store(Layout(mem))
    old = store.add("dev", "decisions", "Cache sessions in Redis").id
    run("supersede", str(old), "Cache sessions in memcached", cwd=mem, check=True)
    for n in range(34):
        store.add("dev", "decisions", f"decision {n} about the billing module")
    run("compact", cwd=mem, check=True)
    kept = bodies(mem, "decisions")
    assert len(kept) == 21 and not any("Redis" in b for b in kept), "the old version did not come back"
    summary = next(b for b in kept if b.startswith("Compacted "))
    assert "Cache sessions in memcached" in summary
    every = json.loads(run("search", "Redis", "--all", "--json", cwd=mem, check=True).stdout)
    assert [h["id"] for h in every if not h["related"]] == [old], "kept for the record"


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(1, 30), st.lists(st.integers(0, 31), max_size=3)),
        max_size=25,
        unique_by=lambda e: e[0],
    ),
    st.randoms(use_true_random=False),
)
def test_every_memory_shows_one_version_whatever_the_tags_and_their_order(entries, rnd):
    from memcli.storage.store import SUPERSEDES, replaced

    links = [(i, [f"{SUPERSEDES}{p}" for p in olds] + ["other"]) for i, olds in entries]
    gone = replaced(links)
    shuffled = list(links)
    rnd.shuffle(shuffled)
    assert replaced(shuffled) == gone, "the order files are read in changes nothing"
    # the expected answer, the slow way: groups of ids linked by a tag that names an older id
    groups = [{i} | {p for p in olds if p < i} for i, olds in entries]
    merged: list[set[int]] = []
    for g in groups:
        touching = [m for m in merged if m & g]
        for m in touching:
            merged.remove(m)
            g |= m
        if len(g) > 1:
            merged.append(g)
    expected = {x: max(g) for g in merged for x in g if x != max(g)}
    assert gone == expected
    assert all(head not in gone for head in gone.values()), "a newest version is never replaced"


def test_refusals_are_one_line_and_change_nothing(mem: Path):
    mine = run("add", "dev", "decisions", "Use Redis for sessions", cwd=mem, check=True).stdout.strip()
    theirs = run("add", "qa", "lessons", "Flaky tests need a retry budget", cwd=mem, check=True).stdout.strip()
    before = sorted((p, p.read_bytes()) for p in (mem / ".memory").rglob("*.md"))
    for args in (
        ("archive", "dev", theirs),
        ("pin", "dev", theirs),
        ("supersede", "dev", theirs, "Flaky tests get one retry"),
        ("unarchive", "dev", theirs),
    ):
        refused = run(*args, cwd=mem)
        assert (
            refused.returncode == 1
            and refused.stderr == f"memcli: error: entry {theirs} is qa's, not dev's: nothing done\n"
        )
    for args, says in (
        (("supersede", "dev", "123", "x"), "no entry 123"),
        (("supersede", mine, ""), "empty text"),
        (("pin", "dev"), "missing ID"),
    ):
        refused = run(*args, cwd=mem)
        assert refused.returncode == 1 and says in refused.stderr and refused.stderr.count("\n") == 1, refused.stderr
    assert sorted((p, p.read_bytes()) for p in (mem / ".memory").rglob("*.md")) == before
    new = json.loads(run("supersede", mine, "Use memcached for sessions", "--json", cwd=mem, check=True).stdout)
    assert new["supersedes"] == [int(mine)] and new["body"] == "Use memcached for sessions"


def test_a_text_never_sets_an_entrys_state_by_naming_its_tag(mem: Path):
    kept = run("add", "dev", "decisions", "Use Postgres for storage #db", cwd=mem, check=True).stdout.strip()
    for text in (
        f"Nothing to see here #supersedes-{kept}",  # would hide the Postgres decision
        "Deploy only on weekdays #pinned #deploy",
        "Old CI notes #archived are here",
        "A summary #compacted of nothing",
        "Marked #imported-0123456789 by hand",
    ):
        run("add", "dev", "decisions", text, cwd=mem, check=True)
    listed = json.loads(run("list", "dev", "-c", "decisions", "--json", cwd=mem, check=True).stdout)
    assert len(listed) == 6 and any(e["id"] == int(kept) for e in listed)  # nothing hidden, archived or superseded
    tags = {e["body"]: e["tags"] for e in listed}
    assert tags["Deploy only on weekdays #pinned #deploy"] == ["deploy"] and tags["Use Postgres for storage #db"] == [
        "db"
    ]
    assert all(tags[b] == [] for b in tags if "#db" not in b and "#deploy" not in b)
    assert "Pinned:" not in run("inject", "dev", "anything", cwd=mem, check=True).stdout
    # nor does an edit, and an edit keeps the state the commands gave
    run("pin", kept, cwd=mem, check=True)
    run("edit", "dev", kept, "Use Postgres 16 for storage #db #archived", cwd=mem, check=True)
    edited = json.loads(run("show", "dev", kept, "--json", cwd=mem, check=True).stdout)
    assert edited["tags"] == ["db", "pinned"]
    # a rule imported from CLAUDE.md that names the tag is imported as words
    (mem / "CLAUDE.md").write_text("# App\n\n## Rules\n\n- Use the #pinned tag for standing rules\n")
    run("import", "CLAUDE.md", cwd=mem, check=True)
    imported = [
        e for e in json.loads(run("list", "dev", "--json", cwd=mem, check=True).stdout) if "standing" in e["body"]
    ]
    assert len(imported) == 1 and "pinned" not in imported[0]["tags"]

"""The everyday commands, run as real processes on real folders."""

from __future__ import annotations

import json
import os
import time
import subprocess
import sys
from pathlib import Path

import pytest

from memcli.storage import vault
from memcli.storage.paths import Layout
from memcli.storage.store import Store

from .conftest import (
    category_exists,
    category_text,
    clean_env,
    conversation_files,
    conversation_text,
    entry_files,
    git,
    lock_held,
    run,
    tree,
)

HAND_WRITTEN = """Notes an agent wrote by hand, with no marker at all.

<!-- id:1773679871839 -->
## 2026-03-16T16:51 · #auto-handoff #session-close

A body with a dash line
---
and more after it, issue #42 and colour #fff.

---

<!-- id:1773679871839 -->
## 2026-03-16T16:51 · #duplicate

Same id, other text (a merge left it).

---

## 2026-03-17T09:00 · #agent-written

Written by an agent without an id marker.

---
<!-- id:1773679871000 -->
## 2026-03-16T16:40

Entry whose separator a union merge dropped, followed directly by the next marker.
<!-- id:1773679870000 -->
## 2026-03-16T16:30 · #décision

Last one, no trailing newline.

---"""


def test_hand_written_file_keeps_all_its_text_after_add(mem: Path):
    path = mem / ".memory" / "dev" / "decisions.md"
    path.parent.mkdir()
    path.write_text(HAND_WRITTEN)
    before = vault.parse(HAND_WRITTEN)
    result = run("add", "dev", "decisions", "a new decision", cwd=mem, check=True)
    new_id = int(result.stdout)
    assert "a new decision" not in path.read_text(), "a new entry never goes into a category file"
    # The file holds two entries with one id: this write gave the second an id of its own (what
    # `show` promises of the next write), rewriting the file as an edit of it would: every text kept.
    rewritten = vault.parse(path.read_text())
    assert [e.body for e in rewritten] == [e.body for e in before]
    assert [e.id for e in rewritten if e.marked][:2] == [1773679871839, 1773679871840]
    (new_file,) = entry_files(mem, "dev", "decisions")
    assert new_file.name == f"{new_id}-a-new-decision.md"
    after = Store(Layout(mem)).read("dev", "decisions")
    assert sorted(e.body for e in after) == sorted([e.body for e in before] + ["a new decision"])
    ids = [e.id for e in after]
    assert None not in ids and new_id in ids
    tags = {e.body: e.tags for e in after}
    assert tags["Last one, no trailing newline."] == ["décision"]
    assert tags["Written by an agent without an id marker."] == ["agent-written"]
    assert "auto-handoff" in next(t for b, t in tags.items() if b.startswith("A body with a dash line"))
    # Listing shows the six entries of the file and the new one.
    listed = json.loads(run("list", "dev", "--json", cwd=mem, check=True).stdout)
    assert len(listed) == len({e["id"] for e in listed}) == 7
    # A category file with no twin is never rewritten by an add.
    single = HAND_WRITTEN.replace(
        "<!-- id:1773679871839 -->\n## 2026-03-16T16:51 · #duplicate",
        "<!-- id:1773679871800 -->\n## 2026-03-16T16:51 · #duplicate",
    )
    path.write_text(single)
    run("add", "dev", "decisions", "one more decision", cwd=mem, check=True)
    assert path.read_text() == single


def test_provisional_ids_are_stable_until_written(mem: Path):
    path = mem / ".memory" / "dev" / "lessons.md"
    path.parent.mkdir()
    path.write_text("## 2026-02-02T10:00\n\nhand written lesson\n")
    first = json.loads(run("list", "dev", "--json", cwd=mem, check=True).stdout)[0]["id"]
    second = json.loads(run("list", "dev", "--json", cwd=mem, check=True).stdout)[0]["id"]
    assert first == second
    run("edit", "dev", str(first), "edited lesson", cwd=mem, check=True)
    assert f"<!-- id:{first} -->" in path.read_text()


ADDER = """
import sys
from memcli.storage.paths import Layout
from memcli.storage.store import Store
store = Store(Layout(__import__('pathlib').Path(sys.argv[1])))
for i in range(10):
    store.add("dev", "lessons", f"worker {sys.argv[2]} lesson {i}")
"""


def test_six_processes_adding_at_once_lose_nothing(mem: Path):
    procs = [
        subprocess.Popen([sys.executable, "-c", ADDER, str(mem), str(w)], stderr=subprocess.PIPE, text=True)
        for w in range(6)
    ]
    errors = [p.communicate(timeout=120)[1] for p in procs]
    assert all(p.returncode == 0 for p in procs), errors
    entries = Store(Layout(mem)).read("dev", "lessons")
    assert len(entries) == 60
    assert len({e.id for e in entries}) == 60
    assert {e.body for e in entries} == {f"worker {w} lesson {i}" for w in range(6) for i in range(10)}


def test_ids_strictly_increase_within_a_file(mem: Path):
    store = Store(Layout(mem))
    ids = [store.add("dev", "tasks", f"- [ ] t{i}").id for i in range(20)]
    assert ids == sorted(ids) and len(set(ids)) == 20


@pytest.mark.parametrize("agent", ["../x", "a/b", ".hidden", "conversations", "", "Dev", "_project", "x" * 65])
def test_bad_agent_ids_are_refused_before_touching_disk(tmp_path: Path, mem: Path, agent: str):
    before = tree(tmp_path)
    result = run("add", agent, "decisions", "text", cwd=mem)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert tree(tmp_path) == before


def test_unknown_category_lists_the_valid_ones(tmp_path: Path, mem: Path):
    before = tree(tmp_path)
    result = run("add", "dev", "ideas", "text", cwd=mem)
    assert result.returncode == 1
    assert "decisions, lessons, tasks, projects, handoffs" in result.stderr
    assert tree(tmp_path) == before


def test_missing_memory_says_to_run_init(tmp_path: Path):
    for args in (["add", "dev", "decisions", "x"], ["list"], ["status"]):
        result = run(*args, cwd=tmp_path)
        assert result.returncode == 1
        assert "memcli init" in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / ".memory").exists()


def test_text_from_stdin_and_leading_dash_text(mem: Path):
    run("add", "dev", "tasks", "-", cwd=mem, input="- [ ] from stdin\n", check=True)
    run("add", "dev", "tasks", "- [ ] write the login test", "--tag", "auth", cwd=mem, check=True)
    entries = Store(Layout(mem)).read("dev", "tasks")
    assert [e.body for e in entries] == ["- [ ] write the login test", "- [ ] from stdin"]
    assert entries[0].tags == ["auth"]


def test_editor_is_used_when_no_text_on_a_terminal_only(mem: Path):
    # Not a terminal (pipes): no editor, a clear error and nothing written.
    result = run("add", "dev", "lessons", cwd=mem)
    assert result.returncode == 1 and "TEXT" in result.stderr
    assert not category_exists(mem, "dev", "lessons")


def test_edit_through_editor(mem: Path, tmp_path: Path):
    store = Store(Layout(mem))
    e = store.add("dev", "lessons", "old text")
    script = tmp_path / "ed.sh"
    script.write_text("#!/bin/sh\nsed -i 's/old/new/' \"$1\"\n")
    script.chmod(0o755)
    # Run through `script` is not available everywhere; call the library path the command uses.
    from memcli.cli.common import edit_in_editor

    os.environ["EDITOR"] = str(script)
    try:
        assert edit_in_editor("old text") == "new text"
    finally:
        del os.environ["EDITOR"]
    assert store.find("dev", e.id).entry.body == "old text"


def test_edit_changes_body_and_tags(mem: Path):
    store = Store(Layout(mem))
    e = store.add("dev", "decisions", "Use SSE #sse")
    run("edit", "dev", str(e.id), "Use SSE everywhere #sse #streaming", cwd=mem, check=True)
    got = store.find("dev", e.id).entry
    assert got.body == "Use SSE everywhere #sse #streaming" and got.tags == ["sse", "streaming"]
    run("edit", "dev", str(e.id), "--tag", "final", cwd=mem, check=True)
    got = store.find("dev", e.id).entry
    assert got.tags == ["final"] and got.body == "Use SSE everywhere #sse #streaming"
    result = run("edit", "dev", "999", "x", cwd=mem)
    assert result.returncode == 1 and "no entry 999" in result.stderr


def test_edit_project_file(mem: Path):
    run("edit", "_project", "-", cwd=mem, input="# Shop\nStack: Django\n", check=True)
    assert (mem / ".memory" / "_project.md").read_text() == "# Shop\nStack: Django\n"
    assert run("show", "_project", cwd=mem, check=True).stdout == "# Shop\nStack: Django\n"


def test_rm_is_all_or_nothing(mem: Path):
    store = Store(Layout(mem))
    a = store.add("dev", "decisions", "a")
    b = store.add("dev", "lessons", "b")
    before = tree(mem / ".memory")
    result = run("rm", "dev", str(a.id), str(b.id), "12345", cwd=mem)
    assert result.returncode == 1 and "12345" in result.stderr
    assert tree(mem / ".memory") == before and not (mem / ".memory" / "dev" / ".removed").exists()
    run("rm", "dev", str(a.id), str(b.id), "--yes", cwd=mem, check=True)
    assert store.read("dev", "decisions") == [] and store.read("dev", "lessons") == []
    assert not entry_files(mem, "dev", "decisions") and not entry_files(mem, "dev", "lessons"), "files deleted"
    assert not (mem / ".memory" / "dev" / ".removed").exists(), "a removal is the entry's file gone"


def test_legacy_removed_file_is_honoured_and_folded_by_compact(mem: Path):
    store = Store(Layout(mem))
    a = store.add("dev", "decisions", "removed by memcli 0.1")
    store.add("dev", "decisions", "kept")
    (mem / ".memory" / "dev" / ".removed").write_text(f"decisions {a.id}\n")  # what 0.1's rm recorded
    assert [e.body for e in store.read("dev", "decisions")] == ["kept"]
    assert "removed by memcli 0.1" not in run("search", "removed", "--json", cwd=mem, check=True).stdout
    run("compact", cwd=mem, check=True)
    text = category_text(mem, "dev", "decisions")
    assert "removed by memcli 0.1" not in text and "kept" in text
    assert not (mem / ".memory" / "dev" / ".removed").exists()


def test_rm_of_a_shared_id_removes_one_entry_and_says_which(mem: Path):
    path = mem / ".memory" / "dev" / "decisions.md"
    path.parent.mkdir()
    twin = "<!-- id:1700000000000 -->\n## 2023-11-14T22:13\n\n{}\n\n---\n"
    path.write_text(twin.format("first copy") + "\n" + twin.format("second copy"))
    result = run("rm", "dev", "1700000000000", "--yes", cwd=mem, check=True)
    assert "first copy" in result.stderr and "1 other entry with this id left" in result.stderr
    assert [e.body for e in Store(Layout(mem)).read("dev", "decisions")] == ["second copy"]


TWIN = "<!-- id:{id} -->\n## 2026-03-16T16:51\n\n{text}\n\n---\n"


@pytest.mark.parametrize("write", ["add", "edit"])
def test_the_next_write_gives_a_twin_in_a_category_file_an_id_of_its_own(mem: Path, write: str):
    """What `show` says and PRODUCT promises: two entries with one id are both kept, and the next write
    of that category (not only `compact`) gives the second an id of its own."""
    path = mem / ".memory" / "dev" / "lessons.md"
    path.parent.mkdir()
    texts = ("the first twin", "the second twin", "another lesson")
    path.write_text(
        "\n".join(TWIN.format(id=i, text=t) for i, t in zip((1773679871800,) * 2 + (1773679871900,), texts))
    )
    assert "2 entries share id" in run("show", "dev", "1773679871800", cwd=mem, check=True).stderr
    run("add", "dev", "decisions", "another category: its files are not this write's", cwd=mem, check=True)
    assert path.read_text().count("<!-- id:1773679871800 -->") == 2
    if write == "add":
        run("add", "dev", "lessons", "x", cwd=mem, check=True)
    else:
        run("edit", "dev", "1773679871900", "edited", cwd=mem, check=True)
    rows = json.loads(run("list", "dev", "-c", "lessons", "--json", cwd=mem, check=True).stdout)
    ids = {r["body"]: r["id"] for r in rows}
    assert len(set(ids.values())) == len(rows) == (4 if write == "add" else 3), ids
    assert ids["the first twin"] == 1773679871800, "the one show and edit find keeps the id"
    assert ids["the second twin"] == 1773679871801, "the next free id: it keeps its place in time"
    shown = run("show", "dev", "1773679871800", cwd=mem, check=True)
    assert "share id" not in shown.stderr and "the first twin" in shown.stdout


def test_the_next_write_gives_a_copied_entry_file_an_id_of_its_own(mem: Path):
    first = run("add", "dev", "lessons", "the original", cwd=mem, check=True).stdout.strip()
    (original,) = entry_files(mem, "dev", "lessons")
    copy = original.with_name(original.name.replace(".md", "-2.md"))
    copy.write_text(original.read_text().replace("the original", "a copy, changed by hand"))
    found = json.loads(run("show", "dev", first, "--json", cwd=mem, check=True).stdout)["body"]
    run("add", "dev", "lessons", "a third", cwd=mem, check=True)
    rows = json.loads(run("list", "dev", "-c", "lessons", "--json", cwd=mem, check=True).stdout)
    assert len({r["id"] for r in rows}) == 3
    assert {r["body"]: r["id"] for r in rows}[found] == int(first), "the one show found keeps the id"


@pytest.mark.parametrize(
    "secret",
    [
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----",
        "aws key AKIAABCDEFGHIJKLMNOP",
        "token ghp_" + "a1B2" * 9,
        "gitlab glpat-" + "x1y2z3" * 4,
        "slack xoxb-1234567890-abcdefghij",
        "openai sk-proj-" + "Ab1" * 10,
        "DATABASE_PASSWORD=hunter2hunter2",
    ],
)
def test_secrets_are_refused_unless_allowed(mem: Path, secret: str):
    result = run("add", "dev", "lessons", secret, cwd=mem)
    assert result.returncode == 1 and "secret" in result.stderr and "--allow-secret" in result.stderr
    assert secret not in result.stderr
    assert not category_exists(mem, "dev", "lessons")
    run("add", "dev", "lessons", secret, "--allow-secret", cwd=mem, check=True)


def test_ordinary_text_is_not_a_secret(mem: Path):
    for text in [
        "the password: is stored in vault",
        "max_tokens = 4096",
        "set token=${GITHUB_TOKEN} in CI",
        "password = <your password>",
        "sk-learn is a library",
    ]:
        run("add", "dev", "lessons", text, cwd=mem, check=True)


def test_symlink_never_leads_a_write_outside(mem: Path, tmp_path: Path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (mem / ".memory" / "dev").symlink_to(outside)
    result = run("add", "dev", "decisions", "x", cwd=mem)
    assert result.returncode == 1 and "outside" in result.stderr
    assert list(outside.iterdir()) == []


def test_unreadable_vault_file_is_reported_with_its_path(mem: Path):
    path = mem / ".memory" / "dev" / "lessons.md"
    path.parent.mkdir()
    path.write_bytes(b"\xff\xfe binary \x00")
    Store(Layout(mem)).add("dev", "decisions", "still listed")
    result = run("list", "dev", cwd=mem)  # the unreadable file is named and skipped; the rest is listed
    assert result.returncode == 0 and str(path) in result.stderr and "Traceback" not in result.stderr
    assert "still listed" in result.stdout
    result = run("add", "dev", "lessons", "x", cwd=mem)  # a new entry never touches the category file
    assert result.returncode == 0 and path.read_bytes() == b"\xff\xfe binary \x00"
    result = run("status", "--json", cwd=mem)
    assert result.returncode == 0 and any(str(path) in p for p in json.loads(result.stdout)["problems"])


def test_bad_config_is_one_line(mem: Path):
    (mem / ".memory" / "config.toml").write_text("[inject\nbudget=")
    result = run("list", cwd=mem)
    assert result.returncode == 1 and "not valid TOML" in result.stderr
    (mem / ".memory" / "config.toml").write_text("[inject]\nbudget = -5\n")
    result = run("list", cwd=mem)
    assert result.returncode == 1 and "inject.budget" in result.stderr
    (mem / ".memory" / "config.toml").write_text('[vault]\ncategories = ["decisions", "lessons"]\n')
    result = run("list", cwd=mem)
    assert result.returncode == 1 and "must keep tasks, projects, handoffs" in result.stderr


def test_config_adds_categories(mem: Path):
    (mem / ".memory" / "config.toml").write_text(
        '[vault]\ncategories = ["decisions", "lessons", "tasks", "projects", "handoffs", "ideas"]\n'
    )
    run("add", "dev", "ideas", "a new idea", cwd=mem, check=True)
    assert "ideas 1" in run("status", cwd=mem, check=True).stdout


def test_init_is_idempotent_and_keeps_existing_lines(tmp_path: Path):
    git("init", "-q", cwd=tmp_path)
    (tmp_path / ".gitignore").write_text("node_modules/")
    (tmp_path / ".gitattributes").write_text("*.png binary\n")
    run("init", cwd=tmp_path, check=True)
    first = tree(tmp_path)
    assert (tmp_path / ".gitignore").read_text().startswith("node_modules/\n")
    assert ".memory/.vault/" in (tmp_path / ".gitignore").read_text()
    assert "*.png binary" in (tmp_path / ".gitattributes").read_text()
    assert ".memory/*/*.md merge=memcli" in (tmp_path / ".gitattributes").read_text()
    assert "memcli merge-driver" in git("config", "merge.memcli.driver", cwd=tmp_path).stdout
    result = run("init", cwd=tmp_path, check=True)
    assert "nothing to do" in result.stdout
    assert tree(tmp_path) == first


def test_init_from_a_subfolder_uses_the_repository_root(tmp_path: Path):
    git("init", "-q", cwd=tmp_path)
    sub = tmp_path / "src" / "pkg"
    sub.mkdir(parents=True)
    run("init", cwd=sub, check=True)
    assert (tmp_path / ".memory" / "_project.md").exists() and not (sub / ".memory").exists()
    run("add", "dev", "lessons", "found from below", cwd=sub, check=True)
    assert category_exists(tmp_path, "dev", "lessons")


def test_init_checks_everything_before_writing(tmp_path: Path):
    (tmp_path / ".gitignore").mkdir()  # cannot be appended to
    before = tree(tmp_path)
    result = run("--dir", str(tmp_path), "init", cwd=tmp_path)
    assert result.returncode == 1 and ".gitignore" in result.stderr
    assert tree(tmp_path) == before and not (tmp_path / ".memory").exists()


def test_dir_option_and_env(mem: Path, tmp_path: Path):
    run("--dir", str(mem), "add", "dev", "lessons", "via --dir", cwd=tmp_path, check=True)
    out = run("list", "--json", cwd=tmp_path, env=clean_env(MEMCLI_DIR=str(mem)), check=True).stdout
    assert json.loads(out)[0]["body"] == "via --dir"


def test_show_and_list_json(mem: Path):
    store = Store(Layout(mem))
    e = store.add("dev", "decisions", "Adopt SSE #sse")
    shown = json.loads(run("show", "dev", str(e.id), "--json", cwd=mem, check=True).stdout)
    assert shown == {
        "id": e.id,
        "agent": "dev",
        "category": "decisions",
        "date": e.header_date,
        "tags": ["sse"],
        "body": "Adopt SSE #sse",
        "superseded_by": None,
        "supersedes": [],
        "held": None,
        "scope": "project",
    }
    assert json.loads(run("list", "--tag", "sse", "--json", cwd=mem, check=True).stdout)[0]["id"] == e.id
    assert json.loads(run("list", "--tag", "nope", "--json", cwd=mem, check=True).stdout) == []


def test_status_counts(mem: Path):
    store = Store(Layout(mem))
    store.add("dev", "tasks", "- [ ] one\n- [x] two\n- [ ] three")
    h = store.add("dev", "handoffs", "[User]: hi")
    report = json.loads(run("status", "--json", cwd=mem, check=True).stdout)
    dev = report["agents"]["dev"]
    assert dev["open_tasks"] == 2 and dev["entries"] == 2
    assert dev["last_handoff"]["id"] == h.id and dev["categories"]["tasks"]["entries"] == 1


def test_lock_timeout_is_a_clear_error(mem: Path):
    with lock_held(mem):
        (mem / ".memory" / "config.toml").write_text("[vault]\nlock_timeout = 0.3\n")
        result = run("add", "dev", "lessons", "x", cwd=mem)
        assert result.returncode == 1 and "lock" in result.stderr and "Traceback" not in result.stderr


# ---------------------------------------------------------------- symlinks never lead outside
def _outside_tree(tmp_path: Path) -> tuple[Path, dict[str, bytes]]:
    outside = tmp_path / "outside"
    (outside / "index").mkdir(parents=True)
    (outside / "index" / "users-file.txt").write_text("precious\n")
    (outside / "credentials").write_text(
        "[default]\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n"
    )
    return outside, tree(outside)


def test_a_symlinked_vault_folder_is_never_written_through(mem: Path, tmp_path: Path):
    outside, before = _outside_tree(tmp_path)
    state = mem / ".memory" / ".vault"
    import shutil

    shutil.rmtree(state, ignore_errors=True)
    state.symlink_to(outside)
    run("add", "dev", "lessons", "a lesson about caches", cwd=mem, check=True)
    result = run("search", "caches", "--json", cwd=mem, check=True)
    assert [h["body"] for h in json.loads(result.stdout)] == ["a lesson about caches"]
    run("checkpoint", "dev", "-", cwd=mem, input=json.dumps([{"role": "user", "text": "hi"}]), check=True)
    run("compact", cwd=mem, check=True)
    run("inject", "dev", "caches", cwd=mem, check=True)
    assert tree(outside) == before, "nothing outside .memory was written, renamed or deleted"
    assert state.is_dir() and not state.is_symlink()


def test_a_vault_file_linked_outside_is_never_read_or_printed(mem: Path, tmp_path: Path):
    outside, before = _outside_tree(tmp_path)
    agent = mem / ".memory" / "dev"
    agent.mkdir()
    (agent / "lessons.md").symlink_to(outside / "credentials")
    (mem / ".memory" / "_project.md").unlink()
    (mem / ".memory" / "_project.md").symlink_to(outside / "credentials")
    for args in (
        ["inject", "dev", "aws secret"],
        ["search", "aws_secret_access_key"],
        ["list", "--json"],
        ["status", "--json"],
    ):
        result = run(*args, cwd=mem)
        assert "wJalrXUtnFEMI" not in result.stdout + result.stderr, args
        assert "internal error" not in result.stderr, args
    assert "symlink" in run("list", cwd=mem).stderr
    run("add", "dev", "lessons", "beside the link", cwd=mem, check=True)  # into a file of its own
    assert tree(outside) == before
    # A category folder or an entry file linked outside: never read, never written through.
    (agent / "lessons.md").unlink()
    (agent / "decisions").symlink_to(outside, target_is_directory=True)
    (outside / "1700000000000-x.md").write_text(
        "<!-- id:1700000000000 -->\n## 2023-11-14T22:13\n\nOUTSIDE-ENTRY\n\n---\n"
    )
    before = tree(outside)
    (agent / "tasks").mkdir()
    (agent / "tasks" / "1700000000001-y.md").symlink_to(outside / "1700000000000-x.md")
    for args in (["list", "--json"], ["search", "OUTSIDE-ENTRY", "--json"], ["inject", "dev", "outside entry"]):
        result = run(*args, cwd=mem)
        assert "OUTSIDE-ENTRY" not in result.stdout and "internal error" not in result.stderr, args
        assert "symlink" in result.stderr, args
    result = run("add", "dev", "decisions", "through the folder link", cwd=mem)
    assert result.returncode == 1 and "symlink" in result.stderr
    assert tree(outside) == before


@pytest.mark.parametrize("links", [1, 3])
def test_a_refusal_through_a_symlink_is_one_line(mem: Path, tmp_path: Path, links: int):
    """Every refusal is one line on stderr: the reads before the refused write warn about the same
    links ("skipped ...: a symlink leads it outside"), and those warnings are held back."""
    outside = tmp_path / "outside"
    outside.mkdir()
    agent = mem / ".memory" / "mal"
    agent.mkdir()
    for category in ("tasks", "decisions", "lessons")[:links]:
        (agent / category).symlink_to(outside, target_is_directory=True)
    talk = [("user", "How should the live feed reach the browser?")] + [
        ("agent", f"We decided to use server-sent events for the live feed, reason {i}.") for i in range(8)
    ]
    conversation = json.dumps([{"role": role, "text": text} for role, text in talk])
    attempts = [(["add", "mal", "tasks", "- [ ] a task"], None)]
    if links == 3:  # closing a session writes the decisions it extracted: into a linked folder
        attempts.append((["checkpoint", "mal", "-", "--close"], conversation))
    for args, stdin in attempts:
        result = run(*args, cwd=mem, input=stdin, process=True)
        assert result.returncode == 1 and "refusing to touch" in result.stderr, (args, result.stderr)
        assert len(result.stderr.splitlines()) == 1, (args, result.stderr)
        assert list(outside.iterdir()) == []
    # A command that succeeds still says what it skipped (after its output); MEMCLI_DEBUG shows
    # every warning as it comes, also before an error.
    listed = run("list", "mal", cwd=mem, process=True)
    assert listed.returncode == 0 and listed.stderr.count("warning: skipped") == links
    debug = run("add", "mal", "tasks", "x", cwd=mem, env=clean_env(MEMCLI_DEBUG="1"), process=True)
    assert debug.returncode == 1 and "warning: skipped" in debug.stderr.splitlines()[0]


def test_a_symlinked_index_folder_is_replaced_not_followed(mem: Path, tmp_path: Path):
    outside, before = _outside_tree(tmp_path)
    Store(Layout(mem)).add("dev", "lessons", "indexed lesson")
    state = mem / ".memory" / ".vault"
    state.mkdir(exist_ok=True)
    import shutil

    shutil.rmtree(state / "index", ignore_errors=True)
    (state / "index").symlink_to(outside / "index")
    result = run("search", "indexed", "--json", cwd=mem, check=True)
    assert [h["body"] for h in json.loads(result.stdout)] == ["indexed lesson"]
    assert tree(outside) == before and (outside / "index" / "users-file.txt").exists()
    assert not (state / "index").is_symlink()


# ---------------------------------------------------------------- secrets: refused, or wholly redacted
PRIVATE_KEY_BODY = "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw7onLRnrq0"
SECRETS = {  # the text, and a part of it that must never be stored
    "postgres URL": ("DATABASE_URL=postgres://app:s3cr3tpw@db.internal/app", "s3cr3tpw"),
    "short URL password": ("mysql://root:pw@10.0.0.5/shop", ":pw@"),
    "npm": ("//registry.npmjs.org/:_authToken=npm_" + "aB3dE5gH7j" * 3 + "kL9mN0", "npm_aB3dE5"),
    "PyPI": ("password = pypi-AgEIcHlwaS5vcmc" + "Q2x1" * 15, "pypi-AgEI"),
    "Hugging Face": ("HF token hf_" + "qWeRtYuIoPaSdFgHjKlZxCvBnM1234", "hf_qWeRtY"),
    "Stripe": ("stripe sk_live_" + "51Hx" * 6, "sk_live_51Hx"),
    "Google": ("key AIza" + "SyB3" * 8 + "xyz", "AIzaSyB3"),
    "Google OAuth": ("GOCSPX-" + "k2J9" * 7, "GOCSPX-k2J9"),
    "Azure": ("AccountKey=" + "Zm9vYmFy" * 11 + "==", "Zm9vYmFyZm9v"),
    "JWT": (
        "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        "dozjgNryP4J3",
    ),
    "env quoted": ('DB_PASSWORD="correct horse"', "correct horse"),
    "env unquoted short": ("export API_TOKEN=q9", "=q9"),
    "URL without a user name": ("REDIS_URL=redis://:supersecretpass@cache.internal:6379/0", "supersecretpass"),
    "DB_PASS": ("DB_PASS=hunter2hunter2", "hunter2hunter2"),
    "bearer": ("Authorization: Bearer abcdef0123456789abcdef0123456789", "abcdef0123456789abcdef"),
    "AWS key pair": ("AKIAIOSFODNN7EXAMPLE wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI"),
    "lowercase db_pass": ("db_pass=hunter2", "hunter2"),
    "JSON-quoted key": ('{"DB_PASS": "hunter2"}', "hunter2"),
    "PGPASSWORD": ("PGPASSWORD=hunter2", "hunter2"),
    "short bearer": ("authorization: bearer Xy9kLmN0pQr5StUv", "Xy9kLmN0pQr5StUv"),
    "basic auth": ("Authorization: Basic dXNlcjpwYXNzd29yZA==", "dXNlcjpwYXNzd29yZA"),
    "secret assignment": ("client_secret: 'Xk9-2ndQ_77pLm'", "Xk9-2ndQ"),
    "private key": (
        "-----BEGIN RSA PRIVATE KEY-----\n"
        + PRIVATE_KEY_BODY
        + "\n"
        + PRIVATE_KEY_BODY[::-1]
        + "\n-----END RSA PRIVATE KEY-----",
        PRIVATE_KEY_BODY[:30],
    ),
    "unterminated key": (
        "-----BEGIN OPENSSH PRIVATE KEY-----\n" + PRIVATE_KEY_BODY + "\n" + PRIVATE_KEY_BODY,
        PRIVATE_KEY_BODY[:30],
    ),
}


@pytest.mark.parametrize("name", sorted(SECRETS))
def test_every_secret_form_is_refused_by_add_and_edit(mem: Path, name: str):
    text, part = SECRETS[name]
    result = run("add", "dev", "lessons", text, cwd=mem)
    assert result.returncode == 1 and "secret" in result.stderr and part not in result.stderr
    assert not category_exists(mem, "dev", "lessons")
    entry = run("add", "dev", "lessons", "harmless", cwd=mem, check=True).stdout.strip()
    result = run("edit", "dev", entry, text, cwd=mem)
    assert result.returncode == 1 and part not in category_text(mem, "dev", "lessons")


def test_checkpoint_redacts_every_secret_wholly(mem: Path):
    messages = []
    for name, (text, _) in sorted(SECRETS.items()):
        messages += [{"role": "user", "text": f"here is the {name}:\n{text}\nthanks"}, {"role": "agent", "text": "ok"}]
    messages[-1] = {"role": "agent", "text": "We decided to keep " + SECRETS["private key"][0] + " in the vault."}
    result = run("checkpoint", "dev", "-", "--close", cwd=mem, input=json.dumps(messages), check=True)
    assert "redacted" in result.stderr + result.stdout
    stored = "".join(p.read_text() for p in (mem / ".memory").rglob("*") if p.is_file())
    block = run("inject", "dev", "vault key", cwd=mem, check=True).stdout
    for name, (_, part) in SECRETS.items():
        assert part not in stored, f"{name} leaked into .memory"
        assert part not in block, f"{name} leaked into the block"
    assert "thanks" in conversation_text(mem, "dev"), "the rest of a message stays"


def test_ordinary_developer_prose_is_never_taken_for_a_secret():
    from memcli.storage import secrets

    from .conftest import FIXTURES

    lines = [line for line in (FIXTURES / "dev-prose.txt").read_text().splitlines() if line.strip()]
    assert len(lines) >= 250
    flagged = [(line, secrets.describe(secrets.scan(line))) for line in lines if secrets.scan(line)]
    assert flagged == []


# ---------------------------------------------------------------- bad input: one line, never an internal error
BAD_CONVERSATIONS = {
    "NaN timestamp": '[{"role": "user", "text": "x", "ts": NaN}]',
    "Infinity timestamp": '[{"role": "user", "text": "x", "ts": Infinity}]',
    "huge timestamp": '[{"role": "user", "text": "x", "ts": 1e400}]',
    "lone surrogate": '[{"role": "user", "text": "a\\ud800b", "chatId": "\\udfff"}]',
    "deep nesting": "[" * 100_000 + "]" * 100_000,
    "deep JSONL line": '{"role": "user", "text": "x"}\n' + "[" * 100_000 + "]" * 100_000,
}


@pytest.mark.parametrize("name", sorted(BAD_CONVERSATIONS))
def test_hostile_conversations_never_cause_an_internal_error(mem: Path, name: str):
    result = run("checkpoint", "dev", "-", cwd=mem, input=BAD_CONVERSATIONS[name])
    assert "internal error" not in result.stderr and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) <= 1
    assert run("inject", "dev", "x", cwd=mem).returncode == 0
    assert run("search", "x", cwd=mem).returncode == 0


def _run_bytes(args: list[str], cwd: Path, data: bytes) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "memcli", *args], cwd=cwd, input=data, capture_output=True, env=clean_env(), timeout=60
    )


@pytest.mark.parametrize("data", [b"\x7fELF\x02\x01\x00\x00binary", b"caf\xe9 latin-1", b"nul \x00 inside"])
def test_binary_or_latin1_stdin_is_refused_in_one_line(mem: Path, data: bytes):
    for args in (["add", "dev", "lessons", "-"], ["checkpoint", "dev", "-"]):
        result = _run_bytes(args, mem, data)
        err = result.stderr.decode()
        assert result.returncode == 1 and len(err.strip().splitlines()) == 1 and "internal error" not in err, args
    assert not (mem / ".memory" / "dev").exists() and not bool(conversation_files(mem, "dev"))


def test_an_empty_conversation_keeps_the_checkpoint(mem: Path):
    run("checkpoint", "dev", "-", cwd=mem, input='[{"role": "user", "text": "keep me"}]', check=True)
    result = run("checkpoint", "dev", "-", cwd=mem, input="[]")
    assert result.returncode == 0 and "no messages" in result.stderr
    assert json.loads(run("recover", "dev", "--json", cwd=mem, check=True).stdout)["messages"][0]["text"] == "keep me"


@pytest.mark.parametrize(
    "args",
    [
        ["search", "x", "--limit", "0"],
        ["search", "x", "--limit", str(10**20)],
        ["inject", "dev", "x", "--budget", "abc"],
        ["list", "-n", "abc"],
        ["add", "dev", "lessons", "x", "--bogus"],
        ["add"],
        ["nosuchcommand"],
    ],
)
def test_usage_errors_are_one_line(mem: Path, args: list[str]):
    result = run(*args, cwd=mem)
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert result.stderr.startswith("memcli: error: ") and "--help" in result.stderr


def test_odd_files_in_the_tree_give_clear_errors(mem: Path, tmp_path: Path):
    (mem / ".memory" / "config.toml").mkdir()
    result = run("list", cwd=mem)
    assert result.returncode == 1 and "is a folder" in result.stderr and "internal error" not in result.stderr
    assert run("inject", "dev", "x", cwd=mem).returncode == 0
    (mem / ".memory" / "config.toml").rmdir()
    (mem / ".memory" / "Dev").mkdir()  # not a valid agent id: left alone, never an error
    assert run("search", "x", cwd=mem).returncode == 0 and run("list", cwd=mem).returncode == 0
    repo = tmp_path / "binrepo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    (repo / ".gitignore").write_bytes(b"\x00\xff\xfe")
    result = run("init", cwd=repo)
    assert result.returncode == 1 and ".gitignore" in result.stderr and not (repo / ".memory").exists()
    assert run("add", "dev", "lessons", b"caf\xe9".decode("utf-8", "surrogateescape"), cwd=mem).returncode == 1


@pytest.mark.parametrize(
    "args",
    [
        ["search", "caf\udce9"],
        ["add", "dev", "lessons", "ok", "--tag", "caf\udce9"],
        ["checkpoint", "dev", "-", "--chat-id", "caf\udce9"],
    ],
)
def test_arguments_that_are_not_utf8_are_refused_in_one_line(mem: Path, args: list[str]):
    result = run(*args, cwd=mem, input='[{"role": "user", "text": "hi"}]')
    assert result.returncode == 1 and result.stderr.count("\n") == 1 and "not UTF-8" in result.stderr
    assert not (mem / ".memory" / "dev").exists() and not (mem / ".memory" / "conversations").exists()
    assert run("inject", "dev", "caf\udce9", cwd=mem).returncode == 0, "inject goes on"


def test_a_folder_where_a_vault_file_should_be(mem: Path):
    Store(Layout(mem)).add("dev", "decisions", "an entry")
    (mem / ".memory" / "dev" / "tasks.md").mkdir()
    for args in (["compact"], ["compact", "--dry-run"], ["search", "entry"], ["status"], ["inject", "dev", "entry"]):
        result = run(*args, cwd=mem)
        assert "internal error" not in result.stderr and "Traceback" not in result.stderr, args
        assert result.returncode == 0, (args, result.stderr)
    assert "tasks.md is a folder" in run("compact", cwd=mem).stderr
    assert "an **entry**" in run("search", "entry", cwd=mem).stdout


def test_one_unreadable_vault_file_never_disables_search(mem: Path):
    store = Store(Layout(mem))
    store.add("dev", "decisions", "dev entry")
    store.add("ops", "decisions", "ops entry")
    with (mem / ".memory" / "dev" / "lessons.md").open("ab") as handle:
        handle.write(b"\ncaf\xe9 note\n")
    result = run("search", "ops entry", cwd=mem)
    assert result.returncode == 0 and "**ops** **entry**" in result.stdout and "lessons.md" in result.stderr
    assert "dev entry" in run("inject", "dev", "dev entry", cwd=mem, check=True).stdout
    status = run("status", "--json", cwd=mem)
    assert status.returncode == 0 and any("lessons.md" in p for p in json.loads(status.stdout)["problems"])


def test_an_absurd_id_typed_by_hand_breaks_nothing(mem: Path):
    path = mem / ".memory" / "dev" / "decisions.md"
    path.parent.mkdir()
    path.write_text("<!-- id:99999999999999999999999 -->\n## 2026-01-01T00:00\n\nbig\n\n---\n")
    new = int(run("add", "dev", "decisions", "next", cwd=mem, check=True).stdout)
    assert new < 10**13, "new ids stay timestamps"
    msgs = [{"role": "user", "text": "we decided to use postgres for everything in this service"}]
    run("checkpoint", "dev", "-", "--close", cwd=mem, input=json.dumps(msgs), check=True)
    assert {e.body for e in Store(Layout(mem)).read("dev", "decisions")} >= {"big", "next"}


def test_an_agent_folder_or_checkpoints_linked_outside_are_never_read(mem: Path, tmp_path: Path):
    outside = tmp_path / "out"
    (outside / "agentdir").mkdir(parents=True)
    (outside / "agentdir" / "decisions.md").write_text("<!-- id:1 -->\n## 2026-01-01T00:00\n\nOUTSIDE-ENTRY\n\n---\n")
    (outside / "cps").mkdir()
    (outside / "cps" / "ops.json").write_text(
        json.dumps(
            {"agentId": "ops", "savedAt": int(time.time() * 1000), "messages": [{"role": "user", "text": "OUTSIDE-CP"}]}
        )
    )
    before = tree(outside)
    (mem / ".memory" / "dev").symlink_to(outside / "agentdir")
    Store(Layout(mem)).add("ops", "decisions", "x")
    checkpoints = mem / ".memory" / ".vault" / "checkpoints"
    import shutil

    shutil.rmtree(checkpoints, ignore_errors=True)
    checkpoints.symlink_to(outside / "cps")
    for args in (
        ["list"],
        ["search", "OUTSIDE"],
        ["show", "dev", "1"],
        ["inject", "dev"],
        ["inject", "ops"],
        ["recover", "ops"],
        ["status", "--json"],
    ):
        result = run(*args, cwd=mem)
        assert "OUTSIDE" not in result.stdout, args
        assert "internal error" not in result.stderr, args
    run("checkpoint", "ops", "-", cwd=mem, input='[{"role": "user", "text": "inside"}]', check=True)
    assert not checkpoints.is_symlink() and tree(outside) == before

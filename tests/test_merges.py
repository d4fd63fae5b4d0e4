"""Merges, rebases and pulls that lose nothing, and hooks that leave git clean — real git, real clones."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memcli.git import merge

from memcli.storage import vault
from memcli.storage.vault import Entry

from .conftest import category_text, clean_env, run

BIN = str(Path(sys.executable).parent)


def gitx(*args: str, cwd: Path, check: bool = True, env: dict | None = None) -> subprocess.CompletedProcess:
    """git with memcli on PATH (so installed hooks and the merge driver run it)."""
    full = clean_env(
        PATH=f"{BIN}{os.pathsep}{os.environ['PATH']}",
        GIT_AUTHOR_NAME="t",
        GIT_AUTHOR_EMAIL="t@x",
        GIT_COMMITTER_NAME="t",
        GIT_COMMITTER_EMAIL="t@x",
    )
    full.update(env or {})
    result = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, env=full, timeout=60)
    if check and result.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed ({result.returncode}):\n{result.stdout}\n{result.stderr}")
    return result


def add(repo: Path, text: str, category: str = "decisions", agent: str = "dev") -> int:
    return int(run("add", agent, category, text, cwd=repo, check=True).stdout.strip())


def bodies(repo: Path, category: str = "decisions", agent: str = "dev") -> list[str]:
    out = json.loads(run("list", agent, "-c", category, "--json", "-n", "1000", cwd=repo, check=True).stdout)
    return sorted(e["body"] for e in out)


def commit(repo: Path, message: str) -> None:
    gitx("add", "-A", cwd=repo)
    gitx("commit", "-qm", message, cwd=repo)


def modified_tracked(repo: Path) -> list[str]:
    status = gitx("status", "--porcelain", "--untracked-files=no", cwd=repo).stdout
    return [line for line in status.splitlines() if line.strip()]


def initialised_repo(path: Path) -> Path:
    """A new git repository with `memcli init` (hooks included) committed."""
    path.mkdir()
    gitx("init", "-q", "-b", "main", cwd=path)
    run("init", cwd=path, check=True)
    commit(path, "init")
    return path


@pytest.fixture
def origin(tmp_path: Path) -> Path:
    """A bare remote holding a memcli-initialised repository."""
    seed = initialised_repo(tmp_path / "seed")
    bare = tmp_path / "origin.git"
    gitx("clone", "-q", "--bare", str(seed), str(bare), cwd=tmp_path)
    return bare


def clone(origin: Path, name: str, init: bool = True) -> Path:
    path = origin.parent / name
    gitx("clone", "-q", str(origin), str(path), cwd=origin.parent)
    if init:
        run("init", cwd=path, check=True)
        assert modified_tracked(path) == [], "init in a second clone changes no tracked file"
    return path


# ---------------------------------------------------------------- the scenario
@pytest.mark.parametrize(
    "how", ["merge-main-into-branch", "merge-branch-into-main", "rebase", "pull-rebase", "pull-merge"]
)
def test_rm_and_add_against_add_keeps_both_new_entries(origin: Path, how: str):
    a = clone(origin, "a")
    old = add(a, "the OLD decision that branch A removes")
    add(a, "a neighbour that stays")
    commit(a, "base")
    gitx("push", "-q", "origin", "main", cwd=a)
    if how.startswith("pull"):
        b = clone(origin, "b")
        add(b, "NEW from clone B, pushed first")
        commit(b, "b adds")
        gitx("push", "-q", "origin", "main", cwd=b)
        add(a, "NEW from clone A")
        run("rm", "dev", str(old), "--yes", cwd=a, check=True)
        commit(a, "a adds and removes")
        mode = "--rebase" if how == "pull-rebase" else "--no-rebase"
        result = gitx("pull", mode, "--no-edit", "origin", "main", cwd=a)
        final = a
    else:
        gitx("checkout", "-qb", "feature", cwd=a)
        add(a, "NEW from clone A")
        run("rm", "dev", str(old), "--yes", cwd=a, check=True)
        commit(a, "feature adds and removes")
        gitx("checkout", "-q", "main", cwd=a)
        add(a, "NEW from clone B, pushed first")
        commit(a, "main adds")
        if how == "merge-main-into-branch":
            gitx("checkout", "-q", "feature", cwd=a)
            result = gitx("merge", "--no-edit", "main", cwd=a)
        elif how == "merge-branch-into-main":
            result = gitx("merge", "--no-edit", "feature", cwd=a)
        else:
            gitx("checkout", "-q", "feature", cwd=a)
            result = gitx("rebase", "main", cwd=a)
        final = a
    assert "CONFLICT" not in result.stdout + result.stderr
    expected = ["NEW from clone A", "NEW from clone B, pushed first", "a neighbour that stays"]
    assert bodies(final) == expected
    assert modified_tracked(final) == []
    text = category_text(final, "dev", "decisions")
    assert "OLD decision" not in text and all(e.body.strip() for e in vault.parse(text))
    run("compact", cwd=final, check=True)
    assert bodies(final) == expected


def test_edit_next_to_an_insertion_lands_in_its_own_entry(origin: Path):
    a, b = clone(origin, "a"), clone(origin, "b")
    first = add(a, "first decision")
    add(a, "second decision")
    commit(a, "base")
    gitx("push", "-q", cwd=a)
    gitx("pull", "-q", "--no-rebase", cwd=b)
    run("edit", "dev", str(first), "first decision, edited in B", cwd=b, check=True)
    commit(b, "edit")
    gitx("push", "-q", cwd=b)
    add(a, "third decision")
    commit(a, "add")
    gitx("pull", "--no-rebase", "--no-edit", cwd=a)
    assert bodies(a) == ["first decision, edited in B", "second decision", "third decision"]
    shown = json.loads(run("show", "dev", str(first), "--json", cwd=a, check=True).stdout)
    assert shown["body"] == "first decision, edited in B"


def test_both_sides_edit_one_entry_keeps_both_texts_and_says_so(origin: Path):
    a, b = clone(origin, "a"), clone(origin, "b")
    entry = add(a, "shared decision")
    commit(a, "base")
    gitx("push", "-q", cwd=a)
    gitx("pull", "-q", "--no-rebase", cwd=b)
    run("edit", "dev", str(entry), "shared decision as A sees it", cwd=a, check=True)
    run("edit", "dev", str(entry), "shared decision as B sees it", cwd=b, check=True)
    commit(a, "a edits")
    commit(b, "b edits")
    gitx("push", "-q", cwd=b)
    result = gitx("pull", "--no-rebase", "--no-edit", cwd=a)
    assert "edited on both sides" in result.stderr
    listed = json.loads(run("list", "dev", "--json", cwd=a, check=True).stdout)
    assert sorted(e["body"] for e in listed) == ["shared decision as A sees it", "shared decision as B sees it"]
    assert sum("merge-conflict" in e["tags"] for e in listed) == 1
    assert modified_tracked(a) == []


def test_cherry_pick_and_stash_pop_use_the_driver(origin: Path):
    a = clone(origin, "a")
    old = add(a, "old entry")
    commit(a, "base")
    gitx("checkout", "-qb", "side", cwd=a)
    add(a, "picked entry")
    commit(a, "side adds")
    gitx("checkout", "-q", "main", cwd=a)
    run("rm", "dev", str(old), "--yes", cwd=a, check=True)
    add(a, "main entry")
    commit(a, "main adds and removes")
    result = gitx("cherry-pick", "side", cwd=a)
    assert "CONFLICT" not in result.stdout + result.stderr
    assert bodies(a) == ["main entry", "picked entry"]
    add(a, "stashed entry")
    gitx("stash", "-q", "-u", cwd=a)  # a new entry is a new file: untracked until added
    add(a, "entry made while stashed")
    commit(a, "while stashed")
    result = gitx("stash", "pop", cwd=a)
    assert "CONFLICT" not in result.stdout + result.stderr
    assert bodies(a) == ["entry made while stashed", "main entry", "picked entry", "stashed entry"]


# ---------------------------------------------------------------- an edit against a removal
def _edit_here_remove_there(repo: Path) -> int:
    """The issue's history: an entry edited on branch `e`, removed on `main` (the current branch)."""
    entry = add(repo, "Use SSE for the live feed")
    add(repo, "a neighbour that stays")
    commit(repo, "base")
    gitx("checkout", "-qb", "e", cwd=repo)
    run("edit", "dev", str(entry), "Use SSE, 30 s heartbeat", cwd=repo, check=True)
    commit(repo, "e edits")
    gitx("checkout", "-q", "main", cwd=repo)
    run("rm", "dev", str(entry), "--yes", cwd=repo, check=True)
    commit(repo, "main removes")
    return entry


@pytest.mark.parametrize(
    "how", ["merge-edit-into-removal", "merge-removal-into-edit", "rebase-edit", "rebase-removal", "cherry-pick-edit"]
)
def test_an_edit_against_a_removal_merges_with_no_stop_and_the_edit_wins(tmp_path: Path, how: str):
    repo = initialised_repo(tmp_path / "r")
    entry = _edit_here_remove_there(repo)
    if how == "merge-edit-into-removal":
        result = gitx("merge", "--no-edit", "e", cwd=repo, check=False)
    elif how == "merge-removal-into-edit":
        gitx("checkout", "-q", "e", cwd=repo)
        result = gitx("merge", "--no-edit", "main", cwd=repo, check=False)
    elif how == "rebase-edit":
        gitx("checkout", "-q", "e", cwd=repo)
        result = gitx("rebase", "main", cwd=repo, check=False)
    elif how == "rebase-removal":
        result = gitx("rebase", "e", cwd=repo, check=False)
    else:
        result = gitx("cherry-pick", "e", cwd=repo, check=False)
    assert result.returncode == 0 and "CONFLICT" not in result.stdout + result.stderr, result.stdout + result.stderr
    assert bodies(repo) == ["Use SSE, 30 s heartbeat", "a neighbour that stays"], "the edit wins, nothing lost"
    assert gitx("status", "--porcelain", "--untracked-files=all", cwd=repo).stdout == ""
    shown = json.loads(run("show", "dev", str(entry), "--json", cwd=repo, check=True).stdout)
    assert shown["body"] == "Use SSE, 30 s heartbeat"
    run("compact", cwd=repo, check=True)
    assert bodies(repo) == ["Use SSE, 30 s heartbeat", "a neighbour that stays"]


def test_an_edit_against_a_removal_without_the_driver_is_one_conflict_that_resolve_settles(tmp_path: Path):
    """As a hosting service merges (no driver): the documented same-entry conflict, in that entry's file."""
    repo = initialised_repo(tmp_path / "r")
    (repo / ".git" / "info").mkdir(exist_ok=True)
    (repo / ".git" / "info" / "attributes").write_text("* merge=text\n")
    entry = _edit_here_remove_there(repo)
    result = gitx("merge", "--no-edit", "e", cwd=repo, check=False)
    assert result.returncode != 0 and "CONFLICT" in result.stdout
    conflicted = gitx("diff", "--name-only", "--diff-filter=U", cwd=repo).stdout.split()
    assert len(conflicted) == 1 and conflicted[0].startswith(f".memory/dev/decisions/{entry}-"), conflicted
    run("resolve", cwd=repo, check=True)
    gitx("commit", "-q", "--no-edit", cwd=repo)
    assert bodies(repo) == ["Use SSE, 30 s heartbeat", "a neighbour that stays"]
    assert gitx("status", "--porcelain", "--untracked-files=all", cwd=repo).stdout == ""


def test_a_removal_leaves_an_empty_file_only_where_git_tracks_it(tmp_path: Path):
    repo = initialised_repo(tmp_path / "r")
    committed = add(repo, "committed decision")
    commit(repo, "base")
    fresh = add(repo, "never committed")
    run("rm", "dev", str(committed), str(fresh), "--yes", cwd=repo, check=True)
    files = {p.name.split("-", 1)[0]: p for p in (repo / ".memory" / "dev" / "decisions").iterdir()}
    assert str(fresh) not in files, "an untracked file is deleted: no other version of it exists"
    assert files[str(committed)].read_bytes() == b"", "a tracked one is emptied: a change the driver can merge"
    assert bodies(repo) == [] and json.loads(run("search", "committed", "--json", cwd=repo).stdout) == []
    status = json.loads(run("status", "--json", cwd=repo, check=True).stdout)
    assert status["agents"]["dev"]["entries"] == 0 and status["category_files"] == []
    # Outside git there is nothing to merge: the file goes at once.
    plain = tmp_path / "plain"
    plain.mkdir()
    run("init", "--no-hooks", cwd=plain, check=True)
    gone = add(plain, "outside git")
    run("rm", "dev", str(gone), "--yes", cwd=plain, check=True)
    assert list((plain / ".memory" / "dev" / "decisions").iterdir()) == []


def test_compact_deletes_an_emptied_file_once_its_removal_is_settled(tmp_path: Path):
    repo = initialised_repo(tmp_path / "r")
    old, recent, edited = add(repo, "removed long ago"), add(repo, "removed today"), add(repo, "edited on a branch")
    commit(repo, "base")
    gitx("checkout", "-qb", "old-branch", cwd=repo)
    run("edit", "dev", str(edited), "edited on a branch, long ago", cwd=repo, check=True)
    commit(repo, "an edit on a branch that lives long")
    gitx("checkout", "-q", "main", cwd=repo)
    run("rm", "dev", str(old), str(edited), "--yes", cwd=repo, check=True)
    long_ago = "2000-01-01T00:00:00+00:00"
    gitx("commit", "-qam", "old removals", cwd=repo, env={"GIT_COMMITTER_DATE": long_ago, "GIT_AUTHOR_DATE": long_ago})
    run("rm", "dev", str(recent), "--yes", cwd=repo, check=True)
    folder = repo / ".memory" / "dev" / "decisions"
    assert run("compact", "--dry-run", cwd=repo, check=True).stdout.count("an emptied file") == 2
    run("compact", cwd=repo, check=True)
    left = sorted(int(p.name.split("-", 1)[0]) for p in folder.iterdir())
    assert left == [recent], "only the uncommitted removal's file waits"
    commit(repo, "recent removal and compaction")
    report = json.loads(run("compact", "--json", cwd=repo, check=True).stdout)
    assert report["tombstonesCleaned"] == 0, "a removal committed today is not settled yet"
    # A branch forked before a settled removal meets git's modify/delete: `memcli resolve` keeps the edit.
    result = gitx("merge", "--no-edit", "old-branch", cwd=repo, check=False)
    assert "CONFLICT (modify/delete)" in result.stdout
    run("resolve", cwd=repo, check=True)
    gitx("commit", "-q", "--no-edit", cwd=repo)
    assert bodies(repo) == ["edited on a branch, long ago"]


def test_two_removals_meeting_after_compaction_deleted_one_stay_a_removal(tmp_path: Path):
    repo = initialised_repo(tmp_path / "r")
    entry = add(repo, "removed on both branches")
    commit(repo, "base")
    gitx("checkout", "-qb", "old-branch", cwd=repo)
    run("rm", "dev", str(entry), "--yes", cwd=repo, check=True)
    commit(repo, "removed on a branch that lives long")
    gitx("checkout", "-q", "main", cwd=repo)
    run("rm", "dev", str(entry), "--yes", cwd=repo, check=True)
    long_ago = "2000-01-01T00:00:00+00:00"
    gitx("commit", "-qam", "removed long ago", cwd=repo, env={"GIT_COMMITTER_DATE": long_ago})
    run("compact", cwd=repo, check=True)
    commit(repo, "compacted")
    result = gitx("merge", "--no-edit", "old-branch", cwd=repo, check=False)
    assert "CONFLICT (modify/delete)" in result.stdout  # git's: an emptied file against a deleted one
    assert "removed on both sides" in run("resolve", cwd=repo, check=True).stdout
    gitx("commit", "-q", "--no-edit", cwd=repo)
    assert bodies(repo) == [] and list((repo / ".memory" / "dev" / "decisions").glob("*.md")) == []
    assert gitx("status", "--porcelain", "--untracked-files=all", cwd=repo).stdout == ""


def test_a_clone_without_the_driver_merges_adds_and_removals_with_no_conflict(origin: Path):
    """What a hosting service does: a plain text merge.  Entries in files of their own never collide."""
    a = clone(origin, "a")
    plain = clone(origin, "plain", init=False)  # never ran memcli: git has no driver for merge=memcli
    old = add(a, "old entry")
    commit(a, "base")
    gitx("push", "-q", cwd=a)
    gitx("pull", "-q", "--no-rebase", cwd=plain)
    run("rm", "dev", str(old), "--yes", cwd=a, check=True)
    add(a, "from A")
    commit(a, "a")
    gitx("push", "-q", cwd=a)
    add(plain, "from plain")
    gitx("config", "--remove-section", "merge.memcli", cwd=plain)
    commit(plain, "plain")
    result = gitx("pull", "--no-rebase", "--no-edit", cwd=plain)
    assert "CONFLICT" not in result.stdout + result.stderr
    assert bodies(plain) == ["from A", "from plain"]


def test_a_same_entry_edit_without_the_driver_conflicts_in_that_file_and_resolve_fixes_it(origin: Path):
    a = clone(origin, "a")
    plain = clone(origin, "plain", init=False)
    entry = add(a, "shared entry")
    other = add(a, "untouched entry")
    commit(a, "base")
    gitx("push", "-q", cwd=a)
    gitx("pull", "-q", "--no-rebase", cwd=plain)
    run("edit", "dev", str(entry), "shared entry as A has it", cwd=a, check=True)
    add(a, "from A")
    commit(a, "a")
    gitx("push", "-q", cwd=a)
    run("edit", "dev", str(entry), "shared entry as plain has it", cwd=plain, check=True)
    gitx("config", "--remove-section", "merge.memcli", cwd=plain)
    commit(plain, "plain")
    result = gitx("pull", "--no-rebase", "--no-edit", cwd=plain, check=False)
    assert result.returncode != 0 and "CONFLICT" in result.stdout, "an honest conflict, never a silent loss"
    conflicted = gitx("diff", "--name-only", "--diff-filter=U", cwd=plain).stdout.split()
    assert len(conflicted) == 1 and conflicted[0].startswith(f".memory/dev/decisions/{entry}-"), conflicted
    # Meanwhile readers see both sides; resolve merges from git's three clean versions.
    assert {"shared entry as A has it", "shared entry as plain has it"} <= set(bodies(plain))
    resolved = run("resolve", cwd=plain, check=True)
    assert conflicted[0] in resolved.stdout
    gitx("commit", "-q", "--no-edit", cwd=plain)
    assert bodies(plain) == ["from A", "shared entry as A has it", "shared entry as plain has it", "untouched entry"]
    assert other in [e["id"] for e in json.loads(run("list", "dev", "--json", cwd=plain, check=True).stdout)]
    assert "<<<<<<<" not in category_text(plain, "dev", "decisions")
    assert gitx("config", "merge.memcli.driver", cwd=plain).stdout.strip(), "resolve registered the driver"


def test_hooks_never_leave_tracked_files_modified_after_a_pull(origin: Path):
    a, b = clone(origin, "a"), clone(origin, "b")
    for i in range(40):  # more than the category cap: compaction would have work to do
        add(a, f"decision number {i}", category="lessons")
    messages = [{"role": "user" if i % 2 == 0 else "agent", "text": f"message {i}"} for i in range(30)]
    run("checkpoint", "dev", "-", cwd=a, input=json.dumps(messages), check=True)
    commit(a, "lots")
    gitx("push", "-q", cwd=a)
    for mode in ("--no-rebase", "--rebase"):
        add(b, f"b entry {mode}")
        commit(b, "b")
        gitx("pull", mode, "--no-edit", cwd=b)
        assert modified_tracked(b) == []
        gitx("push", "-q", cwd=b)
        gitx("pull", "-q", mode, cwd=a)
        assert modified_tracked(a) == []


@pytest.mark.parametrize("named", [[], [".memory"]], ids=["commit", "commit-named-paths"])
def test_pre_commit_hook_compacts_into_the_users_commit(repo_with_hooks: Path, named: list[str]):
    """Also in `git commit .memory`, whose commit git makes from a temporary index: what the hook
    stages goes into both (``repo.commit_indexes``), so nothing shows as staged back after it."""
    repo = repo_with_hooks
    for i in range(35):
        add(repo, f"lesson {i}", category="lessons")
    (repo / ".memory" / ".vault" / "compact-log.json").unlink()  # the last compaction is long ago
    gitx("add", "-A", cwd=repo)
    result = gitx("commit", *named, "-qm", "many lessons", cwd=repo)
    assert "compacted the memory" in result.stderr
    assert modified_tracked(repo) == [] and gitx("status", "--porcelain", cwd=repo).stdout == ""
    committed = gitx("grep", "-l", "Compacted 15 older entries", "HEAD", "--", ".memory/dev/lessons", cwd=repo).stdout
    assert committed.strip().endswith("-compacted-15-older-entries.md"), committed
    assert len(gitx("ls-tree", "--name-only", "HEAD", ".memory/dev/lessons/", cwd=repo).stdout.split()) == 21
    # Not due again within the interval; and never with unstaged memory changes.
    add(repo, "one more")
    commit(repo, "one more")
    assert gitx("status", "--porcelain", cwd=repo).stdout == ""


def test_pre_commit_hook_leaves_unstaged_memory_alone(repo_with_hooks: Path):
    repo = repo_with_hooks
    for i in range(35):
        add(repo, f"lesson {i}", category="lessons")
    (repo / ".memory" / ".vault" / "compact-log.json").unlink()
    gitx("add", "-A", cwd=repo)
    add(repo, "unstaged decision")
    before = category_text(repo, "dev", "lessons")
    gitx("commit", "-qm", "partial", cwd=repo)
    assert category_text(repo, "dev", "lessons") == before
    # the new decision is still the user's own, untracked change: the hook staged and compacted nothing
    status = gitx("status", "--porcelain", "--untracked-files=all", cwd=repo).stdout.splitlines()
    assert len(status) == 1 and status[0].startswith("?? .memory/dev/decisions/"), status


def test_pre_commit_hook_stages_compaction_beside_a_staged_removal_and_a_rename(repo_with_hooks: Path):
    """git status -z lists a staged removal and a rename (removed entry, similar new one) in forms that
    `git add` cannot take as paths; the hook stages only what compaction left unstaged."""
    repo = repo_with_hooks
    old = add(repo, "the decision that a later commit removes, with enough words to look renamed")
    commit(repo, "base")
    run("rm", "dev", str(old), "--yes", cwd=repo, check=True)
    add(repo, "the decision that a later commit removes, with enough words to look renamed!")
    for i in range(35):
        add(repo, f"lesson {i}", category="lessons")
    (repo / ".memory" / ".vault" / "compact-log.json").unlink(missing_ok=True)  # compaction is due
    gitx("add", "-A", cwd=repo)
    result = gitx("commit", "-qm", "remove, reword, add", cwd=repo)
    assert "staged it in this commit" in result.stderr, result.stderr
    assert gitx("status", "--porcelain", cwd=repo).stdout == ""


@pytest.fixture
def repo_with_hooks(tmp_path: Path) -> Path:
    return initialised_repo(tmp_path / "r")


# ---------------------------------------------------------------- hooks beside pre-commit and husky
PRE_COMMIT_CONFIG = """repos:
- repo: local
  hooks:
  - id: log-checkout
    name: log checkout
    entry: sh -c 'echo pre-commit-checkout >> hook.log'
    language: system
    stages: [post-checkout]
    always_run: true
    pass_filenames: false
  - id: log-merge
    name: log merge
    entry: sh -c 'echo pre-commit-merge >> hook.log'
    language: system
    stages: [post-merge]
    always_run: true
    pass_filenames: false
"""


def pre_commit(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    full = clean_env(PATH=f"{BIN}{os.pathsep}{os.environ['PATH']}", PRE_COMMIT_HOME=str(cwd.parent / "pc-home"))
    result = subprocess.run(
        [sys.executable, "-m", "pre_commit", *args], cwd=cwd, capture_output=True, text=True, env=full, timeout=120
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result


@pytest.mark.parametrize("order", ["memcli-first", "pre-commit-first", "memcli-pre-commit-memcli"])
def test_hooks_coexist_with_pre_commit_in_either_order(tmp_path: Path, order: str):
    pytest.importorskip("pre_commit")
    repo = tmp_path / "r"
    repo.mkdir()
    gitx("init", "-q", "-b", "main", cwd=repo)
    (repo / ".pre-commit-config.yaml").write_text(PRE_COMMIT_CONFIG)
    (repo / ".gitignore").write_text("hook.log\n")
    own = repo / ".git" / "hooks" / "post-checkout"
    own.parent.mkdir(exist_ok=True)
    own.write_text('#!/bin/sh\necho user-checkout >> "$(git rev-parse --show-toplevel)/hook.log"\n')
    own.chmod(0o755)
    steps = {
        "memcli-first": ["memcli", "pre-commit"],
        "pre-commit-first": ["pre-commit", "memcli"],
        "memcli-pre-commit-memcli": ["memcli", "pre-commit", "memcli"],
    }[order]
    for step in steps:
        if step == "memcli":
            run("init", cwd=repo, check=True)
        else:
            pre_commit("install", "-t", "post-checkout", "-t", "post-merge", cwd=repo)
    commit(repo, "init")
    run("add", "dev", "lessons", "a lesson to index", cwd=repo, check=True)
    commit(repo, "lesson")
    (repo / "hook.log").write_text("")
    checkout = gitx("checkout", "-qb", "other", cwd=repo)
    assert checkout.returncode == 0
    log = (repo / "hook.log").read_text().split()
    assert log.count("user-checkout") == 1 and log.count("pre-commit-checkout") == 1, log
    status = json.loads(run("status", "--json", cwd=repo, check=True).stdout)
    assert status["index"]["fresh"] is True, "memcli's post-checkout hook ran and indexed the memory"
    assert all(status["git"]["hooks"].values())
    add(repo, "on other")
    commit(repo, "other")
    gitx("checkout", "-q", "main", cwd=repo)
    (repo / "hook.log").write_text("")
    merged = gitx("merge", "-q", "--no-edit", "--no-ff", "other", cwd=repo)
    assert merged.returncode == 0
    assert (repo / "hook.log").read_text().split().count("pre-commit-merge") == 1
    run("init", "--remove-hooks", cwd=repo, check=True)
    (repo / "hook.log").write_text("")
    gitx("checkout", "-q", "other", cwd=repo)
    log = (repo / "hook.log").read_text().split()
    assert log.count("user-checkout") == 1 and log.count("pre-commit-checkout") == 1, log
    assert not any(json.loads(run("status", "--json", cwd=repo, check=True).stdout)["git"]["hooks"].values())


def test_hook_chain_that_loops_back_stops(tmp_path: Path):
    repo = tmp_path / "r"
    repo.mkdir()
    gitx("init", "-q", "-b", "main", cwd=repo)
    run("init", cwd=repo, check=True)
    hooks = repo / ".git" / "hooks"
    # A hook manager that calls the main hook again (what pre-commit + a .legacy name used to make).
    (hooks / "post-checkout.before-memcli").write_text('#!/bin/sh\n"$(dirname "$0")/post-checkout" "$@"\nexit 0\n')
    (hooks / "post-checkout.before-memcli").chmod(0o755)
    commit(repo, "init")
    result = gitx("checkout", "-qb", "x", cwd=repo)
    assert result.returncode == 0


def test_tracked_hooks_folder_gets_no_machine_paths_and_keeps_the_teams_hook(tmp_path: Path):
    repo = tmp_path / "r"
    repo.mkdir()
    gitx("init", "-q", "-b", "main", cwd=repo)
    gitx("config", "core.hooksPath", ".husky", cwd=repo)
    team = repo / ".husky" / "post-merge"
    team.parent.mkdir()
    team.write_text("#!/bin/sh\necho team-merge >> hook.log\n")
    team.chmod(0o755)
    (repo / ".gitignore").write_text("hook.log\n")
    run("init", cwd=repo, check=True)
    assert team.exists() and not (repo / ".husky" / "post-merge.before-memcli").exists()
    assert team.read_text().startswith("#!/bin/sh\necho team-merge >> hook.log\n")
    for hook in (repo / ".husky").iterdir():
        assert sys.executable not in hook.read_text() and BIN not in hook.read_text(), hook
    assert run("init", cwd=repo, check=True).stdout.count("installed") == 0, "idempotent"
    commit(repo, "init")
    gitx("checkout", "-qb", "side", cwd=repo)
    add(repo, "side entry")
    commit(repo, "side")
    gitx("checkout", "-q", "main", cwd=repo)
    gitx("merge", "-q", "--no-edit", "--no-ff", "side", cwd=repo)
    assert (repo / "hook.log").read_text() == "team-merge\n"
    assert json.loads(run("status", "--json", cwd=repo, check=True).stdout)["index"]["fresh"] is True
    run("init", "--remove-hooks", cwd=repo, check=True)
    assert team.read_text() == "#!/bin/sh\necho team-merge >> hook.log\n"
    assert not (repo / ".husky" / "post-checkout").exists()


def test_init_in_a_subfolder_installs_hooks_for_that_folder(tmp_path: Path):
    repo = tmp_path / "r"
    (repo / "sub").mkdir(parents=True)
    gitx("init", "-q", "-b", "main", cwd=repo)
    run("--dir", "sub", "init", cwd=repo, check=True)
    run("--dir", "sub", "add", "dev", "lessons", "in the subfolder", cwd=repo, check=True)
    commit(repo, "init")
    gitx("checkout", "-qb", "x", cwd=repo)
    status = json.loads(run("--dir", "sub", "status", "--json", cwd=repo, check=True).stdout)
    assert status["index"]["fresh"] is True, "the hook refreshed sub/.memory"
    hook = (repo / ".git" / "hooks" / "post-checkout").read_text()
    assert "for memcli_dir in sub; do" in hook


# ---------------------------------------------------------------- hand-written text
def test_a_note_appended_by_hand_is_its_own_entry_and_touch_changes_no_id(tmp_path: Path):
    repo = tmp_path / "r"
    repo.mkdir()
    run("init", "--no-hooks", cwd=repo, check=True)
    add(repo, "a decision made with memcli")
    path = repo / ".memory" / "dev" / "decisions.md"
    with path.open("a") as handle:
        handle.write("\nRemember: the staging database is read-only on Fridays.\n")
    listed = json.loads(run("list", "dev", "--json", cwd=repo, check=True).stdout)
    assert sorted(e["body"] for e in listed) == [
        "Remember: the staging database is read-only on Fridays.",
        "a decision made with memcli",
    ]
    note_id = next(e["id"] for e in listed if e["body"].startswith("Remember"))
    os.utime(path, (1, 1))  # touch to another time
    hits = json.loads(run("search", "staging database", "--json", cwd=repo, check=True).stdout)
    assert hits[0]["id"] == note_id
    os.utime(path, None)
    assert json.loads(run("show", "dev", str(note_id), "--json", cwd=repo, check=True).stdout)["body"].startswith(
        "Remember"
    )
    add(repo, "a later decision")  # memcli rewrites the file: the note keeps its id
    assert json.loads(run("show", "dev", str(note_id), "--json", cwd=repo, check=True).stdout)["body"].startswith(
        "Remember"
    )
    run("edit", "dev", str(note_id), "Remember: staging is read-only on Fridays and Saturdays.", cwd=repo, check=True)
    shown = json.loads(run("show", "dev", str(note_id), "--json", cwd=repo, check=True).stdout)
    assert shown["body"].endswith("Saturdays.") and shown["date"][:2] == "20"


# ---------------------------------------------------------------- the merge itself, as a property
_texts = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), min_size=1, max_size=30)
_bodies = (
    st.lists(
        st.one_of(_texts, st.sampled_from(["---", "", "<<<<<<< x", "=======", "<!-- id:5 -->"])), min_size=1, max_size=4
    )
    .map("\n".join)
    .filter(lambda b: b.strip())
)


@st.composite
def histories(draw):
    n = draw(st.integers(0, 6))
    base = [Entry(1000 + i, None, [], draw(_bodies)) for i in range(n)]
    sides = []
    next_id = [2000, 3000]
    for side in range(2):
        entries = []
        for e in base:
            action = draw(st.sampled_from(["keep", "keep", "edit", "remove"]))
            if action == "keep":
                entries.append(Entry(e.id, None, [], e.body))
            elif action == "edit":
                entries.append(Entry(e.id, None, [], draw(_bodies)))
        for _ in range(draw(st.integers(0, 3))):
            entries.insert(0, Entry(next_id[side], None, [], draw(_bodies)))
            next_id[side] += 1
        sides.append(entries)
    return base, sides[0], sides[1]


@settings(max_examples=300, deadline=None)
@given(histories())
def test_three_way_merge_loses_nothing_and_keeps_removals(history):
    base, ours, theirs = history
    text, _ = merge.merge_vault_text(vault.serialize(base), vault.serialize(ours), vault.serialize(theirs))
    merged = vault.parse(text)
    result = [e.body for e in merged]
    by_id = {side: {e.id: e.body for e in es} for side, es in (("b", base), ("o", ours), ("t", theirs))}
    for side in ("o", "t"):
        other = "t" if side == "o" else "o"
        for entry_id, body in by_id[side].items():
            if entry_id not in by_id["b"]:
                assert body in result, "an entry added on one side is kept"
            elif body != by_id["b"][entry_id]:
                assert body in result, "an edit is kept"
            elif entry_id not in by_id[other]:
                assert entry_id not in {e.id for e in merged}, "a removal sticks"
    assert len({e.id for e in merged}) == len(merged), "every entry has an id of its own"
    assert [e.id for e in merged] == sorted((e.id for e in merged), reverse=True), "newest first"
    again, _ = merge.merge_vault_text(text, text, text)
    assert again == text


@settings(max_examples=200, deadline=None)
@given(
    _bodies, st.sampled_from(["keep", "edit", "remove"]), st.sampled_from(["keep", "edit", "remove"]), _bodies, _bodies
)
def test_an_entry_file_merges_an_edit_over_a_removal_in_any_order(body, mine, yours, my_edit, your_edit):
    """One memory's file, as each side leaves it: unchanged, edited, or emptied by a removal (what
    ``rm`` leaves of a tracked file, so that git calls the driver).  The edit wins over a removal,
    a removal wins over no change, and which side is ours never matters."""
    entry = Entry(1000, None, [], body)
    version = {
        "keep": lambda _text: vault.serialize([entry]),
        "edit": lambda text: vault.serialize([Entry(1000, None, [], text)]),
        "remove": lambda _text: "",
    }
    base = vault.serialize([entry])
    ours, theirs = version[mine](my_edit), version[yours](your_edit)
    merged = [
        {e.body for e in vault.parse(merge.merge_vault_text(base, a, b)[0])}
        for a, b in ((ours, theirs), (theirs, ours))
    ]
    assert merged[0] == merged[1]
    edits = {text for action, text in ((mine, my_edit), (yours, your_edit)) if action == "edit" and text != body}
    if edits:
        assert edits <= merged[0], "every edit is kept, over a removal too"
    elif "remove" in (mine, yours):
        assert merged[0] == set(), "a removal beside no change (or another removal) sticks"
    else:
        assert merged[0] == {body}


@pytest.mark.parametrize("mine", [b"Latin-1 caf\xe9\n", b"\xff\xfe binary \x00\n"])
def test_driver_falls_back_to_a_visible_conflict_on_unreadable_input(tmp_path: Path, mine: bytes):
    base, ours, theirs = (tmp_path / n for n in ("base", "ours", "theirs"))
    base.write_bytes(b"<!-- id:1 -->\n## 2026-01-01T00:00\n\nx\n\n---\n")
    ours.write_bytes(mine)
    theirs.write_bytes(b"<!-- id:2 -->\n## 2026-01-01T00:00\n\ny\n\n---\n")
    result = run("merge-driver", str(base), str(ours), str(theirs), "7", ".memory/dev/decisions.md", cwd=tmp_path)
    assert result.returncode == 1 and "cannot merge it entry by entry" in result.stderr  # git marks a conflict
    assert "Traceback" not in result.stderr
    if b"\x00" not in mine:
        assert b"<<<<<<<" in ours.read_bytes() and b"caf\xe9" in ours.read_bytes()


def test_other_markdown_under_an_agent_folder_keeps_gits_text_merge(tmp_path: Path):
    base, ours, theirs = (tmp_path / n for n in ("base", "ours", "theirs"))
    base.write_text("# Notes\n\nline one\n")
    ours.write_text("# Notes\n\nline one\nline two\n")
    theirs.write_text("# Notes (theirs)\n\nline one\n")
    result = run("merge-driver", str(base), str(ours), str(theirs), "7", ".memory/dev/README.md", cwd=tmp_path)
    assert result.returncode == 0 and ours.read_text() == "# Notes (theirs)\n\nline one\nline two\n"


def test_hooks_work_in_a_linked_worktree(repo_with_hooks: Path):
    repo = repo_with_hooks
    add(repo, "base")
    commit(repo, "base")
    worktree = repo.parent / "wt"
    gitx("worktree", "add", "-q", str(worktree), "-b", "wb", cwd=repo)
    for i in range(35):
        add(worktree, f"worktree lesson {i}", category="lessons")
    (repo / ".memory" / ".vault" / "compact-log.json").unlink(missing_ok=True)
    (worktree / ".memory" / ".vault" / "compact-log.json").unlink(missing_ok=True)
    gitx("add", "-A", cwd=worktree)
    result = gitx("commit", "-qm", "w1", cwd=worktree)
    assert "hook" not in result.stderr or "compacted" in result.stderr, result.stderr
    assert "Error" not in result.stderr and gitx("status", "--porcelain", cwd=worktree).stdout == ""


def test_a_commit_never_waits_for_another_memcli_process(repo_with_hooks: Path):
    import time

    from .conftest import lock_held

    repo = repo_with_hooks
    for i in range(35):
        add(repo, f"lesson {i}", category="lessons")
    (repo / ".memory" / ".vault" / "compact-log.json").unlink()
    gitx("add", "-A", cwd=repo)
    with lock_held(repo):
        started = time.monotonic()
        gitx("commit", "-qm", "while locked", cwd=repo)
        assert time.monotonic() - started < 5
    assert gitx("status", "--porcelain", cwd=repo).stdout == ""


V01_HOOK = """#!/bin/sh
# memcli-hook v1: installed by `memcli init`; `memcli init --remove-hooks` removes it.
here=$(dirname "$0")
status=0
if [ -x "$here/post-merge.legacy" ]; then
    "$here/post-merge.legacy" "$@" || status=$?
fi
exit $status
"""


def test_init_upgrades_what_memcli_0_1_installed(tmp_path: Path):
    repo = tmp_path / "r"
    repo.mkdir()
    gitx("init", "-q", "-b", "main", cwd=repo)
    (repo / ".gitattributes").write_text(
        "*.png binary\n# memcli: memory files merge by union, so entries and messages from both sides are kept\n"
        ".memory/*/*.md merge=union\n.memory/*/.removed merge=union\n.memory/conversations/*.jsonl merge=union\n"
    )
    hooks = repo / ".git" / "hooks"
    hooks.mkdir(exist_ok=True)
    (hooks / "post-merge").write_text(V01_HOOK)
    (hooks / "post-merge.legacy").write_text(
        '#!/bin/sh\necho user-merge >> "$(git rev-parse --show-toplevel)/hook.log"\n'
    )
    for name in ("post-merge", "post-merge.legacy"):
        (hooks / name).chmod(0o755)
    (repo / ".gitignore").write_text("hook.log\n")
    run("init", cwd=repo, check=True)
    attributes = (repo / ".gitattributes").read_text()
    assert ".memory/*/*.md merge=memcli" in attributes and ".memory/*/*.md merge=union" not in attributes
    assert "*.png binary" in attributes
    assert not (hooks / "post-merge.legacy").exists() and (hooks / "post-merge.before-memcli").exists()
    commit(repo, "init")
    gitx("checkout", "-qb", "side", cwd=repo)
    add(repo, "side")
    commit(repo, "side")
    gitx("checkout", "-q", "main", cwd=repo)
    gitx("merge", "-q", "--no-edit", "--no-ff", "side", cwd=repo)
    assert (repo / "hook.log").read_text() == "user-merge\n", "the user's hook runs once, from its new name"

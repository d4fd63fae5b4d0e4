"""Union merges that lose nothing, hooks that never break git, compact and migrate — with real git."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path


from memcli.storage import vault
from memcli.storage.paths import Layout
from memcli.storage.checkpoints import DAY_MS, save_checkpoint
from memcli.storage.store import Store

from .conftest import category_text, clean_env, conversation_text, entry_files, git, run


def tracked(repo: Path) -> dict[str, bytes]:
    files = git("ls-files", cwd=repo).stdout.split()
    return {f: (repo / f).read_bytes() for f in files if (repo / f).exists()}


def with_memcli_on_path() -> dict[str, str]:
    return clean_env(PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")


def gitx(*args: str, cwd: Path):
    """git with memcli on PATH, so that installed hooks run memcli."""
    import subprocess

    env = with_memcli_on_path()
    env.update(GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@x", GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@x")
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=120)


def conversation(repo: Path, agent: str = "dev") -> list[dict]:
    """The stored messages (lines recording trimmed ids left out)."""
    lines = [json.loads(x) for x in conversation_text(repo, agent).splitlines()]
    return [m for m in lines if "role" in m]


def test_two_branches_merge_without_conflict_and_lose_nothing(repo: Path):
    run("add", "dev", "decisions", "base decision", cwd=repo, check=True)
    git("add", "-A", cwd=repo)
    git("commit", "-qm", "base", cwd=repo)
    for branch, word in (("a", "alpaca"), ("b", "bison")):  # two branches from main, each adding memories
        git("checkout", "-q", "main", cwd=repo)
        git("checkout", "-qb", branch, cwd=repo)
        for i in range(3):
            run("add", "dev", "decisions", f"branch {branch} decision {i} about {word}", cwd=repo, check=True)
        run(
            "checkpoint",
            "dev",
            "-",
            cwd=repo,
            check=True,
            input=json.dumps(
                [
                    {"role": "user", "text": f"branch {branch} question"},
                    {"role": "agent", "text": f"branch {branch} answer"},
                ]
            ),
        )
        git("add", "-A", cwd=repo)
        git("commit", "-qm", branch, cwd=repo)
    merge = git("merge", "-q", "--no-edit", "a", cwd=repo, check=False)
    assert merge.returncode == 0, merge.stdout + merge.stderr
    assert "CONFLICT" not in merge.stdout
    text = category_text(repo, "dev", "decisions")
    bodies = sorted(e.body for e in vault.parse(text))
    expected = sorted(
        ["base decision"]
        + [f"branch {b} decision {i} about {w}" for b, w in (("a", "alpaca"), ("b", "bison")) for i in range(3)]
    )
    assert bodies == expected
    texts = {m["text"] for m in conversation(repo)}
    assert texts == {"branch a question", "branch a answer", "branch b question", "branch b answer"}
    found = json.loads(run("search", "decision", "--limit", "50", "--json", cwd=repo, check=True).stdout)
    assert sorted(h["body"] for h in found) == expected
    # entries in files of their own: the merge left nothing to tidy, and compact changes no tracked file
    before = tracked(repo)
    run("compact", cwd=repo, check=True)
    assert sorted(e.body for e in Store(Layout(repo)).read("dev", "decisions")) == expected
    assert tracked(repo) == before
    before = tracked(repo)
    run("compact", cwd=repo, check=True)
    assert tracked(repo) == before


def test_a_removed_entry_stays_removed_after_a_merge(repo: Path):
    store = Store(Layout(repo))
    ids = [store.add("dev", "lessons", f"lesson {i}").id for i in range(4)]
    git("add", "-A", cwd=repo)
    git("commit", "-qm", "base", cwd=repo)
    git("checkout", "-qb", "remover", cwd=repo)
    run("rm", "dev", str(ids[1]), "--yes", cwd=repo, check=True)
    git("commit", "-qam", "rm", cwd=repo)
    git("checkout", "-q", "main", cwd=repo)
    for path in entry_files(repo, "dev", "lessons"):  # edits by hand beside the removed entry
        path.write_text(
            path.read_text().replace("lesson 2", "lesson 2, edited on main").replace("lesson 0", "lesson 0!")
        )
    git("commit", "-qam", "edit", cwd=repo)
    assert git("merge", "-q", "--no-edit", "remover", cwd=repo, check=False).returncode == 0
    visible = [e.body for e in Store(Layout(repo)).read("dev", "lessons")]
    assert "lesson 1" not in visible and "lesson 2, edited on main" in visible
    assert "lesson 1" not in [h["body"] for h in json.loads(run("search", "lesson", "--json", cwd=repo).stdout)]
    run("compact", cwd=repo, check=True)
    assert "lesson 1\n" not in category_text(repo, "dev", "lessons")


def test_users_hook_still_runs_and_memcli_failure_never_fails_git(tmp_path: Path):
    repo = tmp_path / "r"
    repo.mkdir()
    git("init", "-q", "-b", "main", cwd=repo)
    hooks = repo / ".git" / "hooks"
    hooks.mkdir(exist_ok=True)
    (hooks / "post-merge").write_text(
        '#!/bin/sh\necho "user hook ran" >> "$(git rev-parse --show-toplevel)/hook.log"\n'
    )
    (hooks / "post-merge").chmod(0o755)
    (hooks / "post-checkout").write_text("#!/bin/sh\nexit 0\n")
    (hooks / "post-checkout").chmod(0o755)
    result = run("init", cwd=repo, check=True)
    assert "post-merge.before-memcli" in result.stdout
    git("add", "-A", cwd=repo)
    git("commit", "-qm", "init", cwd=repo)
    gitx("checkout", "-qb", "side", cwd=repo)
    run("add", "dev", "lessons", "side lesson", cwd=repo, check=True)
    gitx("add", "-A", cwd=repo)
    gitx("commit", "-qm", "side", cwd=repo)
    gitx("checkout", "-q", "main", cwd=repo)
    # Break memcli inside the hooks: a config that is not TOML makes every memcli command fail.
    (repo / ".memory" / "config.toml").write_text("this is [not toml")
    merge = gitx("merge", "-q", "--no-edit", "--no-ff", "side", cwd=repo)
    assert merge.returncode == 0, merge.stderr
    assert (repo / "hook.log").read_text() == "user hook ran\n"
    checkout = gitx("checkout", "-q", "side", cwd=repo)
    assert checkout.returncode == 0, checkout.stderr
    # memcli said what went wrong, on stderr, without a traceback
    assert "Traceback" not in merge.stderr + checkout.stderr


def test_hooks_keep_the_index_fresh_and_honour_hooks_path(tmp_path: Path):
    repo = tmp_path / "r"
    repo.mkdir()
    git("init", "-q", "-b", "main", cwd=repo)
    git("config", "core.hooksPath", ".githooks", cwd=repo)
    run("init", cwd=repo, check=True)
    assert (repo / ".githooks" / "post-checkout").exists() and not (repo / ".git" / "hooks" / "post-checkout").exists()
    run("add", "dev", "lessons", "main lesson", cwd=repo, check=True)
    gitx("add", "-A", cwd=repo)
    gitx("commit", "-qm", "main", cwd=repo)
    run("search", "lesson", cwd=repo, check=True)  # build the index
    gitx("checkout", "-qb", "feature", cwd=repo)
    run("add", "dev", "lessons", "feature lesson", cwd=repo, check=True)
    gitx("commit", "-qam", "feature", cwd=repo)
    gitx("checkout", "-q", "main", cwd=repo)
    status = json.loads(run("status", "--json", cwd=repo, check=True).stdout)
    assert status["index"]["fresh"] is True, "the post-checkout hook updated the index"
    assert status["git"]["branch"] == "main" and all(status["git"]["hooks"].values())
    assert run("init", "--remove-hooks", cwd=repo, check=True).returncode == 0
    assert not (repo / ".githooks" / "post-checkout").exists()


def test_a_pull_judges_what_it_brought_before_the_next_block(tmp_path: Path):
    """The post-merge hook writes down the content rules' verdicts on the entries a pull changed
    (git waits anyway): the next inject does not load the rules for them; a clone without the
    hooks still judges them where they are shown."""
    from .conftest import imported_modules

    origin = tmp_path / "origin.git"
    git("init", "-q", "--bare", "-b", "main", str(origin), cwd=tmp_path)
    first = tmp_path / "first"
    gitx("clone", "-q", str(origin), str(first), cwd=tmp_path)
    run("init", cwd=first, check=True)
    run("add", "dev", "lessons", "Keep redis timeouts at five seconds", cwd=first, check=True)
    gitx("add", "-A", cwd=first)
    gitx("commit", "-qm", "init", cwd=first)
    gitx("push", "-q", "origin", "main", cwd=first)
    clones = {}
    for name, hooks in (("hooked", True), ("bare", False)):
        clone = clones[name] = tmp_path / name
        gitx("clone", "-q", str(origin), str(clone), cwd=tmp_path)
        run("init", *(() if hooks else ("--no-hooks",)), cwd=clone, check=True, env=with_memcli_on_path())
        gitx("add", "-A", cwd=clone)
        gitx("commit", "-qm", "init here", "--allow-empty", cwd=clone)
        run("inject", "dev", "redis timeouts", cwd=clone, check=True)  # index and verdicts of what is there
    run("add", "dev", "decisions", "Adopt SSE for the redis event feed", cwd=first, check=True)
    gitx("add", "-A", cwd=first)
    gitx("commit", "-qm", "sse", cwd=first)
    gitx("push", "-q", "origin", "main", cwd=first)
    for name, clone in clones.items():
        pulled = gitx("pull", "-q", "--no-rebase", "origin", "main", cwd=clone)
        assert pulled.returncode == 0, pulled.stderr
        loaded = "memcli.storage.guard_prose" in imported_modules(["inject", "dev", "redis feed"], clone)
        assert loaded is (name == "bare"), name
        assert "Adopt SSE" in run("inject", "dev", "redis feed", cwd=clone, check=True).stdout


def _messages(n: int, tag: str) -> list[dict]:
    out = []
    for i in range(n):
        if i % 2:
            text = (
                f"We decided to use approach number {i} for the {tag} pipeline going forward."
                if i % 4 == 1
                else f"answer {i} {tag}"
            )
            out.append({"role": "agent", "text": text})
        else:
            out.append({"role": "user", "text": f"question {i} {tag}"})
    return out


def test_compact_steps_and_idempotence(repo: Path):
    store = Store(Layout(repo))
    for i in range(35):
        store.add("dev", "lessons", f"lesson number {i} " + "x" * 250)
    store.add("dev", "tasks", "- [ ] keep me open")
    # A session that went quiet longer ago than a checkpoint stays valid: no clone appends to it again.
    idle = [{**m, "ts": int(time.time() * 1000) - 8 * DAY_MS + n} for n, m in enumerate(_messages(30, "etl"))]
    run("checkpoint", "dev", "-", cwd=repo, input=json.dumps(idle), check=True)
    save_checkpoint(
        Layout(repo), "old", [{"role": "user", "text": "x"}], 50, now_ms=int(time.time() * 1000) - 8 * DAY_MS
    )
    (repo / ".memory" / ".vault" / "checkpoints" / "bad.json").write_text("{")
    dry = json.loads(run("compact", "--dry-run", "--json", cwd=repo, check=True).stdout)
    assert dry["checkpointsCleaned"] == 2 and dry["conversationsTrimmed"] == 1 and dry["vaultEntriesMerged"] == 15
    assert len(store.read("dev", "lessons")) == 35, "dry run changed nothing"
    report = json.loads(run("compact", "--json", cwd=repo, check=True).stdout)
    assert report["checkpointsCleaned"] == 2 and report["conversationsTrimmed"] == 1
    lessons = store.read("dev", "lessons")
    summaries = [e for e in lessons if e.body.startswith("Compacted 15 older entries:")]
    assert len(summaries) == 1 and summaries[0].tags == ["compacted"]
    assert len(lessons) == 21
    assert len(conversation(repo)) == 20
    assert conversation_text(repo, "dev").count('"trimmed":true') == 10
    handoffs = store.read("dev", "handoffs")
    assert handoffs[0].body.startswith("Session compacted (10 msgs removed):") and "auto-handoff" in handoffs[0].tags
    decisions = store.read("dev", "decisions")
    assert len(decisions) == 1 and decisions[0].body.startswith("- We decided to use approach number 1 ")
    log = json.loads((repo / ".memory" / ".vault" / "compact-log.json").read_text())
    assert set(log) >= {
        "timestamp",
        "checkpointsCleaned",
        "conversationsTrimmed",
        "vaultEntriesMerged",
        "indexRebuilt",
        "legacyFilesCleaned",
    }
    git("add", "-A", cwd=repo)
    git("commit", "-qm", "compacted", cwd=repo)
    before = tracked(repo)
    second = json.loads(run("compact", "--json", cwd=repo, check=True).stdout)
    assert tracked(repo) == before and second["actions"] == []
    # More entries later: the old summary is not summarised again; open tasks are never summarised.
    for i in range(12):
        store.add("dev", "lessons", f"later lesson {i}")
    run("compact", cwd=repo, check=True)
    lessons = store.read("dev", "lessons")
    assert sum(e.body.startswith("Compacted ") for e in lessons) == 2
    assert any(e.body.startswith("Compacted 15 older entries:") for e in lessons)
    assert "keep me open" in store.read("dev", "tasks")[0].body
    # The same conversation saved again and compacted again: no extraction twice.
    run("checkpoint", "dev", "-", cwd=repo, input=json.dumps(idle), check=True)
    run("compact", cwd=repo, check=True)
    assert len(store.read("dev", "decisions")) == 1


def test_a_running_session_is_trimmed_only_once_it_ended(mem: Path):
    """A session's file that another clone may still append to is never trimmed: with no merge driver
    (a hosting service), a trim on one side and an append on the other would conflict."""
    run("checkpoint", "dev", "-", cwd=mem, input=json.dumps(_messages(30, "live")), check=True)
    report = json.loads(run("compact", "--json", cwd=mem, check=True).stdout)
    assert report["conversationsTrimmed"] == 0 and len(conversation(mem)) == 30
    run("checkpoint", "dev", "-", "--close", cwd=mem, input=json.dumps(_messages(30, "live")), check=True)
    (session,) = (mem / ".memory" / "conversations" / "dev").glob("*.jsonl")
    assert session.read_text().endswith('{"session":"closed"}\n')
    report = json.loads(run("compact", "--json", cwd=mem, check=True).stdout)
    assert report["conversationsTrimmed"] == 1 and len(conversation(mem)) == 20
    assert session.read_text().endswith('{"session":"closed"}\n'), "still ended after the trim"
    # The next session gets a file of its own.
    run("checkpoint", "dev", "-", cwd=mem, input=json.dumps([{"role": "user", "text": "a new day"}]), check=True)
    assert len(list((mem / ".memory" / "conversations" / "dev").glob("*.jsonl"))) == 2


def test_compact_if_due(mem: Path):
    assert json.loads(run("compact", "--if-due", "--json", cwd=mem, check=True).stdout)["skipped"] is False
    assert json.loads(run("compact", "--if-due", "--json", cwd=mem, check=True).stdout)["skipped"] is True
    assert json.loads(run("compact", "--json", cwd=mem, check=True).stdout)["skipped"] is False


LEGACY = """# Dev agent memory

Remember to run the linters before pushing.

## Decisões técnicas
Usamos SSE em vez de WebSockets.

## Lessons
The proxy buffers responses. #nginx

## Tarefas
- [ ] migrar o login

## Notas de sessão
Sessão longa sobre o login.

## Something else entirely
Falls back to lessons.
"""


def test_migrate_flat_files_and_conversations_twice(repo: Path):
    memory = repo / ".memory"
    (memory / "dev.md").write_text(LEGACY)
    (memory / "conversations").mkdir(exist_ok=True)
    (memory / "conversations" / "dev.json").write_text(
        json.dumps(
            {
                "agentId": "dev",
                "savedAt": "2026-03-15T23:04:23.463Z",
                "messages": [{"role": "user", "text": "olá"}, {"role": "agent", "text": "oi"}],
            }
        )
    )
    dry = json.loads(run("migrate", "--dry-run", "--json", cwd=repo, check=True).stdout)
    assert dry["entries"] == {"dev/lessons": 4, "dev/decisions": 1, "dev/tasks": 1} and dry["conversations"] == {
        "dev": 2
    }
    assert (memory / "dev.md").exists()
    run("migrate", cwd=repo, check=True)
    store = Store(Layout(repo))
    assert [e.body for e in store.read("dev", "decisions")] == ["Usamos SSE em vez de WebSockets."]
    assert store.read("dev", "tasks")[0].body == "- [ ] migrar o login"
    lessons = {e.body for e in store.read("dev", "lessons")}
    assert lessons == {
        "# Dev agent memory\n\nRemember to run the linters before pushing.",
        "The proxy buffers responses. #nginx",
        "Sessão longa sobre o login.",
        "Falls back to lessons.",
    }
    assert [m["text"] for m in conversation(repo)] == ["olá", "oi"]
    assert (memory / "dev.md.bak").exists() and not (memory / "dev.md").exists()
    git("add", "-A", cwd=repo)
    git("commit", "-qm", "migrated", cwd=repo)
    before = tracked(repo)
    assert "nothing to migrate" in run("migrate", cwd=repo, check=True).stdout
    assert tracked(repo) == before
    run("compact", cwd=repo, check=True)
    assert not (memory / "dev.md.bak").exists() and not (memory / "conversations" / "dev.json.bak").exists()


def test_status_reports_git(repo: Path):
    run("add", "dev", "lessons", "uncommitted lesson", cwd=repo, check=True)
    status = json.loads(run("status", "--json", cwd=repo, check=True).stdout)
    assert status["git"]["branch"] == "main" and status["git"]["uncommitted"] == 1
    assert status["agents"]["dev"]["checkpoint"] is None
    assert "last_compaction" in status and "index" in status


EVENTS = [
    {
        "id": "e1",
        "sourceId": "s1",
        "createdAt": "2026-05-01T10:00:00Z",
        "contentHash": "h1",
        "summary": "tool run",
        "signals": {
            "decisions": ["Use pnpm workspaces for the monorepo"],
            "gotchas": ["Vite needs --host inside Docker"],
            "nextStepHints": ["Add the e2e smoke test"],
            "keyPaths": ["apps/web"],
            "validationObservations": [],
        },
    },
    {
        "id": "e2",
        "sourceId": "s2",
        "createdAt": "2026-05-02T10:00:00Z",
        "contentHash": "h2",
        "summary": "session",
        "signals": {"decisions": ["use pnpm workspaces for the monorepo."], "gotchas": [], "nextStepHints": []},
    },
]
FACTS = [
    {"id": "f1", "section": "Decisions", "content": "Postgres is the only datastore", "confidence": 0.9},
    {"id": "f2", "section": "Known Issues", "content": "The importer times out on 10k rows"},
    {"id": "f3", "section": "Architecture", "content": "Hexagonal: ports in core/, adapters in infra/"},
    {"id": "f4", "section": "Decisions", "content": "MySQL was the datastore", "status": "superseded"},
]


def test_migrate_imports_other_memory_systems_once(repo: Path, tmp_path: Path):
    events = repo / ".agent-memory" / "history" / "events.jsonl"
    events.parent.mkdir(parents=True)
    events.write_text("\n".join(json.dumps(e) for e in EVENTS) + "\n")
    facts = tmp_path / "facts.jsonl"
    facts.write_text("\n".join(json.dumps(f) for f in FACTS) + "\nnot json\n")
    report = json.loads(run("migrate", "--from", str(facts), "--agent", "dev", "--json", cwd=repo, check=True).stdout)
    assert report["entries"] == {"dev/decisions": 2, "dev/lessons": 2, "dev/tasks": 1, "dev/projects": 1}
    store = Store(Layout(repo))
    assert {e.body for e in store.read("dev", "decisions")} == {
        "Use pnpm workspaces for the monorepo",
        "Postgres is the only datastore",
    }
    assert store.read("dev", "tasks")[0].body == "- [ ] Add the e2e smoke test"
    assert "known-issues" in next(e for e in store.read("dev", "lessons") if "importer" in e.body).tags
    before = tracked(repo) | {str(p): p.read_bytes() for p in (repo / ".memory").rglob("*.md")}
    again = json.loads(run("migrate", "--from", str(facts), "--agent", "dev", "--json", cwd=repo, check=True).stdout)
    assert again["entries"] == {}
    assert tracked(repo) | {str(p): p.read_bytes() for p in (repo / ".memory").rglob("*.md")} == before
    assert not (repo / ".memory" / "imported").exists()


def test_migrate_skips_binary_and_latin1_flat_files_and_migrates_the_rest(repo: Path):
    memory = repo / ".memory"
    (memory / "good.md").write_text("## Lessons\nThe proxy buffers responses.\n")
    (memory / "latin.md").write_bytes("## Lessons\ncaf\xe9 au lait\n".encode("latin-1"))
    (memory / "binary.md").write_bytes(b"\x7fELF\x00\x01binary")
    result = run("migrate", "--json", cwd=repo)
    assert result.returncode == 0 and "internal error" not in result.stderr
    report = json.loads(result.stdout)
    assert report["files"] == ["good.md"]
    assert any("latin.md" in s and "not UTF-8" in s for s in report["skipped"])
    assert any("binary.md" in s for s in report["skipped"])
    assert (memory / "latin.md").read_bytes() == "## Lessons\ncaf\xe9 au lait\n".encode("latin-1")
    assert [e.body for e in Store(Layout(repo)).read("good", "lessons")] == ["The proxy buffers responses."]

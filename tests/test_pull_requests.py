"""Pull requests merged the way GitHub or GitLab merges them: no merge driver, plain text merges.

``* merge=text`` in ``.git/info/attributes`` overrides the repository's ``.gitattributes`` (as a
hosting service ignores merge attributes), and the "server" clone never ran memcli, so git has no
driver for ``merge=memcli`` either.  Eight teammates branch from one ``main``; each runs an agent
session (entries added, edited, ticked, removed, a conversation saved and closed, compaction by
hand and by the pre-commit hook) beside an unrelated code change, and the eight PRs are merged one
by one as merge commits, squash merges and rebased commits.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from .conftest import category_text, run
from .test_merges import gitx  # git with memcli on PATH, so that the hooks memcli installed run it

TEAM = 8


def memcli(*args: str, cwd: Path, input: str | None = None) -> str:
    return run(*args, cwd=cwd, input=input, check=True).stdout


APP = "".join(f"def feature_{i}():\n    return {i}\n\n\n" for i in range(TEAM))


def seed(tmp_path: Path) -> tuple[Path, dict[str, list[int]]]:
    """A bare remote whose main holds code and memory: per teammate a task to tick, a lesson to
    edit and a decision to remove; and a category over the cap, so that every compaction has work."""
    work = tmp_path / "seed"
    work.mkdir()
    gitx("init", "-q", "-b", "main", cwd=work)
    memcli("init", "--no-hooks", cwd=work)  # no compaction here: every teammate's has work to do
    (work / "app.py").write_text(APP)
    ids: dict[str, list[int]] = {"tasks": [], "lessons": [], "decisions": [], "notes": []}
    ids["policy"] = [int(memcli("add", "dev", "decisions", "seedpolicy deploy on Fridays", cwd=work))]
    for i in range(TEAM):
        ids["notes"].append(int(memcli("add", "dev", "lessons", f"seednote{i} true once", cwd=work)))
        ids["tasks"].append(int(memcli("add", "dev", "tasks", f"- [ ] seedtask{i} write the test", cwd=work)))
        ids["lessons"].append(int(memcli("add", "dev", "lessons", f"seedlesson{i} as first written", cwd=work)))
        ids["decisions"].append(int(memcli("add", "dev", "decisions", f"seeddecision{i} to be reverted", cwd=work)))
    for i in range(35):
        memcli("add", "dev", "projects", f"seedproject{i} context note", cwd=work)
    gitx("add", "-A", cwd=work)
    gitx("commit", "-qm", "seed", cwd=work)
    bare = tmp_path / "origin.git"
    gitx("clone", "-q", "--bare", str(work), str(bare), cwd=tmp_path)
    return bare, ids


def session(i: int) -> list[dict]:
    """An agent session of teammate i: 24 messages (over the trim size), one stated decision."""
    messages = []
    for n in range(12):
        messages.append({"role": "user", "text": f"teammate{i} asks question {n}"})
        messages.append({"role": "agent", "text": f"teammate{i} answers {n}"})
    messages[5] = {"role": "agent", "text": f"We decided to cache feature{i} results in memory for speed."}
    return messages


def teammate(origin: Path, i: int, ids: dict[str, list[int]]) -> None:
    """One PR: a branch with an agent session and a code change, pushed."""
    path = origin.parent / f"t{i}"
    gitx("clone", "-q", str(origin), str(path), cwd=origin.parent)
    memcli("init", cwd=path)  # hooks (pre-commit compaction) and the driver, in this clone
    gitx("checkout", "-qb", f"pr{i}", cwd=path)
    memcli("add", "dev", "lessons", f"prlesson{i} learned on branch {i}", cwd=path)
    memcli("add", "dev", "tasks", f"- [ ] prtask{i} follow up", cwd=path)
    memcli("done", "dev", str(ids["tasks"][i]), cwd=path)
    memcli("edit", "dev", str(ids["lessons"][i]), f"seedlesson{i} as rewritten by teammate {i}", cwd=path)
    memcli("rm", "dev", str(ids["decisions"][i]), "--yes", cwd=path)
    memcli("archive", "dev", str(ids["notes"][i]), cwd=path)
    memcli("supersede", "dev", str(ids["policy"][0]), f"seedpolicy deploy on day {i} of the sprint", cwd=path)
    conversation = path / "conv.json"
    conversation.write_text(json.dumps(session(i)))
    memcli("checkpoint", "dev", str(conversation), "--close", cwd=path)
    conversation.unlink()
    if i % 2:
        memcli("compact", cwd=path)  # by hand; the others compact in the pre-commit hook
    app = path / "app.py"
    app.write_text(app.read_text().replace(f"    return {i}\n", f"    return {i} * 10  # changed in PR {i}\n"))
    gitx("add", "-A", cwd=path)
    gitx("commit", "-qm", f"PR {i}", cwd=path)
    assert gitx("status", "--porcelain", cwd=path).stdout == ""
    gitx("push", "-q", "origin", f"pr{i}", cwd=path)


def merge_on_the_server(server: Path, i: int, how: str) -> None:
    gitx("fetch", "-q", "origin", cwd=server)
    gitx("checkout", "-q", "main", cwd=server)
    gitx("reset", "-q", "--hard", "origin/main", cwd=server)
    if how == "merge":
        result = gitx("merge", "--no-ff", "--no-edit", f"origin/pr{i}", cwd=server, check=False)
    elif how == "squash":
        result = gitx("merge", "--squash", f"origin/pr{i}", cwd=server, check=False)
        if result.returncode == 0:
            result = gitx("commit", "-qm", f"PR {i} (squashed)", cwd=server, check=False)
    else:  # rebase and merge: the PR's commits replayed onto main
        gitx("checkout", "-q", "-B", f"replay{i}", f"origin/pr{i}", cwd=server)
        result = gitx("rebase", "main", cwd=server, check=False)
        if result.returncode == 0:
            gitx("checkout", "-q", "main", cwd=server)
            result = gitx("merge", "--ff-only", f"replay{i}", cwd=server, check=False)
    assert result.returncode == 0, f"PR {i} ({how}) conflicted:\n{result.stdout}\n{result.stderr}"
    assert "CONFLICT" not in result.stdout + result.stderr
    gitx("push", "-q", "origin", "main", cwd=server)


def test_eight_pull_requests_merged_without_a_driver_conflict_nowhere_and_lose_nothing(tmp_path: Path):
    origin, ids = seed(tmp_path)
    for i in range(TEAM):  # all branch from the same main, before any PR is merged
        teammate(origin, i, ids)
    server = tmp_path / "server"
    gitx("clone", "-q", str(origin), str(server), cwd=tmp_path)  # never ran memcli: no driver
    (server / ".git" / "info" / "attributes").write_text("* merge=text\n")  # what a hosting service does
    assert gitx("config", "--get-regexp", r"^merge\.", cwd=server, check=False).stdout == ""
    for i in range(TEAM):
        merge_on_the_server(server, i, ("merge", "squash", "rebase")[i % 3])

    final = tmp_path / "final"
    gitx("clone", "-q", str(origin), str(final), cwd=tmp_path)
    app = (final / "app.py").read_text()
    assert all(f"return {i} * 10  # changed in PR {i}" in app for i in range(TEAM)), "the code merged too"
    rows = json.loads(memcli("list", "--json", cwd=final))
    bodies = [r["body"] for r in rows]
    for i in range(TEAM):
        assert f"prlesson{i} learned on branch {i}" in bodies
        assert f"- [ ] prtask{i} follow up" in bodies
        assert f"- [x] seedtask{i} write the test" in bodies and f"- [ ] seedtask{i} write the test" not in bodies
        assert f"seedlesson{i} as rewritten by teammate {i}" in bodies
        assert not any(b.startswith(f"seedlesson{i} as first") for b in bodies)
        assert not any(f"seeddecision{i}" in b for b in bodies), "a removed entry stays removed"
        assert not any(f"seednote{i}" in b for b in bodies), "an archived entry stays archived"
        assert sum(f"We decided to cache feature{i} results" in b for b in bodies) == 1
        handoffs = [r for r in rows if r["category"] == "handoffs" and f"teammate{i} answers 11" in r["body"]]
        assert len(handoffs) == 1
    assert len(bodies) == len(set(zip(bodies, (r["category"] for r in rows)))), "no entry twice"
    # Eight successors of one decision: one current version (the newest), every version kept.
    policies = [r for r in rows if r["body"].startswith("seedpolicy")]
    assert len(policies) == 1 and policies[0]["supersedes"] == ids["policy"], policies
    versions = json.loads(memcli("search", "seedpolicy", "--all", "--limit", "50", "--json", cwd=final))
    assert sum(h["body"].startswith("seedpolicy") for h in versions) == TEAM + 1
    assert len(json.loads(memcli("list", "--archived", "-t", "archived", "--json", cwd=final))) == TEAM
    # Every teammate compacted the same 35 project notes: one summary, the same file on every branch.
    summaries = [r for r in rows if r["category"] == "projects" and r["body"].startswith("Compacted ")]
    assert len(summaries) == 1, [s["body"][:40] for s in summaries]
    assert sum(r["category"] == "projects" for r in rows) == 21
    # Every session's messages are there: the trimmed ones as insights, the rest as lines.
    from memcli.storage.conversations import read_conversation
    from memcli.storage.paths import Layout

    texts = {m["text"] for m in read_conversation(Layout(final), "dev")}
    for i in range(TEAM):
        assert f"teammate{i} answers 11" in texts and f"teammate{i} asks question 11" in texts
    assert len(list((final / ".memory" / "conversations" / "dev").glob("*.jsonl"))) == TEAM
    assert "<<<<<<<" not in category_text(final, "dev", "lessons")
    # Search finds every entry that survived.
    for row in rows:
        token = (re.findall(r"[a-z]+\d+", row["body"]) or re.findall(r"[A-Za-z]{4,}", row["body"]))[0]
        found = json.loads(memcli("search", token, "--limit", "50", "--json", cwd=final))
        assert row["id"] in [h["id"] for h in found], (token, row["body"][:60])
    assert gitx("status", "--porcelain", cwd=final).stdout == ""

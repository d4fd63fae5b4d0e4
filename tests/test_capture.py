"""What agents' sessions leave in memory: conversation only, and handoffs that carry the work.

The transcripts in tests/fixtures are written as Claude Code, Codex and Cursor write them, with the
noise each puts around the conversation (slash commands and their output, interruption notices, a
compaction summary, system reminders, tool calls and results, environment context).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from .conftest import FIXTURES, conversation_files, conversation_text, run

NOISE = (
    "<command-name>",
    "/model",
    "local-command-stdout",
    "Set model to opus",
    "Request interrupted",
    "This session is being continued",
    "system-reminder",
    "opened the file",
    "environment_context",
    "[Tool call]",
    "[Thinking]",
    "user_query",
    "turn_aborted",
    "interrupted the previous turn",
    "Summary of the conversation so far",
)


def memory_text(root: Path) -> str:
    """Everything memcli keeps in git."""
    return "".join(
        p.read_text() for p in sorted((root / ".memory").rglob("*")) if p.is_file() and ".vault" not in p.parts
    )


def hook(client: str, payload: dict, cwd: Path):
    return run("agent-hook", client, cwd=cwd, input=json.dumps(payload))


def handoffs(root: Path) -> list[dict]:
    return json.loads(run("list", "dev", "-c", "handoffs", "--json", cwd=root, check=True).stdout)


def bodies(root: Path, category: str) -> list[str]:
    """The texts of dev's entries of a category, newest first."""
    return [e["body"] for e in json.loads(run("list", "dev", "-c", category, "--json", cwd=root, check=True).stdout)]


def last_session(root: Path) -> str:
    """The "Last Session" of the next session's block."""
    block = hook("claude-code", {"hook_event_name": "SessionStart", "source": "startup", "cwd": str(root)}, root).stdout
    return block.split("Last Session:\n", 1)[1].split("\n\n", 1)[0] if "Last Session:" in block else ""


def from_fixture(client: str, fixture: str, root: Path, tmp_path: Path, event: str, **fields: object) -> None:
    """Run an agent's hook on a copy of a fixture transcript, as the agent would at ``event``."""
    transcript = tmp_path / fixture
    if not transcript.exists():
        shutil.copy(FIXTURES / fixture, transcript)
    payload = {"transcript_path": str(transcript), "hook_event_name": event, **fields}
    assert hook(client, payload, root).returncode == 0


def claude_session(root: Path, tmp_path: Path, event: str = "SessionEnd", session: str = "7f3e2a10-claude") -> Path:
    transcript = tmp_path / f"{session}.jsonl"
    if not transcript.exists():
        shutil.copy(FIXTURES / "claude-code-session.jsonl", transcript)
    payload = {"session_id": session, "transcript_path": str(transcript), "cwd": str(root), "hook_event_name": event}
    assert hook("claude-code", payload, root).returncode == 0
    return transcript


def test_a_claude_code_session_keeps_only_the_conversation(mem: Path, tmp_path: Path):
    claude_session(mem, tmp_path, "PreCompact")
    claude_session(mem, tmp_path, "SessionEnd")
    stored = memory_text(mem)
    assert not [n for n in NOISE if n in stored], [n for n in NOISE if n in stored]
    texts = [json.loads(line).get("text") for line in conversation_text(mem, "dev").splitlines()]
    assert texts[0] == "the login test is flaky on CI, fix it"  # the reminder beside it is gone
    assert "keep going, but leave the fixtures alone" in texts
    assert texts[-1] is None  # the closing line


def test_the_handoff_says_what_was_asked_what_was_done_and_where_it_stopped(mem: Path, tmp_path: Path):
    claude_session(mem, tmp_path)
    [handoff] = handoffs(mem)
    lines = handoff["body"].splitlines()
    assert lines[0] == "Asked: the login test is flaky on CI, fix it"
    assert lines[1] == "Done: changed src/auth.py, tests/conftest.py; ran `pytest -q tests/test_auth.py`"
    assert lines[2] == "Where it stopped:"
    assert lines[-1].startswith("[Agent]: The login test passes ten runs in a row now. Left to do:")
    assert any("retries a login once on a 502" in d for d in bodies(mem, "decisions"))
    assert any("closes idle connections after 30 seconds" in x for x in bodies(mem, "lessons"))


def test_a_trivial_session_keeps_the_substantive_handoff(mem: Path, tmp_path: Path):
    claude_session(mem, tmp_path)
    assert last_session(mem).startswith("Asked: the login test is flaky on CI, fix it")
    question = tmp_path / "q.jsonl"
    question.write_text(
        "".join(
            json.dumps({"type": kind, "message": {"role": kind, "content": text}, "uuid": f"q{n}"}) + "\n"
            for n, (kind, text) in enumerate(
                [("user", "what does the --verbose flag of pytest do?"), ("assistant", "It prints each test's name.")]
            )
        )
    )
    payload = {"session_id": "q-1", "transcript_path": str(question), "cwd": str(mem), "hook_event_name": "SessionEnd"}
    hook("claude-code", payload, mem)
    assert len(handoffs(mem)) == 1, "a two-message question writes no handoff"
    assert "what does the --verbose flag" in conversation_text(mem, "dev"), "its conversation is still saved"
    assert last_session(mem).startswith("Asked: the login test is flaky on CI, fix it")


def test_a_session_ended_twice_or_resumed_has_one_handoff(mem: Path, tmp_path: Path):
    transcript = claude_session(mem, tmp_path)
    first = handoffs(mem)
    with transcript.open("a") as f:  # resumed: the same session goes on, and ends again
        f.write(
            json.dumps(
                {
                    "type": "assistant",
                    "sessionId": "7f3e2a10-claude",
                    "uuid": "c-16",
                    "message": {
                        "role": "assistant",
                        "content": [{"type": "text", "text": "Added the 502 retry test."}],
                    },
                }
            )
            + "\n"
        )
    claude_session(mem, tmp_path)
    after = handoffs(mem)
    assert len(first) == len(after) == 1
    assert after[0]["body"].endswith("[Agent]: Added the 502 retry test.")
    # resumed under a new session id (the transcript carries the same history): still one handoff
    shutil.copy(transcript, tmp_path / "fork.jsonl")
    claude_session(mem, tmp_path, session="fork")
    assert len(handoffs(mem)) == 1


def test_codex_stop_saves_and_summarises_once_and_leaves_the_session_open(mem: Path, tmp_path: Path):
    for _ in range(3):  # a Stop after every turn
        from_fixture("codex", "codex-rollout.jsonl", mem, tmp_path, "Stop", session_id="codex-9a1", cwd=str(mem))
    [handoff] = handoffs(mem)
    assert handoff["body"].startswith(
        "Asked: add a CSV export to the report page\nDone: changed src/report.py, src/csv_export.py; ran `rg -n 'def report' src`"
    )
    assert bodies(mem, "decisions") == [
        "We decided to stream the CSV with a generator so that large reports never sit in memory."
    ]
    lines = conversation_text(mem, "dev").splitlines()
    assert len(conversation_files(mem, "dev")) == 1 and '{"session":"closed"}' not in lines
    assert [json.loads(x)["text"] for x in lines] == [
        "add a CSV export to the report page",
        "We decided to stream the CSV with a generator so that large reports never sit in memory.",
    ]


def test_a_cursor_plain_text_transcript_is_read(mem: Path, tmp_path: Path):
    from_fixture(
        "cursor", "cursor-transcript.txt", mem, tmp_path, "sessionEnd", conversation_id="b7", workspace_roots=[str(mem)]
    )
    texts = [json.loads(x).get("text") for x in conversation_text(mem, "dev").splitlines()]
    assert texts[:2] == ["rename the billing module to payments", "I'll rename the module and fix its imports."]
    assert not [n for n in NOISE if n in memory_text(mem)]
    [handoff] = handoffs(mem)
    assert handoff["body"].startswith(
        "Asked: rename the billing module to payments\n"
        "Done: changed src/app.py; ran `git mv src/billing.py src/payments.py`"
    )


def test_checkpoint_from_a_file_reads_the_same_formats(mem: Path):
    """`memcli checkpoint` given a transcript does what the hook does."""
    result = run("checkpoint", "dev", str(FIXTURES / "claude-code-session.jsonl"), "--close", "--json", cwd=mem)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["handoff"] is not None
    assert not [n for n in NOISE if n in memory_text(mem)]


# -- MCP: tools an agent can curate with ----------------------------------------------------------


def test_an_mcp_client_curates_memory(mem: Path):
    """Through the SDK's own client: tick a task, edit and remove entries, list the agents, and
    get a schema error for a category that does not exist; calls that name no agent mean the
    server's, and a write to an agent with no memory is refused."""
    import asyncio
    import sys

    from mcp import ClientSession, StdioServerParameters, stdio_client

    from .conftest import clean_env

    task = run("add", "dev", "tasks", "- [ ] cover the 502 retry with a test", cwd=mem, check=True).stdout.strip()
    wrong = run("add", "dev", "decisions", "We use SQLite for the queue", cwd=mem, check=True).stdout.strip()
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "memcli", "mcp", "--agent", "dev"], cwd=str(mem), env=clean_env()
    )

    async def session() -> None:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
            await client.initialize()
            tools = {t.name: t for t in (await client.list_tools()).tools}
            category = tools["add"].input_schema["properties"]["category"]
            assert "lessons" in json.dumps(category) and "enum" in json.dumps(category)

            status = await client.call_tool("status", {})
            assert not status.is_error
            assert list(status.structured_content["agents"]) == ["dev"]
            assert status.structured_content["default_agent"] == "dev"

            ticked = await client.call_tool("done", {"id": int(task)})
            assert not ticked.is_error and ticked.structured_content["ticked"] == [
                "- [x] cover the 502 retry with a test"
            ]
            again = await client.call_tool("done", {"id": int(task)})
            assert again.is_error and "no open task" in again.content[0].text

            fixed = await client.call_tool("edit", {"id": int(wrong), "text": "We use Redis for the queue #queue"})
            assert not fixed.is_error and fixed.structured_content["tags"] == ["queue"]
            secret = await client.call_tool("edit", {"id": int(wrong), "text": "key AKIAIOSFODNN7EXAMPLE"})
            assert secret.is_error and "secret" in secret.content[0].text

            added = await client.call_tool("add", {"category": "lessons", "text": "the CI proxy drops idle sockets"})
            assert not added.is_error and added.structured_content["agent"] == "dev"
            stranger = await client.call_tool("add", {"agent": "claude", "category": "lessons", "text": "a b c d"})
            assert stranger.is_error and "known agents: dev" in stranger.content[0].text
            bad = await client.call_tool("add", {"category": "notes", "text": "x"})
            assert bad.is_error  # the schema's enum, checked by the SDK

            none = await client.call_tool("remove", {"ids": [int(wrong), 1]})
            assert none.is_error and "no entry 1" in none.content[0].text  # all or none
            gone = await client.call_tool("remove", {"ids": [int(wrong)]})
            assert not gone.is_error and [r["id"] for r in gone.structured_content["removed"]] == [int(wrong)]

            block = await client.call_tool("inject", {"task": "queue"})
            assert not block.is_error and "cover the 502 retry" not in block.content[0].text  # ticked: not open

            lesson = added.structured_content["id"]
            pinned = await client.call_tool("pin", {"ids": [lesson]})
            assert not pinned.is_error and pinned.structured_content["entries"][0]["changed"]
            block = await client.call_tool("inject", {"task": "anything at all"})
            assert "Pinned:\n- the CI proxy drops idle sockets" in block.content[0].text
            archived = await client.call_tool("archive", {"ids": [lesson, 1]})
            assert archived.is_error and "no entry 1" in archived.content[0].text  # all known, or nothing done
            archived = await client.call_tool("archive", {"ids": [lesson]})
            assert not archived.is_error and "archived" in archived.structured_content["entries"][0]["tags"]
            found = await client.call_tool("search", {"query": "CI proxy idle sockets"})
            assert lesson not in [r["id"] for r in found.structured_content["results"]]

            replaced = await client.call_tool(
                "supersede", {"id": int(task), "text": "- [ ] cover the 502 and 503 retries"}
            )
            assert not replaced.is_error and replaced.structured_content["supersedes"] == [int(task)]
            block = await client.call_tool("inject", {"task": "retries"})
            assert "cover the 502 and 503 retries" in block.content[0].text

    asyncio.run(asyncio.wait_for(session(), 120))
    listed = json.loads(run("list", "dev", "--json", cwd=mem, check=True).stdout)
    assert int(wrong) not in [e["id"] for e in listed]
    assert "- [x] cover the 502 retry" in run("show", "dev", task, cwd=mem, check=True).stdout


# -- limits ----------------------------------------------------------------------------------------


def test_an_entry_is_a_memory_not_a_log(mem: Path):
    big = "x" * 20_000_000
    result = run("add", "dev", "lessons", "-", cwd=mem, input=big)
    assert result.returncode == 1 and len(result.stderr.splitlines()) == 1
    assert "19.1 MB" in result.stderr and "64 KB" in result.stderr and "max_entry_bytes" in result.stderr
    assert not (mem / ".memory" / "dev").exists(), "nothing written"
    entry = run("add", "dev", "lessons", "a short lesson about timeouts", cwd=mem, check=True).stdout.strip()
    assert run("edit", "dev", entry, "-", cwd=mem, input="y" * 70_000).returncode == 1
    (mem / ".memory" / "config.toml").write_text("[vault]\nmax_entry_bytes = 100000\n")
    run("edit", "dev", entry, "-", cwd=mem, input="y" * 70_000, check=True)


def test_a_long_message_is_cut_with_a_marker_and_the_session_saved(mem: Path):
    log = "line of a very long build log\n" * 5_000  # 150,000 characters
    messages = [{"role": "user", "text": "why does the build fail?"}, {"role": "agent", "text": log}]
    for _ in range(2):  # saved twice: the cut is the same, stored once
        run("checkpoint", "dev", "-", cwd=mem, input=json.dumps(messages), check=True)
    stored = [json.loads(x) for x in conversation_text(mem, "dev").splitlines()]
    assert len(stored) == 2
    assert len(stored[1]["text"]) < 16_100 and stored[1]["text"].endswith("[… cut by memcli: 134000 more characters]")


# -- setup closes the gaps -------------------------------------------------------------------------


def test_hooks_work_without_memcli_on_the_agents_path(mem: Path, tmp_path: Path):
    """An agent started with a bare environment (a desktop launcher, a service) still gets its block
    and saves its session: the hook falls back to the Python that ran setup."""
    import subprocess

    run("setup", "claude-code", cwd=mem, check=True)
    run("add", "dev", "decisions", "Adopt SSE instead of WebSockets #sse", cwd=mem, check=True)
    settings = json.loads((mem / ".claude" / "settings.json").read_text())
    start = settings["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    end = settings["hooks"]["SessionEnd"][0]["hooks"][0]["command"]
    bare = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    assert subprocess.run(["sh", "-c", "command -v memcli"], env=bare, capture_output=True).returncode != 0
    payload = {"hook_event_name": "SessionStart", "source": "startup", "cwd": str(mem)}
    shown = subprocess.run(
        ["sh", "-c", start], input=json.dumps(payload), env=bare, cwd=mem, capture_output=True, text=True, timeout=60
    )
    assert shown.returncode == 0 and "Adopt SSE instead of WebSockets" in shown.stdout, shown.stderr
    transcript = tmp_path / "s.jsonl"
    shutil.copy(FIXTURES / "claude-code-session.jsonl", transcript)
    payload = {"hook_event_name": "SessionEnd", "session_id": "s", "transcript_path": str(transcript), "cwd": str(mem)}
    saved = subprocess.run(["sh", "-c", end], input=json.dumps(payload), env=bare, cwd=mem, text=True, timeout=60)
    assert saved.returncode == 0 and len(handoffs(mem)) == 1
    # where neither memcli nor that Python exists, or that Python lost memcli, the hook does nothing, exit 0
    lost = tmp_path / "python-without-memcli"
    lost.write_text("#!/bin/sh\necho 'No module named memcli' >&2\nexit 1\n")
    lost.chmod(0o755)
    for python in ("/nonexistent/python3", str(lost)):
        gone = start.replace(quoted_fallback(start), python)
        quiet = subprocess.run(["sh", "-c", gone], input="{}", env=bare, capture_output=True, text=True, timeout=60)
        assert (quiet.returncode, quiet.stdout, quiet.stderr) == (0, "", ""), python


def quoted_fallback(command: str, client: str = "claude-code") -> str:
    """The Python a hook command of setup's falls back to, as the command quotes it."""
    import shlex

    from memcli.agents.wiring import fallback_python

    return shlex.quote(fallback_python(command, client))


def test_setup_registers_the_mcp_server_for_claude_code_and_cursor(mem: Path):
    mcp = mem / ".mcp.json"
    mcp.write_text(json.dumps({"mcpServers": {"github": {"command": "gh-mcp"}}}, indent=2) + "\n")
    run("setup", "claude-code", "--agent", "web", cwd=mem, check=True)
    servers = json.loads(mcp.read_text())["mcpServers"]
    assert servers == {
        "github": {"command": "gh-mcp"},
        "memcli": {"command": "memcli", "args": ["mcp", "--agent", "web"]},
    }
    run("setup", "cursor", cwd=mem, check=True)
    cursor = json.loads((mem / ".cursor" / "mcp.json").read_text())["mcpServers"]["memcli"]
    assert cursor == {"command": "memcli", "args": ["mcp", "--agent", "dev"]}
    run("setup", "claude-code", "--remove", cwd=mem, check=True)
    assert json.loads(mcp.read_text()) == {"mcpServers": {"github": {"command": "gh-mcp"}}}
    run("setup", "cursor", "--remove", cwd=mem, check=True)
    assert not (mem / ".cursor").exists()
    # a server named memcli that setup did not write is the user's: refused, never replaced
    mcp.write_text(json.dumps({"mcpServers": {"memcli": {"command": "/opt/memcli-fork", "args": []}}}))
    before = mcp.read_bytes()
    refused = run("setup", "claude-code", cwd=mem)
    assert refused.returncode == 1 and "already configures an MCP server named memcli" in refused.stderr
    assert mcp.read_bytes() == before and not (mem / ".claude").exists()


def test_setup_check_says_whether_the_wiring_is_intact(mem: Path):
    from .conftest import clean_env

    run("setup", "codex", cwd=mem, check=True)
    ok = run("setup", "codex", "--check", cwd=mem)
    assert ok.returncode == 0 and "set up for agent dev" in ok.stdout
    (mem / ".codex" / "config.toml").unlink()
    broken = run("setup", "codex", "--check", cwd=mem)
    assert broken.returncode == 1 and ".codex/config.toml" in broken.stdout
    run("setup", "codex", cwd=mem, check=True)
    hooks = mem / ".codex" / "hooks.json"
    stop = json.loads(hooks.read_text())["hooks"]["Stop"][0]["hooks"][0]["command"]
    hooks.write_text(hooks.read_text().replace(quoted_fallback(stop, "codex"), "/nowhere/python3"))
    lost = run("setup", "codex", "--check", cwd=mem, env=clean_env(PATH="/usr/bin:/bin"))
    assert lost.returncode == 1 and "find no memcli here" in lost.stdout
    assert run("setup", "codex", "--check", "--remove", cwd=mem).returncode == 1


# -- extraction with measured precision -------------------------------------------------------------


def test_extraction_meets_its_aim_on_the_labelled_corpora():
    """Precision at least 0.9 and recall at least 0.6 for decisions and for lessons, on each corpus
    (bench/extraction.py prints the figures; bench/RESULTS.md says how each corpus was used)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "memcli_bench_extraction", FIXTURES.parent.parent / "bench" / "extraction.py"
    )
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    for path in bench.CORPORA:
        lines = bench.load(path)
        assert len(lines) >= 40 and {x["label"] for x in lines} == {"decision", "lesson", "none"}
        for kind, m in bench.measure(lines).items():
            assert m["precision"] >= 0.9 and m["recall"] >= 0.6, (path.name, kind, m)
    assert sum(len(bench.load(p)) for p in bench.CORPORA) >= 300


def test_explicit_labels_are_always_caught_and_narration_never_is():
    from memcli.capture import extract

    labelled = [
        ("**Decision:** keep the v1 API until June.", "decisions"),
        ("- **Decision** — one queue per tenant.", "decisions"),
        ("Decisão: usar Postgres para a fila.", "decisions"),
        ("**Lesson learned:** the proxy drops idle sockets after 30 s.", "lessons"),
        ("* Gotcha: `npm ci` needs the lockfile of the same npm major.", "lessons"),
    ]
    for text, kind in labelled:
        found = extract.extract([{"role": "agent", "text": text}])
        assert len(getattr(found, kind)) == 1, text
    for text in (
        "This function will use the cached value if present.",
        "I will use the existing helper here instead of writing a new one.",
        "Let me run the tests to see what fails.",
        "Note: I'm skipping the docs for now.",
        "Should we go with Redis instead of Postgres?",
    ):
        found = extract.extract([{"role": "agent", "text": text}])
        assert not found.decisions and not found.lessons, text


def test_a_cursor_jsonl_session_keeps_the_request_without_its_attachments(mem: Path, tmp_path: Path):
    from_fixture(
        "cursor", "cursor-session.jsonl", mem, tmp_path, "sessionEnd", conversation_id="c9", workspace_roots=[str(mem)]
    )
    texts = [json.loads(x).get("text") for x in conversation_text(mem, "dev").splitlines()]
    assert texts[0] == "make the payment form validate the card number"
    assert "attached_files" not in memory_text(mem) and "export const pay" not in memory_text(mem)
    [handoff] = handoffs(mem)
    assert handoff["body"].startswith(
        "Asked: make the payment form validate the card number\nDone: changed src/pay.ts; ran `npm test -- pay`"
    )
    assert bodies(mem, "lessons") == [
        "Gotcha: the test cards of the sandbox fail the Luhn check on purpose, so the tests use the 4242 card."
    ]


def test_two_sessions_that_began_alike_keep_two_handoffs(mem: Path):
    for n in range(2):
        messages = [{"role": "user", "text": "continue"}] + [
            {"role": "agent", "text": f"step {k} of session {n}: changed module {k}"} for k in range(6)
        ]
        run(
            "checkpoint",
            "dev",
            "-",
            "--close",
            "--chat-id",
            f"chat-{n}",
            cwd=mem,
            input=json.dumps(messages),
            check=True,
        )
    assert [h["body"].rsplit("\n", 1)[-1] for h in handoffs(mem)] == [
        "[Agent]: step 5 of session 1: changed module 5",
        "[Agent]: step 5 of session 0: changed module 5",
    ]


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

    if not driver:  # as GitHub or GitLab merge: no driver, plain text
        (repo / ".git" / "info" / "attributes").write_text("* merge=text\n")
    entry = run("add", "dev", "decisions", "Use WebSockets for the live feed", cwd=repo, check=True).stdout.strip()
    git("add", "-A", cwd=repo)
    git("commit", "-qm", "add", cwd=repo)
    git("checkout", "-qb", "edit", cwd=repo)
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
    tight = json.loads(run("inject", "dev", "search module", "-b", "60", "-f", "json", cwd=mem, check=True).stdout)
    assert [p["id"] for p in tight["sections"]["pinned"]] == [rule] and tight["tokens"] <= 60
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
    git("add", "-A", cwd=repo)
    git("commit", "-qm", "auth", cwd=repo)
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
    second = run("supersede", first, "Use WebSockets for the dashboard", cwd=mem, check=True).stdout.strip()
    run("pin", second, cwd=mem, check=True)
    third = run("supersede", "dev", second, "Use SSE for the dashboard: the proxy drops sockets", cwd=mem, check=True)
    third_id = third.stdout.strip()
    shown = run("inject", "dev", "dashboard", "--explain", cwd=mem, check=True)
    block = shown.stdout
    assert "Use SSE for the dashboard" in block and "polling" not in block and "WebSockets" not in block
    assert f"decision {first} (superseded by {second})" in shown.stderr  # the account names what was left out
    assert "Pinned:\n- Use SSE for the dashboard" in block, "the pin moved to the newest version"
    assert [e["id"] for e in json.loads(run("list", "dev", "--json", cwd=mem, check=True).stdout)] == [int(third_id)]
    found = json.loads(run("search", "dashboard", "--json", cwd=mem, check=True).stdout)
    assert [h["id"] for h in found] == [int(third_id)]
    chain = json.loads(run("search", "dashboard", "--all", "--json", cwd=mem, check=True).stdout)
    assert sorted(h["id"] for h in chain) == sorted([int(first), int(second), int(third_id)])
    newest = json.loads(run("show", third_id, "--json", cwd=mem, check=True).stdout)
    assert newest["supersedes"] == [int(second)] and "realtime" in newest["tags"]  # the old tags carried
    old = run("show", first, cwd=mem, check=True)
    assert f"superseded by {second}; the newest version: memcli show {third_id}" in old.stderr
    again = run("supersede", first, "Use long polling", cwd=mem)
    assert again.returncode == 1 and f"supersede {third_id} instead" in again.stderr
    run("archive", third_id, cwd=mem, check=True)
    archived = run("supersede", third_id, "Use HTTP/3", cwd=mem)
    assert archived.returncode == 1 and "is archived" in archived.stderr


def test_two_branches_superseding_one_entry_merge_to_one_visible_successor(repo: Path):
    from .conftest import git

    old = run("add", "dev", "decisions", "Deploy on Fridays", cwd=repo, check=True).stdout.strip()
    git("add", "-A", cwd=repo)
    git("commit", "-qm", "add", cwd=repo)
    git("checkout", "-qb", "theirs", cwd=repo)
    theirs = run("supersede", old, "Deploy on Thursdays", cwd=repo, check=True).stdout.strip()
    git("add", "-A", cwd=repo)
    git("commit", "-qm", "theirs", cwd=repo)
    git("checkout", "-q", "main", cwd=repo)
    ours = run("supersede", old, "Deploy on Tuesdays", cwd=repo, check=True).stdout.strip()
    git("add", "-A", cwd=repo)
    git("commit", "-qm", "ours", cwd=repo)
    merged = git("merge", "-q", "--no-edit", "theirs", cwd=repo, check=False)
    assert merged.returncode == 0, merged.stdout + merged.stderr
    shown = json.loads(run("show", old, "--json", cwd=repo, check=True).stdout)
    assert sorted(shown["superseded_by"]) == sorted([int(ours), int(theirs)]), "both successors recorded"
    run("compact", cwd=repo, check=True)
    visible = [e["id"] for e in json.loads(run("list", "dev", "--json", cwd=repo, check=True).stdout)]
    assert visible == [max(int(ours), int(theirs))]
    every = json.loads(run("search", "deploy", "--all", "--json", cwd=repo, check=True).stdout)
    assert len(every) == 3, "nothing lost"

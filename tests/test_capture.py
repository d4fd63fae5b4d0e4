"""What agents' sessions leave in memory: conversation only, and handoffs that carry the work.

The transcripts in tests/fixtures are written as Claude Code, Codex and Cursor write them, with the
noise each puts around the conversation (slash commands and their output, interruption notices, a
compaction summary, system reminders, tool calls and results, environment context).
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st


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
            assert not ticked.is_error and ticked.content[0].text == f"ticked 1 task in dev/tasks {task}"
            assert ticked.structured_content == {"id": int(task), "agent": "dev"}  # by id: no entry text to an agent
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


def _matches() -> st.SearchStrategy[str]:
    """Texts that match one of the extraction patterns (``\\b`` and ``^`` taken out to generate them)."""
    from memcli.capture import extract

    patterns = [p.pattern.replace(r"\b", "").removeprefix("^") for p in (*extract.DECISION, *extract.LESSON)]
    return st.sampled_from(patterns).flatmap(lambda p: st.from_regex(p, fullmatch=True))


_FOLDED = {"i": ("İ", "ı"), "s": ("ſ",), "k": ("K",)}  # letters IGNORECASE takes for i, s and k


@settings(max_examples=500, deadline=None)
@given(
    before=st.text(max_size=6),
    match=_matches(),
    after=st.text(max_size=6),
    fold=st.sampled_from(["", "i", "s", "k"]),
    which=st.integers(0, 1),
    upper=st.booleans(),
)
def test_the_first_word_filter_finds_what_searching_every_pattern_finds(before, match, after, fold, which, upper):
    """``_AnyOf`` (a pattern searched only when the line holds one of its first words) answers as
    one alternation of every pattern does, in any case and with the letters IGNORECASE folds."""
    from memcli.capture import extract

    if fold:
        match = match.replace(fold, _FOLDED[fold][which % len(_FOLDED[fold])])
    line = before + (match.upper() if upper else match) + after
    for patterns, any_of in ((extract.DECISION, extract._ANY_DECISION), (extract.LESSON, extract._ANY_LESSON)):
        every = re.compile("|".join(f"(?:{p.pattern})" for p in patterns), re.IGNORECASE)
        assert any_of.search(line) == bool(every.search(line)), line


def test_a_change_of_measure_is_a_lesson_and_a_line_of_many_is_read_once():
    from memcli.capture import extract

    said = "Latency went from 300 ms to 40 ms once the queries were batched."
    assert extract.extract([{"role": "agent", "text": said}]).lessons == [said]
    many = ("went from a " * 1400)[:16000]  # (bounded pattern: one pass, not one per "went from")
    assert extract.extract([{"role": "agent", "text": many}]).lessons == []


_PIECES = st.sampled_from(
    [
        "<system-reminder>",
        "</system-reminder>",
        "<attached_files>",
        "</attached_files>",
        "<user_query>",
        "</user_query>",
        " ",
        "\n",
        "x",
        "said",
        "<",
        ">",
        "</",
        "\u2028",
    ]
)


@settings(max_examples=500, deadline=None)
@given(st.lists(_PIECES, max_size=25))
def test_harness_tags_are_taken_out_as_the_regular_expressions_did(parts):
    """The one-pass readers of harness tags (quadratic as regular expressions on a tag that never
    closes) answer as those expressions did."""
    from memcli.storage import transcripts

    text = "".join(parts)
    added = re.compile(
        r"<(system-reminder|system_reminder|user-prompt-submit-hook|additional_data|attached_files|cursor_commands)>"
        r".*?</\1>\s*",
        re.S,
    )
    assert transcripts.strip_noise(text) == added.sub("", text)
    assert transcripts.inner_elements(text, "user_query") == re.findall(
        r"<user_query>\s*(.*?)\s*</user_query>", text, re.S
    )
    whole = re.match(r"^\s*<user_query>\s*(.*?)\s*</user_query>\s*$", text, re.S)
    assert transcripts.only_element(text, "user_query") == (whole.group(1) if whole else None)

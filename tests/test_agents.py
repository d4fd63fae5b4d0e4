"""Agents plugged in: `memcli setup claude-code|cursor|codex`, the agent hook entry point fed the
JSON those agents send, and `memcli mcp` driven by the MCP SDK's own client over stdio."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memcli.agents.wiring import hook_command
from tests.conftest import (
    FIXTURES,
    category_text,
    clean_env,
    conversation_files,
    conversation_text,
    imported_modules,
    lock_held,
    run,
    tree,
)

CURSOR_EVENTS = {  # Cursor ignores a hooks.json that names an event it does not know
    "sessionStart",
    "sessionEnd",
    "preToolUse",
    "postToolUse",
    "postToolUseFailure",
    "subagentStart",
    "subagentStop",
    "beforeShellExecution",
    "afterShellExecution",
    "beforeMCPExecution",
    "afterMCPExecution",
    "beforeReadFile",
    "afterFileEdit",
    "beforeSubmitPrompt",
    "preCompact",
    "stop",
    "afterAgentResponse",
    "afterAgentThought",
}


def files(path: Path) -> dict[str, bytes]:
    """The tree without memcli's cache folder (the lock file appears there on the first write)."""
    return {k: v for k, v in tree(path).items() if not k.startswith(".memory/.vault/")}


def hook(client: str, payload: object, cwd: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """Run the hook as the agent does: its JSON on stdin, from the project folder."""
    data = payload if isinstance(payload, str) else json.dumps(payload)
    return run("agent-hook", client, *args, cwd=cwd, input=data, env=env)


# -- setup: Claude Code --------------------------------------------------------------------------


USER_SETTINGS = {
    "permissions": {"allow": ["Bash(npm run test:*)"]},
    "hooks": {
        "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo hello"}]}],
        "PostToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "prettier --write"}]}],
    },
    "env": {"FOO": "1"},
}


def test_setup_claude_code_merges_is_idempotent_and_removes_exactly_its_own(mem: Path):
    settings = mem / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps(USER_SETTINGS, indent=4))
    run("setup", "claude-code", cwd=mem, check=True)
    first = settings.read_bytes()
    data = json.loads(first)
    assert data["permissions"] == USER_SETTINGS["permissions"] and data["env"] == {"FOO": "1"}
    assert data["hooks"]["PostToolUse"] == USER_SETTINGS["hooks"]["PostToolUse"]
    start = data["hooks"]["SessionStart"]
    assert start[0] == USER_SETTINGS["hooks"]["SessionStart"][0]  # the user's own hook, kept first
    assert start[1]["matcher"].split("|")[:4] == ["startup", "resume", "clear", "compact"]
    assert start[1]["hooks"] == [{"type": "command", "command": hook_command("claude-code", "dev"), "timeout": 10}]
    assert data["hooks"]["PreCompact"][0]["hooks"][0]["command"] == hook_command("claude-code", "dev")
    end = data["hooks"]["SessionEnd"][0]["hooks"][0]
    assert end["command"] == hook_command("claude-code", "dev") and end["timeout"] >= 10  # Claude's default is 1.5 s
    again = run("setup", "claude-code", cwd=mem, check=True)
    assert settings.read_bytes() == first and "nothing to change" in again.stdout
    run("setup", "claude-code", "--agent", "qa", cwd=mem, check=True)  # another agent replaces, never doubles
    commands = [h["command"] for g in json.loads(settings.read_text())["hooks"]["SessionStart"] for h in g["hooks"]]
    assert commands == ["echo hello", hook_command("claude-code", "qa")]
    run("setup", "claude-code", "--remove", cwd=mem, check=True)
    assert json.loads(settings.read_text()) == USER_SETTINGS


def test_setup_claude_code_remove_deletes_what_it_created(mem: Path):
    run("setup", "claude-code", cwd=mem, check=True)
    assert (mem / ".claude" / "settings.json").is_file()
    run("setup", "claude-code", "--remove", cwd=mem, check=True)
    assert not (mem / ".claude").exists()
    result = run("setup", "claude-code", "--remove", cwd=mem, check=True)
    assert "nothing to remove" in result.stdout


@pytest.mark.parametrize(
    "content", ["{not json", "[1, 2]", '{"hooks": []}', '{"hooks": {"SessionStart": {}}}', "\xff\xfe"]
)
def test_setup_refuses_settings_it_cannot_read_and_changes_nothing(mem: Path, content: str):
    settings = mem / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_bytes(content.encode("latin-1"))
    before = files(mem)
    result = run("setup", "claude-code", cwd=mem)
    assert result.returncode == 1
    assert result.stderr.startswith("memcli: error: ") and len(result.stderr.splitlines()) == 1
    assert "Traceback" not in result.stderr
    assert files(mem) == before


def test_setup_never_writes_through_a_symlink_out_of_the_project(mem: Path, tmp_path: Path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (mem / ".claude").symlink_to(outside, target_is_directory=True)
    result = run("setup", "claude-code", cwd=mem)
    assert result.returncode == 1 and "outside" in result.stderr
    assert list(outside.iterdir()) == []
    (outside / "AGENTS.md").write_text("theirs\n")
    (mem / "AGENTS.md").symlink_to(outside / "AGENTS.md")
    result = run("setup", "codex", cwd=mem)
    assert result.returncode == 1 and (outside / "AGENTS.md").read_text() == "theirs\n"


def test_setup_needs_memory_and_a_known_agent(tmp_path: Path, mem: Path):
    result = run("setup", "claude-code", cwd=tmp_path)
    assert result.returncode == 1 and "memcli init" in result.stderr
    result = run("setup", "vscode", cwd=mem)
    assert result.returncode == 1 and "claude-code, cursor, codex" in result.stderr
    result = run("setup", "cursor", "--agent", "Bad Agent", cwd=mem)
    assert result.returncode == 1 and "invalid agent id" in result.stderr
    assert not (mem / ".cursor").exists()


# -- setup: Cursor and Codex ----------------------------------------------------------------------


def test_setup_cursor_writes_hooks_and_an_always_applied_rule(mem: Path):
    hooks_file = mem / ".cursor" / "hooks.json"
    hooks_file.parent.mkdir()
    mine = {"version": 1, "hooks": {"afterFileEdit": [{"command": "./format.sh"}], "stop": [{"command": "notify"}]}}
    hooks_file.write_text(json.dumps(mine))
    run("setup", "cursor", cwd=mem, check=True)
    data = json.loads(hooks_file.read_text())
    assert data["version"] == 1 and set(data["hooks"]) <= CURSOR_EVENTS
    assert data["hooks"]["afterFileEdit"] == [{"command": "./format.sh"}]
    assert data["hooks"]["stop"][0] == {"command": "notify"}
    for event in ("sessionStart", "preCompact", "stop", "sessionEnd"):
        assert data["hooks"][event][-1]["command"] == hook_command("cursor", "dev")
    rule = (mem / ".cursor" / "rules" / "memcli.mdc").read_text()
    assert rule.startswith("---\n") and "\nalwaysApply: true\n" in rule.split("---")[1]
    assert 'memcli add dev decisions "' in rule
    snapshot = tree(mem)
    run("setup", "cursor", cwd=mem, check=True)
    assert tree(mem) == snapshot
    run("setup", "cursor", "--remove", cwd=mem, check=True)
    assert json.loads(hooks_file.read_text()) == mine
    assert not (mem / ".cursor" / "rules").exists()


def test_setup_cursor_keeps_a_rule_of_the_users_own(mem: Path):
    rule = mem / ".cursor" / "rules" / "memcli.mdc"
    rule.parent.mkdir(parents=True)
    rule.write_text("my own notes\n")
    result = run("setup", "cursor", cwd=mem)
    assert result.returncode == 1 and "did not write it" in result.stderr
    assert rule.read_text() == "my own notes\n" and not (mem / ".cursor" / "hooks.json").exists()


def test_setup_codex_section_mcp_table_and_hooks(mem: Path):
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib

    (mem / "AGENTS.md").write_text("# Agents\n\nRun `make test` before you commit.\n")
    config = mem / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text('model = "gpt-5"\n\n[mcp_servers.docs]\ncommand = "docs-mcp"\n')
    run("setup", "codex", "--agent", "backend", cwd=mem, check=True)
    agents_md = (mem / "AGENTS.md").read_text()
    assert agents_md.startswith("# Agents\n\nRun `make test` before you commit.\n")
    assert agents_md.count("<!-- memcli setup: start -->") == 1 and "memcli add backend lessons" in agents_md
    parsed = tomllib.loads(config.read_text())
    assert parsed["model"] == "gpt-5" and parsed["mcp_servers"]["docs"] == {"command": "docs-mcp"}
    assert parsed["mcp_servers"]["memcli"] == {"command": "memcli", "args": ["mcp", "--agent", "backend"]}
    hooks = json.loads((mem / ".codex" / "hooks.json").read_text())["hooks"]
    assert hooks["SessionStart"][0]["hooks"][0]["command"] == hook_command("codex", "backend")
    snapshot = tree(mem)
    run("setup", "codex", "--agent", "backend", cwd=mem, check=True)
    assert tree(mem) == snapshot
    run("setup", "codex", "--remove", cwd=mem, check=True)
    assert (mem / "AGENTS.md").read_text() == "# Agents\n\nRun `make test` before you commit.\n"
    assert config.read_text() == 'model = "gpt-5"\n\n[mcp_servers.docs]\ncommand = "docs-mcp"\n'
    assert not (mem / ".codex" / "hooks.json").exists()


def test_setup_codex_leaves_an_mcp_server_of_the_users_own(mem: Path):
    config = mem / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text('[mcp_servers.memcli]\ncommand = "/opt/memcli"\n')
    result = run("setup", "codex", cwd=mem)
    assert result.returncode == 1 and "already configures" in result.stderr
    assert not (mem / "AGENTS.md").exists()


# -- the hook entry point -----------------------------------------------------------------------


def claude_start(cwd: Path, source: str = "startup") -> dict:
    return {
        "session_id": "5d1c0a9e",
        "transcript_path": str(cwd / "missing.jsonl"),
        "cwd": str(cwd),
        "hook_event_name": "SessionStart",
        "source": source,
        "model": "claude-sonnet-5",
    }


def test_session_start_prints_the_block_within_the_budget(mem: Path, tmp_path: Path):
    run("add", "dev", "decisions", "Adopt SSE instead of WebSockets #sse", cwd=mem, check=True)
    run("add", "dev", "tasks", "- [ ] write the login test", cwd=mem, check=True)
    for n in range(3):
        run("add", "dev", "lessons", f"lesson {n}: " + "a long explanation " * 40, cwd=mem, check=True)
    (mem / ".memory" / "config.toml").write_text("[inject]\nbudget = 50000\n")  # more than Claude Code keeps
    elsewhere = tmp_path / "other"
    elsewhere.mkdir()
    result = hook("claude-code", claude_start(mem), elsewhere)  # found through the JSON's cwd
    assert result.returncode == 0 and result.stderr == ""
    block = result.stdout
    assert block.lstrip().startswith("## MEMORY CONTEXT") and block.rstrip().endswith("<!-- memcli:end -->")
    assert "Adopt SSE instead of WebSockets" in block and "- [ ] write the login test" in block
    assert "memcli add dev" in block  # how to write memory
    assert len(block) <= 10_000  # what Claude Code keeps of a hook's output
    (mem / ".memory" / "config.toml").write_text("[inject]\nbudget = 60\n")
    small = hook("claude-code", claude_start(mem, "compact"), mem).stdout
    assert 0 < len(small) <= 60 * 4


def test_session_start_for_cursor_is_json_with_additional_context(mem: Path):
    run("add", "dev", "decisions", "Adopt SSE #sse", cwd=mem, check=True)
    payload = {
        "conversation_id": "c1",
        "generation_id": "g1",
        "model": "m",
        "hook_event_name": "sessionStart",
        "cursor_version": "2.4",
        "workspace_roots": [str(mem)],
        "user_email": None,
        "transcript_path": None,
        "session_id": "c1",
        "is_background_agent": False,
        "composer_mode": "agent",
    }
    result = hook("cursor", payload, Path("/"))
    assert result.returncode == 0 and result.stderr == ""
    assert "Adopt SSE" in json.loads(result.stdout)["additional_context"]


@pytest.mark.parametrize(
    "payload",
    [
        "",
        "not json",
        "[]",
        '{"hook_event_name": 5}',
        "\x00\x01",
        json.dumps({"hook_event_name": "PreCompact", "transcript_path": "/nonexistent/t.jsonl", "session_id": "s"}),
        json.dumps({"hook_event_name": "SessionEnd", "transcript_path": "/", "session_id": "s", "reason": "other"}),
        json.dumps({"hook_event_name": "SessionEnd", "transcript_path": None}),
        json.dumps({"hook_event_name": "UserPromptSubmit", "prompt": "hi"}),
    ],
)
def test_hook_given_bad_input_exits_0_silently(mem: Path, payload: str):
    before = tree(mem)
    result = hook("claude-code", payload, mem)
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
    assert tree(mem) == before


def test_hook_with_a_malformed_transcript_or_no_memory_exits_0_silently(mem: Path, tmp_path: Path):
    bad = tmp_path / "t.jsonl"
    bad.write_bytes(b'{"type": "user"\n\xff\xfe garbage\n')
    before = tree(mem)
    for event in ("PreCompact", "SessionEnd"):
        result = hook("claude-code", {"hook_event_name": event, "transcript_path": str(bad), "cwd": str(mem)}, mem)
        assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
    assert tree(mem) == before
    bare = tmp_path / "bare"
    bare.mkdir()
    for payload in (
        claude_start(bare),
        {"hook_event_name": "SessionEnd", "transcript_path": str(bad), "cwd": str(bare)},
    ):
        result = hook("claude-code", payload, bare)
        assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
    assert list(bare.iterdir()) == []
    result = hook("no-such-agent", claude_start(mem), mem)
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


def test_pre_compact_and_session_end_save_the_claude_transcript(mem: Path, tmp_path: Path):
    transcript = tmp_path / "session.jsonl"
    transcript.write_bytes((FIXTURES / "claude-code-transcript.jsonl").read_bytes())
    base = {"session_id": "5d1c0a9e", "transcript_path": str(transcript), "cwd": str(mem)}
    result = hook(
        "claude-code", {**base, "hook_event_name": "PreCompact", "trigger": "auto", "custom_instructions": ""}, mem
    )
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
    lines = conversation_text(mem, "dev").splitlines()
    assert lines and all(json.loads(line).get("chatId") == "5d1c0a9e" for line in lines)
    assert not run("list", "dev", "--json", cwd=mem, check=True).stdout.strip("[]\n")  # no handoff before the end
    hook("claude-code", {**base, "hook_event_name": "SessionEnd", "reason": "prompt_input_exit"}, mem)
    hook("claude-code", {**base, "hook_event_name": "SessionEnd", "reason": "other"}, mem)  # again: nothing new
    assert conversation_text(mem, "dev").splitlines() == lines + ['{"session":"closed"}'], "the session ended, once"
    handoffs = json.loads(run("list", "dev", "-c", "handoffs", "--json", cwd=mem, check=True).stdout)
    assert len(handoffs) == 1 and "session-close" in handoffs[0]["tags"]
    recovered = json.loads(run("recover", "dev", "--json", cwd=mem, check=True).stdout)
    assert recovered["chatId"] == "5d1c0a9e"


def test_a_live_transcript_cut_mid_line_is_saved_up_to_the_cut(mem: Path, tmp_path: Path):
    transcript = tmp_path / "live.jsonl"
    lines = [
        json.dumps(
            {"role": "user", "message": {"content": [{"type": "text", "text": "<user_query>\nadd SSE\n</user_query>"}]}}
        ),
        json.dumps(
            {"role": "assistant", "message": {"content": [{"type": "text", "text": "Adding the SSE endpoint."}]}}
        ),
    ]
    transcript.write_text("\n".join(lines) + '\n{"role": "assistant", "message": {"con')
    payload = {
        "hook_event_name": "stop",
        "status": "completed",
        "loop_count": 0,
        "conversation_id": "c9",
        "workspace_roots": [str(mem)],
        "transcript_path": str(transcript),
    }
    result = hook("cursor", payload, mem)
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
    saved = [json.loads(line) for line in conversation_text(mem, "dev").splitlines()]
    assert [m["text"] for m in saved] == ["add SSE", "Adding the SSE endpoint."]


def test_codex_session_files_are_read_without_codex_context(mem: Path, tmp_path: Path):
    rollout = tmp_path / "rollout.jsonl"
    rows = [
        {"timestamp": "2026-05-02T09:00:00Z", "type": "session_meta", "payload": {"id": "th-1", "cwd": str(mem)}},
        {
            "timestamp": "2026-05-02T09:00:01Z",
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "user",
                "content": [
                    {"type": "input_text", "text": "<environment_context>\n  <cwd>/x</cwd>\n</environment_context>"}
                ],
            },
        },
        {
            "timestamp": "2026-05-02T09:00:02Z",
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "fix the flaky login test"}],
            },
        },
        {"timestamp": "2026-05-02T09:00:03Z", "type": "response_item", "payload": {"type": "reasoning", "summary": []}},
        {
            "timestamp": "2026-05-02T09:00:04Z",
            "type": "response_item",
            "payload": {"type": "function_call", "name": "shell"},
        },
        {"timestamp": "2026-05-02T09:00:05Z", "type": "event_msg", "payload": {"type": "token_count"}},
        {
            "timestamp": "2026-05-02T09:00:06Z",
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "assistant",
                "content": [
                    {"type": "output_text", "text": "The test waited on a real clock; it now uses a fake one."}
                ],
            },
        },
    ]
    rollout.write_text("".join(json.dumps(r) + "\n" for r in rows))
    payload = {
        "session_id": "th-1",
        "transcript_path": str(rollout),
        "cwd": str(mem),
        "hook_event_name": "Stop",
        "turn_id": "t1",
        "stop_hook_active": False,
        "last_assistant_message": "…",
    }
    result = hook("codex", payload, mem)
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
    saved = [json.loads(line) for line in conversation_text(mem, "dev").splitlines()]
    assert [(m["role"], m["text"]) for m in saved] == [
        ("user", "fix the flaky login test"),
        ("agent", "The test waited on a real clock; it now uses a fake one."),
    ]


def test_a_hook_never_waits_long_for_another_process_holding_the_lock(mem: Path, tmp_path: Path):
    transcript = tmp_path / "session.jsonl"
    transcript.write_bytes((FIXTURES / "claude-code-transcript.jsonl").read_bytes())
    payload = {"session_id": "s", "transcript_path": str(transcript), "cwd": str(mem), "hook_event_name": "SessionEnd"}
    with lock_held(mem):
        started = time.monotonic()
        result = hook("claude-code", payload, mem)
        waited = time.monotonic() - started
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
    assert waited < 30  # gave up (after its few seconds) rather than holding the session open
    assert not bool(conversation_files(mem, "dev"))
    hook("claude-code", payload, mem)  # the next save, with the lock free, stores it
    assert bool(conversation_files(mem, "dev"))


def test_the_hook_block_never_comes_back_into_memory(mem: Path, tmp_path: Path):
    run("add", "dev", "decisions", "Adopt SSE instead of WebSockets #sse", cwd=mem, check=True)
    block = hook("claude-code", claude_start(mem), mem).stdout
    transcript = tmp_path / "t.jsonl"
    rows = [
        {"type": "user", "message": {"role": "user", "content": block + "\nnow fix the login redirect"}, "uuid": "u1"},
        {
            "type": "assistant",
            "message": {"role": "assistant", "content": [{"type": "text", "text": "Done."}]},
            "uuid": "a1",
        },
    ]
    transcript.write_text("".join(json.dumps(r) + "\n" for r in rows))
    hook("claude-code", {"hook_event_name": "SessionEnd", "transcript_path": str(transcript), "cwd": str(mem)}, mem)
    saved = conversation_text(mem, "dev")
    assert "MEMORY CONTEXT" not in saved and "memcli add dev" not in saved and "now fix the login redirect" in saved


# -- the MCP server ----------------------------------------------------------------------------------


def test_mcp_over_stdio_with_the_sdk_client(mem: Path):
    pytest.importorskip("mcp.server.mcpserver", reason="the MCP SDK 2 is in the test extras")
    import asyncio

    from mcp import ClientSession, StdioServerParameters, stdio_client

    run("add", "dev", "decisions", "Adopt SSE instead of WebSockets #sse", cwd=mem, check=True)
    params = StdioServerParameters(command=sys.executable, args=["-m", "memcli", "mcp"], cwd=str(mem), env=clean_env())

    async def session() -> None:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
            init = await client.initialize()
            assert init.server_info.name == "memcli"
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert set(tools) == {
                *("search", "add", "show", "list", "inject", "edit", "remove", "done", "status"),
                *("archive", "unarchive", "pin", "unpin", "supersede"),
            }
            for name in ("search", "show", "list", "inject", "status"):
                assert tools[name].annotations.read_only_hint is True
            for name in ("add", "edit", "remove", "done", "archive", "unarchive", "pin", "unpin", "supersede"):
                assert tools[name].annotations.read_only_hint is False
            assert tools["remove"].annotations.destructive_hint is True
            assert set(tools["add"].input_schema["required"]) == {"category", "text"}
            assert tools["search"].input_schema["required"] == ["query"]

            added = await client.call_tool(
                "add",
                {
                    "agent": "dev",
                    "category": "lessons",
                    "text": "the flux capacitor needs 1.21 gigawatts",
                    "tags": ["physics"],
                },
            )
            assert not added.is_error
            new_id = added.structured_content["id"]
            found = await client.call_tool("search", {"query": "flux capacitor"})
            assert not found.is_error and found.structured_content["results"][0]["id"] == new_id
            assert "flux capacitor" in found.content[0].text

            bad = await client.call_tool("add", {"agent": "dev", "category": "lessons"})  # no text
            assert bad.is_error
            refused = await client.call_tool(
                "add", {"agent": "dev", "category": "lessons", "text": "key AKIAIOSFODNN7EXAMPLE"}
            )
            assert refused.is_error and "secret" in refused.content[0].text
            wrong = await client.call_tool("add", {"agent": "Bad Agent", "category": "lessons", "text": "x"})
            assert wrong.is_error and "invalid agent id" in wrong.content[0].text
            missing = await client.call_tool("show", {"agent": "dev", "id": 1})
            assert missing.is_error and "no entry 1" in missing.content[0].text

            shown = await client.call_tool("show", {"agent": "dev", "id": new_id})  # the server is still there
            assert not shown.is_error and shown.structured_content["tags"] == ["physics"]
            listed = await client.call_tool("list", {"agent": "dev", "limit": 1})
            assert [e["id"] for e in listed.structured_content["entries"]] == [new_id]
            block = await client.call_tool("inject", {"agent": "dev", "task": "flux capacitor", "budget": 500})
            assert not block.is_error and "flux capacitor" in block.content[0].text
            assert block.structured_content["tokens"] <= 500

            # a write by the CLI meanwhile is seen at once
            run("add", "dev", "lessons", "the hoverboard fails over water", cwd=mem, check=True)
            found = await client.call_tool("search", {"query": "hoverboard"})
            assert "hoverboard" in found.content[0].text

    asyncio.run(asyncio.wait_for(session(), 120))
    vault = category_text(mem, "dev", "lessons")
    assert "the flux capacitor needs 1.21 gigawatts" in vault and "AKIA" not in vault


def test_mcp_without_the_sdk_says_what_to_install(mem: Path):
    # as in an install without the extra: neither the SDK nor pydantic, which comes with it
    program = (
        "import sys; sys.modules['mcp'] = None; sys.modules['pydantic'] = None; from memcli.main import main;"
        " sys.exit(main(['mcp']))"
    )
    result = subprocess.run([sys.executable, "-c", program], cwd=mem, capture_output=True, text=True, env=clean_env())
    assert result.returncode == 1
    assert (
        result.stderr == 'memcli: error: memcli mcp needs the MCP Python SDK (version 2): pip install "memcli[mcp]"\n'
    )


def test_agent_integrations_add_no_start_up_cost_to_search_and_inject(mem: Path):

    run("add", "dev", "lessons", "lean start-up", cwd=mem, check=True)
    run("search", "lean", cwd=mem, check=True)
    for args in (["search", "lean"], ["inject", "dev", "lean"]):
        modules = imported_modules(args, mem)
        assert "tantivy" in modules
        heavy = {
            "mcp",
            "pydantic",
            "typer",
            "orjson",
            "memcli.agents.setup",
            "memcli.agents.files",
            "memcli.agents.hook",
            "memcli.agents.mcp_server",
        }
        assert not heavy & modules, args


# -- what a hostile tester found, each kept fixed ------------------------------------------------------


def test_mcp_adds_in_parallel_are_all_stored(mem: Path):
    pytest.importorskip("mcp.server.mcpserver", reason="the MCP SDK 2 is in the test extras")
    import asyncio

    from mcp import ClientSession, StdioServerParameters, stdio_client

    params = StdioServerParameters(command=sys.executable, args=["-m", "memcli", "mcp"], cwd=str(mem), env=clean_env())

    async def session() -> tuple[list, set]:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
            await client.initialize()
            calls = [
                client.call_tool("add", {"agent": "dev", "category": "lessons", "text": f"parallel lesson {n}"})
                for n in range(12)
            ]
            return await asyncio.gather(*calls)

    results = asyncio.run(asyncio.wait_for(session(), 120))
    assert all(not r.is_error for r in results)
    stored = {e["id"] for e in json.loads(run("list", "dev", "--json", cwd=mem, check=True).stdout)}
    assert {r.structured_content["id"] for r in results} <= stored and len(stored) == 12


def test_mcp_answers_a_request_holding_half_a_surrogate_pair(mem: Path):
    """Raw JSON-RPC (the SDK's client cannot even send it): the request is answered, the text kept with U+FFFD."""
    pytest.importorskip("mcp.server.mcpserver", reason="the MCP SDK 2 is in the test extras")
    proc = subprocess.Popen(
        [sys.executable, "-m", "memcli", "mcp"],
        cwd=mem,
        env=clean_env(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )

    def send(text: str) -> None:
        proc.stdin.write(text.encode() + b"\n")
        proc.stdin.flush()

    try:
        send(
            '{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18",'
            ' "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}'
        )
        assert json.loads(proc.stdout.readline())["id"] == 1
        send('{"jsonrpc": "2.0", "method": "notifications/initialized"}')
        send(
            '{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "add", "arguments":'
            ' {"agent": "dev", "category": "lessons", "text": "odd \\ud800 text"}}}'
        )
        answer = json.loads(proc.stdout.readline())
        assert answer["id"] == 2 and not answer["result"].get("isError")
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)
    assert "odd \ufffd text" in category_text(mem, "dev", "lessons")


def test_no_nul_byte_ever_reaches_a_vault_file(mem: Path, tmp_path: Path):
    run("add", "dev", "handoffs", "an earlier handoff that matters", cwd=mem, check=True)
    transcript = tmp_path / "nul.jsonl"
    rows = [
        {"type": "user", "message": {"role": "user", "content": "fix the build\u0000 please"}, "uuid": "u1"},
        {
            "type": "assistant",
            "message": {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "We decided to pin the compiler\u0000 version to stop the drift."}
                ],
            },
            "uuid": "a1",
        },
    ]
    transcript.write_text("".join(json.dumps(r) + "\n" for r in rows))
    hook("claude-code", {"hook_event_name": "SessionEnd", "transcript_path": str(transcript), "cwd": str(mem)}, mem)
    for path in (mem / ".memory" / "dev").glob("*.md"):
        assert b"\x00" not in path.read_bytes()
    listed = run("list", "dev", "--json", cwd=mem, check=True)
    assert listed.stderr == "" and any("earlier handoff" in e["body"] for e in json.loads(listed.stdout))
    result = run("add", "dev", "decisions", "x", "--tag", "a\x01b", cwd=mem)
    assert result.returncode == 1 and "invalid tag" in result.stderr


def test_claude_system_and_queue_lines_never_stop_a_save(mem: Path, tmp_path: Path):
    transcript = tmp_path / "t.jsonl"
    rows = [
        {"type": "queue-operation", "operation": "enqueue", "content": "fix the login", "sessionId": "s"},
        {"type": "system", "subtype": "compact_boundary", "content": "Conversation compacted", "level": "info"},
        {"type": "system", "content": "API Error: 529", "level": "error"},
        {"type": "user", "message": {"role": "user", "content": "fix the login redirect"}, "uuid": "u1"},
        {
            "type": "assistant",
            "message": {"role": "assistant", "content": [{"type": "text", "text": "Done."}]},
            "uuid": "a1",
        },
    ]
    transcript.write_text("".join(json.dumps(r) + "\n" for r in rows))
    hook("claude-code", {"hook_event_name": "PreCompact", "transcript_path": str(transcript), "cwd": str(mem)}, mem)
    saved = [json.loads(line)["text"] for line in conversation_text(mem, "dev").splitlines()]
    assert saved == ["fix the login redirect", "Done."]
    assert run("checkpoint", "dev", str(transcript), cwd=mem).returncode == 0


def test_a_hook_whose_stdin_stays_open_answers_and_exits(mem: Path):
    run("add", "dev", "decisions", "Adopt SSE #sse", cwd=mem, check=True)
    proc = subprocess.Popen(
        [sys.executable, "-m", "memcli", "agent-hook", "claude-code"],
        cwd=mem,
        env=clean_env(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        proc.stdin.write(json.dumps(claude_start(mem)).encode())
        proc.stdin.flush()
        out, err = proc.stdout.read(), proc.stderr.read()  # the hook answers while stdin stays open
        proc.wait(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 0 and b"Adopt SSE" in out and err == b""


@pytest.mark.parametrize("agent", ['x"; rm -rf ~', "../x", "conversations", "Dev"])
def test_a_hook_with_an_invalid_agent_id_prints_nothing(mem: Path, agent: str):
    result = hook("claude-code", claude_start(mem), mem, "--agent", agent)
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


def test_setup_keeps_what_is_the_users_even_when_it_looks_like_memclis(mem: Path):
    settings = mem / ".claude" / "settings.json"
    settings.parent.mkdir()
    mine = {
        "hooks": {
            "SessionStart": [
                {"hooks": [{"type": "command", "command": "memcli agent-hook claude-code && notify-send started"}]}
            ]
        }
    }
    settings.write_text(json.dumps(mine))
    run("setup", "claude-code", cwd=mem, check=True)
    run("setup", "claude-code", "--remove", cwd=mem, check=True)
    assert json.loads(settings.read_text()) == mine
    rule = mem / ".cursor" / "rules" / "memcli.mdc"
    rule.parent.mkdir(parents=True)
    rule.write_text("run memcli setup cursor to add hooks\n")
    assert (
        run("setup", "cursor", cwd=mem).returncode == 1 and rule.read_text() == "run memcli setup cursor to add hooks\n"
    )
    agents_md = mem / "AGENTS.md"
    run("setup", "codex", cwd=mem, check=True)
    text = agents_md.read_text()
    agents_md.write_text(
        "Note: everything after `<!-- memcli setup: start -->` is generated.\n\n## Mine\n\nNever push to main.\n\n"
        + text
    )
    run("setup", "codex", "--remove", cwd=mem, check=True)
    assert (
        agents_md.read_text()
        == "Note: everything after `<!-- memcli setup: start -->` is generated.\n\n## Mine\n\nNever push to main.\n"
    )


def test_setup_writes_all_or_nothing(mem: Path):
    (mem / ".cursor").mkdir()
    (mem / ".cursor" / "rules").write_text("a file where setup needs a folder\n")
    before = files(mem)
    result = run("setup", "cursor", cwd=mem)
    assert result.returncode == 1 and len(result.stderr.splitlines()) == 1 and "nothing changed" in result.stderr
    assert files(mem) == before
    assert not list((mem / ".cursor").glob(".*.tmp"))


def test_setup_refuses_json_it_could_not_write_back(mem: Path):
    settings = mem / ".claude" / "settings.json"
    settings.parent.mkdir()
    for text in ('{"x": 1e400}', '{"x": NaN}', "[" * 100000 + "]" * 100000):
        settings.write_text(text)
        result = run("setup", "claude-code", cwd=mem)
        assert result.returncode == 1 and len(result.stderr.splitlines()) == 1 and "internal error" not in result.stderr
        assert settings.read_text() == text


def test_remove_restores_what_was_there_before(mem: Path):
    settings = mem / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('\ufeff{\n    "model": "opus"\n}\n')
    original = settings.read_bytes()
    run("setup", "claude-code", cwd=mem, check=True)
    assert settings.read_text().startswith('\ufeff{\n    "model"')  # its BOM and its indent kept
    run("setup", "claude-code", "--remove", cwd=mem, check=True)
    assert json.loads(settings.read_text().lstrip("\ufeff")) == {"model": "opus"}
    assert settings.read_bytes() == original
    (mem / ".cursor").mkdir()
    (mem / ".cursor" / "hooks.json").write_text('{"version": 1}\n')
    run("setup", "cursor", cwd=mem, check=True)
    run("setup", "cursor", "--remove", cwd=mem, check=True)
    assert json.loads((mem / ".cursor" / "hooks.json").read_text()) == {"version": 1}
    agents_md = mem / "AGENTS.md"
    run("setup", "codex", cwd=mem, check=True)
    section = agents_md.read_text()
    agents_md.write_text("# Ours\n\n" + section + "\nmore of ours\n\n" + section)  # two copies: a merge
    run("setup", "codex", cwd=mem, check=True)
    assert agents_md.read_text().count("<!-- memcli setup: start -->") == 1
    run("setup", "codex", "--remove", cwd=mem, check=True)
    assert "memcli setup" not in agents_md.read_text() and "more of ours" in agents_md.read_text()


def test_setup_codex_refuses_an_mcp_servers_array(mem: Path):
    config = mem / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text('[[mcp_servers]]\nname = "x"\n')
    result = run("setup", "codex", cwd=mem)
    assert result.returncode == 1 and "add it by hand" in result.stderr
    assert config.read_text() == '[[mcp_servers]]\nname = "x"\n' and not (mem / "AGENTS.md").exists()


def test_two_setups_at_once_take_turns(mem: Path):
    for _ in range(6):
        procs = [
            subprocess.Popen(
                [sys.executable, "-m", "memcli", "setup", "codex", *extra, "-q"],
                cwd=mem,
                env=clean_env(),
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
            for extra in ([], ["--remove"])
        ]
        for proc in procs:
            proc.communicate(timeout=60)
        there = [
            (mem / "AGENTS.md").exists(),
            (mem / ".codex" / "config.toml").exists(),
            (mem / ".codex" / "hooks.json").exists(),
        ]
        assert there in ([True] * 3, [False] * 3), there


def test_hook_output_fits_claude_codes_limit_in_utf16_units(mem: Path):
    (mem / ".memory" / "_project.md").write_text("# Project\n\n" + "🚀 launch " * 3000)
    (mem / ".memory" / "config.toml").write_text("[inject]\nbudget = 50000\n")
    block = hook("claude-code", claude_start(mem), mem).stdout
    assert block and len(block.encode("utf-16-le")) // 2 <= 10_000


def test_a_hook_without_stdout_or_with_an_odd_session_id_exits_0(mem: Path, tmp_path: Path):
    program = f"{sys.executable} -m memcli agent-hook claude-code >&-"  # no stdout at all
    result = subprocess.run(
        ["bash", "-c", program],
        cwd=mem,
        env=clean_env(),
        input=json.dumps(claude_start(mem)).encode(),
        stderr=subprocess.PIPE,
    )
    assert result.returncode == 0 and result.stderr == b""
    transcript = tmp_path / "t.jsonl"
    transcript.write_bytes((FIXTURES / "claude-code-transcript.jsonl").read_bytes())
    payload = '{"hook_event_name": "SessionEnd", "session_id": "s\\ud800", "transcript_path": "%s", "cwd": "%s"}' % (
        transcript,
        mem,
    )
    hook("claude-code", payload, mem)
    from memcli.storage.conversations import hashed  # not an identifier: kept as its hash

    assert json.loads(run("recover", "dev", "--json", cwd=mem, check=True).stdout)["chatId"] == hashed("s\ufffd")


def test_setup_then_remove_gives_the_users_bytes_back(repo: Path):
    settings = repo / ".claude" / "settings.json"
    settings.parent.mkdir()
    original = b'{\r\n    "permissions": {"allow": ["Bash(ls)"]},\r\n    "env": {"A": "\\u00e9\\/x"},\r\n    "n": 1.50, "big": 1e2\r\n}'
    settings.write_bytes(original)
    agents_md = repo / "AGENTS.md"
    agents_md.write_bytes(b"# Agents\n\nno final newline")
    for client in ("claude-code", "codex"):
        run("setup", client, cwd=repo, check=True)
    for client in ("claude-code", "codex"):
        run("setup", client, "--remove", cwd=repo, check=True)
    assert settings.read_bytes() == original and agents_md.read_bytes() == b"# Agents\n\nno final newline"
    assert not (repo / ".codex").exists()


def test_remove_in_another_clone_deletes_the_files_setup_created(repo: Path, tmp_path: Path):
    from tests.conftest import git

    for client in ("claude-code", "cursor", "codex"):
        run("setup", client, cwd=repo, check=True)
    git("add", "-A", cwd=repo)
    git("commit", "-qm", "agents", cwd=repo)
    other = tmp_path / "other"
    git("clone", "-q", str(repo), str(other), cwd=tmp_path)
    for client in ("claude-code", "cursor", "codex"):
        run("setup", client, "--remove", cwd=other, check=True)
    left = [p for p in (".claude", ".cursor", ".codex", "AGENTS.md") if (other / p).exists()]
    assert left == []


def test_markers_quoted_in_a_code_block_are_not_the_section(mem: Path):
    agents_md = mem / "AGENTS.md"
    example = "```\n<!-- memcli setup: start -->\nan example\n<!-- memcli setup: end -->\n```\n"
    agents_md.write_text("# Notes\n\n" + example)
    run("setup", "codex", cwd=mem, check=True)
    assert example in agents_md.read_text() and agents_md.read_text().count("memcli setup: start") == 2
    run("setup", "codex", "--remove", cwd=mem, check=True)
    assert agents_md.read_text() == "# Notes\n\n" + example


def test_agent_hook_takes_dir_after_the_client(mem: Path, tmp_path: Path):
    run("add", "dev", "decisions", "Adopt SSE #sse", cwd=mem, check=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    result = hook("claude-code", {"hook_event_name": "SessionStart"}, elsewhere, "--dir", str(mem))
    assert result.returncode == 0 and "Adopt SSE" in result.stdout


@pytest.mark.parametrize(
    "args",
    [
        ["--dir", "{mem}", "--agent", "ops"],
        ["--dir={mem}", "-a", "ops"],
        ["-aops", "--dir", "{mem}"],
        ["--agent=ops", "--dir={mem}"],
    ],
)
def test_agent_hook_reads_its_arguments_as_every_command_does(mem: Path, tmp_path: Path, args: list[str]):
    """The hook's --agent and --dir are read by the parser every command uses (memcli.cli.fast),
    in any order and spelling Click accepts, and --dir is passed on, not set in the environment."""
    run("add", "ops", "decisions", "Rotate the deploy keys monthly", cwd=mem, check=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    given = [a.replace("{mem}", str(mem)) for a in args]
    result = hook("claude-code", {"hook_event_name": "SessionStart"}, elsewhere, *given)
    assert result.returncode == 0 and "Rotate the deploy keys" in result.stdout


@pytest.mark.parametrize(
    "args",
    [[], ["nosuchagent-client"], ["claude-code", "--frobnicate"], ["claude-code", "--agent"], ["claude-code", "x"]],
)
def test_agent_hook_with_arguments_it_cannot_read_prints_nothing_and_exits_0(mem: Path, args: list[str]):
    run("add", "dev", "decisions", "Adopt SSE #sse", cwd=mem, check=True)
    result = run("agent-hook", *args, cwd=mem, input='{"hook_event_name": "SessionStart"}')
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


def test_agent_hook_help_prints_its_usage(mem: Path):
    result = run("agent-hook", "--help", cwd=mem)
    assert result.returncode == 0
    assert (
        result.stdout
        == "usage: memcli agent-hook claude-code|cursor|codex [--agent ID] [--user]  (reads the agent's hook JSON on stdin)\n"
    )


@pytest.mark.parametrize("args", [["merge-driver"], ["merge-driver", "a", "b"], ["hook"]])
def test_gits_entry_points_called_wrongly_say_their_usage_in_one_line(mem: Path, args: list[str]):
    result = run(*args, cwd=mem)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith(f"memcli: error: usage: memcli {args[0]} ") and result.stderr.count("\n") == 1


def test_an_unclosed_code_fence_does_not_hide_memclis_section(mem: Path):
    """A fence never closed runs to the end of the file (CommonMark): a section after it would read
    as code, and memcli could not find it again, so setup refuses in one line until it is closed."""
    agents_md = mem / "AGENTS.md"
    agents_md.write_text("# Agents\n\n```bash\nmake test\n")
    refused = run("setup", "codex", cwd=mem)
    assert refused.returncode == 1 and len(refused.stderr.strip().splitlines()) == 1, refused.stderr
    assert "the code fence opened at line 3 is never closed" in refused.stderr
    assert agents_md.read_text() == "# Agents\n\n```bash\nmake test\n"
    agents_md.write_text("# Agents\n\n```bash\nmake test\n```\n")
    run("setup", "codex", cwd=mem, check=True)
    run("setup", "codex", cwd=mem, check=True)
    assert agents_md.read_text().count("<!-- memcli setup: start -->") == 1
    run("setup", "codex", "--remove", cwd=mem, check=True)
    assert agents_md.read_text() == "# Agents\n\n```bash\nmake test\n```\n"


def test_setup_refuses_json_holding_half_a_surrogate_pair(mem: Path):
    settings = mem / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"note": "\\ud83d", "permissions": {}}\n')
    result = run("setup", "claude-code", cwd=mem)
    assert result.returncode == 1 and "internal error" not in result.stderr and len(result.stderr.splitlines()) == 1
    assert sorted(p.name for p in settings.parent.iterdir()) == ["settings.json"]

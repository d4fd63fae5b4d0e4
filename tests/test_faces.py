"""The three faces over one operations layer (``memcli.api.OPERATIONS``): the command line, the MCP
server and the page offer only what the layer has, and say the same of it."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from memcli import api
from memcli.cli.spec import COMMANDS

from .conftest import ROOT, clean_env, entry_files, run

APP_JS = ROOT / "memcli" / "ui" / "static" / "app.js"


def page_actions() -> set[str]:
    """Every write the page's script can post: its buttons (act-NAME), the pin/archive toggles, the
    editor's two actions and the add form."""
    script = APP_JS.read_text()
    names = set(re.findall(r'\bact\("(\w+)"[,)]', script))  # with or without inputs of its own
    names |= set(re.findall(r'\bpost\("(\w+)"', script))
    names |= set(re.findall(r'\beditor\("(\w+)"', script))
    for on, off in re.findall(r'\bflag\("(\w+)", "(\w+)"', script):
        names |= {on, off}
    return names


def test_every_command_is_an_operation_or_says_why_not():
    operations, others = set(api.OPERATIONS), set(api.NOT_OPERATIONS)
    assert not operations & others
    assert not set(COMMANDS) - operations - others, "commands the layer does not know (add them to api.OPERATIONS)"
    assert not (operations | others) - set(COMMANDS), "operations or reasons with no command (spec.COMMANDS)"
    assert all(len(why) > 20 for why in api.NOT_OPERATIONS.values())


def test_every_write_operation_has_an_mcp_tool_or_a_reason():
    for op in api.OPERATIONS.values():
        if op.writes:
            assert op.tool or len(op.no_tool) > 20, f"{op.name}: no MCP tool and no reason"
        else:
            assert not op.destructive, op.name
        assert bool(op.tool) != bool(op.no_tool), f"{op.name}: a tool, or a reason for none: one of them"
        assert op.help and op.help[0].isupper(), op.name


def test_the_page_offers_only_the_layers_operations_and_all_it_may():
    offered = page_actions()
    assert "add" in offered and "unarchive" in offered  # the parse found the buttons
    table = {name for name, op in api.OPERATIONS.items() if op.page}
    assert not offered - table, "the page posts actions that no operation with page=True has"
    assert not table - offered, "operations with page=True that app.js offers no button for"
    assert all(api.OPERATIONS[name].writes for name in offered)


def test_the_mcp_tools_are_the_tables_and_fail_when_one_is_removed(monkeypatch):
    pytest.importorskip("mcp.server.mcpserver", reason="the MCP SDK 2 is in the test extras")
    import asyncio

    from memcli.agents.mcp_server import build_server

    def tools() -> dict:
        server = build_server("/nonexistent-memcli-dir", "dev")
        return {t.name: t for t in asyncio.run(server.list_tools())}

    listed = tools()
    assert set(listed) == {op.tool for op in api.OPERATIONS.values() if op.tool}
    for op in api.OPERATIONS.values():
        if not op.tool:
            continue
        tool = listed[op.tool]
        assert tool.description == op.help
        assert set(tool.input_schema["properties"]) == {i.name for i in op.inputs}
        assert set(tool.input_schema.get("required", [])) == {i.name for i in op.inputs if i.required}
        assert tool.annotations.read_only_hint is (not op.writes)
    without = {k: v for k, v in api.OPERATIONS.items() if k != "unarchive"}
    monkeypatch.setattr(api, "OPERATIONS", without)
    assert "unarchive" not in tools()  # the server follows the table: a tool cannot outlive its operation


def test_every_face_says_the_same_of_the_same_operation(mem: Path):
    """The layer's message is what the CLI prints, the MCP tool's text and the page's notice."""
    pytest.importorskip("mcp.server.mcpserver", reason="the MCP SDK 2 is in the test extras")
    import asyncio

    from mcp import ClientSession, StdioServerParameters, stdio_client

    from .test_ui import UI

    first = run("add", "dev", "lessons", "the proxy drops idle sockets after 60 s", cwd=mem, check=True)
    entry = int(first.stdout)
    cli = run("archive", "dev", str(entry), cwd=mem, check=True).stderr.strip()
    assert cli == f"archived dev/lessons {entry}"
    again = run("add", "dev", "lessons", "the proxy drops idle sockets after 60 s", cwd=mem, check=True)
    assert again.stderr.strip() == f"already stored as dev/lessons {entry}; nothing added"

    params = StdioServerParameters(command=sys.executable, args=["-m", "memcli", "mcp"], cwd=str(mem), env=clean_env())

    async def session() -> list[str]:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
            await client.initialize()
            back = await client.call_tool("unarchive", {"ids": [entry]})  # the agent left out: the id names it
            assert not back.is_error and back.structured_content["entries"][0]["changed"] is True
            twice = await client.call_tool("unarchive", {"ids": [entry]})
            copy = await client.call_tool("add", {"agent": "dev", "category": "lessons", "text": first_text})
            assert copy.structured_content["duplicate"] is True
            return [back.content[0].text, twice.content[0].text, copy.content[0].text]

    first_text = "the proxy drops idle sockets after 60 s"
    said = asyncio.run(asyncio.wait_for(session(), 120))
    assert said == [
        f"unarchived dev/lessons {entry}",
        f"dev/lessons {entry} was unarchived already",
        f"already stored as dev/lessons {entry}; nothing added",
    ]
    ui = UI(mem)
    try:
        status, data = ui.write("pin", {"agent": "dev", "id": entry})
        assert status == 200 and data == {"id": entry, "message": f"pinned dev/lessons {entry}"}
        status, data = ui.write("add", {"agent": "dev", "category": "lessons", "text": first_text})
        assert status == 200 and data["message"] == f"already stored as dev/lessons {entry}; nothing added"
    finally:
        ui.stop()
    cli = run("unpin", str(entry), cwd=mem, check=True).stderr.strip()
    assert cli == f"unpinned dev/lessons {entry}"
    assert len(entry_files(mem, "dev", "lessons")) == 1


def test_one_agent_resolver_for_every_face(mem: Path):
    """A person may name a new agent; a model may not write to an agent with no memory while others
    have some; an id alone names its entry whichever agent holds it, on every face."""
    run("add", "dev", "lessons", "a lesson of dev's", cwd=mem, check=True)
    other = api.Memory(str(mem), known_agents_only=True)
    with pytest.raises(Exception, match="known agents: dev"):
        api.add(other, "claude", "lessons", "a lesson for nobody")
    person = api.Memory(str(mem))
    made = api.add(person, "web", "lessons", "a lesson of web's")
    assert made.located.agent == "web" and not made.duplicate
    with pytest.raises(Exception, match="name the agent"):
        api.add(person, None, "lessons", "whose?")
    found = api.show(api.Memory(str(mem)), None, made.located.entry.id)
    assert found.located.agent == "web"
    server = api.Memory(str(mem), default_agent="dev", known_agents_only=True)
    with pytest.raises(Exception, match="web's, not dev's"):
        api.show(server, None, made.located.entry.id)  # the server's agent is the default, as it names it
    assert json.loads(run("list", "--json", cwd=mem, check=True).stdout)[0]["agent"] in ("dev", "web")


# -- small defects found on the way ----------------------------------------------------------------


def test_rm_on_a_terminal_counts_the_entries_once(mem: Path):
    import os
    import subprocess

    ids = [run("add", "dev", "lessons", f"lesson number {n}", cwd=mem, check=True).stdout.strip() for n in (1, 2)]
    master, slave = os.openpty()
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "memcli", "rm", *ids],
            cwd=mem,
            stdin=slave,
            stdout=slave,
            stderr=subprocess.PIPE,
            env=clean_env(),
        )
        os.write(master, b"n\n")
        _, err = proc.communicate(timeout=60)
    finally:
        os.close(slave)
        os.close(master)
    assert proc.returncode == 1
    assert "Remove 2 entries? [y/N]" in err.decode() and "2 2" not in err.decode()
    assert len(entry_files(mem, "dev", "lessons")) == 2  # answered no: nothing removed


def test_the_block_has_no_empty_project_heading(mem: Path):
    run("add", "dev", "lessons", "the proxy drops idle sockets", cwd=mem, check=True)
    block = run("inject", "dev", "proxy sockets", cwd=mem, check=True).stdout
    assert "the proxy drops idle sockets" in block and "Project:" not in block  # _project.md is the template
    (mem / ".memory" / "_project.md").write_text("**Stack:** Django 5 on one VM\n")
    assert "Project:\nStack: Django 5 on one VM" in run("inject", "dev", "x", cwd=mem, check=True).stdout.replace(
        "**", ""
    )


def test_every_setting_has_one_home():
    from memcli.config import DEFAULTS, NOTES, SECTIONS
    from memcli.cli import docs

    assert set(NOTES) <= set(DEFAULTS)
    assert all(any(name.startswith(s + "_") for s in SECTIONS) for name in DEFAULTS)
    block = docs.config_block()
    for name, value in DEFAULTS.items():
        assert f"\n{name.split('_', 1)[1]} = " in block, name
    assert block in (ROOT / "README.md").read_text()


def test_the_first_write_of_a_face_registers_the_merge_driver_and_a_read_does_not(mem: Path):
    """A teammate's fresh clone: the repository has memory but this clone's config no driver."""
    import subprocess

    def git(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(["git", *args], cwd=mem, capture_output=True, text=True, env=clean_env())

    git("init", "-q")
    assert git("config", "merge.memcli.driver").returncode == 1
    run("list", cwd=mem, check=True)
    run("search", "anything", cwd=mem, check=True)
    assert git("config", "merge.memcli.driver").returncode == 1, "a read leaves git's config alone"
    run("add", "dev", "lessons", "the first write of this clone", cwd=mem, check=True)
    assert "memcli merge-driver" in git("config", "merge.memcli.driver").stdout

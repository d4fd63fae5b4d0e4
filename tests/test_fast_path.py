"""Every command parses its arguments without Typer; prove both parsers agree, command by command."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from memcli.cli import fast
from memcli.cli.spec import COMMANDS
from memcli.main import protect_text

from .conftest import imported_modules, run

SPECS = fast.specs()

CASES = {
    "search": [
        ["streaming"],
        ["streaming", "sse", "events"],
        ["x", "--agent", "dev"],
        ["--agent=dev", "x", "-c", "lessons"],
        ["x", "-n", "3", "--json"],
        ["x", "--archived"],
        ["x", "--all", "--json"],
        ["x", "-n3"],
        ["x", "--limit=7", "-a", "qa"],
        ["x", "-n=3"],
        ["--force", "-rf", "x"],
        ["x", "--json", "--", "--json"],
        ["--", "--json", "-n"],
        ["- [ ] task text"],
        ["x", "--limit", "0"],
        ["x", "--limit", "many"],
        ["x", "--nope"],
        [],
        ["x", "--agent"],
        ["x", "--json=1"],
        ["x", "--user", "--json"],
        ["--project", "x"],
        ["x", "--user=1"],
    ],
    "inject": [
        ["dev"],
        ["dev", "fix the login"],
        ["dev", "-"],
        ["dev", "fix", "--budget", "500"],
        ["dev", "fix", "-b", "50", "--format", "json", "--explain"],
        ["dev", "--format=text", "x", "--instructions"],
        ["dev", "- fix the dash bug"],
        ["dev", "--force"],
        ["dev", "-verbose", "--budget", "-5"],
        ["dev", "x", "--format", "xml"],
        ["dev", "x", "--budget", "0"],
        ["dev", "a", "b"],
        [],
        ["dev", "x", "-f"],
        ["dev", "fix", "--project"],
    ],
    "import": [
        [],
        ["CLAUDE.md"],
        ["CLAUDE.md", "AGENTS.md", "--dry-run"],
        ["--user", "--dry-run"],
        ["--user", "CLAUDE.md", "--json"],
        ["--agent", "frontend", ".cursor/rules"],
        ["-a", "qa", "--json", "x.md"],
        ["--allow", "remote-code", "--allow", "override", "CLAUDE.md"],
        ["--agent"],
        ["--nope"],
        ["--dry-run=1"],
    ],
    "export": [
        [],
        ["--to", "claude"],
        ["--to", "copilot", "--to", "cursor", "--budget", "500"],
        ["--to=agents", "-b", "50", "--dry-run", "--json"],
        ["--remove", "-a", "qa"],
        ["--to", "gemini"],
        ["--budget", "0"],
        ["--budget", "many"],
        ["stray"],
        ["--to"],
    ],
    "init": [[], ["--no-hooks"], ["-q", "--remove-hooks"], ["extra"], ["--hooks"]],
    "add": [
        ["dev", "decisions", "Adopt SSE #sse"],
        ["dev", "tasks", "- [ ] write the login test"],
        ["dev", "lessons", "-", "--tag", "release", "-t", "ci"],
        ["dev", "lessons", "x", "--allow-secret", "--dir", "/tmp"],
        ["dev", "lessons", "--tag=a", "x"],
        ["dev"],
        ["dev", "lessons", "a", "b"],
        ["dev", "lessons", "x", "--tag"],
        ["--dir=/tmp", "dev", "lessons", "x"],
        ["--user", "dev", "lessons", "use uv"],
        ["dev", "lessons", "x", "--user", "-t", "py"],
        ["dev", "lessons", "x", "--project"],
    ],
    "edit": [
        ["dev", "17", "new text"],
        ["17", "--tag", "a"],
        ["_project", "-"],
        ["dev", "17", "text", "extra"],
        ["17", "new", "--user"],
        ["--project", "17", "-"],
        [],
    ],
    "review": [[], ["dev"], ["--json"], ["dev", "--json"], ["dev", "qa"], ["--nope"]],
    "trust": [
        ["17"],
        ["dev", "17", "18"],
        ["_project"],
        ["--branch", "pr"],
        ["--branch", "a", "--branch", "b"],
        ["--all", "--json"],
        ["--branch"],
        [],
    ],
    "audit": [[], ["origin/main"], ["main", "HEAD", "--json"], ["--files", "a.md", "b.md"], ["--strict"], ["-x"]],
    "rm": [
        ["dev", "1", "2", "3"],
        ["1"],
        ["dev", "1", "--yes"],
        ["-y", "dev", "1"],
        [],
        ["dev", "1", "--force"],
        ["--user", "1", "2"],
        ["1", "--project", "-y"],
    ],
    "done": [["dev", "17"], ["17"], ["dev", "17", "login", "-q"], ["dev", "17", "a", "b"], [], ["17", "--user"]],
    "archive": [["dev", "17"], ["17", "18"], ["dev", "17", "--json"], ["--archived"], [], ["17", "--user", "--json"]],
    "unarchive": [["dev", "17", "18"], ["17", "--json"], ["-x"], []],
    "pin": [["dev", "17"], ["17", "--json"], [], ["--user", "17"], ["17", "--project"]],
    "supersede": [
        ["dev", "17", "new text"],
        ["17", "-"],
        ["dev", "17", "x", "-t", "a", "--allow-secret"],
        [],
        ["17", "new", "--user"],
    ],
    "unpin": [["17"], ["dev", "17", "18", "--json"], []],
    "list": [
        [],
        ["dev"],
        ["dev", "-c", "tasks", "-t", "sse", "-n", "5", "--json"],
        ["dev", "--archived", "-n", "3"],
        ["-n", "0"],
        ["a", "b"],
        ["--limit", "x"],
        ["dev", "--dir", "/tmp"],
        ["--user"],
        ["dev", "--project", "--json"],
    ],
    "show": [["dev", "17"], ["17", "--json"], ["_project"], ["dev", "17", "18"], [], ["17", "--user", "--json"]],
    "checkpoint": [
        ["dev"],
        ["dev", "-"],
        ["dev", "s.json", "--chat-id", "c", "--model-id", "m", "--close"],
        ["dev", "-", "--json", "-q", "--allow-secret"],
        [],
        ["dev", "a", "b"],
        ["dev", "--chat-id"],
    ],
    "recover": [["dev"], ["dev", "--json"], [], ["dev", "x"]],
    "compact": [[], ["--dry-run", "--if-due", "--json", "-q"], ["-n"], ["x"], ["--user", "--dry-run"], ["--project"]],
    "migrate": [
        [],
        ["--dry-run"],
        ["--from", "a.jsonl", "--from", "b.jsonl", "-a", "dev"],
        ["--json"],
        ["--from"],
        ["x"],
    ],
    "resolve": [[], ["--json"], ["x"]],
    "status": [[], ["dev"], ["dev", "--json"], ["a", "b"], ["--user", "--json"]],
    "setup": [["claude-code"], ["cursor", "--agent", "fe", "--remove", "-q"], ["codex", "-a", "x"], [], ["a", "b"]],
    "mcp": [[], ["x"], ["--dir", "/tmp"]],
    "ui": [
        [],
        ["--port", "0", "--no-open", "--read-only"],
        ["-p", "9000"],
        ["--port"],
        ["--port", "x"],
        ["--port", "-1"],
        ["--port", "70000"],
        ["x"],
        ["--no-open", "--nope"],
    ],
}


def test_every_command_is_covered():
    assert set(CASES) == set(COMMANDS)


def typer_parse(command: str, args: list[str]) -> tuple[int, dict | None]:
    seen: dict = {}

    def record(dir_option, **kwargs):
        seen.update(kwargs, dir=dir_option)
        return 0

    app = typer.Typer()
    app.command(command)(fast.typer_command(SPECS[command], record))

    @app.callback()
    def callback() -> None:  # keep `command` a subcommand, as in the real app
        pass

    argv = protect_text([command, *args])
    result = CliRunner().invoke(app, argv)
    return result.exit_code, (seen if result.exit_code == 0 else None)


@pytest.mark.parametrize("command,args", [(c, a) for c, cases in CASES.items() for a in cases])
def test_fast_parser_agrees_with_typer(command: str, args: list[str]):
    expected_code, expected = typer_parse(command, args)
    got = fast.parse(SPECS[command], protect_text([command, *args])[1:])  # as memcli.main runs it
    if expected is None:
        assert got is None, f"fast path accepted what Typer refuses (exit {expected_code})"
        assert expected_code == 2
    else:
        assert got == expected


def test_typer_command_has_every_spec_option():
    for command, spec in SPECS.items():
        cmd = typer.main.get_command(_single(command))
        params = {p.name: p for p in cmd.params}
        for p in spec.params:
            assert p.name in params
            if p.flags:
                assert set(params[p.name].opts) == set(p.flags)


def _single(command: str) -> typer.Typer:
    app = typer.Typer()
    app.command(command)(fast.typer_command(SPECS[command], lambda d, **k: 0))
    return app


def _imported(args: list[str], cwd: Path) -> set[str]:
    return {name.split(".")[0] for name in imported_modules(args, cwd)}


def test_search_path_imports_no_typer_rich_or_git(mem: Path):
    run("add", "dev", "lessons", "lean start-up", cwd=mem, check=True)
    run("search", "lean", cwd=mem, check=True)  # build the index first
    modules = _imported(["search", "lean"], mem)
    assert "tantivy" in modules
    assert not {"typer", "rich", "git", "click", "pydantic"} & modules


def test_reading_commands_import_no_typer_tantivy_rich_or_git(mem: Path):
    for args in (["list"], ["status"], ["show", "_project"], ["--version"], ["recover", "dev"]):
        modules = _imported(args, mem)
        assert "memcli" in modules
        assert not {"typer", "click", "tantivy", "rich", "git", "pydantic"} & modules, args

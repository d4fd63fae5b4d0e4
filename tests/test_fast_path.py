"""`search` and `inject` parse their arguments without Typer; prove both parsers agree."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from memcli.cli import fast
from memcli.cli.spec import SPECS
from memcli.main import protect_text

from .conftest import clean_env, run

CASES = {
    "search": [
        ["streaming"],
        ["streaming", "sse", "events"],
        ["x", "--agent", "dev"],
        ["--agent=dev", "x", "-c", "lessons"],
        ["x", "-n", "3", "--json"],
        ["x", "-n3"],
        ["x", "--limit=7", "-a", "qa"],
        ["--", "--json", "-n"],
        ["- [ ] task text"],
        ["x", "--limit", "0"],
        ["x", "--limit", "many"],
        ["x", "--nope"],
        [],
        ["x", "--agent"],
        ["x", "--json=1"],
    ],
    "inject": [
        ["dev"],
        ["dev", "fix the login"],
        ["dev", "-"],
        ["dev", "fix", "--budget", "500"],
        ["dev", "fix", "-b", "50", "--format", "json", "--explain"],
        ["dev", "--format=text", "x", "--instructions"],
        ["dev", "- fix the dash bug"],
        ["dev", "x", "--format", "xml"],
        ["dev", "x", "--budget", "0"],
        ["dev", "a", "b"],
        [],
        ["dev", "x", "-f"],
    ],
}


def typer_parse(command: str, args: list[str]) -> tuple[int, dict | None]:
    seen: dict = {}

    def record(dir_option, **kwargs):
        seen.update(kwargs)
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
    got = fast.parse(SPECS[command], args)
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
    import subprocess

    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "memcli", *args],
        cwd=cwd, capture_output=True, text=True, env=clean_env(),
    )
    return {m.group(1).split(".")[0] for m in re.finditer(r"\|\s+(\S+)\s*$", result.stderr, re.M)}


def test_search_path_imports_no_typer_rich_or_git(mem: Path):
    run("add", "dev", "lessons", "lean start-up", cwd=mem, check=True)
    run("search", "lean", cwd=mem, check=True)  # build the index first
    modules = _imported(["search", "lean"], mem)
    assert "tantivy" in modules
    assert not {"typer", "rich", "git", "click", "pydantic"} & modules


def test_plain_commands_import_no_tantivy_rich_or_git(mem: Path):
    modules = _imported(["list"], mem)
    assert "typer" in modules
    assert not {"tantivy", "rich", "git", "pydantic"} & modules

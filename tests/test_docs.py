"""Completions, man page and help never drift from the CLI; output manners and --json shapes."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from memcli.cli import docs
from memcli.storage.paths import Layout
from memcli.storage.store import Store

from .conftest import ROOT, clean_env, run, run_on_terminal


@pytest.mark.parametrize("rel", sorted(docs.GENERATED))
def test_generated_files_match_the_cli(rel: str):
    committed = (ROOT / rel).read_text(encoding="utf-8")
    assert committed == docs.GENERATED[rel](), f"{rel} is stale: run `python -m memcli.cli.docs`"


def test_man_page_covers_every_command_and_option():
    page = (ROOT / "man" / "memcli.1").read_text()
    _, cmds = docs.commands()
    assert len(cmds) >= 13
    for c in cmds:
        assert f'.SS "{c.name}"' in page
        for o in c.options:
            for name in o.names:
                assert "\\fB" + name.replace("-", "\\-") + "\\fR" in page, (c.name, name)
    for section in (".SH EXIT STATUS", ".SH ENVIRONMENT", ".SH FILES", ".SH EXAMPLES"):
        assert section in page


@pytest.mark.skipif(shutil.which("groff") is None, reason="groff is not installed on this machine")
def test_man_page_renders_without_warnings():
    result = subprocess.run(
        ["groff", "-man", "-ww", "-z", str(ROOT / "man" / "memcli.1")], capture_output=True, text=True
    )
    assert result.returncode == 0 and result.stderr == ""


def test_bash_completion(mem: Path):
    Store(Layout(mem)).add("dev", "lessons", "x")
    Store(Layout(mem)).add("qa", "lessons", "y")
    script = ROOT / "completions" / "memcli.bash"
    assert subprocess.run(["bash", "-n", str(script)]).returncode == 0

    def complete(line: str) -> list[str]:
        words = line.split(" ")
        program = (
            f"source {script}; COMP_WORDS=({' '.join(repr(w) for w in words)}); COMP_CWORD={len(words) - 1}; "
            "_memcli; printf '%s\\n' \"${COMPREPLY[@]}\""
        )
        env = clean_env(PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
        out = subprocess.run(["bash", "-c", program], cwd=mem, capture_output=True, text=True, env=env).stdout
        return out.split()

    assert complete("memcli se") == ["search", "setup"]
    assert complete("memcli add ") == ["dev", "qa"]
    assert complete("memcli add dev ") == ["decisions", "lessons", "tasks", "projects", "handoffs"]
    assert "--budget" in complete("memcli inject dev --b")
    assert complete("memcli search x --agent q") == ["qa"]
    assert complete("memcli inject dev x --format ") == ["text", "json"]


@pytest.mark.skipif(shutil.which("fish") is None, reason="fish is not installed on this machine")
def test_fish_completion(mem: Path):
    script = ROOT / "completions" / "memcli.fish"
    assert subprocess.run(["fish", "-n", str(script)]).returncode == 0
    Store(Layout(mem)).add("dev", "lessons", "x")
    env = clean_env(PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")

    def complete(line: str) -> list[str]:
        out = subprocess.run(
            ["fish", "--no-config", "-c", f"source {script}; complete -C '{line}'"],
            cwd=mem,
            capture_output=True,
            text=True,
            env=env,
        ).stdout
        return [row.split("\t")[0] for row in out.splitlines()]

    assert complete("memcli se") == ["search", "setup"]
    assert complete("memcli add ") == ["dev"]
    assert "--budget" in complete("memcli inject dev --b")
    assert complete("memcli inject dev x --format ") == ["json", "text"] or complete(
        "memcli inject dev x --format "
    ) == ["text", "json"]


@pytest.mark.skipif(shutil.which("zsh") is None, reason="zsh is not installed on this machine")
def test_zsh_completion_parses():
    assert subprocess.run(["zsh", "-n", str(ROOT / "completions" / "_memcli")]).returncode == 0


def test_every_command_help_has_an_example(tmp_path: Path):
    _, cmds = docs.commands()
    for c in cmds:
        result = run(c.name, "--help", cwd=tmp_path)
        assert result.returncode == 0 and f"memcli {c.name}" in result.stdout, c.name
        assert "Example" in result.stdout, c.name


def test_unknown_command_and_option_suggest_the_nearest(tmp_path: Path):
    result = run("serach", "x", cwd=tmp_path)
    assert result.returncode == 2 and "Did you mean 'search'?" in result.stderr
    result = run("list", "--jsn", cwd=tmp_path)
    assert result.returncode == 2 and "--json" in result.stderr
    assert run("--version", cwd=tmp_path).stdout.startswith("memcli ")


def _populated(mem: Path) -> None:
    store = Store(Layout(mem))
    store.add("dev", "decisions", "Adopt SSE for streaming #sse")
    store.add("dev", "tasks", "- [ ] ship it")
    run(
        "checkpoint",
        "dev",
        "-",
        cwd=mem,
        check=True,
        input=json.dumps([{"role": "user", "text": "hi"}, {"role": "assistant", "text": "hello"}]),
    )


def test_no_escape_codes_on_a_pipe_or_with_no_color(mem: Path):
    _populated(mem)
    commands = [
        ["list"],
        ["status"],
        ["search", "streaming"],
        ["show", "_project"],
        ["inject", "dev", "sse"],
        ["recover", "dev"],
        ["compact", "--dry-run"],
        ["--help"],
        ["search", "--help"],
    ]
    with_no_color = clean_env(TERM="xterm-256color")
    piped_only = {k: v for k, v in with_no_color.items() if k != "NO_COLOR"}
    for args in commands:
        for env in (with_no_color, piped_only):
            result = run(*args, cwd=mem, env=env)
            assert "\x1b" not in result.stdout + result.stderr, (args, "NO_COLOR" in env)


def test_colour_on_a_terminal_unless_no_color(mem: Path):
    _populated(mem)
    env = clean_env(TERM="xterm-256color")
    env.pop("NO_COLOR")
    assert "\x1b[" in run_on_terminal(["search", "streaming"], mem, env)[1]
    assert "\x1b[" in run_on_terminal(["list"], mem, env)[1]
    env["NO_COLOR"] = "1"
    assert "\x1b[" not in run_on_terminal(["search", "streaming"], mem, env)[1]
    assert "\x1b[" not in run_on_terminal(["list"], mem, env)[1]


JSON_SHAPES = {
    ("status", "--json"): {"root", "agents", "totals", "index", "last_compaction", "git", "trust"},
    ("search", "streaming", "--json"): {
        "id",
        "agent",
        "category",
        "date",
        "tags",
        "score",
        "snippet",
        "matches",
        "stale",
        "held",
        "body",
        "scope",
    },
    ("list", "--json"): {
        "id",
        "agent",
        "category",
        "date",
        "tags",
        "body",
        "superseded_by",
        "supersedes",
        "stale",
        "held",
        "scope",
    },
    ("recover", "dev", "--json"): {"agentId", "savedAt", "messages", "ageHours"},
    ("inject", "dev", "sse", "--format", "json"): {
        "agent",
        "command",
        "budget",
        "tokens",
        "block",
        "sections",
        "cut",
        "held",
    },
    ("compact", "--dry-run", "--json"): {
        "timestamp",
        "checkpointsCleaned",
        "conversationsTrimmed",
        "vaultEntriesMerged",
        "indexRebuilt",
        "legacyFilesCleaned",
        "dryRun",
        "actions",
    },
    ("migrate", "--dry-run", "--json"): {"files", "entries", "conversations", "skipped", "dryRun"},
}


@pytest.mark.parametrize("args", list(JSON_SHAPES))
def test_every_json_output_parses_with_the_documented_keys(mem: Path, args):
    _populated(mem)
    data = json.loads(run(*args, cwd=mem, check=True).stdout)
    item = data[0] if isinstance(data, list) else data
    assert JSON_SHAPES[args] <= set(item)
    entry_id = Store(Layout(mem)).read("dev", "decisions")[0].id
    shown = json.loads(run("show", "dev", str(entry_id), "--json", cwd=mem, check=True).stdout)
    assert set(shown) == JSON_SHAPES[("list", "--json")] - {"stale"}


def test_progress_bar_on_a_terminal_only(mem: Path):
    """Driven by entries, not files: 6,000 entries in two files show a bar; 250 small files do not."""
    from memcli.storage import vault
    from memcli.storage.vault import Entry

    folder = mem / ".memory" / "dev"
    folder.mkdir()
    for c in ("decisions", "lessons"):
        entries = [Entry(1_700_000_000_000 + n, None, [], f"note {n} {c}") for n in range(3000)]
        (folder / f"{c}.md").write_text(vault.serialize(entries[::-1]))
    env = clean_env(TERM="xterm")
    result, terminal = run_on_terminal(["search", "note"], mem, env, stream="stderr")
    assert result.returncode == 0 and "indexing memory" in terminal
    assert "/6,000" in terminal  # counted in entries, of two files
    assert terminal.rstrip(" ").endswith("\r")  # wiped at the end: the next output starts a clean line
    assert "\x1b" not in result.stdout.decode() + terminal
    shutil.rmtree(mem / ".memory" / ".vault" / "index")
    result, narrow = run_on_terminal(["search", "note"], mem, env, stream="stderr", columns=30)
    assert result.returncode == 0 and "indexing memory" in narrow
    assert max(len(line) for line in narrow.split("\r")) < 30  # never wraps: each redraw overwrites the last
    shutil.rmtree(mem / ".memory" / ".vault" / "index")
    piped = run("search", "note", cwd=mem, env=env)
    assert piped.returncode == 0 and piped.stderr == ""
    shutil.rmtree(folder)
    shutil.rmtree(mem / ".memory" / ".vault" / "index")
    for a in range(50):  # 250 vault files of one entry each: quick, no bar
        many = mem / ".memory" / f"agent{a}"
        many.mkdir()
        for c in ("decisions", "lessons", "tasks", "projects", "handoffs"):
            (many / f"{c}.md").write_text(vault.serialize([Entry(1_700_000_000_000 + a, None, [], f"note {a} {c}")]))
    result, terminal = run_on_terminal(["search", "note"], mem, env, stream="stderr")
    assert result.returncode == 0 and "indexing memory" not in terminal


def test_readme_documents_every_command_and_option():
    readme = (ROOT / "README.md").read_text()
    _, cmds = docs.commands()
    for c in cmds:
        assert f"| `memcli {c.name}" in readme, f"{c.name} missing from the README's command table"
        assert f"\nmemcli {c.name}" in readme or f"$ memcli {c.name}" in readme or f"memcli {c.name} " in readme
        for o in c.options:
            if o.names[0] in ("--help",):
                continue
            assert any(n in readme for n in o.names), f"{c.name} {o.names[0]} is not in the README"


def test_ruff_finds_nothing():
    """The lint configured in pyproject.toml (undefined names, unused imports, syntax errors)."""
    import shutil
    import subprocess

    ruff = shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")
    result = subprocess.run([ruff, "check", str(ROOT)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format_leaves_everything_as_it_is():
    """The code is formatted as `ruff format` (configured in pyproject.toml) writes it."""
    import shutil
    import subprocess

    ruff = shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")
    result = subprocess.run([ruff, "format", "--check", str(ROOT)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr

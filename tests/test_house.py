"""The shape of the code: types checked, imports one-way, git in one module (CONTRIBUTING.md)."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import ROOT

PACKAGE = ROOT / "memcli"

# A module imports only from its own layer or a lower one (CONTRIBUTING.md, "Module map").
LAYERS = [
    ("memcli.errors", "memcli.jsonio", "memcli.patterns", "memcli.output", "memcli.git.repo", "memcli.cli.spec"),
    ("memcli.config", "memcli.storage"),
    ("memcli.search", "memcli.capture"),
    ("memcli.api", "memcli.recall", "memcli.upkeep", "memcli.git"),
    ("memcli.agents", "memcli.ui"),
    ("memcli.cli", "memcli.main", "memcli.__main__"),
]


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        found[name.removesuffix(".__init__")] = path
    return found


def _imports(path: Path, modules: dict[str, Path]) -> set[str]:
    """The memcli modules ``path`` imports, at the top or inside functions."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "memcli":
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                out.add(sub if sub in modules else node.module)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.split(".")[0] == "memcli")
    return {m for m in out if m in modules}


def _layer(module: str) -> int:
    best = None
    for n, names in enumerate(LAYERS):
        for name in names:
            if (module == name or module.startswith(name + ".")) and (best is None or len(name) > len(best[1])):
                best = (n, name)
    assert best is not None, f"{module} is in no layer: add it to LAYERS and to CONTRIBUTING.md's map"
    return best[0]


def test_imports_only_go_down_the_layers_and_never_in_a_circle():
    modules = _modules()
    graph = {m: _imports(p, modules) - {m, "memcli"} for m, p in modules.items()}
    upward = [
        f"{m} (layer {_layer(m)}) imports {d} (layer {_layer(d)})"
        for m, deps in sorted(graph.items())
        for d in sorted(deps)
        if _layer(d) > _layer(m)
    ]
    assert not upward, "\n".join(upward)
    # no cycle within a layer either (depth-first search)
    state: dict[str, int] = {}

    def visit(m: str, trail: list[str]) -> None:
        state[m] = 1
        for d in graph[m]:
            if state.get(d) == 1:
                pytest.fail("import cycle: " + " -> ".join(trail[trail.index(d) :] + [m, d]))
            if d not in state:
                visit(d, trail + [m])
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m, [])


def test_only_the_git_module_runs_git():
    """Every git command goes through memcli/git/repo.py; the one other process memcli starts is
    the user's $EDITOR."""
    runs_processes = sorted(
        str(p.relative_to(ROOT))
        for p in PACKAGE.rglob("*.py")
        if any(
            isinstance(n, (ast.Import, ast.ImportFrom))
            and "subprocess" in ([a.name for a in n.names] if isinstance(n, ast.Import) else [n.module])
            for n in ast.walk(ast.parse(p.read_text()))
        )
    )
    assert runs_processes == ["memcli/cli/common.py", "memcli/git/repo.py"]
    assert '"git"' not in (PACKAGE / "cli" / "common.py").read_text()


def test_mypy_finds_nothing():
    """The package type-checks (configured in pyproject.toml)."""
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "memcli"], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize(("args", "code"), [(["list"], 1), (["inject", "dev", "a task"], 0)])
def test_windows_gets_one_line_not_a_traceback(monkeypatch, capsys, args: list[str], code: int):
    """memcli is POSIX-only (fcntl's lock, sh hooks): on Windows it says so; inject stays silent."""
    from memcli.main import main

    monkeypatch.setattr(sys, "platform", "win32")
    assert main(args) == code
    err = capsys.readouterr().err
    assert ("POSIX" in err) == (code == 1) and "Traceback" not in err


def test_one_reader_of_the_command_line():
    """memcli.main reads the words before the command (``split_global``) and
    ``memcli.cli.fast.parse`` every command's and entry point's arguments from its spec (Typer's
    face is built from the same specs: tests/test_fast_path.py).  No other module reads
    ``sys.argv``, walks an argument list by hand, or passes --dir on through the environment."""
    readers = []
    for p in PACKAGE.rglob("*.py"):
        text = p.read_text()
        name = str(p.relative_to(ROOT))
        if "sys.argv" in text and name != "memcli/main.py":
            readers.append(f"{name}: sys.argv")
        if 'os.environ["MEMCLI_DIR"] =' in text or "os.environ['MEMCLI_DIR'] =" in text:
            readers.append(f"{name}: sets MEMCLI_DIR")
        if re.search(r'(==|in \(|startswith\()\s*"--(dir|agent)', text) and name != "memcli/main.py":
            readers.append(f"{name}: reads --dir or --agent by hand")
    assert readers == []


def test_one_rule_says_which_folders_are_agents():
    """storage.paths.may_be_agent is the rule; the store, the freshness check, the merge driver,
    provenance and trust ask it instead of spelling it out."""
    spelled = sorted(
        str(p.relative_to(ROOT))
        for p in PACKAGE.rglob("*.py")
        if re.search(r"""(!=|==) ["']conversations["']|startswith\(\(["']\.["'], ["']_["']\)\)""", p.read_text())
    )
    assert spelled == ["memcli/git/resolve.py", "memcli/storage/paths.py"]  # resolve walks sessions too

"""Codex: a marked section in ``AGENTS.md``, the MCP server in ``.codex/config.toml`` and the
session hooks in ``.codex/hooks.json`` (Codex honours both in a trusted project)."""

from __future__ import annotations

import sys

from pathlib import Path

from memcli.agents.files import Change, read_text, sections, target, text_change, with_section
from memcli.agents.wiring import MARK, guide, hook_groups
from memcli.errors import MemcliError

CODEX_HOOKS = ".codex/hooks.json"
# Codex has no session-end event: its Stop (after each turn) saves the conversation.
CODEX_EVENTS = {
    "SessionStart": ("startup|resume|clear|compact", 10),
    "PreCompact": ("manual|auto", 30),
    "Stop": (None, 30),
}


AGENTS_MD = "AGENTS.md"
SECTION_START = f"<!-- {MARK}: start -->"
SECTION_END = f"<!-- {MARK}: end -->"


CODEX_CONFIG = ".codex/config.toml"
TOML_MARKS = (f"# {MARK}: start", f"# {MARK}: end")


def changes(root: Path, agent: str, remove: bool) -> list[Change]:
    """AGENTS.md's section, the MCP server in the project's ``.codex/config.toml`` and the session
    hooks in ``.codex/hooks.json`` (Codex honours both in a trusted project)."""
    changes = []
    path = target(root, AGENTS_MD, markdown=True)
    current = read_text(path)
    section = None if remove else "## Project memory (memcli)\n\n" + guide(agent)
    wanted = with_section(current, section, (SECTION_START, SECTION_END), AGENTS_MD)
    if wanted != current:
        changes.append(text_change(path, current, wanted, AGENTS_MD, "memcli's section"))
    changes.extend(_mcp(root, agent, remove))
    changes.extend(hook_groups(root, CODEX_HOOKS, "codex", CODEX_EVENTS, agent, remove))
    return changes


def mcp_toml(agent: str) -> str:
    """The MCP server's table for Codex's config.toml (``--agent``: the agent a call means when it
    names none)."""
    return f'[mcp_servers.memcli]\ncommand = "memcli"\nargs = ["mcp", "--agent", "{agent}"]\n'


def _mcp(root: Path, agent: str, remove: bool) -> list[Change]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # Python 3.10
        import tomli as tomllib

    path = target(root, CODEX_CONFIG)
    current = read_text(path)
    try:
        parsed = tomllib.loads(current or "")
    except tomllib.TOMLDecodeError as exc:
        raise MemcliError(f"{path} is not valid TOML ({exc}); fix it first, nothing changed") from None
    servers = parsed.get("mcp_servers")
    if isinstance(servers, dict) and "memcli" in servers and not sections(current or "", TOML_MARKS, CODEX_CONFIG):
        if remove:
            return []  # the user's own server entry: not setup's to take out
        raise MemcliError(f"{path} already configures an MCP server named memcli; nothing changed")
    wanted = with_section(current, None if remove else mcp_toml(agent), TOML_MARKS, CODEX_CONFIG)
    if wanted == current:
        return []
    try:
        result = tomllib.loads(wanted or "")
        ok = remove or result["mcp_servers"]["memcli"] == tomllib.loads(mcp_toml(agent))["mcp_servers"]["memcli"]
    except (tomllib.TOMLDecodeError, KeyError, TypeError):
        ok = False
    if not ok:  # an inline table, an array of tables: the lines would not mean what they say
        raise MemcliError(
            f"{path}: memcli's MCP table does not fit in it (mcp_servers is an inline table or an array);"
            f" add it by hand: codex mcp add memcli -- memcli mcp"
        )
    return [text_change(path, current, wanted, CODEX_CONFIG, "memcli's MCP server")]

"""Claude Code: memcli's hooks in ``.claude/settings.json`` and its MCP server in ``.mcp.json``."""

from __future__ import annotations

from pathlib import Path

from memcli.agents.files import Change
from memcli.agents.wiring import hook_groups, mcp_servers

CLAUDE_SETTINGS = ".claude/settings.json"
CLAUDE_MCP = ".mcp.json"  # the project's MCP servers, shared with the team
# event -> matcher (None: match everything) and timeout in seconds.  SessionStart's stdout is
# added to the session's context; the others save the conversation from the transcript.
# SessionEnd must name its timeout: Claude Code gives it 1.5 s otherwise.
CLAUDE_EVENTS = {
    "SessionStart": ("startup|resume|clear|compact|fork", 10),
    "PreCompact": ("manual|auto", 30),
    "SessionEnd": (None, 30),
}


def changes(root: Path, agent: str, remove: bool) -> list[Change]:
    return [
        *hook_groups(root, CLAUDE_SETTINGS, "claude-code", CLAUDE_EVENTS, agent, remove),
        *mcp_servers(root, CLAUDE_MCP, agent, remove),
    ]

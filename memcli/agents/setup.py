"""``memcli setup``: wiring memcli into coding agents' own extension points.

One module knows each agent's files: ``claude_code`` (``.claude/settings.json`` hooks),
``cursor`` (``.cursor/hooks.json`` and ``.cursor/rules/memcli.mdc``) and ``codex`` (an
``AGENTS.md`` section, its MCP configuration and hooks).  ``plan`` works out every file's new
content first (a file it cannot read or parse stops everything, with nothing written);
``files.apply`` then writes them all or none.  Running setup twice changes nothing;
``remove=True`` takes out exactly what setup put in (memcli's hook entries, its marked
section, its own rule file) and keeps everything else.

What the hooks run, ``memcli agent-hook CLIENT --agent ID``, is ``memcli.agents.hook``.
"""

from __future__ import annotations

from memcli.agents import claude_code, codex, cursor
from memcli.agents.files import Change, apply
from memcli.agents.wiring import CLIENTS, DEFAULT_AGENT, hook_command, hook_groups
from memcli.errors import MemcliError
from memcli.storage.paths import Layout, validate_agent

from pathlib import Path

SETUPS = {"claude-code": claude_code.changes, "cursor": cursor.changes, "codex": codex.changes}


def plan(layout: Layout, client: str, agent: str = DEFAULT_AGENT, remove: bool = False) -> list[Change]:
    if client not in SETUPS:
        raise MemcliError(f"unknown agent {client!r}; memcli sets up: {', '.join(CLIENTS)}")
    validate_agent(agent)
    layout.require()
    try:
        return SETUPS[client](layout.root, agent, remove)
    except RecursionError:
        raise MemcliError("a settings file is nested too deeply to be changed safely; nothing changed") from None


HOOK_FILES = {"claude-code": ".claude/settings.json", "cursor": ".cursor/hooks.json", "codex": ".codex/hooks.json"}


def check(layout: Layout, client: str, agent: str = DEFAULT_AGENT) -> list[str]:
    """What is missing or broken in a client's wiring (nothing: intact): every file setup would
    change, and hooks that cannot find memcli on this machine."""
    import os

    from memcli.agents.wiring import our_commands, reachable

    problems = [
        f"{os.path.relpath(c.path, layout.root)}: not as `memcli setup {client}` leaves it (it would have {c.note})"
        for c in plan(layout, client, agent)
    ]
    for command in sorted(our_commands(layout.root / HOOK_FILES[client], client)):
        if not reachable(command, client):
            problems.append(
                f"{HOOK_FILES[client]}: the hooks find no memcli here (not on PATH, and the Python they fall back to"
                f" is not this machine's): run `memcli setup {client}` here"
            )
            break
    return problems


def setup(
    layout: Layout, client: str, agent: str = DEFAULT_AGENT, remove: bool = False, lock_timeout: float = 10.0
) -> list[Change]:
    """Plan and apply under memcli's lock (two setups at once take turns); the changes made."""
    from memcli.storage.fsutil import file_lock

    layout.require()
    with file_lock(layout.lock_path, lock_timeout, layout.memory):
        changes = plan(layout, client, agent, remove)
        apply(layout, changes, remove)
    return changes


# -- the agents' user-level settings (``memcli setup --user``) --------------------------------------
#
# One hook there, at session start, brings the developer's personal memory to every folder the
# agent runs in, and a project's memory too where the project has not wired memcli for that agent
# itself (``agent-hook --user`` is quiet there: the project's own hook prints the block, personal
# section included).  Saving sessions stays with each project's own wiring: a project decides
# whether its conversations are committed.
USER_EVENTS: dict[str, dict] = {
    "claude-code": {"SessionStart": claude_code.CLAUDE_EVENTS["SessionStart"]},
    "cursor": {"sessionStart": cursor.CURSOR_EVENTS["sessionStart"]},
    "codex": {"SessionStart": codex.CODEX_EVENTS["SessionStart"]},
}
# Where each agent reads its user-level hooks: a folder (its environment variable, else one in
# the home folder) and the file in it.
USER_FILES = {
    "claude-code": ("CLAUDE_CONFIG_DIR", ".claude", "settings.json"),
    "cursor": (None, ".cursor", "hooks.json"),
    "codex": ("CODEX_HOME", ".codex", "hooks.json"),
}


def user_file(client: str) -> Path:
    """The agent's user-level hooks file (where a symlink there leads: a dotfiles repository's)."""
    import os

    env, folder, name = USER_FILES[client]
    base = os.environ.get(env) if env else None
    if base and not os.path.isabs(base):
        raise MemcliError(f"{env} is {base!r}, not an absolute path; nothing changed")
    if not base:
        from memcli.storage.paths import home_folder

        home = home_folder()
        if not os.path.isabs(home):
            raise MemcliError(f"no home folder to find {folder}/{name} in (HOME is {home!r})")
        base = os.path.join(home, folder)
    return Path(os.path.realpath(os.path.join(os.path.abspath(base), name)))


def plan_user(client: str, agent: str = DEFAULT_AGENT, remove: bool = False) -> list[Change]:
    if client not in SETUPS:
        raise MemcliError(f"unknown agent {client!r}; memcli sets up: {', '.join(CLIENTS)}")
    validate_agent(agent)
    path = user_file(client)
    try:
        if client == "cursor":
            return cursor.hooks(path.parent, path.name, USER_EVENTS[client], agent, remove, user=True)
        return hook_groups(path.parent, path.name, client, USER_EVENTS[client], agent, remove, user=True)
    except RecursionError:
        raise MemcliError("a settings file is nested too deeply to be changed safely; nothing changed") from None


def setup_user(client: str, agent: str = DEFAULT_AGENT, remove: bool = False) -> list[Change]:
    """Plan and write the user-level hook (one file, replaced whole); the changes made.  A removal
    keeps the file, however little is left in it: it may be the user's own (``{}``, a dotfiles
    repository's file a symlink leads to)."""
    from memcli.storage.fsutil import atomic_write, refused_as_one_line

    changes = plan_user(client, agent, remove)
    for change in changes:
        with refused_as_one_line(change.path):
            change.path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(change.path, change.content or "{}\n", change.path.parent)
    return changes


def check_user(client: str, agent: str = DEFAULT_AGENT) -> list[str]:
    """What is missing in the user-level wiring (nothing: intact), and a hook that cannot find memcli."""
    from memcli.agents.wiring import reachable

    path = user_file(client)
    problems = [
        f"{path}: not as `memcli setup {client} --user` leaves it (it would have {c.note})"
        for c in plan_user(client, agent)
    ]
    if not problems and not reachable(hook_command(client, agent, user=True), client, user=True):
        problems.append(f"{path}: the hook finds no memcli here: run `memcli setup {client} --user` here")
    return problems

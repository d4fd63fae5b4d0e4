"""`memcli add`."""

from __future__ import annotations

from memcli.cli.spec import ALLOW_RULE, ALLOW_SECRET, CommandSpec, Param, agent_argument, tag_option, user_flag

SPEC = CommandSpec(
    name="add",
    help="Add an entry to an agent's category and print its id.",
    epilog="""Examples:

  memcli add dev decisions "Adopt SSE instead of WebSockets #sse #architecture"

  memcli add dev tasks "- [ ] write the login test"

  git log -1 --format=%B | memcli add dev lessons - --tag release

  memcli add --user dev lessons "Use uv, not pip, in every repository #python"     (personal memory)
""",
    params=(
        agent_argument(),
        Param(
            "category",
            "argument",
            help="decisions, lessons, tasks, projects or handoffs.",
            metavar="CATEGORY",
            required=True,
        ),
        Param("text", "argument", help="The text; '-' reads stdin; omitted: $EDITOR.", metavar="[TEXT]"),
        tag_option(),
        ALLOW_SECRET,
        ALLOW_RULE,
        user_flag(
            "Add it to your personal memory (outside every repository; injected in each of them), not the project's."
        ),
    ),
)

TEMPLATE = {
    "decisions": "What was decided, and why (one decision; #tags for topics).",
    "lessons": "What was learned, and how to avoid the trap next time (#tags for topics).",
    "tasks": "- [ ] what is left to do",
    "projects": "What this part of the project is, where it lives, who owns it.",
    "handoffs": "Where you stopped, and what the next session must do first.",
}


def run(
    dir_option: str | None,
    agent: str,
    category: str,
    text: str | None = None,
    tag: list[str] | None = None,
    allow_secret: bool = False,
    allow: list[str] | None = None,
    user: bool = False,
) -> int:
    from memcli import api
    from memcli.cli import common
    from memcli.output import echo

    mem = common.memory(dir_option, user=user)
    mem.store.check(agent, category)
    api.clean_tags(tag)
    api.allow_tags(allow)  # an unknown rule is refused before the text is asked for
    body = common.read_text_argument(text, template=TEMPLATE.get(category, ""), what=f"a new {agent}/{category} entry")
    added = api.add(mem, agent, category, body, tag, allow_secret, allow)
    if added.duplicate:  # the same memory once: say where it is, as a new entry's id would be said
        echo(api.scope_note(mem, added.message), err=True)
    echo(str(added.located.entry.id))
    return 0

"""`memcli edit`."""

from __future__ import annotations

from memcli.cli.spec import (
    ALLOW_RULE,
    ALLOW_SECRET,
    BY_ID_SCOPE,
    CommandSpec,
    Param,
    agent_or_id,
    entry_id_argument,
    tag_option,
)

SPEC = CommandSpec(
    name="edit",
    help="""Change an entry's text or tags by id, or the shared _project.md.

New text brings its own tags: its #hashtags and --tag. --tag alone replaces the tags and
keeps the text. The agent may be left out when no other agent has an entry with that id.""",
    epilog="""Examples:

  memcli edit dev 1773679871839 "Adopt SSE; WebSockets only for the admin panel"

  memcli edit 1773679871839 --tag architecture

  memcli edit dev 1773679871839          (opens $EDITOR on the entry)

  memcli edit _project                   (opens $EDITOR on .memory/_project.md)

  memcli edit _project - < PROJECT.md
""",
    params=(
        agent_or_id(project=True),
        entry_id_argument(),
        Param("text", "argument", help="New text; '-' reads stdin; omitted: $EDITOR.", metavar="[TEXT]"),
        tag_option("Tags (repeatable): with new text, added to its #hashtags; alone, they replace the tags."),
        ALLOW_SECRET,
        ALLOW_RULE,
        *BY_ID_SCOPE,
    ),
)


def run(
    dir_option: str | None,
    agent: str,
    entry_id: str | None = None,
    text: str | None = None,
    tag: list[str] | None = None,
    allow_secret: bool = False,
    allow: list[str] | None = None,
    user: bool = False,
    project: bool = False,
) -> int:
    from memcli import api
    from memcli.cli import common
    from memcli.errors import MemcliError
    from memcli.output import echo
    from memcli.storage.paths import PROJECT_NAME

    if agent == PROJECT_NAME:
        store = None if user else common.open_store(dir_option)
        if store is None or store.layout.personal:  # (a _project.md would make it a project's: paths.not_personal)
            raise MemcliError(
                "your personal memory has no _project.md (its entries are what inject shows); nothing changed"
            )
        if tag:
            raise MemcliError("_project.md has no tags; nothing changed")
        allowed = api.allow_tags(allow)
        if any(t != f"allow-{api.PERSONAL_RULE}" for t in allowed):
            raise MemcliError(
                f"_project.md takes no --allow but --allow {api.PERSONAL_RULE} (it has no tags to record one);"
                " nothing changed"
            )
        if entry_id is not None and text is not None:
            raise MemcliError(f"unexpected argument {text!r}: `memcli edit _project [TEXT|-]`")
        shared = common.read_text_argument(entry_id, initial=store.read_project())
        api.check_secrets(shared, allow_secret)
        api.not_a_personal_note(store, shared, allowed)
        store.write_project(shared if shared.endswith("\n") or not shared else shared + "\n")
        echo(f"updated {store.layout.project_file}", err=True)
        return 0
    usage = "memcli edit [AGENT] ID [TEXT]"
    mem, (located, text) = api.scoped(
        dir_option, user, project, lambda m: api.locate(m.store, agent, entry_id, text, usage=usage)
    )
    tags = api.clean_tags(tag) if tag else None
    body: str | None
    if text is None and tags is not None:
        body = None  # only the tags change
    else:
        body = common.read_text_argument(text, initial=located.entry.body)
    echo(api.scope_note(mem, api.edit(mem, None, located, body, tags, allow_secret, allow).message), err=True)
    return 0

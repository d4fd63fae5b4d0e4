"""`memcli supersede`."""

from __future__ import annotations

from memcli.cli.spec import (
    ALLOW_RULE,
    ALLOW_SECRET,
    BY_ID_SCOPE,
    CommandSpec,
    Param,
    agent_or_id,
    entry_id_argument,
    json_flag,
    tag_option,
)

SPEC = CommandSpec(
    name="supersede",
    help="""Replace an entry with a newer one: the new text is added to the same category, tagged
#supersedes-OLD; the old entry is kept as it is (in git, out of inject, list and search).

For a decision reversed, a lesson corrected. The new entry keeps the old one's tags (and its
pin); `memcli show OLD` points to the newest version; `memcli search --all` shows every version.
Only a new file is written, so superseding merges wherever an add does: when two branches
supersede the same entry, the newer successor is the version shown, and both are kept.""",
    epilog="""Examples:

  memcli supersede dev 1773679871839 "Use SSE, not WebSockets: the proxy drops sockets #sse"

  memcli supersede 1773679871839 -  < new-decision.md

  memcli search "websocket" --all
""",
    params=(
        agent_or_id(),
        entry_id_argument("The id of the entry to replace."),
        Param("text", "argument", help="The new text; '-' reads stdin; omitted: $EDITOR.", metavar="[TEXT]"),
        tag_option("More tags for the new entry (repeatable)."),
        ALLOW_SECRET,
        ALLOW_RULE,
        json_flag("Print the new entry as JSON (as `memcli show --json` does)."),
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
    as_json: bool = False,
    user: bool = False,
    project: bool = False,
) -> int:
    from memcli import api, output
    from memcli.cli import common
    from memcli.output import echo

    usage = "memcli supersede [AGENT] ID [TEXT]"
    mem, (located, text) = api.scoped(
        dir_option, user, project, lambda m: api.locate(m.store, agent, entry_id, text, usage=usage)
    )
    body = common.read_text_argument(text, initial=located.entry.body)
    done = api.supersede(mem, None, located, body, tag, allow_secret, allow)
    echo(api.scope_note(mem, done.message), err=True)
    if as_json:
        output.print_json(done.to_json())
    else:
        echo(str(done.new.entry.id))
    return 0

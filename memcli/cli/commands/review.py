"""`memcli review`."""

from __future__ import annotations

from memcli.cli.spec import CommandSpec, agent_argument, json_flag, project_flag, user_flag

SPEC = CommandSpec(
    name="review",
    help="""List the memory held back from agents, with where it came from and why.

An entry is held back from every memory block (inject, the agents' hooks, MCP) when its content
came from a commit made in another clone that is not on the trusted branch (someone else's branch,
an unmerged pull request), or when its text holds invisible characters or a hijack pattern
(overriding instructions, hiding things from the user, running remote code, sending data out).
Entries whose writer allowed a rule (--allow RULE on add) are listed too. Settle each with
`memcli trust ID` (after reading it) or `memcli rm ID`. Invisible characters are shown as
U+XXXX marks. Your personal memory is reviewed too (its entries are marked "personal memory";
settle them with `--user`): a file of it edited by hand or brought by its own git can be held.""",
    epilog="""Examples:

  memcli review

  memcli review dev --json

  memcli review --user

  git checkout their-branch && memcli review && memcli trust --branch their-branch
""",
    params=(
        agent_argument("Only this agent's entries.", required=False),
        json_flag(),
        user_flag("Only your personal memory."),
        project_flag("Only the project's memory."),
    ),
)


def run(
    dir_option: str | None, agent: str | None = None, as_json: bool = False, user: bool = False, project: bool = False
) -> int:
    from memcli import api
    from memcli.output import echo, print_json
    from memcli.recall import trust
    from memcli.storage import guard

    found = api.scopes(dir_option, user, project, None)
    found[0][1].store.check(agent)  # a valid name (the same rule in either memory)
    out: list = []
    held = 0
    for scope, mem in found:
        store = mem.store
        personal = scope == "user"
        items = trust.review(store, agent) if agent is None or agent in store.agents() else []
        if as_json:
            out.extend({**i.to_json(), "scope": scope} for i in items)
            continue
        prov = trust.provenance(store.layout)
        mark = " (personal memory)" if personal else ""
        if prov.poisoned:
            echo(f"no memory{mark} is shown to agents: {guard.make_visible(prov.poisoned)}")
        if prov.config_held:
            echo(f"config.toml{mark} holds unreviewed changes: agents get the defaults until it is merged")
        if prov.note:
            echo(prov.note)
        held += sum(i.kind != "allowed" for i in items)
        for item in items:
            name = "_project" if item.id is None else f"{item.agent}/{item.category} {item.id}"
            echo(f"{name}  [{item.kind}] {item.reason}{mark}")
            h = item.hold
            if h is not None:  # a commit's author and subject are the contributor's own text: shown made safe
                said = guard.make_visible(f"by {h.author}, {h.date}{f', on {h.ref}' if h.ref else ''}: {h.subject}")
                echo(f"    commit {h.commit[:12]} {said}")
            where = store.layout.memory / item.path if personal else f".memory/{item.path}"
            echo(f"    {guard.make_visible(str(where))}")
            for line in guard.make_visible(item.text).strip().split("\n"):  # every line: nothing unseen is trusted
                echo(f"    | {line}")
        out.extend(items)
    if as_json:
        print_json(out)
        return 0
    if not out:
        echo("nothing held back", err=True)
    elif held:
        echo(
            f"{held} held back from agents; after reading them: `memcli trust ID…` lets them in,"
            " `memcli rm ID…` removes them (add --user for those of your personal memory)",
            err=True,
        )
    return 0

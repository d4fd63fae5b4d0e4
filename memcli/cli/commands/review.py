"""`memcli review`."""

from __future__ import annotations

from memcli.cli.spec import CommandSpec, agent_argument, json_flag

SPEC = CommandSpec(
    name="review",
    help="""List the memory held back from agents, with where it came from and why.

An entry is held back from every memory block (inject, the agents' hooks, MCP) when its content
came from a commit made in another clone that is not on the trusted branch (someone else's branch,
an unmerged pull request), or when its text holds invisible characters or a hijack pattern
(overriding instructions, hiding things from the user, running remote code, sending data out).
Entries whose writer allowed a rule (--allow RULE on add) are listed too. Settle each with
`memcli trust ID` (after reading it) or `memcli rm ID`. Invisible characters are shown as
U+XXXX marks.""",
    epilog="""Examples:

  memcli review

  memcli review dev --json

  git checkout their-branch && memcli review && memcli trust --branch their-branch
""",
    params=(agent_argument("Only this agent's entries.", required=False), json_flag()),
)


def run(dir_option: str | None, agent: str | None = None, as_json: bool = False) -> int:
    from memcli.cli import common
    from memcli.output import echo, print_json
    from memcli.recall import trust
    from memcli.storage import guard

    store = common.open_store(dir_option)
    store.check(agent)
    items = trust.review(store, agent)
    prov = trust.provenance(store.layout)
    if as_json:
        print_json([i.to_json() for i in items])
        return 0
    if prov.poisoned:
        echo(f"no memory is shown to agents: {guard.make_visible(prov.poisoned)}")
    if prov.config_held:
        echo("config.toml holds unreviewed changes: agents get the defaults until it is merged")
    if prov.note:
        echo(prov.note)
    held = [i for i in items if i.kind != "allowed"]
    for item in items:
        name = "_project" if item.id is None else f"{item.agent}/{item.category} {item.id}"
        echo(f"{name}  [{item.kind}] {item.reason}")
        h = item.hold
        if h is not None:  # a commit's author and subject are the contributor's own text: shown made safe
            said = guard.make_visible(f"by {h.author}, {h.date}{f', on {h.ref}' if h.ref else ''}: {h.subject}")
            echo(f"    commit {h.commit[:12]} {said}")
        echo(f"    .memory/{guard.make_visible(item.path)}")
        for line in guard.make_visible(item.text).strip().split("\n"):  # every line: nothing unseen is trusted
            echo(f"    | {line}")
    if not items:
        echo("nothing held back", err=True)
    elif held:
        echo(
            f"{len(held)} held back from agents; after reading them: `memcli trust ID…` lets them in,"
            " `memcli rm ID…` removes them",
            err=True,
        )
    return 0

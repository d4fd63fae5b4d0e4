"""`memcli trust`."""

from __future__ import annotations

from memcli.cli.spec import CommandSpec, Param, json_flag

SPEC = CommandSpec(
    name="trust",
    help="""Let held-back memory steer agents again, after you have read it (`memcli review`).

Trust is the reader's decision, kept in this clone (in .git/memcli/trusted; outside git in
.memory/.vault/), never in a file a branch could ship. It names each entry's content as it is
now: if the entry changes, it is held again until trusted again. --branch REF trusts every
memory the branch brings that the trusted branch lacks (an entry that also holds lines of another
branch only with that branch too: --branch A --branch B); --all trusts everything `memcli review`
holds back now.""",
    epilog="""Examples:

  memcli trust 1773679871839

  memcli trust dev 1773679871839 1773679871840

  memcli trust --branch contributor-pr

  memcli trust _project
""",
    params=(
        Param(
            "agent", "argument", help="Agent id (may be left out), or _project.", metavar="[AGENT]", synopsis="[AGENT]"
        ),
        Param("ids", "arguments", help="Ids of the entries.", metavar="ID...", synopsis="[ID...]"),
        Param(
            "branch",
            "options",
            flags=("--branch",),
            type=str,
            default=None,
            help="Trust what this branch or ref brings (repeatable).",
            metavar="REF",
        ),
        Param(
            "everything", "flag", flags=("--all",), type=bool, default=False, help="Trust all that is held back now."
        ),
        json_flag("Print the trusted entries as JSON."),
    ),
)


def run(
    dir_option: str | None,
    agent: str | None = None,
    ids: list[str] | None = None,
    branch: list[str] | None = None,
    everything: bool = False,
    as_json: bool = False,
) -> int:
    from memcli import api
    from memcli.cli import common
    from memcli.errors import MemcliError
    from memcli.output import echo, print_json
    from memcli.storage.paths import PROJECT_NAME

    mem = common.memory(dir_option)
    if sum(bool(x) for x in (agent, branch, everything)) != 1:
        raise MemcliError("say what to trust: ID…, --branch REF or --all (one of them)")
    if agent == PROJECT_NAME:
        if ids:
            raise MemcliError(f"unexpected argument {ids[0]!r}: `memcli trust _project`")
        done = api.trust(mem, project=True)
    elif agent:
        owner, wanted = api.agent_and_ids(mem.store, agent, list(ids or ()), command="trust")
        done = api.trust(mem, owner, list(wanted))
    else:
        done = api.trust(mem, branches=branch, everything=everything)
    if as_json:
        print_json(done.to_json()["trusted"])
    echo(done.message, err=True)
    return 0

"""`memcli trust`."""

from __future__ import annotations

from memcli.cli.spec import BY_ID_SCOPE, CommandSpec, Param, json_flag

SPEC = CommandSpec(
    name="trust",
    help="""Let held-back memory steer agents again, after you have read it (`memcli review`).

Trust is the reader's decision, kept in this clone (in .git/memcli/trusted; outside git in
.memory/.vault/), never in a file a branch could ship. It names each entry's content as it is
now: if the entry changes, it is held again until trusted again. --branch REF trusts every
memory the branch brings that the trusted branch lacks (an entry that also holds lines of another
branch only with that branch too: --branch A --branch B); --all trusts everything `memcli review`
holds back now (with --user or --project, in that memory only). An id found only in your personal
memory is trusted there; --branch looks in the project's memory unless --user is given.""",
    epilog="""Examples:

  memcli trust 1773679871839

  memcli trust dev 1773679871839 1773679871840

  memcli trust --branch contributor-pr

  memcli trust _project

  memcli trust --user 1773679871841
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
        *BY_ID_SCOPE,
    ),
)


def run(
    dir_option: str | None,
    agent: str | None = None,
    ids: list[str] | None = None,
    branch: list[str] | None = None,
    everything: bool = False,
    as_json: bool = False,
    user: bool = False,
    project: bool = False,
) -> int:
    from memcli import api
    from memcli.errors import MemcliError
    from memcli.output import echo, print_json
    from memcli.storage.paths import PROJECT_NAME

    if sum(bool(x) for x in (agent, branch, everything)) != 1:
        raise MemcliError("say what to trust: ID…, --branch REF or --all (one of them)")
    if agent == PROJECT_NAME:
        if ids:
            raise MemcliError(f"unexpected argument {ids[0]!r}: `memcli trust _project`")
        mem = _one(dir_option, user, project)
        mems, done = [mem], [api.trust(mem, project=True)]
    elif agent:
        mem, (owner, wanted) = api.scoped(
            dir_option, user, project, lambda m: api.entries_by_id(m, agent, list(ids or ()), "trust")
        )
        mems, done = [mem], [api.trust(mem, owner, list(wanted))]
    elif branch:
        mem = _one(dir_option, user, project)
        mems, done = [mem], [api.trust(mem, branches=branch)]
    else:  # --all: what `memcli review` lists, in each memory it looks in
        mems = [m for _scope, m in api.scopes(dir_option, user, project, None)]
        done = [api.trust(m, everything=True) for m in mems]
    if as_json:
        print_json([t for d in done for t in d.to_json()["trusted"]])
    for mem, d in zip(mems, done):
        echo(api.scope_note(mem, d.message), err=True)
    return 0


def _one(dir_option: str | None, user: bool, project: bool):
    """The memory a trust of the project text or of a branch is about: the project's, or with
    --user the personal one."""
    from memcli.cli import common
    from memcli.errors import MemcliError

    if user and project:
        raise MemcliError("--user and --project exclude each other; nothing done")
    return common.memory(dir_option, user=user)

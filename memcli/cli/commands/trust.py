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
    from memcli.recall import trust
    from memcli.storage.paths import PROJECT_NAME

    store = common.open_store(dir_option)
    chosen = sum(bool(x) for x in (agent, branch, everything))
    if chosen != 1:
        raise MemcliError("say what to trust: ID…, --branch REF or --all (one of them)")
    done: list[str] = []
    targets = []
    if agent == PROJECT_NAME:
        if ids:
            raise MemcliError(f"unexpected argument {ids[0]!r}: `memcli trust _project`")
        trust.trust_project(store)
        done.append("_project")
    elif agent:
        for group in api.locate_many(store, agent, list(ids or ()), command="trust").values():
            targets.extend(group)
    else:
        items = [i for i in trust.review(store) if i.kind != "allowed"]
        if branch:
            from memcli.git.provenance import branch_commits

            commits: set[str] = set()
            for ref in branch:
                brought = branch_commits(store.layout, ref)
                if brought is None:
                    raise MemcliError(f"unknown branch or ref {ref!r}, or not a git repository")
                commits |= brought
            mixed = [i for i in items if i.hold is not None and set(i.hold.commits) & commits]
            # all that holds it back must come from that branch: a file two branches wrote is trusted
            # only when each branch has been trusted
            items = [i for i in items if i.hold is not None and set(i.hold.commits) <= commits]
            for i in mixed:
                if i not in items:
                    echo(f"not trusted: {i.path} also holds lines of other branches (name them too)", err=True)
        for item in items:
            if item.id is None:
                trust.trust_project(store)
                done.append("_project")
            else:
                targets.append(store.find(item.agent, item.id))
    trust.trust_entries(store, targets)
    done.extend(f"{t.agent}/{t.category} {t.entry.id}" for t in targets)
    if as_json:
        print_json([{"agent": t.agent, "category": t.category, "id": t.entry.id} for t in targets])
    for name in done:
        echo(f"trusted {name}", err=True)
    if not done:
        echo("nothing to trust", err=True)
    return 0

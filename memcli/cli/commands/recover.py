"""`memcli recover`."""

from __future__ import annotations

from memcli.cli.spec import CommandSpec, agent_argument, json_flag
from memcli.errors import EXIT_NO_CHECKPOINT

SPEC = CommandSpec(
    name="recover",
    help="Print the agent's checkpoint if it is still valid (7 days by default).",
    epilog=f"""Exit status: 0 with a valid checkpoint; {EXIT_NO_CHECKPOINT} when there is none (never saved,
older than the validity period, or corrupt); 1 on other errors. With --json, `null` when there
is none.

Examples:

  memcli recover dev

  memcli recover dev --json > last-session.json || echo "fresh start"
""",
    params=(agent_argument("Agent id."), json_flag("Print the checkpoint as JSON (null when there is none).")),
)


def run(dir_option: str | None, agent: str, as_json: bool = False) -> int:
    from memcli import output
    from memcli.cli import common
    from memcli.storage.checkpoints import checkpoint_age_ms, recover

    store = common.open_store(dir_option)
    store.check(agent)
    data = recover(store.layout, agent, store.config.checkpoint_max_age_days)
    if data is None:
        if as_json:
            output.print_json(None)
        output.echo(f"no valid checkpoint for {agent}", err=True)
        return EXIT_NO_CHECKPOINT
    age_h = checkpoint_age_ms(data) / 3_600_000
    if as_json:
        output.print_json({**data, "ageHours": round(age_h, 2)})
        return 0
    extra = "".join(f", {k} {data[k]}" for k in ("chatId", "modelId") if data.get(k))
    count = output.plural(len(data["messages"]), "message")
    output.echo(output.bold(f"checkpoint of {agent}: {count}, saved {age_h:.1f} h ago{extra}"))
    for m in data["messages"]:
        output.echo(output.visible(f"[{m.get('role', '?')}]: {m['text']}"))
    return 0

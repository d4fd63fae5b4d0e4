"""`memcli checkpoint`."""

from __future__ import annotations

from memcli.cli.spec import CommandSpec, Param, agent_argument, json_flag, quiet_flag

SPEC = CommandSpec(
    name="checkpoint",
    help="""Save a conversation: the checkpoint, new messages into the agent's conversation, and on --close the handoff.

Secrets in messages are redacted before anything is stored.""",
    epilog="""Accepts a JSON array of {role, text} messages, JSONL of them, an AITEAM-X
conversation or checkpoint file, a cursor-agent transcript, a Claude Code session transcript
or a Codex session file (JSONL).

Examples:

  memcli checkpoint dev session.json --chat-id chat_abc123

  cursor-agent ... --output-format stream-json | memcli checkpoint dev -

  memcli checkpoint dev transcript.jsonl --close
""",
    params=(
        agent_argument("Agent id."),
        Param("file", "argument", help="The conversation; '-' or omitted reads stdin.", metavar="[FILE|-]"),
        Param("chat_id", "option", flags=("--chat-id",), help="The session's chat id.", metavar="ID"),
        Param("model_id", "option", flags=("--model-id",), help="The model's id.", metavar="ID"),
        Param(
            "close",
            "flag",
            flags=("--close",),
            type=bool,
            default=False,
            help="End of session: also write the handoff and extracted decisions/lessons.",
        ),
        Param(
            "allow_secret",
            "flag",
            flags=("--allow-secret",),
            type=bool,
            default=False,
            help="Store messages as they are: do not redact secrets.",
        ),
        json_flag("Print what was saved as JSON."),
        quiet_flag(),
    ),
)


def run(
    dir_option: str | None,
    agent: str,
    file: str | None = None,
    chat_id: str | None = None,
    model_id: str | None = None,
    close: bool = False,
    allow_secret: bool = False,
    as_json: bool = False,
    quiet: bool = False,
) -> int:
    import sys

    from memcli import output

    from memcli.capture import session

    from memcli.storage import conversations
    from memcli.cli import common
    from memcli.errors import MemcliError
    from memcli.storage.fsutil import decode_text

    store = common.open_store(dir_option)
    store.check(agent)
    if file in (None, "-"):
        if file is None and sys.stdin.isatty():
            raise MemcliError("no conversation given: pass FILE, or pipe it on standard input")
        text, where = decode_text(sys.stdin.buffer.read(), "standard input"), "stdin"
    else:
        try:
            with open(file, "rb") as handle:
                text, where = decode_text(handle.read(), file), file
        except OSError as exc:
            raise MemcliError(f"cannot read {file}: {exc.strerror or exc}") from None
    messages, meta = conversations.parse_conversation(text, where)
    if not messages:
        output.warn(f"{where}: the conversation has no messages; nothing saved (the checkpoint is kept as it was)")
        return 0
    result = session.save(
        store,
        agent,
        messages,
        chat_id or meta.get("chatId"),
        model_id or meta.get("modelId"),
        close,
        output.warn,
        redact=not allow_secret,
        activity=meta.get("activity"),
    )
    from memcli import api

    api.judge_checkpoint(store, messages)
    if as_json:
        output.print_json(result.to_json())
        return 0
    if quiet:
        return 0
    plural = output.plural
    line = (
        f"checkpoint saved for {agent}: {plural(result.messages, 'message')},"
        f" {result.new_messages} new in the conversation"
    )
    if result.redacted:
        line += f"; redacted {plural(result.redacted, 'secret')}"
    if result.revealed:
        line += f"; invisible characters made visible in {plural(result.revealed, 'message')}"
    if result.personal:
        line += f"; your personal notes left out of {plural(result.personal, 'message')}"
    if close:
        line += (
            f"; handoff {'written' if result.handoff_id else 'unchanged'}, {plural(len(result.decisions), 'decision')}"
            f" and {plural(len(result.lessons), 'lesson')} extracted"
        )
        if result.held:
            line += f" ({plural(result.held, 'insight')} not stored: it broke a content rule)"
    output.echo(line, err=True)
    return 0

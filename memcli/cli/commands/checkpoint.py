from __future__ import annotations

import sys
from typing import Annotated, Optional

import typer

from memcli import output
from memcli.cli import common
from memcli.errors import MemcliError

NAME = "checkpoint"
EPILOG = """Accepts a JSON array of {role, text} messages, JSONL of them, an AITEAM-X
conversation or checkpoint file, a cursor-agent transcript or a Claude Code session transcript (JSONL).

Examples:

  memcli checkpoint dev session.json --chat-id chat_abc123

  cursor-agent ... --output-format stream-json | memcli checkpoint dev -

  memcli checkpoint dev transcript.jsonl --close
"""


def command(
    agent: Annotated[str, typer.Argument(help="Agent id.")],
    file: Annotated[Optional[str], typer.Argument(metavar="[FILE|-]", help="The conversation; '-' or omitted reads stdin.")] = None,
    chat_id: Annotated[Optional[str], typer.Option("--chat-id", help="The session's chat id.")] = None,
    model_id: Annotated[Optional[str], typer.Option("--model-id", help="The model's id.")] = None,
    close: Annotated[bool, typer.Option("--close", help="End of session: also write the handoff and extracted decisions/lessons.")] = False,
    allow_secret: Annotated[bool, typer.Option("--allow-secret", help="Store messages as they are: do not redact secrets.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print what was saved as JSON.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing on success.")] = False,
) -> None:
    """Save a conversation: the checkpoint, new messages into the agent's conversation, and on --close the handoff.

    Secrets in messages are redacted before anything is stored.
    """
    from memcli import checkpoint, conversations
    from memcli.fsutil import decode_text

    store = common.open_store()
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
        return
    result = checkpoint.save(
        store, agent, messages, chat_id or meta.get("chatId"), model_id or meta.get("modelId"), close, output.warn,
        redact=not allow_secret,
    )
    if as_json:
        output.print_json(result.to_json())
        return
    if quiet:
        return
    line = f"checkpoint saved for {agent}: {result.messages} messages, {result.new_messages} new in the conversation"
    if result.redacted:
        line += f"; redacted {result.redacted} secret{'s' if result.redacted > 1 else ''}"
    if close:
        line += (
            f"; handoff {'written' if result.handoff_id else 'unchanged'}"
            f", {len(result.decisions)} decisions and {len(result.lessons)} lessons extracted"
        )
    typer.echo(line, err=True)

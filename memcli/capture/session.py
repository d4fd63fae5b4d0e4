"""`memcli checkpoint`: save a session's conversation and checkpoint; on close, the handoff and insights."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from memcli.storage import conversations

from memcli.capture import extract

from memcli.storage import secrets

from memcli.storage import checkpoints
from memcli.storage.store import Store

HANDOFF_TAGS = ["auto-handoff", "session-close"]
EXTRACT_TAGS = ["auto-extract", "session-close"]


@dataclass
class CheckpointResult:
    messages: int = 0
    new_messages: int = 0
    redacted: int = 0
    handoff_id: int | None = None
    decisions: list[int] = field(default_factory=list)
    lessons: list[int] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "messages": self.messages,
            "new_messages": self.new_messages,
            "redacted": self.redacted,
            "handoff": self.handoff_id,
            "decisions": self.decisions,
            "lessons": self.lessons,
        }


def redact_messages(messages: list[dict[str, Any]]) -> int:
    from memcli.output import progress

    total = 0
    for m in progress(messages, "checking messages for secrets", threshold=2000):
        m["text"], count = secrets.redact(m["text"])
        total += count
    return total


def handoff_text(messages: list[dict[str, Any]], count: int, chars: int) -> str:
    lines = []
    for m in messages[-count:]:
        label = "Agent" if m["role"] == "agent" else m["role"].capitalize()
        lines.append(f"[{label}]: {' '.join(m['text'].split())[:chars]}")
    return "\n".join(lines)


def save(
    store: Store,
    agent: str,
    messages: list[dict[str, Any]],
    chat_id: str | None = None,
    model_id: str | None = None,
    close: bool = False,
    warn=None,
    redact: bool = True,
) -> CheckpointResult:
    """Append new messages, write the checkpoint and, on close, the handoff and extracted insights."""
    store.check(agent)
    store.layout.require()
    config = store.config
    result = CheckpointResult(messages=len(messages))
    if redact:
        result.redacted = redact_messages(messages)
    conversations.assign_ids(messages, chat_id)
    for m in messages:
        if chat_id:
            m.setdefault("chatId", chat_id)
        if model_id:
            m.setdefault("modelId", model_id)
    with store.lock():
        # Check first, write after: every file --close writes into must be readable.  The vault
        # writes come first: if anything fails after them, saving again finds them stored already.
        known = {
            c: extract.known_keys(e.body for e in store.read(agent, c))
            for c in (("decisions", "lessons") if close else ())
        }
        handoffs = {e.body for e in store.read(agent, "handoffs")} if close else set()
        if close and messages:
            body = handoff_text(messages, config.handoff_messages, config.handoff_chars)
            if body and body not in handoffs:
                result.handoff_id = store.add(agent, "handoffs", body, list(HANDOFF_TAGS)).id
            insights = extract.extract(messages, config.extract_max_items, config.extract_chars)
            for category, items, ids in (
                ("decisions", insights.decisions, result.decisions),
                ("lessons", insights.lessons, result.lessons),
            ):
                for item in items:
                    if extract.dedupe_key(item) not in known[category]:
                        known[category].add(extract.dedupe_key(item))
                        ids.append(store.add(agent, category, item, list(EXTRACT_TAGS)).id)
        session = checkpoints.current_session(store.layout, agent, chat_id, config.checkpoint_max_age_days)
        session = session or conversations.new_session_name()
        result.new_messages = conversations.append_messages(store.layout, agent, messages, warn, session)
        if close:
            conversations.close_session(store.layout, agent, session)
        checkpoints.save_checkpoint(
            store.layout,
            agent,
            messages,
            config.checkpoint_messages,
            chat_id,
            model_id,
            session=session,
            closed=close,
        )
    return result

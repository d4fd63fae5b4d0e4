"""`memcli checkpoint`: save a session's conversation and checkpoint; on close, the handoff and insights."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from memcli.storage import conversations

from memcli.capture import extract

from memcli.storage import secrets

from memcli.storage import checkpoints
from memcli.storage.transcripts import relative_to
from memcli.storage.store import Store

HANDOFF_TAGS = ["auto-handoff", "session-close"]
EXTRACT_TAGS = ["auto-extract", "session-close"]


@dataclass
class CheckpointResult:
    messages: int = 0
    new_messages: int = 0
    redacted: int = 0
    revealed: int = 0  # messages whose invisible characters were made visible
    personal: int = 0  # messages that repeated a personal note, left out (capture.personal)
    held: int = 0  # extracted decisions and lessons not stored: they broke a content rule
    handoff_id: int | None = None
    decisions: list[int] = field(default_factory=list)
    lessons: list[int] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "messages": self.messages,
            "new_messages": self.new_messages,
            "redacted": self.redacted,
            "revealed": self.revealed,
            "personal": self.personal,
            "held": self.held,
            "handoff": self.handoff_id,
            "decisions": self.decisions,
            "lessons": self.lessons,
        }


CUT_MARK = "\n[… cut by memcli: {n} more characters]"


def cut_long_messages(messages: list[dict[str, Any]], limit: int) -> None:
    """A message longer than ``limit`` characters (a pasted log, a dumped file) is stored cut, with a
    marker saying how much is gone: a session is always saved, and the cut is the same every time."""
    for m in messages:
        if len(m["text"]) > limit:
            m["text"] = m["text"][:limit] + CUT_MARK.format(n=len(m["text"]) - limit)


def reveal_invisible(messages: list[dict[str, Any]]) -> int:
    """Invisible and direction-control characters in messages made visible (``⟨U+200B⟩``): a
    session is always saved, and nothing hidden rides along into memory.  How many messages held any."""
    from memcli.storage import guard

    count = 0
    for m in messages:
        if guard.invisible(m["text"]):  # (plain ASCII text: one fast test)
            m["text"] = guard.make_visible(m["text"])
            count += 1
    return count


def held_text(text: str) -> str | None:
    """Why text may not go into a handoff or an extracted insight (a content rule it breaks), or None."""
    from memcli.storage import guard

    found = guard.scan(text)
    return guard.RULES.get(found[0].rule, found[0].rule) if found else None


def redact_messages(messages: list[dict[str, Any]]) -> int:
    from memcli.output import progress

    total = 0
    for m in progress(messages, "checking messages for secrets", threshold=2000):
        m["text"], count = secrets.redact(m["text"])
        total += count
    return total


MAX_DONE_FILES = 8  # files named in a handoff's "Done:" line
MAX_DONE_COMMANDS = 4
SESSION_TAG = "session-"  # + 8 hex digits of the chat id: one handoff per session


def _line(text: str, limit: int) -> str:
    """``text`` on one line, at most ``limit`` characters (cut with "…")."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def _said(m: dict[str, Any], chars: int) -> str:
    """A message as a handoff quotes it."""
    label = "Agent" if m["role"] == "agent" else m["role"].capitalize()
    return f"[{label}]: {_quoted(m['text'], chars)}"


def _quoted(text: str, chars: int) -> str:
    """A message as the next session will read it: one line; a message that breaks a content rule
    (a hijacked turn that says to run remote code, say) is named, not quoted."""
    why = held_text(text)
    return f"[left out by memcli: {why}]" if why else _line(text, chars)


def handoff_text(
    messages: list[dict[str, Any]], count: int, chars: int, activity: list[tuple[str, str]] | None = None
) -> str:
    """What the next session must know: what was asked (the first request), what was done (the
    files the session's tools changed and the commands they ran), and where it stopped (the last
    ``count`` messages, ``chars`` characters each)."""

    lines = []
    first = next((n for n, m in enumerate(messages) if m["role"] == "user"), None)
    if first is not None:
        lines.append(f"Asked: {_quoted(messages[first]['text'], chars)}")
    files = list(dict.fromkeys(v for k, v in activity or () if k == "file"))
    commands = list(dict.fromkeys(v for k, v in activity or () if k == "command"))
    done = []
    if files:
        more = f" (+{len(files) - MAX_DONE_FILES} more)" if len(files) > MAX_DONE_FILES else ""
        done.append("changed " + ", ".join(files[:MAX_DONE_FILES]) + more)
    if commands:
        more = f" (+{len(commands) - MAX_DONE_COMMANDS} more)" if len(commands) > MAX_DONE_COMMANDS else ""
        done.append("ran " + "; ".join(f"`{_line(c, 80)}`" for c in commands[-MAX_DONE_COMMANDS:]) + more)
    if done:
        lines.append("Done: " + "; ".join(done))
    tail = [m for n, m in enumerate(messages[-count:], len(messages) - min(count, len(messages))) if n != first]
    if tail:
        lines.append("Where it stopped:")
    lines.extend(_said(m, chars) for m in tail)
    # The last guard: a handoff is always written, and nothing in it breaks a content rule.
    from memcli.storage import guard

    lines = [guard.make_visible(line) for line in lines]
    return "\n".join(
        line if not held_text(line) else f"[a line left out by memcli: {held_text(line)}]" for line in lines
    )


def worth_a_handoff(messages: list[dict[str, Any]], activity: list[tuple[str, str]], insights: int, least: int) -> bool:
    """Whether a session did something the next one must hear of: its tools changed a file or ran
    a command, a decision or lesson was extracted from it, or it holds at least ``least`` messages.
    A two-message question does not replace the handoff of the session that did the work."""
    return bool(activity) or insights > 0 or len(messages) >= least


def session_tag(chat_id: str | None) -> str | None:
    import hashlib

    return SESSION_TAG + hashlib.sha1(chat_id.encode("utf-8", "surrogatepass")).hexdigest()[:8] if chat_id else None


def save(
    store: Store,
    agent: str,
    messages: list[dict[str, Any]],
    chat_id: str | None = None,
    model_id: str | None = None,
    close: bool = False,
    warn=None,
    redact: bool = True,
    activity: list[tuple[str, str]] | None = None,
    summarise: bool | None = None,
) -> CheckpointResult:
    """Append new messages and write the checkpoint; with ``summarise`` (default: ``close``) also the
    handoff and the extracted insights; with ``close`` end the session.

    ``activity`` is what the session's tools did (``transcripts.tool_activity``).  A session that
    did nothing worth a handoff (``worth_a_handoff``) writes none, so the last one that did stays
    "Last Session".  A session writes one handoff however often it is summarised (a resumed or
    compacted session, Codex's Stop after each turn): a handoff of the same session (its tag
    ``session-…``), or the newest handoff when it answers the same first request, is replaced."""
    summarise = close if summarise is None else summarise
    if store.layout.personal:  # its decisions and lessons follow the developer everywhere: written by hand only
        from memcli.errors import MemcliError

        raise MemcliError(
            f"{store.layout.root} is your personal memory, which keeps no sessions: save a session in its project"
        )
    store.check(agent)
    store.layout.require()
    config = store.config
    result = CheckpointResult(messages=len(messages))
    if redact:
        result.redacted = redact_messages(messages)
    result.revealed = reveal_invisible(messages)
    from memcli.capture import personal

    notes = personal.Finder(personal.notes(store.layout))  # built once for the messages and the tools
    result.personal = personal.withhold(messages, notes)
    activity = personal.withhold_activity(activity or [], notes) if notes else activity
    cut_long_messages(messages, config.checkpoint_max_message_chars)
    # the session's identifiers (--chat-id, --model-id) are kept as a message's own are
    chat_id, model_id = (
        personal.unsaid(conversations.identifier(v), notes) if v else None for v in (chat_id, model_id)
    )
    personal.withhold_identifiers(messages, notes)
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
            for c in (("decisions", "lessons") if summarise else ())
        }
        if summarise and messages:
            insights = extract.extract(messages, config.extract_max_items, config.extract_chars)
            for category, items, ids in (
                ("decisions", insights.decisions, result.decisions),
                ("lessons", insights.lessons, result.lessons),
            ):
                for item in items:
                    if held_text(item):  # a hijacked turn's "we decided ..." is not a decision
                        result.held += 1
                        continue
                    if extract.dedupe_key(item) not in known[category]:
                        known[category].add(extract.dedupe_key(item))
                        ids.append(store.add(agent, category, item, list(EXTRACT_TAGS)).id)
            done = relative_to(activity or [], [str(store.layout.root)])
            found = len(insights.decisions) + len(insights.lessons)
            if worth_a_handoff(messages, done, found, config.handoff_min_messages):
                result.handoff_id = _write_handoff(store, agent, messages, done, chat_id)
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


def _write_handoff(
    store: Store, agent: str, messages: list[dict[str, Any]], activity: list[tuple[str, str]], chat_id: str | None
) -> int | None:
    """Add the session's handoff, or replace the one it wrote before; its id (None: unchanged)."""
    from memcli.storage.store import is_compaction_summary

    config = store.config
    body = handoff_text(messages, config.handoff_messages, config.handoff_chars, activity)
    if not body:
        return None
    tag = session_tag(chat_id)
    tags = list(HANDOFF_TAGS) + ([tag] if tag else [])
    handoffs = [e for e in store.read(agent, "handoffs") if not is_compaction_summary(e)]
    asked = body.split("\n", 1)[0] if body.startswith("Asked: ") else None
    same = next((e for e in handoffs if tag and tag in e.tags), None)
    if same is None and asked and handoffs and handoffs[0].body.split("\n", 1)[0] == asked:
        # A session resumed under another id carries the earlier history: the newest handoff's last
        # quoted message is one of its messages.  (Two sessions that merely began alike keep two.)
        said = {_said(m, config.handoff_chars) for m in messages}
        if handoffs[0].body.rsplit("\n", 1)[-1] in said:
            same = handoffs[0]
    if same is not None:
        if same.body == body:
            return None
        return store.update(agent, same.id, body, tags).entry.id
    if any(e.body == body for e in handoffs):
        return None
    return store.add(agent, "handoffs", body, tags).id

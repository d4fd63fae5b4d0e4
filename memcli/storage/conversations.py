"""Conversations: ``.memory/conversations/<agent>/<session>.jsonl``, one message per line, one
file per session, so that sessions on two branches never write the same file (a hosting service
merges pull requests with no merge driver).  ``conversations/<agent>.jsonl`` (one file per
agent, as memcli 0.2 wrote it) is still read, never appended to.

Each message has a stable id, so that saving the same conversation again (a wrapper
checkpoints every 30 s) adds each message once.  Readers drop duplicate ids (what a
union merge of two branches can leave) and order by time; a malformed line is skipped
with a warning.  Legacy AITEAM-X ``conversations/<agent>.json`` files are read too.

Accepted input (``parse_conversation``): a JSON array of messages, JSONL of messages,
an AITEAM-X conversation or checkpoint object (``{"messages": [...]}``), and a
cursor-agent transcript (JSONL of ``{"role", "message": {"content": [{"type": "text",
"text": …}]}}``), and a Claude Code session transcript (JSONL of ``{"type": "user"|"assistant",
"message": {"role", "content"}, "uuid", "timestamp"}``; tool calls and results, summaries, meta
lines and side chains are left out).  A message is ``{role, text}`` (``content`` is accepted for ``text``);
``id``, ``ts``/``timestamp``/``createdAt``, ``chatId``, ``modelId`` and ``internal`` are
honoured when present.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from datetime import datetime
from pathlib import Path

from memcli.storage.injected_block import strip_injected
from memcli.errors import MemcliError
from memcli.storage.fsutil import OutsideMemory, atomic_write, clean_stale_temp, read_inside
from memcli.storage.fsutil import warn as _warn
from memcli.storage.paths import Layout, validate_agent
from memcli.storage.transcripts import (
    cursor_text,
    looks_like_cursor_text,
    noise,
    relative_to,
    session_cwd,
    only_element,
    strip_noise,
    tool_activity,
)

TYPE_CHECKING = False  # names for annotations only: the fast path never imports typing
if TYPE_CHECKING:
    from typing import Any

ROLES = {"assistant": "agent", "ai": "agent", "model": "agent", "bot": "agent", "human": "user"}
_SURROGATE = re.compile("[\ud800-\udfff]")
_TRANSCRIPT_TYPE = "type"  # the key of a Claude Code transcript line's kind
_TEXT_BLOCKS = ("text", "input_text", "output_text")  # the last two: Codex's session files
# What Codex itself puts into a session as user messages: its environment, the AGENTS.md text.
_CODEX_CONTEXT = re.compile(r"\s*(?:<environment_context>|<user_instructions>|# AGENTS\.md instructions)")


def _text_of(content: Any) -> str | None:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # cursor-agent / Anthropic-style content blocks
        parts = [c.get("text", "") for c in content if isinstance(c, dict) and c.get("type", "text") in _TEXT_BLOCKS]
        return "\n".join(p for p in parts if isinstance(p, str))
    return None


MAX_TS = 10**14  # milliseconds: beyond the year 5000 a timestamp is garbage


def _clean(text: str) -> str:
    """Text as memcli stores it: lone surrogates (from JSON's "\\ud800") and NUL characters (from
    "\\u0000", which no vault file may hold) become U+FFFD."""
    if "\x00" in text:
        text = text.replace("\x00", "\ufffd")
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", text)


def _timestamp(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        if value != value or value in (float("inf"), float("-inf")) or not 0 <= value < MAX_TS:
            return None  # NaN, Infinity, negative or absurd: no time of its own
        return int(value if value > 1e11 else value * 1000)  # ms, or seconds
    if isinstance(value, str):
        try:
            return int(datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp() * 1000)
        except (ValueError, OverflowError, OSError):
            return None
    return None


def normalise_message(raw: Any, where: str) -> dict[str, Any] | None:
    """A message as memcli stores it, or None for an internal one.  Raises on a wrong shape."""
    if not isinstance(raw, dict):
        raise MemcliError(f"{where}: a message must be a JSON object with role and text")
    if raw.get("internal") or raw.get("isCompactSummary"):  # Claude Code's summary after a compaction
        return None
    role = raw.get("role")
    text = raw.get("text")
    if text is None:
        text = _text_of(raw.get("content"))
    inner = raw.get("message")
    if raw.get(_TRANSCRIPT_TYPE) == "response_item" and role is None and isinstance(raw.get("payload"), dict):
        # A Codex session file (rollout): {"timestamp", "type": "response_item", "payload": {"type": "message",
        # "role", "content": [{"type": "input_text"|"output_text", "text"}]}}; its other lines (session_meta,
        # event_msg, turn_context, tool calls, reasoning) and its developer messages are not the conversation.
        payload = raw["payload"]
        text = _text_of(payload.get("content"))
        if payload.get("type") != "message" or payload.get("role") not in ("user", "assistant") or not text:
            return None
        if payload["role"] == "user" and _CODEX_CONTEXT.match(text):
            return None
        role, inner = payload["role"], None
    if text is None and isinstance(inner, dict):  # a cursor-agent or Claude Code transcript line
        text = _text_of(inner.get("content"))
    if _TRANSCRIPT_TYPE in raw and isinstance(inner, dict) and role is None:
        # Claude Code's session transcript: {"type": "user"|"assistant", "message": {"role", "content"}, "uuid",
        # "timestamp", ...}.  Summaries, system lines, meta lines, side chains and tool calls or results
        # (content blocks that are not text) say nothing a memory needs.
        if raw[_TRANSCRIPT_TYPE] not in ("user", "assistant") or raw.get("isMeta") or raw.get("isSidechain"):
            return None
        role = inner.get("role") or raw[_TRANSCRIPT_TYPE]
        if not isinstance(text, str) or not text.strip():
            return None
    elif (
        _TRANSCRIPT_TYPE in raw
        and role is None
        and (text is None or raw[_TRANSCRIPT_TYPE] not in ("user", "assistant"))
    ):
        # Another kind of transcript line: a summary, a snapshot, Claude Code's system notes
        # ({"type": "system", "subtype": "compact_boundary", "content": ...}) and queue operations.
        return None
    if not isinstance(role, str) or not isinstance(text, str):
        raise MemcliError(f"{where}: a message needs a string 'role' and a string 'text'")
    text = _clean(text)
    role = ROLES.get(role.lower(), role.lower())
    if not _ROLE.fullmatch(role) or _secret(role):
        role = OTHER_ROLE  # a role is a word; free text there is no role (and may be what the text is not)
    text = strip_noise(text)  # system reminders, hook output, attachments: not the person's words
    if role == "user":
        query = only_element(text, "user_query")  # the prompt is all one <user_query>…</user_query> (Cursor)
        if query is not None:
            text = query
    text = strip_injected(text)  # the memory block memcli put into the prompt never comes back
    if not text.strip() or noise(text):
        return None  # the prompt held nothing but the block, or a slash command, its output, a summary
    message: dict[str, Any] = {"role": role, "text": text}
    for key in ("ts", "timestamp", "createdAt", "time"):
        ts = _timestamp(raw.get(key))
        if ts is not None:
            message["ts"] = ts
            break
    source_id = raw.get("id", raw.get("uuid"))
    if isinstance(source_id, (str, int)) and not isinstance(source_id, bool) and str(source_id):
        message["id"] = identifier(str(source_id))
    for key in ("chatId", "modelId"):
        if isinstance(raw.get(key), str) and raw[key]:
            message[key] = identifier(raw[key])
    return message


OTHER_ROLE = "other"
_ROLE = re.compile(r"[a-z][a-z0-9_-]{0,31}")
_IDENTIFIER = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:/@+=-]{0,199}")


def _secret(value: str) -> bool:
    from memcli.storage import secrets

    return bool(secrets.scan(value))


def identifier(value: str) -> str:
    """A message's id, a chat id or a model id as a committed conversation keeps it: as given when it
    reads as an identifier (a uuid, ``claude-sonnet-4-5``: no spaces, at most 200 characters, nothing
    that looks like a secret), else a hash of it, which still tells the same value from another.
    Sentences, tokens and invisible characters there would ride into git unread."""
    value = _clean(value)
    return value if _IDENTIFIER.fullmatch(value) and not _secret(value) else hashed(value)


def hashed(value: str) -> str:
    """What a conversation keeps of an identifier it must not keep as given."""
    return "h-" + hashlib.sha1(value.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def parse_conversation(text: str, where: str = "input") -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Messages (internal ones dropped) and metadata (chatId, modelId) from any accepted format."""
    stripped = text.strip()
    if not stripped:
        raise MemcliError(f"{where}: empty input; expected a conversation (JSON array, JSONL or transcript)")
    items: list[Any]
    meta: dict[str, Any] = {}
    if looks_like_cursor_text(stripped):  # Cursor's older plain-text transcripts
        plain, did = cursor_text(stripped)
        messages = [m for m in (normalise_message(item, where) for item in plain) if m is not None]
        return messages, {"activity": did}
    try:
        data = json.loads(stripped)
    except RecursionError:
        raise MemcliError(f"{where}: the JSON is nested too deeply to be a conversation") from None
    except ValueError:
        data = None
        items = []
        lines = stripped.splitlines()
        # A file being written (an agent's live transcript) may end in a line cut short: a last
        # line without its newline that does not parse is left out, not an error.
        torn = len(lines) > 1 and not text.endswith("\n")
        for n, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                items.append(json.loads(line))
            except RecursionError:
                raise MemcliError(f"{where}: line {n} is nested too deeply to be a message") from None
            except ValueError:
                if torn and n == len(lines):
                    break
                raise MemcliError(f"{where}: not JSON or JSONL (line {n} does not parse)") from None
    if data is not None:
        if isinstance(data, list):
            items = data
        elif isinstance(data, dict) and isinstance(data.get("messages"), list):
            items = data["messages"]
            meta = {k: _clean(data[k]) for k in ("chatId", "modelId", "agentId") if isinstance(data.get(k), str)}
            if _timestamp(data.get("savedAt")) is not None:
                meta["savedAt"] = _timestamp(data.get("savedAt"))
        elif isinstance(data, dict):
            items = [data]  # JSONL with a single line
        else:
            raise MemcliError(f"{where}: expected a JSON array of messages or an object with 'messages'")
    messages = []
    activity: list[tuple[str, str]] = []
    cwd = None
    for n, item in enumerate(items, 1):
        message = normalise_message(item, f"{where}: message {n}")
        if message is not None:
            messages.append(message)
        activity.extend(tool_activity(item))
        cwd = cwd or session_cwd(item)
    # what the session's tools did (files changed, commands run), paths as the project names them
    meta["activity"] = relative_to(activity, [cwd] if cwd else [])
    return messages, meta


def message_id(role: str, text: str, ts: Any, occurrence: int) -> str:
    """The id of a message that came without one: its role, text, own timestamp (if any) and how
    many identical messages came before it."""
    basis = f"{role}\x00{text}\x00{'' if ts is None else ts}\x00{occurrence}"
    return hashlib.sha1(basis.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def assign_ids(messages: list[dict[str, Any]], chat_id: str | None = None) -> list[dict[str, Any]]:
    """Give each message without an id a stable one, from the message alone.

    The id hashes the role, the text and the message's own timestamp (when it has one),
    and how many identical messages came before it in the same input -- never its
    position, the window or the chat id.  ``append_messages`` recounts repeats against the
    stored conversation, so that a repeated short message in a later window is not taken
    for an earlier one.  ``chat_id`` is accepted for callers' convenience and changes no id.
    """
    seen: dict[tuple[str, str, Any], int] = {}
    for m in messages:
        key = (m["role"], m["text"], m.get("ts"))
        occurrence = seen.get(key, 0)
        seen[key] = occurrence + 1
        if "id" not in m:
            m["id"] = message_id(m["role"], m["text"], m.get("ts"), occurrence)
            m["_auto_id"] = True
    return messages


def _stored_already(stored: list[tuple[str, str]], window: list[tuple[str, str]]) -> set[int]:
    """Which messages of ``window`` are in ``stored`` (both as (role, text), in order).

    Clients save the whole conversation or its last messages, so a window continues what is
    stored: first, the longest overlap of the stored conversation's end with the window's start
    (then a repeated "ok" after it is a new "ok"); else the whole window found earlier (saved
    again); else the window's messages matched in order from its first stored one, where
    messages from elsewhere (typed by hand, merged from another clone) sit in between."""
    import bisect

    n, w = len(stored), len(window)
    for k in range(min(n, w), 0, -1):
        if stored[n - k] == window[0] and stored[n - k :] == window[:k]:
            return set(range(k))
    for start in range(n - w, -1, -1):
        if stored[start] == window[0] and stored[start : start + w] == window:
            return set(range(w))
    places: dict[tuple[str, str], list[int]] = {}
    for position, key in enumerate(stored):
        places.setdefault(key, []).append(position)
    anchor = next((i for i, key in enumerate(window) if key in places), None)
    if anchor is None:
        return set()
    best: set[int] = set()
    for start in reversed(places[window[anchor]][-64:]):  # the latest places first: ties go to them
        found, after = {anchor}, start + 1
        for i in range(anchor + 1, len(window)):
            where = places.get(window[i])
            if not where:
                continue
            k = bisect.bisect_left(where, after)
            if k < len(where):
                found.add(i)
                after = where[k] + 1
        if len(found) > len(best):
            best = found
    return best


SESSION_RE = re.compile(r"[0-9]{8}T[0-9]{6,9}Z-[0-9a-f]{8}\.jsonl")


CLOSED_LINE = {"session": "closed"}  # the last line of a session's file once the session ended


def conversation_path(layout: Layout, agent: str) -> Path:
    """The agent's one-file conversation of memcli 0.2: read, never written by normal use."""
    return layout.conversations / f"{validate_agent(agent)}.jsonl"


def session_dir(layout: Layout, agent: str) -> Path:
    return layout.conversations / validate_agent(agent)


def new_session_name(now_ms: int | None = None) -> str:
    """A session file's name: its start time (UTC, to the millisecond, so names sort by age) and 32
    random bits, so that two clones never pick the same name."""
    ms = int(now_ms if now_ms is not None else time.time() * 1000)
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(ms // 1000))
    return f"{stamp}{ms % 1000:03d}Z-{os.urandom(4).hex()}.jsonl"


def session_name_for(ts_ms: object, data: bytes) -> str:
    """A session name that is a function of a conversation's time and bytes (``migrate``: two
    clones that migrate the same file name its session alike)."""
    stamp_ms = ts_ms if isinstance(ts_ms, int) and 0 <= ts_ms < MAX_TS else 0
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(stamp_ms / 1000))
    return f"{stamp}-{hashlib.sha1(data).hexdigest()[:8]}.jsonl"


def is_session_name(name: object) -> bool:
    return isinstance(name, str) and SESSION_RE.fullmatch(name) is not None


def conversation_files(layout: Layout, agent: str) -> list[Path]:
    """The agent's conversation files: the one-file conversation (if any), then its sessions by name."""
    files = []
    legacy = conversation_path(layout, agent)
    if legacy.is_file():
        files.append(legacy)
    folder = session_dir(layout, agent)
    try:
        names = sorted(n for n in os.listdir(folder) if n.endswith(".jsonl") and not n.startswith("."))
    except OSError:
        names = []
    files.extend(folder / n for n in names)
    return files


def conversation_agents(layout: Layout) -> list[str]:
    """Agents that have a conversation: a ``<agent>.jsonl`` file or a session folder."""
    found = []
    try:
        names = os.listdir(layout.conversations)
    except OSError:
        return []
    for name in names:
        agent = name[: -len(".jsonl")] if name.endswith(".jsonl") else name
        try:
            validate_agent(agent)
        except MemcliError:
            continue
        if name.endswith(".jsonl") or (layout.conversations / name).is_dir():
            found.append(agent)
    return found


class Stored:
    """What a conversation file holds: messages, ids that compaction trimmed, and lines that are
    neither (a half-merged line, text typed by hand): those are kept as they are, never dropped."""

    __slots__ = ("messages", "trimmed", "other", "closed")

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []
        self.trimmed: set[str] = set()
        self.other: list[bytes] = []
        self.closed = False  # the session ended (``checkpoint --close``): nothing is appended to it again


def parse_jsonl(data: bytes) -> Stored:
    """Read a conversation file.  A message without an id (appended by hand) gets one from its content."""
    from memcli.jsonio import loads_lines

    stored = Stored()
    lines = data.splitlines()
    values = loads_lines([line for line in lines if line.strip()])
    filled = iter(values)
    for n, line in enumerate(lines):
        if not line.strip():
            continue
        m = next(filled)
        if isinstance(m, dict) and isinstance(m.get("id"), str) and m.get("trimmed") is True:
            stored.trimmed.add(m["id"])
            continue
        if m == CLOSED_LINE:
            stored.closed = True
            continue
        if not isinstance(m, dict) or not isinstance(m.get("text"), str) or not isinstance(m.get("role"), str):
            stored.other.append(line)
            continue
        if not isinstance(m.get("id"), str) or not m["id"]:
            m["id"] = message_id(m["role"], m["text"], m.get("ts"), 0)  # the one id rule for messages
        m.setdefault("seq", n)
        stored.messages.append(m)
    return stored


def read_file(path: Path, layout: Layout, warn=None) -> Stored:
    """One conversation file (empty if missing, or if a symlink leads it outside)."""
    try:
        data = read_inside(path, layout.memory)
    except OutsideMemory as exc:
        (warn or _warn)(exc.message)
        return Stored()
    except MemcliError as exc:  # a folder where a file should be
        (warn or _warn)(f"{exc.message}; skipped")
        return Stored()
    stored = parse_jsonl(data or b"")
    if stored.other and warn:
        count = len(stored.other)
        warn(
            f"{path}: {count} line{'s' if count > 1 else ''} that {'are' if count > 1 else 'is'} not a message"
            " (kept as they are; `memcli compact` reports them)"
        )
    return stored


def read_stored(layout: Layout, agent: str, warn=None) -> Stored:
    """Every conversation file of the agent, as one: messages in file order (files by name),
    trimmed ids of every file, lines that are not messages."""
    out = Stored()
    for path in conversation_files(layout, agent):
        stored = read_file(path, layout, warn)
        out.messages.extend(stored.messages)
        out.trimmed |= stored.trimmed
        out.other.extend(stored.other)
    return out


def _jsonl(layout: Layout, agent: str, warn=None) -> tuple[list[dict[str, Any]], set[str]]:
    """The JSONL file's messages (as stored) and the ids that compaction trimmed."""
    stored = read_stored(layout, agent, warn)
    return stored.messages, stored.trimmed


def read_conversation(layout: Layout, agent: str, warn=None, legacy: bool = True) -> list[dict[str, Any]]:
    """Every stored message of an agent: legacy JSON first, then JSONL; unique ids, in time order.

    Messages that compaction trimmed (recorded as ``{"id", "trimmed": true}`` lines) stay out,
    even when a merge or a re-saved conversation brings their lines back.
    """
    messages: list[dict[str, Any]] = []
    legacy_path = layout.conversations / f"{validate_agent(agent)}.json"
    if legacy and legacy_path.is_file():
        try:
            raw = (read_inside(legacy_path, layout.memory) or b"").decode("utf-8")
            legacy_messages, meta = parse_conversation(raw, str(legacy_path))
            for n, m in enumerate(assign_ids(legacy_messages, meta.get("chatId"))):
                m.setdefault("ts", meta.get("savedAt", 0))
                m["seq"] = n
                messages.append(m)
        except (MemcliError, OSError, UnicodeDecodeError) as exc:
            if warn:
                warn(f"{legacy_path}: skipped, not a conversation ({getattr(exc, 'message', exc)})")
    stored, trimmed = _jsonl(layout, agent, warn)
    messages.extend(stored)
    unique: dict[str, dict[str, Any]] = {}
    for m in messages:
        if m["id"] not in trimmed:
            unique.setdefault(m["id"], m)
    return sorted(unique.values(), key=lambda m: (m.get("ts") or 0, m.get("seq") or 0))


def line_bytes(m: dict[str, Any]) -> bytes:
    return json.dumps(m, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def append_messages(
    layout: Layout, agent: str, messages: list[dict[str, Any]], warn=None, session: str | None = None
) -> int:
    """Append the messages not stored yet to the session's file (call under the memory lock);
    returns how many.  ``session`` is the file's name (default: a new session).  What is stored
    is what every file of the agent holds, so a conversation saved again adds nothing.

    A wrapper saves overlapping windows of one conversation.  The window is matched with the
    stored conversation by role and text, in order (``_stored_already``): what is there is not
    stored again (with or without timestamps), and a message that repeats an earlier one ("ok",
    "continue") in a new place gets an id of its own, so it is never taken for the earlier one.
    """
    path = session_dir(layout, agent) / (session if session and is_session_name(session) else new_session_name())
    held = read_stored(layout, agent, warn)  # not the legacy JSON: migrate appends its messages
    known = {m["id"] for m in held.messages} | held.trimmed
    order = held.messages  # file order: the order they were saved in
    stored_keys = [(m["role"], m["text"]) for m in order]
    already = _stored_already(stored_keys, [(m["role"], m["text"]) for m in messages])
    before: dict[tuple[str, str], int] = {}
    for key in stored_keys:
        before[key] = before.get(key, 0) + 1
    now = int(time.time() * 1000)
    new = []
    for n, m in enumerate(messages):
        if n in already:
            continue  # the same message, in its place in the stored conversation
        key = (m["role"], m["text"])
        occurrence = before.get(key, 0)  # a repeat counts from every identical message stored
        before[key] = occurrence + 1
        if m.pop("_auto_id", False):
            m["id"] = message_id(m["role"], m["text"], m.get("ts"), occurrence)
        if m["id"] in known:
            continue
        known.add(m["id"])
        line = {k: v for k, v in m.items() if k in ("id", "role", "text", "chatId", "modelId", "ts")}
        line.setdefault("ts", now)
        line["seq"] = len(order) + n
        new.append(line_bytes(line))
    for m in messages:
        m.pop("_auto_id", None)
    if new:
        current = read_inside(path, layout.memory) or b""
        if current and not current.endswith(b"\n"):
            current += b"\n"
        _write(path, current + b"\n".join(new) + b"\n", layout)
    return len(new)


def _write(path: Path, data: bytes, layout: Layout) -> None:
    """Replace a conversation file (under the memory lock), and remove what writes cut short left beside it."""
    atomic_write(path, data, layout.memory)
    clean_stale_temp([path.parent], layout.memory)


def write_conversation(
    layout: Layout,
    path: Path,
    messages: list[dict[str, Any]],
    trimmed: set[str] | None = None,
    other: list[bytes] | None = None,
    closed: bool = False,
) -> None:
    """Replace a conversation file (compaction); call under the memory lock.

    ``trimmed`` ids are written as ``{"id", "trimmed": true}`` lines first, so that a
    re-saved conversation or a merge cannot bring those messages back; ``other`` lines
    (not messages) are kept at the end, as they were.
    """
    _write(path, serialize(messages, trimmed, other, closed), layout)


def serialize(
    messages: list[dict[str, Any]],
    trimmed: set[str] | None = None,
    other: list[bytes] | None = None,
    closed: bool = False,
) -> bytes:
    """A conversation file: the trimmed-id lines, one message a line, lines that are not messages,
    then the closing line of an ended session."""
    stubs = [line_bytes({"id": i, "trimmed": True}) + b"\n" for i in sorted(trimmed or ())]
    return (
        b"".join(stubs)
        + b"".join(line_bytes(m) + b"\n" for m in messages)
        + b"".join(line + b"\n" for line in other or ())
        + (line_bytes(CLOSED_LINE) + b"\n" if closed else b"")
    )


def close_session(layout: Layout, agent: str, session: str) -> bool:
    """Mark a session's file as ended (call under the memory lock): its last line says so, and from
    then on no clone appends to it, so compaction may trim it.  False if there is no such file."""
    path = session_dir(layout, agent) / session
    data = read_inside(path, layout.memory)
    if data is None:
        return False
    if parse_jsonl(data).closed:
        return True
    if data and not data.endswith(b"\n"):
        data += b"\n"
    _write(path, data + line_bytes(CLOSED_LINE) + b"\n", layout)
    return True

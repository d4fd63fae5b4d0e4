"""The AITEAM-X vault file format: parse and serialise ``<agent>/<category>.md``.

An entry is written as::

    <!-- id:1773679871839 -->
    ## 2026-03-16T16:51 · #react #typescript

    Free-form markdown body.

    ---

Entries are joined by a blank line and the file ends with a newline.  Reading is
lenient where the original implementation lost data:

* entries are found by their ``<!-- id:N -->`` markers, not by ``---`` (a union merge
  can drop the separator), so a ``---`` line inside a body is body text;
* text without a marker (written by hand or by an agent) becomes an entry of its
  own (``id is None``) instead of vanishing; a ``## <date>`` header line without a
  marker starts such an entry;
* two entries with the same id are both returned;
* tags come from the header and may contain hyphens and any Unicode letters.

Bodies round-trip byte for byte: a body line that would read back as a marker or a
header is written with one extra leading backslash, removed again on read.
"""

from __future__ import annotations

import re
from datetime import datetime, timezone

MARKER_RE = re.compile(r"<!-- id:(\d+) -->[ \t\r]*")
_DATE = r"\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?Z?)?"
HEADER_RE = re.compile(r"## (" + _DATE + r")(?: \u00b7 ((?:#\S+[ \t]*)+))?[ \t\r]*")
_TAIL_RE = re.compile(r"\n\n?---[ \t\r]*\Z")
# A hashtag in free text: not preceded by a word character, '#', '&' or '/', so
# that "issue#3", "&#38;" and URL fragments are not tags.
_HASHTAG_RE = re.compile(r"(?<![\w#&/])#(\w(?:[\w-]*\w)?)")
_HEX_COLOR_RE = re.compile(r"(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})")
_CODE_RE = re.compile(r"```.*?(?:```|\Z)|`[^`\n]*`", re.S)
TAG_SEPARATOR = " \u00b7 "


class Entry:
    """One vault entry.  ``id`` is None for text found without an id marker."""

    __slots__ = ("id", "date", "tags", "body")

    def __init__(self, id: int | None, date: str | None, tags: list[str] | None = None, body: str = ""):
        self.id = id
        self.date = date
        self.tags = tags if tags is not None else []
        self.body = body

    def _key(self) -> tuple:
        return (self.id, self.date, self.tags, self.body)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Entry) and other._key() == self._key()

    def __repr__(self) -> str:
        return f"Entry(id={self.id!r}, date={self.date!r}, tags={self.tags!r}, body={self.body!r})"

    @property
    def header_date(self) -> str:
        if self.date:
            return self.date
        return date_for_id(self.id) if self.id is not None else ""


def date_for_id(entry_id: int) -> str:
    """The header date of an id (milliseconds since the epoch), UTC, to the minute."""
    return datetime.fromtimestamp(entry_id / 1000, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M")


def id_for_date(date: str) -> int | None:
    """Milliseconds since the epoch for a header date, or None if it does not parse."""
    text = date.rstrip("Z")
    for fmt in ("%Y-%m-%dT%H:%M:%S.%f", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%M", "%Y-%m-%d"):
        try:
            parsed = datetime.strptime(text, fmt).replace(tzinfo=timezone.utc)
        except ValueError:
            continue
        return int(parsed.timestamp() * 1000)
    return None


def hashtags(text: str) -> list[str]:
    """Tags written as ``#tag`` in free text, in order, without duplicates.

    Numbers (``#42``) and hex colours (``#fff``, ``#a1b2c3``) are not tags, nor is
    anything inside code spans or fences.
    """
    text = _CODE_RE.sub(" ", text)
    seen: dict[str, str] = {}
    for match in _HASHTAG_RE.finditer(text):
        tag = match.group(1)
        if tag.isdigit() or _HEX_COLOR_RE.fullmatch(tag):
            continue
        seen.setdefault(tag.lower(), tag)
    return list(seen.values())


def merge_tags(*groups: list[str]) -> list[str]:
    """Concatenate tag lists, dropping case-insensitive duplicates, keeping order."""
    seen: dict[str, str] = {}
    for group in groups:
        for tag in group:
            seen.setdefault(tag.lower(), tag)
    return list(seen.values())


def _is_boundary(line: str) -> bool:
    return bool(MARKER_RE.fullmatch(line) or HEADER_RE.fullmatch(line))


def _escape(line: str) -> str:
    """Prefix one backslash to a body line that would read back as a marker or header."""
    return "\\" + line if _is_boundary(line.lstrip("\\")) else line


def _unescape(line: str) -> str:
    if line.startswith("\\") and _is_boundary(line.lstrip("\\")):
        return line[1:]
    return line


def _body_from_lines(lines: list[str]) -> str:
    if lines and lines[0].strip() == "":
        lines = lines[1:]
    text = "\n".join(lines).rstrip("\n")
    match = _TAIL_RE.search(text)
    if match:
        text = text[: match.start()]
    elif text.strip() == "---":
        text = ""
    return "\n".join(_unescape(line) for line in text.split("\n"))


def _parse_tags(tag_text: str | None) -> list[str]:
    if not tag_text:
        return []
    return [token[1:] for token in tag_text.split() if len(token) > 1]


def parse(text: str) -> list[Entry]:
    """Every entry of a vault file, in file order.  Never drops text."""
    lines = text.split("\n")
    entries: list[Entry] = []
    # Each chunk: (entry_id or None, header match or None, body lines)
    chunk_id: int | None = None
    chunk_header: re.Match[str] | None = None
    chunk_lines: list[str] = []
    started = False

    def flush() -> None:
        body = _body_from_lines(chunk_lines)
        if chunk_id is None and chunk_header is None and body.strip() in ("", "---"):
            return  # blank space or a stray separator between entries
        date = chunk_header.group(1) if chunk_header else None
        tags = _parse_tags(chunk_header.group(2)) if chunk_header else []
        entries.append(Entry(id=chunk_id, date=date, tags=tags, body=body))

    i = 0
    while i < len(lines):
        line = lines[i]
        marker = MARKER_RE.fullmatch(line)
        header = None if marker else HEADER_RE.fullmatch(line)
        if marker or header:
            if started or chunk_lines:
                flush()
            started = True
            chunk_id = int(marker.group(1)) if marker else None
            chunk_header = header
            chunk_lines = []
            if marker and i + 1 < len(lines):
                next_header = HEADER_RE.fullmatch(lines[i + 1])
                if next_header:
                    chunk_header = next_header
                    i += 1
        else:
            chunk_lines.append(line)
        i += 1
    if started or chunk_lines:
        flush()
    return entries


def format_entry(entry: Entry) -> str:
    """One entry in the file format (without the joining blank line)."""
    if entry.id is None:
        raise ValueError("an entry needs an id before it is written")
    tag_str = TAG_SEPARATOR + " ".join("#" + t for t in entry.tags) if entry.tags else ""
    body = "\n".join(_escape(line) for line in entry.body.split("\n"))
    return f"<!-- id:{entry.id} -->\n## {entry.header_date}{tag_str}\n\n{body}\n\n---"


def serialize(entries: list[Entry]) -> str:
    """A whole vault file: entries joined by a blank line, with a trailing newline."""
    if not entries:
        return ""
    return "\n\n".join(format_entry(e) for e in entries) + "\n"


OPEN_TASK_RE = re.compile(r"^\s*[-*+]\s+\[ \]\s+\S")


def open_tasks(body: str) -> list[str]:
    """The ``- [ ] …`` lines of a body, stripped."""
    return [line.strip() for line in body.split("\n") if OPEN_TASK_RE.match(line)]

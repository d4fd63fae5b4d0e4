"""The AITEAM-X vault file format: parse and serialise ``<agent>/<category>.md``.

An entry is written as::

    <!-- id:1773679871839 -->
    ## 2026-03-16T16:51 · #react #typescript

    Free-form markdown body.

    ---

Entries are joined by a blank line and the file ends with a newline.  Reading is
lenient where the original implementation lost data:

* entries are found by their ``<!-- id:N -->`` markers (a ``## <date>`` header line
  without a marker starts an entry too), not by splitting on ``---``;
* an entry ends at its closing ``---``: a ``---`` line after a blank line, or the last
  line before the next entry.  Text after it that no marker starts (a note appended by
  hand) is an entry of its own, and so is text before the first marker;
* text without a marker gets an id derived from its content (the same for every
  reader, whatever the file's mtime) and is written back as it was, without a marker,
  until it is edited;
* two entries with the same id are both returned;
* a file with unresolved git conflict markers is read as both sides: the entries of
  the two versions, each once;
* tags come from the header and may contain hyphens and any Unicode letters.

Bodies round-trip byte for byte: a body line that would read back as a marker, a
header, a closing ``---`` or a conflict marker is written with one extra leading
backslash, removed again on read.
"""

from __future__ import annotations

import re
from datetime import datetime, timezone

from memcli.patterns import Patterns

# An id has at most MAX_ID_DIGITS digits (a longer number is text: it could not be an entry's time).
MAX_ID_DIGITS = 40


def is_id(text: str) -> bool:
    """Whether ``text`` can be an entry id: ASCII digits only (``str.isdigit`` also takes '²' and
    '٣', which ``int`` refuses or reads otherwise), and not absurdly many.  The one id check."""
    return text.isascii() and text.isdigit() and len(text) <= MAX_ID_DIGITS


_DATE = r"\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?Z?)?"
# How every line that means something to the parser starts (marker, header, closer, conflict
# markers); an escaped body line starts with a backslash.
_STRUCTURE_STARTS = ("<!-- id:", "## ", "---", "<<<<<<<", "|||||||", ">>>>>>>", "=======")
_MAYBE_SPECIAL_STARTS = (*_STRUCTURE_STARTS, "\\")
_STARTS = "|".join(map(re.escape, _MAYBE_SPECIAL_STARTS))
# The format's patterns, compiled when first used (``memcli.patterns``).
P = Patterns(
    marker=r"<!-- id:(\d{1,%d}) -->[ \t\r]*" % MAX_ID_DIGITS,
    # Tags are runs of non-space characters starting with '#', one run after another: written so
    # that a line cannot be split into tags in more than one way (which took exponential time to
    # refuse).
    header=r"## (" + _DATE + r")(?: \u00b7 (#\S+(?:[ \t]+#\S+)*))?[ \t\r]*",
    closer=r"---[ \t\r]*",
    # git's conflict markers (default size 7): "<<<<<<< ours", "||||||| base", "=======", ">>>>>>> theirs".
    conflict=r"(?:<{7}|\|{7}|>{7})(?: .*)?|={7}[ \t\r]*",
    # A hashtag in free text: not preceded by a word character, '#', '&' or '/', so that
    # "issue#3", "&#38;" and URL fragments are not tags.
    hashtag=r"(?<![\w#&/])#(\w(?:[\w-]*\w)?)",
    hex_color=r"(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})",
    code=(r"```.*?(?:```|\Z)|`[^`\n]*`", re.S),
    # Lines that could need escaping or unescaping; the second expression starts with a literal,
    # which the regular expression engine scans for fast (unlike "^" in re.M, tried at every
    # character).
    maybe_special_line=(rf"^(?:{_STARTS}).*$", re.M),
    maybe_special_later=rf"\n(?:{_STARTS})",
    canonical_head=r"<!-- id:([0-9]{1,%d}) -->\n## (" % MAX_ID_DIGITS + _DATE + r")(?: \u00b7 (#\S+(?: #\S+)*))?\n\n",
    open_task=r"^\s*[-*+]\s+\[ \]\s+\S",
)
TAG_SEPARATOR = " \u00b7 "
# Ids of undated hand-written text lie below this (before 2001): they sort after every dated entry.
UNDATED_ID_LIMIT = 1_000_000_000_000


class Entry:
    """One vault entry: it always has an id (text read without a marker is a ``Draft`` until
    ``assign_content_ids`` gives it one).

    ``marked`` is False for text found without an id marker: its ``id`` is then derived
    from its content (see ``content_id``) and it is written back without a marker.
    ``source`` is where the store read it: the file's path inside ``.memory/`` (None for an
    entry not read from a file).
    """

    __slots__ = ("id", "date", "tags", "body", "marked", "source")

    def __init__(self, id: int, date: str | None, tags: list[str] | None = None, body: str = "", marked: bool = True):
        self.id = id
        self.date = date
        self.tags = tags if tags is not None else []
        self.body = body
        self.marked = marked
        self.source: str | None = None

    def _key(self) -> tuple:
        return (self.id, self.date, self.tags, self.body)

    def content(self) -> tuple:
        """What an entry says, without its id: two entries are the same memory if this is equal."""
        return (self.header_date, tuple(self.tags), self.body)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Entry) and other._key() == self._key()

    def __repr__(self) -> str:
        flag = "" if self.marked else ", marked=False"
        return f"Entry(id={self.id!r}, date={self.date!r}, tags={self.tags!r}, body={self.body!r}{flag})"

    @property
    def header_date(self) -> str:
        if self.date:
            return self.date
        if not self.marked and self.id < UNDATED_ID_LIMIT:
            return ""  # undated hand-written text
        return date_for_id(self.id)


MAX_ID = 253_402_300_799_999  # 9999-12-31T23:59:59.999Z in ms: a larger id has no date


def newest_first(entry: Entry) -> int:
    """Sort key (use with reverse=True): the id, which is the time an entry was made; an id beyond
    any date (typed by hand) sorts by its header's date instead, so it never poses as the newest."""
    if entry.id <= MAX_ID:
        return entry.id
    return (id_for_date(entry.date) if entry.date else None) or 0


def date_for_id(entry_id: int) -> str:
    """The header date of an id (milliseconds since the epoch), UTC, to the minute ("" if it has none)."""
    if not 0 <= entry_id <= MAX_ID:
        return ""
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
    text = P.code.sub(" ", text)
    seen: dict[str, str] = {}
    for match in P.hashtag.finditer(text):
        tag = match.group(1)
        if tag.isdigit() or P.hex_color.fullmatch(tag):
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


def content_id(date: str | None, tags: list[str], body: str) -> int:
    """The id of text found without a marker: a function of its content only.

    Dated text gets an id within a second of its date, so it sorts by that date; undated
    text an id below ``UNDATED_ID_LIMIT``, so it sorts after every dated entry.
    """
    import hashlib

    digest = hashlib.sha1(f"{date or ''}\x00{' '.join(tags)}\x00{body}".encode("utf-8", "surrogatepass")).digest()
    h = int.from_bytes(digest[:8], "big")
    base = id_for_date(date) if date else None
    if base is not None and base > 0:
        return base + h % 1000
    return 1 + h % (UNDATED_ID_LIMIT - 1)


class Draft:
    """An entry as the line parser finds it: ``id`` None for text without a marker."""

    __slots__ = ("id", "date", "tags", "body")

    def __init__(self, id: int | None, date: str | None, tags: list[str], body: str):
        self.id, self.date, self.tags, self.body = id, date, tags, body


def assign_content_ids(drafts: list[Draft]) -> list[Entry]:
    """Entries from drafts: text found without a marker gets its content id, moved past ids
    already taken."""
    used = {d.id for d in drafts if d.id is not None}
    entries = []
    for d in drafts:
        entry_id = d.id
        if entry_id is None:
            entry_id = content_id(d.date, d.tags, d.body)
            while entry_id in used:
                entry_id += 1
            used.add(entry_id)
        entries.append(Entry(entry_id, d.date, d.tags, d.body, marked=d.id is not None))
    return entries


def _is_special(line: str) -> bool:
    """A line that means something to the parser: marker, header, closer or conflict marker."""
    if not line.startswith(_STRUCTURE_STARTS):  # none of them can start otherwise
        return False
    return bool(
        P.marker.fullmatch(line) or P.header.fullmatch(line) or P.closer.fullmatch(line) or P.conflict.fullmatch(line)
    )


def _maybe_special(body: str) -> bool:
    """Whether a line of ``body`` is one of P.maybe_special_line's."""
    return body.startswith(_MAYBE_SPECIAL_STARTS) or P.maybe_special_later.search(body) is not None


def _escape(line: str) -> str:
    """Prefix one backslash to a body line that would read back as structure."""
    return "\\" + line if _is_special(line.lstrip("\\")) else line


def _escape_match(match: re.Match[str]) -> str:
    return _escape(match.group())


def _escape_body(body: str) -> str:
    return P.maybe_special_line.sub(_escape_match, body)


def _unescape(line: str) -> str:
    if line.startswith("\\") and _is_special(line.lstrip("\\")):
        return line[1:]
    return line


def _body_from_lines(lines: list[str]) -> str:
    """The body of an entry from the lines after its header, without the closing ``---``."""
    end = len(lines)
    while end and not lines[end - 1].strip():
        end -= 1
    if end and lines[end - 1].startswith("---") and P.closer.fullmatch(lines[end - 1]):  # a closer, at the end
        end -= 1
    if lines and not lines[0].strip():
        lines = lines[1:]
        end -= 1
    if end > 0 and not lines[end - 1].strip():
        end -= 1  # the blank line that the format puts before "---"
    return "\n".join(_unescape(line) for line in lines[: max(end, 0)])


def _parse_tags(tag_text: str | None) -> list[str]:
    if not tag_text:
        return []
    return [token[1:] for token in tag_text.split() if len(token) > 1]


def split_conflict(text: str) -> tuple[str, str] | None:
    """The two sides of a file holding git conflict markers, or None if it holds none.

    Lines outside conflicts belong to both sides; a diff3 base section is dropped.  Only
    well-formed conflicts count (a marker line alone is text).
    """
    if "\n=======" not in text and not text.startswith("======="):
        return None
    lines = text.split("\n")
    ours: list[str] = []
    theirs: list[str] = []
    state = None  # None outside a conflict, else "ours", "base" or "theirs"
    found = False
    for line in lines:
        if state is None and line.startswith("<<<<<<<") and P.conflict.fullmatch(line):
            state = "ours"
            continue
        if state == "ours" and line.startswith("|||||||") and P.conflict.fullmatch(line):
            state = "base"
            continue
        if state in ("ours", "base") and line.startswith("=======") and P.conflict.fullmatch(line):
            state = "theirs"
            continue
        if state == "theirs" and line.startswith(">>>>>>>") and P.conflict.fullmatch(line):
            state = None
            found = True
            continue
        if state in (None, "ours"):
            ours.append(line)
        if state in (None, "theirs"):
            theirs.append(line)
    if not found or state is not None:
        return None
    return "\n".join(ours), "\n".join(theirs)


def union(*sides: list[Draft]) -> list[Draft]:
    """The entries of several versions of a file, each memory once, in order of first appearance."""
    out: list[Draft] = []
    seen: set[tuple] = set()
    for drafts in sides:
        for e in drafts:
            header_date = e.date or (date_for_id(e.id) if e.id is not None else "")  # as Entry.header_date
            key = (e.id, header_date, tuple(e.tags), e.body)
            if key not in seen:
                seen.add(key)
                out.append(e)
    return out


def parse(text: str) -> list[Entry]:
    """Every entry of a vault file, in file order, each with an id.  Never drops text.  A file whose
    every line ends in CRLF (saved on Windows) reads as LF; a carriage return in a body stays."""
    if "\r\n" in text and text.count("\r\n") == text.count("\n"):  # every line end CRLF: saved on Windows
        text = text.replace("\r\n", "\n")
    sides = split_conflict(text)
    if sides is not None:
        return assign_content_ids(union(_parse(sides[0]), _parse(sides[1])))
    return _parse_canonical(text) or assign_content_ids(_parse(text))


_CANONICAL_END = "\n\n---\n"
_CANONICAL_SEPARATOR = "\n\n---\n\n"


def _parse_canonical(text: str) -> list[Entry] | None:
    """The entries of a file exactly as memcli writes it, or None for anything else (linear, no line
    loop).  A body never holds an unescaped ``---`` line, so the file splits at its closers; each
    piece must be what ``format_entry`` writes for what is read from it: an id without leading
    zeros, tags separated by single spaces, a body whose lines read back as themselves."""
    if not text.startswith("<!-- id:") or not text.endswith(_CANONICAL_END):
        return None
    entries = []
    head = P.canonical_head.match
    for piece in text[: -len(_CANONICAL_END)].split(_CANONICAL_SEPARATOR):
        m = head(piece)
        if m is None:
            return None
        number, date, tag_text = m.groups()
        if number[0] == "0" and number != "0":
            return None
        body = written = piece[m.end() :]
        if _maybe_special(written):
            if "\\" in written:
                body = "\n".join(_unescape(line) for line in written.split("\n"))
            if _escape_body(body) != written:
                return None
        entries.append(Entry(int(number), date, _parse_tags(tag_text), body))
    return entries


parse_canonical = _parse_canonical  # for readers that join files memcli wrote (store.parse_sources)


def _parse(text: str) -> list[Draft]:
    lines = text.split("\n")
    entries: list[Draft] = []
    chunk_id: int | None = None
    chunk_header: re.Match[str] | None = None
    chunk_lines: list[str] = []

    def flush() -> None:
        lines = chunk_lines
        if chunk_id is None and chunk_header is None:  # bare text: blank lines around it are not its own
            if not lines or (len(lines) == 1 and not lines[0].strip()):
                return  # nothing but the blank line between an entry's closer and the next marker
            while lines and not lines[0].strip():
                lines = lines[1:]
            lines = [""] + lines
        body = _body_from_lines(lines)
        if chunk_id is None and chunk_header is None and body.strip() in ("", "---"):
            return  # blank space or a stray separator between entries
        date = chunk_header.group(1) if chunk_header else None
        tags = _parse_tags(chunk_header.group(2)) if chunk_header else []
        entries.append(Draft(chunk_id, date, tags, body))

    i = 0
    while i < len(lines):
        line = lines[i]
        # The regular expressions only where the line's start allows a match (most lines are text).
        marker = P.marker.fullmatch(line) if line.startswith("<!-- id:") else None
        header = P.header.fullmatch(line) if not marker and line.startswith("## ") else None
        if marker or header:
            flush()
            chunk_id = int(marker.group(1)) if marker else None
            chunk_header = header
            chunk_lines = []
            if marker and i + 1 < len(lines) and lines[i + 1].startswith("## "):
                next_header = P.header.fullmatch(lines[i + 1])
                if next_header:
                    chunk_header = next_header
                    i += 1
        elif line.startswith("---") and P.closer.fullmatch(line) and chunk_lines and not chunk_lines[-1].strip():
            # The entry's closing "---": what follows, up to the next marker, is other text.
            chunk_lines.append(line)
            flush()
            chunk_id, chunk_header, chunk_lines = None, None, []
        else:
            chunk_lines.append(line)
        i += 1
    flush()
    return entries


def format_entry(entry: Entry) -> str:
    """One entry in the file format (without the joining blank line).

    Text that was found without a marker is written back without one (its id is its content's).
    """
    body = _escape_body(entry.body)
    tag_str = TAG_SEPARATOR + " ".join("#" + t for t in entry.tags) if entry.tags else ""
    if not entry.marked:
        header = f"## {entry.date}{tag_str}\n\n" if entry.date else ""
        return f"{header}{body}\n\n---"
    return f"<!-- id:{entry.id} -->\n## {entry.header_date or '1970-01-01T00:00'}{tag_str}\n\n{body}\n\n---"


def serialize(entries: list[Entry]) -> str:
    """A whole vault file: entries joined by a blank line, with a trailing newline."""
    if not entries:
        return ""
    return "\n\n".join(format_entry(e) for e in entries) + "\n"


def open_tasks(body: str) -> list[str]:
    """The ``- [ ] …`` lines of a body, stripped."""
    return [line.strip() for line in body.split("\n") if P.open_task.match(line)]

"""The developer's personal notes kept out of a project's saved sessions.

``inject`` and the session hooks put the personal memory in front of the agent, and an agent
repeats what it read ("Your notes say: my sandbox Redis listens on 6380 …").  A project's saved
conversation is committed for the whole team, and the extractor would make a project lesson of
such a line.  So a sentence of a message that repeats a personal note is replaced with a marker
before anything is stored: a sentence that holds most of a note's words (all of them for a note
of two or three words, else at least three and 60%), however they are ordered or framed.  A
paraphrase in other words is not recognised; what is caught is a note said again.
"""

from __future__ import annotations

import os
import re
from typing import Any

from memcli.storage.guard import INVISIBLE_CLASS
from memcli.storage.paths import Layout

WITHHELD = "[a personal note, left out by memcli]"
SHARE = 0.6  # of a longer note's words that a sentence must hold
LEAST = 3  # words, at least, for a note of four words or more
WINDOW = 3  # lines or sentences a note said over several is looked for in
ENDS = ".!?;。！？；"  # what ends a sentence (the last four: Chinese and Japanese, with no space after)
_WORD = re.compile(r"[^\W_]+")  # (an underscore parts words: SANDBOX_REDIS_PORT)
_SENTENCE = re.compile(r"(?<=[.!?;])\s+|(?<=[。！？；])\s*|\n")
_USER_FLAG = re.compile(r"\s--user\b")
# Scripts written without spaces between words, counted by pairs of neighbouring characters: kana,
# CJK ideographs (with their extensions and compatibility forms), Hangul syllables, Thai, Lao,
# Myanmar and Khmer.
_PAIRED = (
    "\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff"
    "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\U00020000-\U0003134f"
)
# Scripts of India and Sri Lanka: their vowel signs (marks, not ``\w``) belong inside the word.
_INDIC = "\u0900-\u0963\u0966-\u0dff"
_TOKEN = re.compile(f"([{_PAIRED}]+)|(?:[^\\W_{_PAIRED}]|[{_INDIC}])+")
_SPACED = re.compile(f"(?<=[{_PAIRED}])\\s+(?=[{_PAIRED}])")  # spaces put between such words
_MARKER = re.compile("⟨U\\+[0-9A-F]{4,6}⟩")  # an invisible character a saved message shows (reveal_invisible)
# Accents and vowel points (after decomposition: Latin's, Hebrew's, Arabic's with its tatweel) and
# the invisible characters the content rules name (``guard.INVISIBLE_CLASS``), which may sit inside
# a word.  (Only a write or a checkpoint imports this module, and both load the rules already.)
_DROPPED = re.compile(
    "[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f"
    "\u0591-\u05bd\u05bf\u05c1\u05c2\u05c4\u05c5\u05c7\u0610-\u061a\u0640\u064b-\u065f\u0670\u06d6-\u06ed"
    + INVISIBLE_CLASS
    + "]"
)
_DIGITS = re.compile(r"(?![0-9])\d")  # a digit of another script: ٦٣٨٠ is 6380
# Cyrillic and Greek letters that look like Latin ones (after case folding): "sаndbox" with a Cyrillic а.
_LOOKALIKES = str.maketrans("аеорсухіјѕԁһԛԝӏвнмткαοικνρτυχε", "aeopcyxijsdhqwlbhmtkaoikvptuxe")
_CAMEL = re.compile(
    r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])|(?<=[a-zA-Z])(?=[0-9])"
)  # stagingRedis, HTTPServer, port6380


# A word that holds one of _CAMEL's boundaries (from the word's start: one pass over a long word).
_CAMEL_WORD = re.compile(r"(?<![^\W_])[^\W_]*?(?:[a-z0-9][A-Z]|[A-Z][A-Z][a-z]|[a-zA-Z][0-9])[^\W_]*")


def _plain(text: str) -> str:
    """``text`` as words are compared: HTML entities and %-escapes read; accents, vowel points,
    invisible characters and the markers that show them taken out; compatibility forms (fullwidth
    letters, ligatures) and other scripts' digits made plain; case folded; Cyrillic and Greek
    look-alikes of Latin letters read as Latin."""
    if "&" in text:
        import html

        text = html.unescape(text)
    if "%" in text:
        from urllib.parse import unquote

        text = unquote(text)
    if text.isascii():
        return text.lower()
    import unicodedata

    text = _DROPPED.sub("", unicodedata.normalize("NFKD", _MARKER.sub("", text)))
    text = unicodedata.normalize("NFC", text).casefold()  # NFC: Hangul syllables made whole again
    if not text.isascii():
        text = _SPACED.sub("", text.translate(_LOOKALIKES))
        text = _DIGITS.sub(lambda m: str(unicodedata.digit(m.group(), m.group())), text)
    return text


def _words(text: str, parts: bool = False) -> set[str]:
    """The words of ``text`` that say something (not stop words), in their plain form (``_plain``).
    ``parts``: also the parts of words written in camelCase (``stagingRedis``: staging, redis), for
    a text that may say a note again in code."""
    words = _plain_words(text)
    if parts:
        for word in _CAMEL_WORD.findall(text):  # only the words camelCase joins are read again, split
            words |= _plain_words(_CAMEL.sub(" ", word))
    return words


def _plain_words(text: str) -> set[str]:
    from memcli.search.words import STOPWORDS

    text = _plain(text)
    if text.isascii():
        return {w for w in _WORD.findall(text) if w not in STOPWORDS}
    out = set()
    for m in _TOKEN.finditer(text):
        run = m.group(1)
        if run is None:
            if m.group() not in STOPWORDS:
                out.add(m.group())
        elif len(run) == 1:
            out.add(run)
        else:  # written without spaces: each pair of neighbouring characters is a word
            out.update(run[i : i + 2] for i in range(len(run) - 1))
    return out


def notes(layout: Layout) -> list[tuple[int, set[str]]]:
    """The id and words of each personal note (every agent, category and state), for a project's
    memory; none for the personal memory itself, when there is none, or when it cannot be read
    (a session is always saved)."""
    from memcli.errors import MemcliError
    from memcli.storage.paths import personal_memory
    from memcli.storage.store import Store

    mine = personal_memory(layout, lambda message: None)
    if mine is None:
        return []
    found = []
    try:
        store = Store(mine)
        for located in store.iter_entries():
            body = located.entry.body
            parts = _SENTENCE.split(body)  # the whole note, and each of its sentences and lines (if several)
            for part in [body, *parts] if len(parts) > 1 else parts:
                words = _words(part)
                if len(words) >= 2:  # a one-word note would take every sentence with that word
                    found.append((located.entry.id, words))
    except (MemcliError, OSError, ValueError):
        return []
    return found


def repeats(sentence: set[str], note: set[str]) -> bool:
    """Whether a sentence's words say a note's again."""
    return _enough(len(sentence & note), len(note))


def _enough(held: int, size: int) -> bool:
    """Whether ``held`` of a note's ``size`` words say it again: all of two or three, else at
    least three and ``SHARE`` of them."""
    return held == size if size <= LEAST else held >= max(LEAST, SHARE * size)


COMMON = 16  # notes, more than which hold a word that is common among them (_Finder's groups)


class Finder:
    """The notes by word, to find the one a sentence repeats.

    A note is looked up by its rarest words only: a sentence that holds ``need`` of a note's
    ``size`` words misses at most ``size - need`` of them, so it holds one of any ``size - need + 1``
    (prefix filtering).  Its rarest words (held by the fewest notes) make those keys, so a word
    every note holds ("use", "test") leads to none, and each note found is checked whole.

    A note with too few rare words (held by ``COMMON`` notes or fewer) for its keys would be keyed
    by a common word too, and a sentence holding that word would check every note holding it (2,000
    notes sharing "use python test code run server": 40 s for a session).  Such a note is found by
    its rare words, or else by its common words as a whole: the notes with the same common words
    make one group, which a sentence reaches (prefix filtering again) and judges at once by how many
    of the group's words it holds."""

    def __init__(self, found: list[tuple[int, set[str]]]):
        self.found = found
        # how many of each note's words say it again (``_enough``)
        self.need = [next(h for h in range(len(note) + 1) if _enough(h, len(note))) for _, note in found]
        holders: dict[str, int] = {}
        for _, note in found:
            for word in note:
                holders[word] = holders.get(word, 0) + 1
        self.by_word: dict[str, list[int]] = {}  # a note's keys: its rarest words
        grouped: dict[frozenset[str], list[int]] = {}  # the notes with too few rare words, by their common words
        for n, (_, note) in enumerate(found):
            keys = sorted(note, key=lambda w: (holders[w], w))[: len(note) - self.need[n] + 1]
            if keys and holders[keys[-1]] > COMMON:
                keys = [w for w in keys if holders[w] <= COMMON]
                grouped.setdefault(frozenset(w for w in note if holders[w] > COMMON), []).append(n)
            for word in keys:
                self.by_word.setdefault(word, []).append(n)
        # a group: its common words, and for each count of them held, the first note it says again
        self.groups: list[tuple[frozenset[str], list[int | None]]] = []
        self.group_keys: dict[str, list[int]] = {}
        for common, members in grouped.items():
            first: list[int | None] = [None] * (len(common) + 1)
            for n in members:  # (in found's order)
                for held in range(self.need[n], len(common) + 1):
                    if first[held] is None:
                        first[held] = n
            least = min(self.need[n] for n in members)
            if least > len(common):
                continue  # none of them is said again without a rare word of its own
            for word in sorted(common, key=lambda w: (holders[w], w))[: len(common) - least + 1]:
                self.group_keys.setdefault(word, []).append(len(self.groups))
            self.groups.append((common, first))

    def __bool__(self) -> bool:
        return bool(self.found)

    def _hit(self, words: set[str]) -> tuple[int, set[str]] | None:
        """The first note (in ``found``'s order) these words repeat."""
        by_word, found, need = self.by_word, self.found, self.need
        candidates = {n for w in words if (notes := by_word.get(w)) for n in notes}
        best = next((n for n in sorted(candidates) if len(found[n][1] & words) >= need[n]), None)
        for g in {g for w in words if (groups := self.group_keys.get(w)) for g in groups}:
            common, first = self.groups[g]
            n = first[len(common & words)]  # held this many of the group's words: its first note said again
            if n is not None and (best is None or n < best):
                best = n
        return found[best] if best is not None else None

    def said_in(self, text: str) -> int | None:
        """The id of a note that ``text`` says again (the whole text, or a sentence of it), or None."""
        for words in (_words(text, True), *(_words(part, True) for part in _SENTENCE.split(text))):
            hit = self.note(words)
            if hit is not None:
                return hit
        return None

    def note(self, words: set[str]) -> int | None:
        """The id of a note these words repeat, or None."""
        hit = self._hit(words)
        return hit[0] if hit else None

    def words_of(self, words: set[str]) -> set[str] | None:
        """The words of a note these words repeat, or None."""
        hit = self._hit(words)
        return hit[1] if hit else None


Found = list[tuple[int, set[str]]] | Finder  # the notes (``notes``), or their finder built once


def _as_finder(found: Found) -> Finder:
    return found if isinstance(found, Finder) else Finder(found)


def withhold(messages: list[dict[str, Any]], found: Found) -> int:
    """Each sentence that repeats a note (``repeats``) replaced with ``WITHHELD``, in place; how
    many messages held one."""
    if not found:
        return 0
    finder = _as_finder(found)
    keys = finder.by_word.keys()
    changed = 0
    for m in messages:
        text = m["text"]
        parts = _SENTENCE.split(text)
        words = [_words(part, parts=True) for part in parts]
        if not any(keys & w for w in words):  # no sentence holds a word any note is found by
            continue
        seps = _SENTENCE.findall(text)
        out = set()
        for i in range(len(parts)):
            if finder.note(words[i]) is not None:
                out.add(i)
                continue
            # a note said over a few lines or cells ("port 6380 |" "host sandbox.internal.me"): the
            # lines of a window of three that hold two of its words or more
            window = range(i, min(i + WINDOW, len(parts)))
            note = finder.words_of(set().union(*(words[j] for j in window)))
            if note is not None:
                out.update(j for j in window if len(words[j] & note) >= 2)
        for i in out:
            end = parts[i][-1:]
            parts[i] = WITHHELD + (end if end and end in ENDS else "")  # its sentence's end kept
        if out:
            m["text"] = "".join(p + (seps[i] if i < len(seps) else "") for i, p in enumerate(parts))
            changed += 1
    return changed


IDENTIFIERS = ("id", "chatId", "modelId")  # a message's identifiers, kept in the committed conversation


def unsaid(identifier: str, found: Found) -> str:
    """An identifier (a chat's, a model's, a message's) as a saved conversation may keep it: hashed
    when it says a personal note again ("my-sandbox-redis-6380")."""
    if found and _as_finder(found).note(_words(identifier, parts=True)) is not None:
        from memcli.storage.conversations import hashed

        return hashed(identifier)
    return identifier


def withhold_identifiers(messages: list[dict[str, Any]], found: Found) -> None:
    """Each identifier of each message (``IDENTIFIERS``) through ``unsaid``, in place."""
    if not found:
        return
    finder = _as_finder(found)
    kept: dict[str, str] = {}  # a chat's id is on every message: each value is read once
    for m in messages:
        for key in IDENTIFIERS:
            value = m.get(key)
            if isinstance(value, str):
                if value not in kept:
                    kept[value] = unsaid(value, finder)
                m[key] = kept[value]


def repeated(layout: Layout, text: str) -> int | None:
    """The id of a personal note that a text for the project's memory says again (a sentence of
    it, or the whole text), or None."""
    found = notes(layout)
    return Finder(found).said_in(text) if found else None


def withhold_activity(activity: list[tuple[str, str]], found: Found) -> list[tuple[str, str]]:
    """What a session's tools did (files changed, commands run: a handoff's "Done:" line) without
    a command or path that says a personal note again, is a memcli command on the personal memory
    (``--user``), or lies in the personal memory's folder."""
    from memcli.storage.paths import personal_root

    if not activity:
        return activity
    finder = _as_finder(found)
    root = str(personal_root())
    roots = {os.path.join(root, ""), os.path.join(os.path.realpath(root), "")}  # (a folder "mined" is not "mine")
    out = []
    for kind, value in activity:
        if (
            finder.note(_words(value, parts=True)) is not None
            or any(r in path for path in _paths(value) for r in roots)
            or ("memcli" in value and _USER_FLAG.search(value))
        ):
            value = WITHHELD
        out.append((kind, value))
    return out


_PATH = re.compile(r"[^\s'\"=:;|&<>()]*/[^\s'\"=:;|&<>()]*")  # a word of a command that names a folder or file


def _paths(value: str) -> list[str]:
    """A tool's command or file as written, and each path in it as written with ``~`` read, made
    absolute without ``.``, ``..`` and doubled slashes, and with its symlinks followed: however
    a path to the personal memory is spelled."""
    from memcli.storage.paths import expand_home

    out = [value + "/"]
    for word in _PATH.findall(value):
        word = expand_home(word) or word
        if os.path.isabs(word):
            out.append(os.path.normpath(word) + "/")
            out.append(os.path.realpath(word) + "/")
    return out

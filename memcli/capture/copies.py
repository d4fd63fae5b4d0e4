"""Whether two texts hold the same memory: what ``add`` asks before it writes (and ``compact``
and the capture of insights ask too).  Apart from ``extract`` so that an add compiles two
patterns, not the hundred that extraction uses (25 ms)."""

from __future__ import annotations

import re

_NORMALISE = re.compile(r"[^a-z0-9\u00c0-\u024f]+")
_HASHTAG = re.compile(r"(?<![\w&])#[^\s#]+")


def same_text_key(text: str) -> str:
    """What two entries say, for "is it the same memory": case, whitespace, punctuation and
    #hashtags folded away (the whole text, not a prefix)."""
    return " ".join(_NORMALISE.sub(" ", _HASHTAG.sub(" ", text).lower()).split())


NEAR_WORDS = 8  # a text of fewer words must match exactly to be a copy
NEAR_JACCARD = 0.9  # else: this share of their distinct words in common


def is_copy(a: str, b: str) -> bool:
    """Whether two texts hold the same memory: the same after ``same_text_key``, or, for texts of
    at least NEAR_WORDS words, sharing NEAR_JACCARD of their distinct words (one word changed in a
    sentence of 20)."""
    ka, kb = same_text_key(a), same_text_key(b)
    if ka == kb:
        return bool(ka)
    wa, wb = set(ka.split()), set(kb.split())
    if min(len(wa), len(wb)) < NEAR_WORDS:
        return False
    return len(wa & wb) / len(wa | wb) >= NEAR_JACCARD


class Seen:
    """Texts seen, asked "is this a copy of one of them?" (``is_copy``'s answer) many times: each
    text is normalised once, an exact copy is a lookup, and a near copy is looked for only among
    the texts that hold one of its rarest words (a text sharing NEAR_JACCARD of the words of
    another holds all but a tenth of them)."""

    def __init__(self) -> None:
        self.exact: dict[str, str] = {}
        self.words: list[frozenset[str]] = []
        self.names: list[str] = []
        self.postings: dict[str, list[int]] = {}

    def add(self, text: str, name: str) -> None:
        key = same_text_key(text)
        if not key:
            return
        self.exact.setdefault(key, name)
        words = frozenset(key.split())
        if len(words) >= NEAR_WORDS:
            for word in words:
                self.postings.setdefault(word, []).append(len(self.words))
            self.words.append(words)
            self.names.append(name)

    def find(self, text: str) -> str | None:
        """The name of a text seen that ``text`` is a copy of, or None."""
        key = same_text_key(text)
        if not key:
            return None
        if key in self.exact:
            return self.exact[key]
        words = frozenset(key.split())
        if len(words) < NEAR_WORDS:
            return None
        rarest = sorted(words, key=lambda w: len(self.postings.get(w, ())))
        # A copy lacks at most (1 - NEAR_JACCARD) of the words, so holds one of any more than that; the
        # slack keeps 10 * (1 - 0.9) = 0.9999999999999998 from rounding down to 0 (more words looked
        # at never misses a copy).
        need = int(len(words) * (1 - NEAR_JACCARD) + 1e-9) + 1
        candidates = sorted({i for w in rarest[:need] for i in self.postings.get(w, ())})
        for i in candidates:
            other = self.words[i]
            if len(words & other) / len(words | other) >= NEAR_JACCARD:
                return self.names[i]
        return None

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

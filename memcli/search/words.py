"""Words as the index sees them: tantivy's tokenizer and stemmer, and the function words that
never make an entry relevant on their own.  Shared by the index and the snippets."""

from __future__ import annotations

import re

WORD_RE = re.compile(r"\w+")
# Small function words: they never get fuzzy or prefix expansion (they would match everything).
STOPWORDS = frozenset(
    "a an and are as at be but by did do does for from had has have he her him his how i if in into is it its "
    "me my no not of on or our she so than that the their them then there these they this to was we were what "
    "when where which who whom why will with would you your".split()
)

_LONG_WORD = 40  # tantivy's en_stem drops words of this many bytes or more
_ANALYZER = None
_WORDS = None


def _analyzer(stem: bool):
    """tantivy's ``en_stem`` pipeline (simple tokenizer, long words out, lower case), stemmed or not."""
    import tantivy

    builder = tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple()).filter(tantivy.Filter.remove_long(_LONG_WORD))
    builder = builder.filter(tantivy.Filter.lowercase())
    return (builder.filter(tantivy.Filter.stemmer("english")) if stem else builder).build()


def query_words(text: str) -> list[str]:
    """The words of ``text`` as the index cuts them (lower-cased, not stemmed)."""
    global _WORDS
    if _WORDS is None:
        _WORDS = _analyzer(stem=False)
    return _WORDS.analyze(text)


def analyze(text: str) -> list[str]:
    """The terms tantivy's ``en_stem`` tokenizer makes of ``text``."""
    global _ANALYZER
    if _ANALYZER is None:
        _ANALYZER = _analyzer(stem=True)
    return _ANALYZER.analyze(text)


class _StemCache(dict):
    """Each distinct word's stem, computed once (``""`` for a word the tokenizer drops)."""

    def __missing__(self, word: bytes) -> str:
        if len(self) >= _STEM_CACHE_SIZE:  # a long-lived process (the MCP server) stays small
            self.clear()
        if word == _MARK:
            stem = _MARK_TEXT  # only stemmed_texts() cuts such a word: where one text ends
        elif 48 <= word[-1] <= 57 and len(word) < _LONG_WORD:
            stem = word.decode("ascii")  # every suffix the English stemmer removes ends in a letter
        else:
            stems = analyze(word.decode("ascii"))
            stem = stems[0] if stems else ""
        self[word] = stem
        return stem


_STEM_CACHE_SIZE = 200_000
_STEMS = _StemCache()
# ASCII letters lower-cased, digits kept, every other byte a space: what tantivy's simple
# tokenizer and lower-caser make of ASCII text, cut by bytes.split() (faster than a regex).
_ASCII_WORDS = bytes(c + 32 if 65 <= c <= 90 else c if 48 <= c <= 57 or 97 <= c <= 122 else 32 for c in range(256))


_MARK_TEXT = "\x1e"  # between the texts stemmed_texts() cuts as one: kept as a word of its own
_MARK = _MARK_TEXT.encode()
_ASCII_WORDS_MARKED = _ASCII_WORDS[: _MARK[0]] + _MARK + _ASCII_WORDS[_MARK[0] + 1 :]


def _stem_ascii(text: str, table: bytes) -> str:
    """The terms of ASCII ``text``, cut by ``table`` and each looked up in the stem cache."""
    return " ".join(filter(None, map(_STEMS.__getitem__, text.encode("ascii").translate(table).split())))


def stemmed_text(text: str) -> str:
    """``" ".join(analyze(text))``, faster: for ASCII text the words are cut here (as tantivy cuts
    them: runs of letters and digits, lower-cased) and each distinct word is stemmed once.  Building
    the index's context field from it costs one stemming per word instead of one per neighbour."""
    return _stem_ascii(text, _ASCII_WORDS) if text.isascii() else " ".join(analyze(text))


def stemmed_texts(texts: list[str]) -> list[str]:
    """``[stemmed_text(t) for t in texts]``, faster for many short texts (a vault file's bodies):
    ASCII texts without the mark are cut and stemmed as one text, with the mark between them."""
    plain = [t.isascii() and _MARK_TEXT not in t for t in texts]
    joined = f" {_MARK_TEXT} ".join(t for t, ok in zip(texts, plain) if ok)
    stems = iter(s.strip() for s in _stem_ascii(joined, _ASCII_WORDS_MARKED).split(_MARK_TEXT))
    return [next(stems) if ok else stemmed_text(t) for t, ok in zip(texts, plain)]


def _osa_distance(a: str, b: str) -> int:
    """Edit distance with adjacent transpositions (as tantivy's fuzzy queries count them)."""
    rows = [list(range(len(b) + 1))]
    for i, ca in enumerate(a, 1):
        row = [i]
        for j, cb in enumerate(b, 1):
            cost = min(rows[-1][j] + 1, row[j - 1] + 1, rows[-1][j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                cost = min(cost, rows[-2][j - 2] + 1)
            row.append(cost)
        rows.append(row)
    return rows[-1][-1]


def near_function_word(word: str, distance: int) -> bool:
    """Whether a typo of ``word`` could be a function word ("form"/"from", "width"/"with"): then
    typo matching would make entries relevant through their function words."""
    return any(abs(len(word) - len(f)) <= distance and _osa_distance(word, f) <= distance for f in STOPWORDS)


# Identifiers: what a developer searches for exactly (bench/RESULTS.md, "Exact identifiers").
# A compound one is alphanumeric runs joined by ``::``, ``.``, ``_``, ``/`` or ``-`` — the index
# cuts it into its parts, which are often common words (``ERR_CONN_RESET``, ``pkg.mod.func``), so
# it is also indexed whole; joined by ``-`` alone it must hold a digit (``abc-123``, not ``follow-up``).
_COMPOUND_RE = re.compile(r"(?<![A-Za-z0-9])[A-Za-z0-9]+(?:(?:::|[._/-])[A-Za-z0-9]+)+")
_JOINT_RE = re.compile(r"[A-Za-z0-9](?::|[._/-])[A-Za-z0-9:]")  # a cheap first look: most texts hold none
_PART_RE = re.compile(r"[A-Za-z0-9]+")
_MAX_IDENTIFIER = 100  # longer runs (a URL, a base64 blob) are not what anyone types


def identifiers(text: str) -> list[str]:
    """The compound identifiers written in ``text``, lower-cased, each once."""
    if not _JOINT_RE.search(text):
        return []
    found: dict[str, None] = {}
    for match in _COMPOUND_RE.finditer(text):
        token = match.group()
        if len(token) > _MAX_IDENTIFIER:
            continue
        if "-" in token and not any(sep in token for sep in "_./:") and not any(c.isdigit() for c in token):
            continue  # a hyphenated word
        found[token.lower()] = None
    return list(found)


def identifier_words(text: str) -> list[str]:
    """The one-word identifiers of a query, as written outside its compound ones: letters with
    digits (``item4321``, ``E1234``, a hash such as ``a3f9c2e``) or camelCase (``fetchUser``)."""
    rest = _COMPOUND_RE.sub(" ", text)
    found: dict[str, None] = {}
    for word in _PART_RE.findall(rest):
        digits = any(c.isdigit() for c in word)
        letters = any(c.isalpha() for c in word)
        camel = any(a.islower() and b.isupper() for a, b in zip(word, word[1:]))
        if (digits and letters) or camel:
            found[word.lower()] = None
    return list(found)

"""Words as the index sees them: tantivy's tokenizer and stemmer, and the function words that
never make an entry relevant on their own.  Shared by the index and the snippets."""

from __future__ import annotations

import re
from collections import Counter

WORD_RE = re.compile(r"\w+")
# Small function words: they never get fuzzy or prefix expansion (they would match everything).
STOPWORDS = frozenset(
    "a an and are as at be but by did do does for from had has have he her him his how i if in into is it its "
    "me my no not of on or our she so than that the their them then there these they this to was we were what "
    "when where which who whom why will with would you your".split()
)

_COMPILED: dict[tuple[str, int], re.Pattern[str]] = {}


def _re(source: str, flags: int = 0) -> re.Pattern[str]:
    """The pattern ``source``, compiled when first used: compiling this module's patterns at import
    cost 1.1 ms of every search, and most of them serve only a query that names a date or an
    identifier, or an index build."""
    found = _COMPILED.get((source, flags))
    if found is None:
        found = _COMPILED[(source, flags)] = re.compile(source, flags)
    return found


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


_NEAR: dict[tuple[str, int], bool] = {}  # near_function_word's answers: a search asks for each word twice


def near_function_word(word: str, distance: int) -> bool:
    """Whether a typo of ``word`` could be a function word ("form"/"from", "width"/"with"): then
    typo matching would make entries relevant through their function words."""
    found = _NEAR.get((word, distance))
    if found is None:
        found = _NEAR[(word, distance)] = any(
            abs(len(word) - len(f)) <= distance and _osa_distance(word, f) <= distance for f in STOPWORDS
        )
    return found


# Identifiers: what a developer searches for exactly (bench/RESULTS.md, "Exact identifiers").
# A compound one is alphanumeric runs joined by ``::``, ``.``, ``_``, ``/`` or ``-`` — the index
# cuts it into its parts, which are often common words (``ERR_CONN_RESET``, ``pkg.mod.func``), so
# it is also indexed whole; joined by ``-`` alone it must hold a digit (``abc-123``, not ``follow-up``).
_COMPOUND_RE = r"(?<![A-Za-z0-9])[A-Za-z0-9]+(?:(?:::|[._/-])[A-Za-z0-9]+)+"
_JOINT_RE = r"[A-Za-z0-9](?::|[._/-])[A-Za-z0-9:]"  # a cheap first look: most texts hold none
_JOINTS = ":._/-"
_PART_RE = r"[A-Za-z0-9]+"
_MAX_IDENTIFIER = 100  # longer runs (a URL, a base64 blob) are not what anyone types


_ALNUM = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")


def _has_joint(text: str) -> bool:
    """Whether ``_JOINT_RE`` matches ``text``, looked for from the joints (few in most texts): the
    pattern tried at every position cost 10 us an entry, a tenth of an index build's time."""
    end = len(text) - 1
    for joint in _JOINTS:
        i = text.find(joint, 1)
        while 0 < i < end:
            if text[i - 1] in _ALNUM and (text[i + 1] in _ALNUM or text[i + 1] == ":"):
                return True
            i = text.find(joint, i + 1)
    return False


def identifiers(text: str) -> list[str]:
    """The compound identifiers written in ``text``, lower-cased, each once."""
    if not _has_joint(text):
        return []
    found: dict[str, None] = {}
    for match in _re(_COMPOUND_RE).finditer(text):
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
    if not any(c.isdigit() or c.isupper() for c in text):
        return []  # neither digits nor capitals: no word here is an identifier
    rest = _re(_COMPOUND_RE).sub(" ", text) if any(joint in text for joint in _JOINTS) else text
    found: dict[str, None] = {}
    for word in _re(_PART_RE).findall(rest):
        digits = any(c.isdigit() for c in word)
        letters = any(c.isalpha() for c in word)
        camel = any(a.islower() and b.isupper() for a, b in zip(word, word[1:]))
        if (digits and letters) or camel:
            found[word.lower()] = None
    return list(found)


# Dates: an entry's id is the time it was written, so "in March", "December 2023" or "on 13 October"
# in a query can find what was written then (bench/RESULTS.md, "Dates").  An entry's date is
# indexed as terms (entry_date_terms); a query's dates become the same terms (date_terms).
_MONTHS = "january february march april may june july august september october november december".split()
_MONTH_NUMBER = {name: n for n, name in enumerate(_MONTHS, 1)}
_MONTH_NUMBER.update({name[:3]: n for n, name in enumerate(_MONTHS, 1)} | {"sept": 9})
_ALONE = frozenset(_MONTHS) - {"may"}  # a month named without a number ("may" alone is a verb)
# ASCII digits only: int() refuses some characters that \d and str.isdigit() take ("²").
_DATE_HINT = r"[0-9]|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)"
# 2023-10, 2023-10-13, and a time after a day as search and list print it (2023-10-13T09:00)
_ISO_DATE = (
    r"\b((?:19|20)[0-9][0-9])-([0-9][0-9])(?:-([0-9][0-9])"
    r"(?:[T ][0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]+)?)?(?:Z|[+-][0-9]{2}:?[0-9]{2})?(?:\s*(?:UTC|GMT)\b)?)?)?(?![0-9])"
)
_DAY = r"([0-9]{1,2})(?:st|nd|rd|th)?"
_HEADER_DATE = r"([0-9]{4})-([0-9]{2})-([0-9]{2})"


_DAY_TERMS: dict[str, str] = {}  # entry_date_terms by day: an index build asks once per entry, most share a day


def entry_date_terms(date: str) -> str:
    """The date terms of an entry written at ``date`` (``YYYY-MM-DDTHH:MM``): its year, month
    name, year-month, day and day of the year, as the query side writes them."""
    day = date[:10]  # all the pattern reads
    found = _DAY_TERMS.get(day)
    if found is None:
        found = _DAY_TERMS[day] = _date_terms_of(day)
    return found


def _date_terms_of(date: str) -> str:
    match = _re(_HEADER_DATE).match(date)
    if match is None or not 1 <= int(match.group(2)) <= 12:
        return ""
    year, month, day = match.groups()
    return f"{year} {_MONTHS[int(month) - 1]} {year}-{month} {year}-{month}-{day} {month}-{day}"


def date_terms(text: str) -> list[str]:
    """The dates a query names, as entry_date_terms writes them: ``13 October 2023`` and
    ``2023-10-13`` a day, ``October 2023`` a month of a year, ``October 13`` a day of any year,
    ``in October`` a month of any year, ``2023`` a year."""
    return dates_in(text)[0]


def dates_in(text: str) -> tuple[list[str], set[str], set[str]]:
    """date_terms; the query's words that those dates use up (lower-cased), which name a time and
    are not searched as words (``13`` and ``october`` of "on 13 October 2023", unless the query
    says them elsewhere too: "Node 18 upgrade on 18 May"); and every word that names a date, with a
    month or a year named alone, which is searched as a word too ("the march of …", "the 2024 roadmap")."""
    low = text.lower()
    if not any(c in low for c in "0123456789") and not any(m in low for m in _MONTH_NUMBER):
        return [], set(), set()  # no digit, no month: no date (and no pattern compiled)
    if not _re(_DATE_HINT, re.IGNORECASE).search(text):
        return [], set(), set()
    iso = _re(_ISO_DATE, re.IGNORECASE)
    found: dict[str, None] = {}
    consumed: list[str] = []  # each word a date uses, once per use
    for match in iso.finditer(text):
        year, month, day = match.groups()
        if 1 <= int(month) <= 12:
            found[f"{year}-{month}-{day}" if day else f"{year}-{month}"] = None
            consumed += WORD_RE.findall(match.group().lower())
    words = WORD_RE.findall(iso.sub(" ", text).lower())
    used: set[int] = set()
    alone: set[str] = set()
    for i, word in enumerate(words):
        month = _MONTH_NUMBER.get(word)
        if month is None:
            continue
        day = year = None
        parts = [i]
        before = i - 2 if i >= 2 and words[i - 1] == "of" else i - 1  # "the 13th of October"
        for j in (before, i + 1):
            number = _re(_DAY).fullmatch(words[j]) if 0 <= j < len(words) and j not in used else None
            if number and 1 <= int(number.group(1)) <= 31 and day is None:
                day = int(number.group(1))
                parts.append(j)
        for j in (i + 1, i + 2):
            if 0 <= j < len(words) and j not in parts and _is_year(words[j]) and year is None:
                year = words[j]
                parts.append(j)
        if day is None and year is None and word not in _ALONE:
            continue
        used.update(parts)
        mm = f"{month:02d}"
        if day is not None and year is not None:
            found[f"{year}-{mm}-{day:02d}"] = None
        elif day is not None:
            found[f"{mm}-{day:02d}"] = None
        elif year is not None:
            found[f"{year}-{mm}"] = None
        else:
            found[_MONTHS[month - 1]] = None
            alone.add(word)
    for i, word in enumerate(words):
        if i not in used and _is_year(word):
            found[word] = None
            alone.add(word)
    consumed += [words[i] for i in used if words[i] not in alone]
    # a word is used up only if every time the query says it is in a date ("Node 18 … on 18 May")
    said = Counter(WORD_RE.findall(text.lower()))
    left = said - Counter(consumed)
    used_up = {w for w in consumed if not left[w]}
    return list(found), used_up, used_up | alone


def _is_year(word: str) -> bool:
    return len(word) == 4 and word.isascii() and word.isdigit() and 1970 <= int(word) <= 2099


def days_after(term: str, count: int) -> list[str]:
    """A day term and the ``count`` days after it (what is written about a day often comes later:
    "yesterday", "last week"); any other date term alone."""
    if count <= 0 or len(term) not in (5, 10):
        return [term]
    from datetime import date, timedelta

    if len(term) == 10:
        years = [""]
    else:  # a day of any year: the days after it in a leap year (2000) and in another (2001)
        years = ["2000-", "2001-"]
    found: dict[str, None] = {}
    for year in years:
        try:
            day = date.fromisoformat(year + term)
        except ValueError:
            continue
        for n in range(count + 1):
            found[(day + timedelta(n)).isoformat()[len(year) :]] = None
    return list(found) or [term]


# An entry that says when something happened ("yesterday", "last week", "two days ago", "on
# Friday", "in August 2023") answers a question that asks when (asks_when): its date terms get
# TIMED, and such a question ranks it above entries that say the same without a time.  Told from
# the entry's stemmed terms, as the index has them: a regex over every body doubled a rebuild.
TIMED = "timed"
_WEEKDAYS = "monday tuesday wednesday thursday friday saturday sunday".split()
_TIME_WORDS = "yesterday today tonight tomorrow ago recently lately".split() + _WEEKDAYS + _MONTHS[:4] + _MONTHS[5:]
_TIME_NOUNS = "week weekend month year night summer winter spring fall autumn".split() + _WEEKDAYS
_TIME_BEFORE = "last next this past coming previous".split()
_TIME_STEMS: list[frozenset[str]] = []  # the stems of the three lists above, years among the first


def says_when(terms: str) -> bool:
    """Whether an entry says when something happened: a time word, a weekday, a month, a year,
    or "last week"-like words, in ``terms`` (its body's stemmed terms: stemmed_text)."""
    if not _TIME_STEMS:
        years = [str(y) for y in range(1970, 2100)]
        _TIME_STEMS.extend(frozenset(analyze(" ".join(w))) for w in (_TIME_WORDS + years, _TIME_NOUNS, _TIME_BEFORE))
    words, nouns, before = _TIME_STEMS
    tokens = terms.split()
    if not words.isdisjoint(tokens):
        return True
    if nouns.isdisjoint(tokens) or before.isdisjoint(tokens):
        return False
    return any(a in before and b in nouns for a, b in zip(tokens, tokens[1:]))


# "when" as a question ("when did…", "When Jon lost his job?", "…, and when was it?", "but when?"),
# not as a conjunction ("crashes when saving", "fails when is loading", "When saving, it crashes")
_AUXILIARY = r"(?:did|do|does|was|were|is|are|will|would|has|have|had)"
_ASKS_WHEN = (
    rf"(?:^|[,;:.!?]\s*|\b(?:and|but|so|or) )when {_AUXILIARY}\b|^\W*when\b[^,]*\?\s*$"
    rf"|\bwhat (?:time|year|month|day|date) {_AUXILIARY}\b|\bhow long ago\b|\bwhen\s*\?"
)


def asks_when(text: str) -> bool:
    """Whether a query asks when something happened."""
    low = text.lower()
    if "when" not in low and "what" not in low and "ago" not in low:
        return False  # the pattern needs one of them (and costs 0.4 ms to compile)
    return _re(_ASKS_WHEN, re.IGNORECASE).search(text) is not None

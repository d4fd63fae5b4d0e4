"""Snippets: the part of an entry that answers a query, with the matched words marked."""

from __future__ import annotations

from memcli.search.words import STOPWORDS, WORD_RE, analyze, near_function_word


def _edit_distance(a: str, b: str, limit: int) -> int:
    """Levenshtein distance, or ``limit + 1`` as soon as it must exceed ``limit``.  A common prefix
    and suffix cost nothing and are cut first, and only the cells within ``limit`` of the diagonal
    are computed (the others exceed it): a search's snippets took 2.7 ms of every search at 10
    hits with the full table."""
    la, lb = len(a), len(b)
    if abs(la - lb) > limit:
        return limit + 1
    n = min(la, lb)
    start = 0
    while start < n and a[start] == b[start]:
        start += 1
    end = 0
    while end < n - start and a[la - 1 - end] == b[lb - 1 - end]:
        end += 1
    a, b = a[start : la - end], b[start : lb - end]
    if not a or not b:
        return len(a) or len(b)  # at most limit: the lengths differ by no more
    over = limit + 1
    width = len(b)
    previous = list(range(width + 1))
    for i, ca in enumerate(a, 1):
        low, high = max(1, i - limit), min(width, i + limit)
        current = [over] * (width + 1)
        current[0] = i if i <= limit else over
        best = current[0]
        for j in range(low, high + 1):
            cost = previous[j - 1] + (ca != b[j - 1])
            if previous[j] + 1 < cost:
                cost = previous[j] + 1
            if current[j - 1] + 1 < cost:
                cost = current[j - 1] + 1
            current[j] = cost if cost < over else over
            if cost < best:
                best = cost
        if best > limit:
            return over
        previous = current
    return previous[-1]


class Matcher:
    """Which words of a body answer the query's words: same stem, prefix, or a typo away.

    Results are cached per word, so one matcher serves every hit of a search.
    """

    def __init__(self, terms: list[str], fuzzy: float):
        content = [t for t in terms if t not in STOPWORDS]
        terms = content or terms  # function words count only when the query has nothing else
        self.terms = []
        for t in terms:
            distance = min(2, round(len(t) * fuzzy))
            # Typos only of longer words without digits, and never where a typo could be a function word.
            if len(t) < 4 or any(ch.isdigit() for ch in t) or (distance and near_function_word(t, distance)):
                distance = 0
            self.terms.append((t, (analyze(t) or [t])[0], distance))
        self.cache: dict[str, bool] = {}

    def __call__(self, word: str) -> bool:
        hit = self.cache.get(word)
        if hit is None:
            hit = self.cache[word] = self._match(word)
        return hit

    def _match(self, word: str) -> bool:
        stem = None
        for term, term_stem, distance in self.terms:
            if word == term or (len(term) >= 3 and word.startswith(term)):
                return True
            if term in STOPWORDS or word in STOPWORDS:
                continue
            if stem is None:
                stem = (analyze(word) or [word])[0]
            if stem == term_stem:
                return True
            if distance and (
                _edit_distance(word, term, distance) <= distance
                or _edit_distance(stem, term_stem, distance) <= distance
            ):
                return True
        return False


def best_window(spans: list[tuple[int, int]], width: int) -> int:
    """The start of the window (at a match, ``width`` long) that covers the most matches, the first
    of equals.  The spans are in order and do not overlap, so the last one inside a window only
    moves on as its start does: linear (counting each window afresh took 13 s for a 64 KB entry)."""
    best_start, best_count = spans[0][0], 0
    last = 0
    for i, (s, _) in enumerate(spans):
        last = max(last, i)
        while last + 1 < len(spans) and spans[last + 1][1] <= s + width:
            last += 1
        count = last - i + (1 if spans[i][1] <= s + width else 0)
        if count > best_count:
            best_start, best_count = s, count
    return best_start


SNIPPET_SCAN = 100_000  # characters of an entry a snippet is looked for in


def make_snippet(body: str, matcher: Matcher, width: int = 160) -> tuple[str, list[str]]:
    """The part of ``body`` (about ``width`` characters) with the most matched words, and those words.

    Matched words are wrapped in ``\\x00`` … ``\\x01`` so that the caller can mark them
    (bold on a terminal, nothing on a pipe).
    """
    longer = len(body) > SNIPPET_SCAN
    body = body[:SNIPPET_SCAN]  # a file written by hand may hold megabytes: the snippet is of its start
    spans = [(m.start(), m.end()) for m in WORD_RE.finditer(body) if matcher(m.group().lower())]
    flat = " ".join(body.split())
    if not spans:
        text = flat[:width]
        return (text + "…" if len(flat) > width or longer else text), []
    best_start = best_window(spans, width)
    start = max(0, best_start - 30)
    if start:
        space = body.rfind(" ", 0, start)
        start = space + 1 if space >= 0 and start - space < 20 else start
    end = min(len(body), start + width)
    marked = []
    pos = start
    matched = []
    for a, b in spans:
        if a < start or b > end:
            continue
        marked.append(body[pos:a])
        marked.append("\x00" + body[a:b] + "\x01")
        matched.append(body[a:b])
        pos = b
    marked.append(body[pos:end])
    text = " ".join("".join(marked).split())
    return ("…" if start else "") + text + ("…" if end < len(body) or longer else ""), list(dict.fromkeys(matched))

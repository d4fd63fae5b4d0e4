"""What the index holds and how a query scores it: the schema, the query for a text, and hits.

The cache's lifecycle (building, freshness, healing) is ``memcli.search.index``; this module
only knows tantivy's schema and scoring, and is tuned on LoCoMo (bench/RESULTS.md).
"""

from __future__ import annotations

import math
from functools import lru_cache

import tantivy as tv

from memcli.search.snippets import Matcher, make_snippet
from memcli.search.words import (
    STOPWORDS,
    analyze,
    TIMED,
    asks_when,
    dates_in,
    days_after,
    entry_date_terms,
    identifier_words,
    identifiers,
    near_function_word,
    query_words,
)

TYPE_CHECKING = False  # names for annotations only: the fast path never imports typing
if TYPE_CHECKING:
    from typing import Any

    from memcli.config import Config

ENTRY_SEPARATOR = "\x1f"  # whitespace to str.split(): no tag holds it; ids and dates are digits and marks

# A tag match scores TAG_WEIGHT x the term's IDF, with no length normalisation (BM25 on a
# field that is empty for most entries would punish tagged entries for having tags); a body
# match can reach at most (k1 + 1) = 2.2 x IDF, so a tag weighs above any body word.
TAG_WEIGHT = 2.5
# tantivy scores fuzzy and prefix queries with a constant, not BM25.  Each distinct query
# word an entry holds (exactly or one typo away, in body or tags) adds WORD_MATCH_WEIGHT x the
# word's IDF, so entries that match more of the query's words, and its rarer words, rank
# first, and BM25 orders entries that match alike; a prefix match adds PREFIX_BONUS.  Tuned
# on LoCoMo (bench/RESULTS.md): R@5 0.507 with no bonus, 0.552 with a flat 3.0, 0.558 here.
WORD_MATCH_WEIGHT = 0.8
MIN_IDF = 0.5
PREFIX_BONUS = 0.5
# A typo of a word counts this much of the word itself (MiniSearch's fuzzy weight): an exact
# identifier ranks above entries that only hold a near miss of it.
FUZZY_FACTOR = 0.45
CONTEXT_SPAN = 2  # neighbours on each side (tuned on LoCoMo conversations 1-5: bench/RESULTS.md)
CONTEXT_WEIGHT = 1.3
# A date the query names (words.dates_in: "in March", "December 2023", "on 13 October 2023") adds
# DATE_WEIGHT x the date term's IDF to the entries written then (for a day, that day or the
# DAYS_AFTER days after it: what happened is often written down the day after) that hold one of
# the query's other words exactly; a date alone counts for every entry written then, which search
# finds and inject only ranks (build_query).  A query that asks when (words.asks_when) adds
# TIMED_WEIGHT x IDF to entries that say when (words.says_when: "yesterday", "last week", a
# weekday, a month, a year), among those that match its words.  Both chosen on LoCoMo
# conversations 1-5 (bench/RESULTS.md).
DATE_WEIGHT = 4.0
DAYS_AFTER = 1
TIMED_WEIGHT = 3.0
# An entry that holds an identifier of the query exactly (``item4321``, ``ERR_CONN_RESET``,
# ``pkg.mod.func``, ``fetchUser``, a hash: words.identifiers and words.identifier_words) ranks
# above every entry that holds fewer of them, whatever else matches: each one held adds more than
# all the other clauses of one query word can (their weights times the largest IDF,
# ln(1 + (N + 0.5) / 0.5), taken at N = 2**32 so that scores from the disk index and from the
# in-memory one compare), times the query's words (build_query).
_MAX_IDF = math.log(1 + (2**32 + 0.5) / 0.5)
WORD_CEILING = (
    _MAX_IDF
    * (2.2 + 2.2 * CONTEXT_WEIGHT + TAG_WEIGHT + WORD_MATCH_WEIGHT * (1 + FUZZY_FACTOR) + DATE_WEIGHT + TIMED_WEIGHT)
    + PREFIX_BONUS
)


def make_schema() -> tv.Schema:
    sb = tv.SchemaBuilder()
    sb.add_text_field("agent", stored=True, tokenizer_name="raw")
    sb.add_text_field("category", stored=True, tokenizer_name="raw")
    sb.add_text_field("tags", stored=False, tokenizer_name="en_stem")
    # The body's terms, stemmed here (words.stemmed_texts: each distinct word once, the same terms
    # as tantivy's en_stem) and only cut by tantivy; no positions, as only term queries read it.
    sb.add_text_field("body", stored=False, tokenizer_name="whitespace", index_option="freq")
    # The entries next to it in its file (the same session or time): what a turn of a conversation
    # or a terse note means often stands in its neighbours (CONTEXT_WEIGHT; inject leaves it out).
    # It holds their terms as the body field does: each body is stemmed once for itself and its
    # neighbours (stemming every neighbour's text again took most of a first search's time).
    sb.add_text_field("context", stored=False, tokenizer_name="whitespace", index_option="freq")
    # The compound identifiers of body and tags, whole and lower-cased (words.identifiers): the
    # body field holds only their parts.  Read by identifier_queries (see WORD_CEILING).
    sb.add_text_field("idents", stored=False, tokenizer_name="whitespace", index_option="basic")
    # When the entry was written (its header date) as terms: year, month name, year-month, day,
    # day of the year (words.entry_date_terms), for the dates a query names (DATE_WEIGHT).
    sb.add_text_field("when", stored=False, tokenizer_name="whitespace", index_option="basic")
    # What a hit shows, never searched, in one stored value (fewer fields: a faster build):
    # id, date, tags and the body as written, joined by ENTRY_SEPARATOR (the first three never hold it).
    sb.add_bytes_field("entry", stored=True, indexed=False)
    # What inject shows whatever the task (MARKS), told when a category is indexed (the unit of the
    # index is a whole category, so "current" and "newest" are known then), and the entry's place
    # in its category, newest first: inject finds them with one query instead of reading files.
    sb.add_text_field("marks", stored=True, tokenizer_name="whitespace", index_option="basic")
    sb.add_unsigned_field("order", stored=True, indexed=False)
    return sb.build()


PINNED_MARK = "pinned"  # a current entry tagged pinned
OPEN_MARK = "open"  # a current entry of tasks with an open task line
HANDOFF_MARK = "handoff"  # one of the HANDOFF_MARKS newest current handoffs that are no compaction summary
HANDOFF_MARKS = 8  # handoffs marked per agent (the newest real one is shown; the next ones stand in when it is held)
RECENT_MARK = "recent"  # one of the RECENT_MARKS newest current entries of its category (inject with no command)
RECENT_MARKS = 8


def marked_query(schema: tv.Schema, agent: str, recent: bool = False) -> tv.Query:
    """An agent's marked entries (any mark; RECENT_MARK only with ``recent``)."""
    wanted = (PINNED_MARK, OPEN_MARK, HANDOFF_MARK) + ((RECENT_MARK,) if recent else ())
    marks = [(tv.Occur.Should, tv.Query.term_query(schema, "marks", m)) for m in wanted]
    return tv.Query.boolean_query(
        [(tv.Occur.Must, tv.Query.term_query(schema, "agent", agent)), (tv.Occur.Must, tv.Query.boolean_query(marks))]
    )


def read_marked(searcher: tv.Searcher, query: tv.Query) -> list[Hit]:
    """Every document ``query`` finds, each with its marks and its place in its category."""
    limit = 1000
    while True:
        found = searcher.search(query, limit).hits
        if len(found) < limit:
            break
        limit *= 8
    hits = []
    for _, address in found:
        doc = searcher.doc(address)
        entry_id, date, tag_text, body = bytes(doc.get_first("entry") or b"").decode().split(ENTRY_SEPARATOR, 3)
        hit = Hit(
            int(entry_id),
            str(doc.get_first("agent")),
            str(doc.get_first("category")),
            date,
            tag_text.split(),
            body,
            0.0,
        )
        hit.marks = str(doc.get_first("marks") or "").split()
        hit.order = int(doc.get_first("order") or 0)
        hits.append(hit)
    return hits


def neighbour_terms(terms: list[str], span: int) -> list[str]:
    """The context of each entry of a file, from the terms of each: those of the ``span`` entries
    before it and the ``span`` after it.  Each window of ``span`` entries is joined once."""
    windows = [" ".join(w) for w in zip(*[terms[k:] for k in range(span)])]  # windows[j]: entries j..j+span-1
    last = len(terms) - 1
    out = []
    for i in range(len(terms)):
        before = windows[i - span] if i >= span else " ".join(terms[:i])
        after = windows[i + 1] if i + span <= last else " ".join(terms[i + 1 :])
        out.append(f"{before} {after}")
    return out


def _idf(total: int, found: int) -> float:
    return math.log(1 + (total - found + 0.5) / (found + 0.5))


class Hit:
    """A search result."""

    __slots__ = (
        "explain",
        "id",
        "agent",
        "category",
        "date",
        "tags",
        "body",
        "score",
        "snippet",
        "matches",
        "related",
        "stale",
        "superseded_by",
        "held",
        "marks",
        "order",
    )

    def __init__(
        self,
        id: int,
        agent: str,
        category: str,
        date: str,
        tags: list[str],
        body: str,
        score: float,
        snippet: str = "",
        matches: list[str] | None = None,
        related: bool = False,
    ):
        self.id, self.agent, self.category, self.date, self.tags = id, agent, category, date, tags
        self.body, self.score, self.snippet, self.matches = body, score, snippet, matches or []
        self.related = related  # found through the entries next to it, not its own words
        self.stale: list[str] = []  # paths it cites that are gone (set by api.search)
        self.superseded_by: int | None = None  # the newest version of a replaced entry (set by api.search)
        self.held: str | None = None  # why it is held back from agents (set by api.search)
        self.explain: list[tuple[str, float]] = []  # what each clause of the query added (search --explain)
        self.marks: list[str] = []  # set by read_marked: its MARKS
        self.order = 0  # set by read_marked: its place in its category, newest first

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "agent": self.agent,
            "category": self.category,
            "date": self.date,
            "tags": self.tags,
            "score": round(self.score, 4),
            "snippet": self.snippet.replace("\x00", "").replace("\x01", ""),
            "matches": self.matches,
            "related": self.related,
            "stale": self.stale,
            "superseded_by": self.superseded_by,
            "held": self.held,
            "body": self.body,
            **(
                {"explain": [{"clause": label, "score": round(value, 4)} for label, value in self.explain]}
                if self.explain
                else {}
            ),
        }


def build_query(
    schema: tv.Schema,
    config: Config,
    text: str,
    agent: str | None,
    category: str | None,
    searcher: tv.Searcher,
    neighbours: bool = True,
    parts: list[tuple[str, tv.Query]] | None = None,
) -> tv.Query | None:
    """The query for ``text``: BM25 on each word, plus, per distinct word, a bonus by its rarity
    for holding it exactly (in body or tags) and a smaller one for holding a typo of it.

    Query words are cut exactly as the index cuts text (``login_redirect``, ``src/auth.py``
    and ``E1234`` match as typed).  Words with digits (ids, tickets, error codes) get no typo
    matching: a typo of ``item4321`` is another item.  Function words only add to entries that
    match something else (unless the query has nothing else).  With ``neighbours``, an entry
    also matches through the entries next to it (the context field), as a rule below direct
    matches; without, only entries that hold the words count (what ``inject`` wants).  Each
    identifier of the query that an entry holds exactly adds more than all the other clauses
    together can (WORD_CEILING).  ``parts``, if given, gets each clause with a label (for
    ``search --explain``).
    """
    total = max(1, searcher.num_docs)
    named, words, others = _dates_and_words(text)
    content = [w for w in words if w not in STOPWORDS]
    if not content and not neighbours:
        return None  # inject: a task of function words alone makes nothing relevant
    main: list[tuple[tv.Occur, tv.Query]] = []
    boost: list[tuple[tv.Occur, tv.Query]] = []
    labelled = parts if parts is not None else []

    def clause(target: list[tuple[tv.Occur, tv.Query]], label: str, query: tv.Query) -> None:
        target.append((tv.Occur.Should, query))
        labelled.append((label, query))

    for word in words:
        stems = analyze(word)
        if not stems:
            continue
        stem = stems[0]
        target = boost if content and word in STOPWORDS else main
        exact = tv.Query.term_query(schema, "body", stem)
        clause(target, word, exact)
        # Not for ids and codes (words with digits): a ticket next to an entry says nothing about it.
        if neighbours and CONTEXT_WEIGHT and word not in STOPWORDS and not any(ch.isdigit() for ch in word):
            context = tv.Query.term_query(schema, "context", stem)
            clause(target, f"{word} (next to it)", tv.Query.boost_query(context, CONTEXT_WEIGHT))
        tag_query = tv.Query.term_query(schema, "tags", stem)
        tagged = searcher.doc_freq("tags", stem)
        if tagged:
            idf = _idf(total, tagged)
            clause(target, f"#{word}", tv.Query.const_score_query(tag_query, TAG_WEIGHT * idf))
        if word in STOPWORDS or word.isdigit():
            continue
        held = tv.Query.boolean_query([(tv.Occur.Should, exact), (tv.Occur.Should, tag_query)])
        found = searcher.doc_freq("body", stem)
        if found:
            bonus = WORD_MATCH_WEIGHT * max(_idf(total, found), MIN_IDF)
            clause(main, f"{word} held", tv.Query.const_score_query(held, bonus))
        distance = min(2, round(len(word) * config.search_fuzzy))
        if (
            distance
            and len(word) >= 4
            and not any(ch.isdigit() for ch in word)
            and not near_function_word(word, distance)
        ):
            fuzzy = tv.Query.fuzzy_term_query(schema, "body", stem, distance, True, False)
            near = found or searcher.search(fuzzy, 1, count=True).count  # type: ignore[attr-defined]  # not in tantivy's stub
            if near:
                bonus = FUZZY_FACTOR * WORD_MATCH_WEIGHT * max(_idf(total, near), MIN_IDF)
                clause(main, f"{word} (a typo away)", tv.Query.const_score_query(fuzzy, bonus))
        if config.search_prefix and len(word) >= 3:
            prefix = tv.Query.fuzzy_term_query(schema, "body", word, 0, True, True)
            clause(main, f"{word}… (prefix)", tv.Query.boost_query(prefix, PREFIX_BONUS))
    dates = main if neighbours else boost  # inject: a date alone makes nothing relevant
    # With other words, the date counts for entries that hold one of them exactly (not a typo, a
    # prefix or a neighbour of it: those still rank below the exact word); a date alone (with
    # function words) counts for every entry written then.
    holders = [
        tv.Query.term_query(schema, f, stem) for w in others for stem in analyze(w)[:1] for f in ("body", "tags")
    ]
    holds = tv.Query.boolean_query([(tv.Occur.Should, q) for q in holders]) if holders else None
    for day in named if holders or not others else []:
        dated = searcher.doc_freq("when", day)
        if dated:
            written = tv.Query.term_query(schema, "when", day)
            if holds is not None:
                written = tv.Query.boolean_query([(tv.Occur.Must, written), (tv.Occur.Must, holds)])
            bonus = DATE_WEIGHT * _idf(total, dated)
            clause(dates, f"{day} (written then)", tv.Query.const_score_query(written, bonus))
    timed = searcher.doc_freq("when", TIMED) if asks_when(text) else 0
    if timed:  # ranks entries that match already: a time word alone says nothing of the question
        says = tv.Query.term_query(schema, "when", TIMED)
        clause(boost, "says when", tv.Query.const_score_query(says, TIMED_WEIGHT * _idf(total, timed)))
    tier = WORD_CEILING * (len(words) + len(named) + 1) * 2  # above every other clause (idents' own words too)
    for ident, held_exactly in identifier_queries(schema, text, searcher):
        clause(main, f"{ident} (identifier)", tv.Query.const_score_query(held_exactly, tier))
    if not main:
        return None
    query = tv.Query.boolean_query(main)
    if boost:  # function words rank entries that match already; alone they match nothing
        query = tv.Query.boolean_query([(tv.Occur.Must, query), *boost])
    filters = [(tv.Occur.Must, query)]
    if agent:
        filters.append((tv.Occur.Must, tv.Query.term_query(schema, "agent", agent.lower())))
    if category:
        filters.append((tv.Occur.Must, tv.Query.term_query(schema, "category", category.lower())))
    return tv.Query.boolean_query(filters) if len(filters) > 1 else query


@lru_cache(maxsize=8)  # build_query and read_hits read the same query (once per index searched)
def _dates_and_words(text: str) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """The days, months and years ``text`` names (with the days after a named day), its words
    without those its dates use up (words.dates_in), and its content words that name no date (nor
    are bare numbers: "09:00")."""
    terms, consumed, dated = dates_in(text)
    words = tuple(w for w in dict.fromkeys(query_words(text)) if w not in consumed)
    named = tuple(dict.fromkeys(day for term in terms for day in days_after(term, DAYS_AFTER)))
    return named, words, tuple(w for w in words if w not in STOPWORDS and w not in dated and not w.isdigit())


def identifier_queries(schema: tv.Schema, text: str, searcher: tv.Searcher) -> list[tuple[str, tv.Query]]:
    """A query per identifier of ``text`` that some entry holds exactly: a compound one in the
    idents field, a one-word one as a term of body or tags."""
    out = []
    for ident in identifiers(text):
        if searcher.doc_freq("idents", ident):
            out.append((ident, tv.Query.term_query(schema, "idents", ident)))
    for word in identifier_words(text):
        stems = analyze(word)
        if stems and (searcher.doc_freq("body", stems[0]) or searcher.doc_freq("tags", stems[0])):
            held = [(tv.Occur.Should, tv.Query.term_query(schema, field, stems[0])) for field in ("body", "tags")]
            out.append((word, tv.Query.boolean_query(held)))
    return out


def tag_query(schema: tv.Schema, tag: str, agent: str | None, category: str | None) -> tv.Query | None:
    """The entries whose tags hold ``tag``'s stem (callers check the tag itself on the hits)."""
    stems = analyze(tag)
    if not stems:
        return None
    clauses = [(tv.Occur.Must, tv.Query.term_query(schema, "tags", stems[0]))]
    if agent:
        clauses.append((tv.Occur.Must, tv.Query.term_query(schema, "agent", agent.lower())))
    if category:
        clauses.append((tv.Occur.Must, tv.Query.term_query(schema, "category", category.lower())))
    return tv.Query.boolean_query(clauses)


def file_query(schema: tv.Schema, agent: str, category: str) -> tv.Query:
    """The documents of one vault file."""
    return tv.Query.boolean_query(
        [
            (tv.Occur.Must, tv.Query.term_query(schema, "agent", agent)),
            (tv.Occur.Must, tv.Query.term_query(schema, "category", category)),
        ]
    )


def read_hits(
    searcher: tv.Searcher,
    query: tv.Query,
    text: str,
    limit: int,
    fuzzy: float,
    parts: list[tuple[str, tv.Query]] | None = None,
) -> list[Hit]:
    """The best ``limit`` documents for ``query``, each with a snippet of ``text``'s words marked;
    with ``parts`` (labelled clauses of the query), what each added to each hit's score."""
    hits = []
    named_days, words, others = _dates_and_words(text)
    matcher = Matcher(list(words), fuzzy)
    named = set(named_days) if not others else set()  # hits found by their date alone
    for score, address in searcher.search(query, limit).hits:
        doc = searcher.doc(address)
        entry_id, date, tag_text, body = bytes(doc.get_first("entry") or b"").decode().split(ENTRY_SEPARATOR, 3)
        snippet, matches = make_snippet(body, matcher)
        tags = tag_text.split()
        written_then = bool(named) and not named.isdisjoint(entry_date_terms(date).split())
        related = not matches and not written_then and not any(matcher(t.lower()) for t in tags)
        hits.append(
            Hit(
                id=int(entry_id),
                agent=str(doc.get_first("agent")),
                category=str(doc.get_first("category")),
                date=date,
                tags=tags,
                body=body,
                score=score,
                snippet=snippet,
                matches=matches,
                related=related,
            )
        )
        if parts:
            hits[-1].explain = explain(searcher, parts, address)
    return hits


def explain(searcher: tv.Searcher, parts: list[tuple[str, tv.Query]], address: Any) -> list[tuple[str, float]]:
    """What each labelled clause adds to one document's score (those it does not match left out)."""
    import json

    out = []
    for label, query in parts:
        try:
            value = float(json.loads(query.explain(searcher, address).to_json())["value"])
        except ValueError:  # tantivy: the document does not match this clause
            continue
        if value:
            out.append((label, value))
    return out

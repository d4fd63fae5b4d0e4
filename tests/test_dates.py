"""Dates in a query (issue 23, recall at depth): an entry's id is the time it was written, so a
query that names a date ranks what was written then first, and a question that asks when ranks
the entries that say when above those that say the same without a time."""

from __future__ import annotations

import json
import random
import re
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from memcli.search.index import SearchIndex
from memcli.search.words import asks_when, date_terms, days_after, entry_date_terms, says_when, stemmed_text
from memcli.storage import vault
from memcli.storage.paths import Layout
from memcli.storage.store import Store, entry_file_name
from memcli.storage.vault import Entry

from .conftest import run

MONTHS = "January February March April May June July August September October November December".split()


def written(root: Path, when: str, body: str, agent: str = "dev", category: str = "lessons") -> int:
    """An entry file as memcli writes it at ``when`` (``YYYY-MM-DD HH:MM``, UTC); its id."""
    moment = datetime.strptime(when, "%Y-%m-%d %H:%M").replace(tzinfo=timezone.utc)
    entry = Entry(int(moment.timestamp()) * 1000, None, [], body)
    folder = root / ".memory" / agent / category
    folder.mkdir(parents=True, exist_ok=True)
    (root / ".memory" / ".vault").mkdir(exist_ok=True)
    (folder / entry_file_name(entry)).write_text(vault.serialize([entry]))
    return entry.id


def hits(root: Path, query: str, *args: str) -> list[dict]:
    return json.loads(run("search", query, "--json", *args, cwd=root, check=True).stdout)


@given(st.dates(min_value=date(1970, 1, 1), max_value=date(2099, 12, 31)), st.integers(0, 6))
def test_a_day_written_any_usual_way_is_that_day(day: date, style: int):
    month = MONTHS[day.month - 1]
    text = [
        f"what broke on {day.day} {month} {day.year}?",
        f"the deploy of {month} {day.day}, {day.year} failed",
        f"notes from {day.isoformat()}",
        f"on {month[:3]} {day.day}th {day.year}",
        f"the {day.day}th of {month}, {day.year}",
        f"{month.lower()} {day.day} {day.year} rollout",
        f"{day.day} {month.upper()}, {day.year}",
    ][style]
    assert date_terms(text) == [day.isoformat()]
    assert day.isoformat() in entry_date_terms(f"{day.isoformat()}T09:30").split()


def test_months_years_and_days_of_any_year():
    assert date_terms("what did we decide in March?") == ["march"]
    assert date_terms("the outage in December 2023") == ["2023-12"]
    assert date_terms("the 2024-02 release") == ["2024-02"]
    assert date_terms("standup on October 13") == ["10-13"]
    assert date_terms("how many releases in 2023") == ["2023"]
    assert date_terms("from June to August 2024") == ["june", "2024-08"]
    terms = entry_date_terms("2023-10-13T14:05").split()
    assert terms == ["2023", "october", "2023-10", "2023-10-13", "10-13"]
    assert entry_date_terms("") == "" and entry_date_terms("undated") == ""


def test_words_that_are_not_dates():
    for text in (
        "may I restart the worker",  # "may" only with a number next to it
        "item4321 rollout",
        "retry 1500 times",  # not a year memcli could have written
        "python 3.12 on port 8080",
        "a 30-day trial",
        "maybe mark it done",
        "month 13 of 2023-13",  # no 13th month
        "",
    ):
        assert date_terms(text) == [], text
    assert date_terms("the 45th of June") == ["june"]  # no 45th day: the month alone


@given(st.dates(min_value=date(1970, 1, 1), max_value=date(2099, 12, 25)), st.integers(0, 5))
def test_days_after_are_the_next_days_of_the_calendar(day: date, count: int):
    expected = [(day + timedelta(n)).isoformat() for n in range(count + 1)]
    assert days_after(day.isoformat(), count) == expected
    of_any_year = {
        (date(year, day.month, day.day) + timedelta(n)).isoformat()[5:]
        for year in (2000, 2001)
        if day.month != 2 or day.day != 29 or year == 2000
        for n in range(count + 1)
    }
    assert sorted(days_after(day.isoformat()[5:], count)) == sorted(of_any_year)
    if count and day.month == 2 and day.day == 28:
        assert "03-01" in days_after("02-28", count)  # the day after in most years
    assert days_after("march", count) == ["march"] and days_after("2023-10", count) == ["2023-10"]


def test_what_says_when_and_what_asks_when():
    def said(text: str) -> bool:
        return says_when(stemmed_text(text))

    assert said("I went to the support group yesterday") and said("We shipped it last week")
    assert said("moved the cron to Friday") and said("the migration in August 2023")
    assert said("two days ago the cache filled") and said("Recently, the queue grew") and said("in 1999")
    assert said("the previous weekend was quiet") and said("see you next summer")
    assert not said("the proxy buffers output unless flushing is forced")
    assert not said("the last step of the build")  # "last" alone is not a time
    assert not said("a week of work, the last one")  # nor "last" and "week" apart
    assert not said("port 2023x and 12023 and 19999")  # no year
    assert asks_when("When did Caroline go to the support group?")
    assert asks_when("what year did we move to postgres") and asks_when("How long ago was the outage")
    assert not asks_when("what did we decide about the proxy")
    assert not asks_when("fix the crash when saving a draft")  # "when" as a conjunction: a task, not a question
    assert asks_when("When Jon lost his job?") and asks_when("the cache broke, but when?")


def test_a_date_in_the_query_ranks_what_was_written_then_first(tmp_path: Path):
    body = "rolled the canary out to the eu cluster"
    ids = {when: written(tmp_path, when, body) for when in ("2024-01-14 10:00", "2024-03-02 10:00")}
    ids["2024-03-14 09:00"] = written(tmp_path, "2024-03-14 09:00", f"{body}, after a long wait for the approvals")
    ids["2024-03-15 08:00"] = written(tmp_path, "2024-03-15 08:00", "the canary rollout to the eu cluster went fine")
    for n in range(20):  # other work, some of it in March too
        written(tmp_path, f"2024-0{1 + n % 5}-{10 + n} 12:00", f"tuned the proxy buffers, attempt {n}")
    assert hits(tmp_path, "canary cluster")[0]["id"] != ids["2024-03-14 09:00"]  # a longer body: BM25 ranks it lower
    order = [h["id"] for h in hits(tmp_path, "canary cluster on 14 March 2024")]
    assert order[:2] == [ids["2024-03-14 09:00"], ids["2024-03-15 08:00"]]  # that day, then the day after
    order = [h["id"] for h in hits(tmp_path, "canary cluster in January")]
    assert order[0] == ids["2024-01-14 10:00"]
    found = [h["date"][:7] for h in hits(tmp_path, "in March 2024", "-n", "50")]
    assert found == ["2024-03"] * 7  # a date alone: what was written then, found by its date
    # with another word, the date ranks the entries that hold it: none hold "happened"
    assert not any(h["date"].startswith("2024-03") for h in hits(tmp_path, "what happened in March 2024"))
    explained = run("search", "canary in March 2024", "--explain", "-n", "1", cwd=tmp_path, check=True).stdout
    assert "2024-03 (written then)" in explained


def test_inject_ranks_by_a_date_but_a_date_alone_makes_nothing_relevant(tmp_path: Path):
    old = written(
        tmp_path, "2024-01-10 10:00", "decided: the canary goes to the eu cluster first", category="decisions"
    )
    new = written(
        tmp_path, "2024-03-10 10:00", "decided: the canary goes to the us cluster first", category="decisions"
    )
    written(tmp_path, "2024-03-11 10:00", "decided: tabs, not spaces, in the makefile", category="decisions")
    block = run("inject", "dev", "the canary plan from January 2024", cwd=tmp_path, check=True).stdout
    relevant = block.split("Relevant Decisions:\n", 1)[1].split("\n\n", 1)[0]
    assert relevant.index("eu cluster") < relevant.index("us cluster")
    assert "tabs" not in relevant
    block = run("inject", "dev", "the canary plan from March 2024", cwd=tmp_path, check=True).stdout
    relevant = block.split("Relevant Decisions:\n", 1)[1].split("\n\n", 1)[0]
    assert relevant.index("us cluster") < relevant.index("eu cluster") and "tabs" not in relevant
    assert old != new


def test_a_question_that_asks_when_prefers_the_entry_that_says_when(tmp_path: Path):
    plain = written(tmp_path, "2024-05-02 10:00", "Caroline went to the support group")
    timed = written(tmp_path, "2024-05-03 10:00", "Caroline went to the support group again yesterday evening")
    for n in range(12):
        written(tmp_path, f"2024-05-{10 + n} 10:00", f"Melanie painted a lake, picture {n}")
    assert hits(tmp_path, "Caroline support group")[0]["id"] == plain  # the shorter one, by BM25
    assert hits(tmp_path, "When did Caroline go to the support group?")[0]["id"] == timed
    assert [h["id"] for h in hits(tmp_path, "When did Caroline go to the support group?")][:2] == [timed, plain]


def test_an_identifier_still_beats_any_date_in_the_query(tmp_path: Path):
    """Entries spread over two years, each with one unique identifier among common words; a query
    of common words, a date naming another time than the entry's, and its identifier: that entry
    is first, in search and in inject's direct matches."""
    rng = random.Random(6)
    vocab = "rollout canary deploy cluster node replica latency timeout retry queue worker cache proxy".split()
    start = datetime(2023, 1, 1, tzinfo=timezone.utc)
    folder = tmp_path / ".memory" / "dev" / "decisions"
    folder.mkdir(parents=True)
    (tmp_path / ".memory" / ".vault").mkdir()
    entries = []
    for n in range(600):
        moment = start + timedelta(hours=n * 29)
        words = [rng.choice(vocab) for _ in range(30)]
        words.insert(rng.randrange(31), f"job{n}x")
        entry = Entry(int(moment.timestamp()) * 1000 + n, None, [], " ".join(words))
        (folder / entry_file_name(entry)).write_text(vault.serialize([entry]))
        entries.append((entry.id, moment))
    index = SearchIndex(Store(Layout(tmp_path)))
    cases = failures = 0
    for _ in range(150):
        n = rng.randrange(600)
        other = entries[(n + rng.randrange(30, 570)) % 600][1]
        when = rng.choice(
            [f"in {MONTHS[other.month - 1]} {other.year}", f"on {other.day} {MONTHS[other.month - 1]} {other.year}"]
        )
        query = [rng.choice(vocab) for _ in range(rng.randint(1, 3))] + [f"job{n}x", when]
        rng.shuffle(query)
        for neighbours in (True, False):
            found = index.search(" ".join(query), limit=2, neighbours=neighbours)
            cases += 1
            failures += not found or found[0].id != entries[n][0]
    assert cases == 300 and failures == 0, f"{failures} of {cases}"


DATE_TERM = re.compile(r"[0-9]{4}(?:-[0-9]{2}(?:-[0-9]{2})?)?|[0-9]{2}-[0-9]{2}|" + "|".join(m.lower() for m in MONTHS))
TEXT = st.text(alphabet=st.characters(codec="utf-8"), max_size=60) | st.lists(
    st.sampled_from(MONTHS + ["may", "Oct", "13th", "²⁰²³", "٢٠٢٣", "2023", "1", "31", "of", "-", "2023-02-30", "𝟚"]),
    max_size=8,
).map(" ".join)


@given(TEXT)
def test_any_text_gives_date_terms_of_the_indexed_shapes_and_never_fails(text: str):
    """Any query, any header date: no exception (int() refuses digits such as "²"), and only
    terms of the shapes the index holds."""
    for term in date_terms(text):
        assert DATE_TERM.fullmatch(term), term
        for day in days_after(term, 2):
            assert DATE_TERM.fullmatch(day), day
    assert all(DATE_TERM.fullmatch(t) for t in entry_date_terms(text).split())
    says_when(stemmed_text(text))
    asks_when(text)


def test_a_query_with_odd_digits_next_to_a_month_searches(tmp_path: Path):
    written(tmp_path, "2023-05-02 10:00", "the canary went out")
    for query in ("canary in ²⁰²³ may", "canary may ٣", "canary March 𝟚𝟘𝟚𝟛", "canary 2023-02-30"):
        assert hits(tmp_path, query)[0]["body"] == "the canary went out"


def test_a_date_never_lifts_a_typo_a_prefix_or_a_neighbour_above_the_exact_word(tmp_path: Path):
    """Found by a hostile tester: with the date counted for any match, "canarywharf" (a prefix)
    and "canray" (a neighbour of it) written in March ranked above the exact "canary" of 2021."""
    exact = written(tmp_path, "2021-06-01 10:00", "the canary shipped")
    written(tmp_path, "2023-03-10 10:00", "the canray shipped")
    written(tmp_path, "2023-03-11 10:00", "the canarywharf shipped")
    for n in range(50):
        written(
            tmp_path, f"2022-0{1 + n % 9}-{10 + n % 18} 12:00", f"filler note {n} about the build", category="notes"
        )
    for query in ("canary in March 2023", "canary 2023", "canary on 10 March 2023"):
        assert hits(tmp_path, query)[0]["id"] == exact, query
    block = run("inject", "dev", "canary in March 2023", cwd=tmp_path, check=True).stdout
    relevant = block.split("Relevant Lessons:\n", 1)[1]
    assert relevant.index("the canary shipped") < relevant.index("the canarywharf shipped")
    exact_march = written(tmp_path, "2023-03-12 10:00", "the canary shipped again")
    assert hits(tmp_path, "canary in March 2023")[0]["id"] == exact_march  # the exact word written then: first


def test_a_full_timestamp_names_its_day_and_a_hit_found_by_its_date_is_not_a_neighbours_match(tmp_path: Path):
    assert date_terms("glitch 2023-10-13T09:00") == ["2023-10-13"]  # as search and list print dates
    day = written(tmp_path, "2023-10-13 09:00", "rotated the keys")
    written(tmp_path, "2023-10-20 09:00", "tuned the cache")
    found = hits(tmp_path, "2023-10-13T09:00")
    assert found[0]["id"] == day and found[0]["related"] is False
    plain = run("search", "Oct 13", cwd=tmp_path, check=True).stdout
    assert "rotated the keys" in plain and "(next to a match)" not in plain.split("\n")[0]


def test_second_round_a_date_word_is_not_a_word_and_a_typo_is_not_buried(tmp_path: Path):
    """Found by a second hostile round: the words of a date matched as words ("The march of the
    linters", "Node 13"), a neighbour-only hit written then lost its mark, and a typo in the only
    other word let every entry written then bury the entry it meant."""
    exact = written(tmp_path, "2021-06-01 10:00", "the canary shipped")
    written(tmp_path, "2021-08-01 10:00", "the march of the linters through the repo")
    written(tmp_path, "2023-10-13 10:00", "Node 13 is too old for the build", category="decisions")
    written(tmp_path, "2023-03-20 10:00", "lunch with the team")
    written(tmp_path, "2023-03-20 10:01", "the canary went out")  # next to "lunch" in the category
    for n in range(8):
        written(tmp_path, f"2023-03-0{1 + n} 09:00", f"rotated credential set {n}")
    found = hits(tmp_path, "canary in March 2023")
    assert [h["body"] for h in found][:2] == ["the canary went out", "the canary shipped"]
    linters = [h for h in found if "linters" in h["body"]]  # only as a neighbour of "the canary shipped"
    assert all(h["related"] and h["matches"] == [] for h in linters)
    lunch = [h for h in hits(tmp_path, "canary in March 2023", "-n", "20") if h["body"] == "lunch with the team"]
    assert not lunch or lunch[0]["related"]  # found next to a match, not by its date
    typo = [h["id"] for h in hits(tmp_path, "canery in March 2023", "-n", "5")]
    assert exact in typo[:2]  # the typo still finds its entry; the date alone does not bury it
    for task in ("March 2023", "in March 2023", "what happened on 13 October 2023"):
        block = run("inject", "dev", task, cwd=tmp_path, check=True).stdout
        assert "linters" not in block and "Node 13" not in block and "rotated credential" not in block, task


def test_tasks_that_say_when_as_a_conjunction_do_not_ask_when():
    for text in (
        "what date format does the API use",
        "what time zone should logs use",
        "what day of week does cron run",
        "crash when can't connect to db",
        "fails when has no network",
        "button disabled when is loading",
        "When saving a file the app crashes",
    ):
        assert not asks_when(text), text
    for text in ("When did we ship it?", "and when was it merged", "What year did we move?", "deployed, but when?"):
        assert asks_when(text), text


def test_third_round_a_number_said_twice_stays_a_word_and_a_pasted_timestamp_is_its_day(tmp_path: Path):
    """Found by a third hostile round: "18" of "Node 18 upgrade on 18 May 2024" was dropped as a
    word (the Node 16 entry came first), a year alone was dropped ("the 2024 roadmap"), and a
    timestamp with seconds, a zone or UTC found nothing."""
    node18 = written(tmp_path, "2024-05-18 10:00", "Node 18 upgrade broke the build on the runners")
    written(tmp_path, "2024-05-18 11:00", "Node 16 upgrade notes")
    roadmap = written(tmp_path, "2023-03-02 10:00", "the 2024 roadmap drafted with the team leads")
    written(tmp_path, "2023-03-03 10:00", "the 2025 roadmap drafted")
    assert hits(tmp_path, "Node 18 upgrade on 18 May 2024")[0]["id"] == node18
    assert hits(tmp_path, "the 2024 roadmap drafted in March 2023")[0]["id"] == roadmap
    for pasted in (
        "2024-05-18T09:00:00Z",
        "2024-05-18T09:00:00.123Z",
        "2024-05-18 09:00 UTC",
        "2024-05-18 09:00+02:00",
    ):
        assert date_terms(pasted) == ["2024-05-18"], pasted
        assert {h["id"] for h in hits(tmp_path, pasted)} >= {node18}, pasted

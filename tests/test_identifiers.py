"""An exact identifier always first (issue 23): generated memories of several vocabularies and
sizes, each entry holding one unique identifier among 40 common words; a query of 1-3 common
words and one identifier must rank its entry first, every time, in search and in inject."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from memcli.search.index import SearchIndex
from memcli.search.words import identifier_words, identifiers
from memcli.storage import vault
from memcli.storage.paths import Layout
from memcli.storage.store import Store, entry_file_name
from memcli.storage.vault import Entry

from .conftest import run

VOCABULARIES = {
    "ops": "rollout canary deploy cluster node pod replica scale latency timeout retry backoff queue worker cache "
    "shard region zone ingress proxy gateway metric alert dashboard config secret token lease lock",
    "web": "login session cookie redirect form button page route render component state props hook fetch request "
    "response header status error handler middleware template style layout modal input validation",
    "data": "table column index query join schema migration row batch stream partition offset commit snapshot "
    "backup restore replica vacuum analyze constraint foreign primary key view trigger cursor transaction",
}
FIRST_ID = 1_700_000_000_000


def identifier(rng: random.Random, vocab: list[str]) -> str:
    """An identifier of one of the shapes developers search for, made of the vocabulary's words,
    so that its parts are common words and its near misses are other entries' identifiers."""
    w, x, y, n = rng.choice(vocab), rng.choice(vocab), rng.choice(vocab), rng.randrange(10_000)
    return rng.choice(
        [
            f"item{n}",
            f"ERR_{w.upper()}_{x.upper()}_{n % 100}",
            f"{w}{x.capitalize()}{y.capitalize()}",
            "".join(rng.choice("0123456789abcdef") for _ in range(rng.choice((7, 8, 12)))),
            f"{w}.{x}.{y}_{n % 100}",
            f"{w.capitalize()}::{x}_{n % 1000}",
            f"{w}-{x}-{n}",
            f"src/{w}/{x}_{n % 50}.py",
        ]
    )


def memory(root: Path, vocab: list[str], size: int, rng: random.Random) -> list[str]:
    """``size`` entries of 40 vocabulary words and one unique identifier each; their identifiers."""
    folder = root / ".memory" / "dev" / "decisions"
    folder.mkdir(parents=True)
    (root / ".memory" / ".vault").mkdir()
    tokens: dict[str, str] = {}
    while len(tokens) < size:
        token = identifier(rng, vocab)
        tokens.setdefault(token.lower(), token)
    for i, token in enumerate(tokens.values()):
        words = [rng.choice(vocab) for _ in range(40)]
        words.insert(rng.randrange(41), token)
        entry = Entry(FIRST_ID + i, None, [], " ".join(words))
        (folder / entry_file_name(entry)).write_text(vault.serialize([entry]))
    return list(tokens.values())


def test_an_entry_holding_the_query_identifier_is_first_in_every_case(tmp_path: Path):
    rng = random.Random(23)
    cases = failures = 0
    for name, words in VOCABULARIES.items():
        vocab = words.split()
        for size in (300, 2000):
            root = tmp_path / f"{name}-{size}"
            tokens = memory(root, vocab, size, rng)
            index = SearchIndex(Store(Layout(root)))
            for _ in range(45):
                i = rng.randrange(size)
                query = [rng.choice(vocab) for _ in range(rng.randint(1, 3))]
                query.insert(rng.randrange(len(query) + 1), tokens[i])
                for neighbours in (True, False):  # search, and inject's direct matches
                    hits = index.search(" ".join(query), limit=3, neighbours=neighbours)
                    cases += 1
                    failures += not hits or hits[0].id != FIRST_ID + i
    assert cases >= 500 and failures == 0, f"{failures} of {cases}"


def test_the_ten_thousand_entry_case_of_the_issue(tmp_path: Path):
    """40 words from a small vocabulary and a unique item<N> each: item4321 first."""
    rng = random.Random(4321)
    vocab = VOCABULARIES["ops"].split()
    folder = tmp_path / ".memory" / "dev" / "decisions"
    folder.mkdir(parents=True)
    (tmp_path / ".memory" / ".vault").mkdir()
    for n in range(10_000):
        words = [rng.choice(vocab) for _ in range(40)]
        words.insert(rng.randrange(41), f"item{n}")
        entry = Entry(FIRST_ID + n, None, [], " ".join(words))
        (folder / entry_file_name(entry)).write_text(vault.serialize([entry]))
    hits = json.loads(run("search", "rollout canary item4321", "--json", cwd=tmp_path, check=True).stdout)
    assert "item4321" in hits[0]["body"].split()
    explained = run("search", "rollout canary item4321", "--explain", "-n", "2", cwd=tmp_path, check=True).stdout
    first = explained.split("\n")[2]
    assert first.startswith("    = ") and "item4321 (identifier)" in first
    block = run("inject", "dev", "rollout canary item4321", cwd=tmp_path, check=True).stdout
    assert "item4321" in block.split("Relevant Decisions:\n- ", 1)[1].split("\n", 1)[0]


def test_an_exact_word_outranks_its_typos_and_prefixes(mem: Path):
    store = Store(Layout(mem))
    for body in ("the canarywharf shipped", "the canary shipped", "the canray shipped", "the canaryx shipped"):
        store.add("dev", "lessons", body)
    hits = json.loads(run("search", "canary", "--json", cwd=mem, check=True).stdout)
    assert hits[0]["body"] == "the canary shipped"
    typo = json.loads(run("search", "canray", "--json", cwd=mem, check=True).stdout)
    assert typo[0]["body"] == "the canray shipped"


def test_a_common_identifier_in_many_entries_still_ranks_those_that_hold_it(mem: Path):
    store = Store(Layout(mem))
    store.add("dev", "lessons", "deploy rollback steps for the api, see runbook")
    store.add("dev", "lessons", "deploy rollback of v2.3.1 broke the api")
    hits = json.loads(run("search", "deploy rollback runbook v2.3.1", "--json", cwd=mem, check=True).stdout)
    assert hits[0]["body"] == "deploy rollback of v2.3.1 broke the api"
    store.add("dev", "lessons", "a hand edit: ERR_CONN_RESET after the proxy change")
    os.utime(mem / ".memory", None)
    hits = json.loads(run("search", "proxy err conn reset ERR_CONN_RESET", "--json", cwd=mem, check=True).stdout)
    assert hits[0]["body"] == "a hand edit: ERR_CONN_RESET after the proxy change"


SEPARATORS = st.sampled_from(["::", ".", "_", "/", "-"])
PART = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", min_size=1, max_size=8)


@given(st.lists(st.tuples(PART, SEPARATORS), min_size=1, max_size=4), PART, st.text(max_size=30), st.text(max_size=30))
def test_a_compound_identifier_is_found_whole_wherever_it_stands(pieces, last, before, after):
    token = "".join(p + sep for p, sep in pieces) + last
    hyphen_word = all(sep == "-" for _, sep in pieces) and not any(c.isdigit() for c in token)
    found = identifiers(f"{before} {token} {after}")
    assert (token.lower() in found) != hyphen_word  # a hyphenated word is not an identifier
    assert identifiers(token.upper()) == identifiers(token.lower())


def test_words_that_are_not_identifiers():
    assert identifiers("a follow-up on the well-known issue, 3 pm") == []
    assert identifier_words("Deploy the API on 2024 Friday") == []
    assert identifier_words("see item4321 and fetchUser and a3f9c2e") == ["item4321", "fetchuser", "a3f9c2e"]

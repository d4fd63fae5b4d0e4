"""The terms the index holds are the terms tantivy's en_stem analyzer makes (real tantivy)."""

from __future__ import annotations

import string

from hypothesis import given, settings
from hypothesis import strategies as st

from memcli.search.words import analyze, stemmed_text, stemmed_texts

_ascii_words = st.one_of(
    st.text(string.ascii_letters + string.digits, min_size=1, max_size=12),
    st.sampled_from(
        ["running", "Studies", "dying", "skis", "news", "y", "sky2", "abc3s", "a" * 39, "b" * 40, "x" * 45]
    ),
)
_ascii_gaps = st.text(string.punctuation + string.whitespace + "\x00\x7f", min_size=1, max_size=3)
ascii_texts = st.lists(st.tuples(_ascii_words, _ascii_gaps), max_size=20).map(
    lambda pairs: "".join(w + g for w, g in pairs)
)


@settings(max_examples=500, deadline=None)
@given(ascii_texts)
def test_ascii_text_gets_the_analyzers_terms(text):
    assert stemmed_text(text) == " ".join(analyze(text))


@settings(max_examples=300, deadline=None)
@given(st.text(st.characters(blacklist_categories=("Cs",)), max_size=60))
def test_any_text_gets_the_analyzers_terms(text):
    assert stemmed_text(text) == " ".join(analyze(text))


def test_the_same_word_in_many_texts_is_stemmed_alike():
    texts = ["Deploying the canary", "deploys: canaries", "DEPLOYED canary_2 item4321"] * 3
    assert [stemmed_text(t) for t in texts] == [" ".join(analyze(t)) for t in texts]
    assert stemmed_text("Deploying the canary") == "deploy the canari"


@settings(max_examples=1000, deadline=None)
@given(st.text(string.ascii_letters + string.digits, max_size=45).map(lambda w: w + "7"))
def test_words_ending_in_a_digit_are_their_own_stem(word):
    """stemmed_text relies on it for ids, tickets and hashes: no English suffix ends in a digit."""
    assert stemmed_text(word) == " ".join(analyze(word))


_any_texts = st.one_of(
    ascii_texts,
    st.text(st.characters(blacklist_categories=("Cs",)), max_size=30),
    ascii_texts.map(lambda t: t + "\x1e" + t),  # the mark stemmed_texts puts between texts
)


@settings(max_examples=500, deadline=None)
@given(st.lists(_any_texts, max_size=8))
def test_many_texts_stemmed_as_one_get_each_texts_terms(texts):
    """stemmed_texts cuts a file's bodies as one text with a mark between them: each must still get
    exactly its own terms, whatever it holds (the mark itself, other scripts, nothing)."""
    assert stemmed_texts(texts) == [" ".join(analyze(t)) for t in texts]

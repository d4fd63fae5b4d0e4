"""The AITEAM-X vault format, with none of that implementation's data-loss bugs."""

from __future__ import annotations

import re
import subprocess
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from memcli.storage import vault
from memcli.storage.vault import Entry

from .conftest import FIXTURES


def roundtrip(entries: list[Entry]) -> list[Entry]:
    return vault.parse(vault.serialize(entries))


def test_reads_an_aiteam_x_entry():
    entries = vault.parse((FIXTURES / "vault-entry.md").read_text())
    assert len(entries) == 1
    e = entries[0]
    assert e.id == 1774000000123
    assert e.date == "2026-03-20T09:46"
    assert e.tags == ["postgres", "migrations", "ops"]
    assert e.body == "Migrações rodam antes do deploy, nunca durante."


def test_writes_the_original_layout_with_a_trailing_newline():
    text = vault.serialize([Entry(1773679871839, None, ["react", "typescript"], "Body.")])
    assert text == "<!-- id:1773679871839 -->\n## 2026-03-16T16:51 · #react #typescript\n\nBody.\n\n---\n"


def test_missing_trailing_newline_is_accepted():
    text = "<!-- id:1 -->\n## 2026-01-01T00:00\n\nA\n\n---\n\n<!-- id:2 -->\n## 2026-01-01T00:00\n\nB\n\n---"
    assert [e.body for e in vault.parse(text)] == ["A", "B"]


def test_hyphenated_and_unicode_tags_survive():
    e = Entry(5, None, ["auto-handoff", "session-close", "decisão", "日本"], "x")
    assert roundtrip([e])[0].tags == ["auto-handoff", "session-close", "decisão", "日本"]


def test_dash_line_inside_a_body_is_body_text():
    body = "first part\n---\nsecond part\n\n---\n\nthird part"
    assert roundtrip([Entry(7, None, [], body)])[0].body == body


def test_unmarked_text_becomes_an_entry():
    text = (
        "Remember: the staging DB is read-only on Fridays.\n\n"
        "<!-- id:10 -->\n## 2026-01-01T00:00\n\nmarked\n\n---\n\n"
        "## 2026-02-02T10:00 · #hand-written\n\nan agent wrote this without a marker\n\n---\n"
    )
    entries = vault.parse(text)
    assert [e.body for e in entries] == [
        "Remember: the staging DB is read-only on Fridays.",
        "marked",
        "an agent wrote this without a marker",
    ]
    assert entries[2].tags == ["hand-written"] and not entries[2].marked and entries[0].marked is False
    assert [e.id for e in vault.parse(text)] == [e.id for e in entries], "ids of unmarked text come from the text"


def test_duplicate_ids_are_both_kept():
    e1, e2 = Entry(9, None, [], "one side"), Entry(9, None, [], "other side")
    assert [e.body for e in roundtrip([e1, e2])] == ["one side", "other side"]


def test_union_merge_without_separator_is_read_by_markers():
    # What git's union merge leaves when both sides add an entry at the top of a file.
    text = (
        "<!-- id:3 -->\n## 2026-01-01T00:03\n\nfrom branch A\n"
        "<!-- id:2 -->\n## 2026-01-01T00:02\n\nfrom branch B\n\n---\n\n"
        "<!-- id:1 -->\n## 2026-01-01T00:01\n\nbase\n\n---\n"
    )
    assert [(e.id, e.body) for e in vault.parse(text)] == [(3, "from branch A"), (2, "from branch B"), (1, "base")]


def test_numbers_and_colours_are_not_tags():
    assert vault.hashtags("see issue #42, colour #fff and #A1B2C3; tags #sse #auto-handoff #décision") == [
        "sse",
        "auto-handoff",
        "décision",
    ]
    assert vault.hashtags("use `#include` and\n```\n#define X\n```\nbut #real") == ["real"]
    assert vault.hashtags("http://x.test/page#anchor issue#3") == []


def test_body_lines_that_look_like_markers_round_trip():
    body = "<!-- id:123 -->\n## 2026-01-01T00:00 · #x\n\\<!-- id:4 -->\n\\\\## 2026-01-01"
    out = roundtrip([Entry(1, None, [], body)])
    assert len(out) == 1 and out[0].body == body


def test_open_tasks():
    body = "- [ ] open one\n- [x] done\n  * [ ] nested open\nnot a task [ ]"
    assert vault.open_tasks(body) == ["- [ ] open one", "* [ ] nested open"]


# ------------------------------------------------------------------ properties
_tricky_lines = st.sampled_from(
    [
        "---",
        "",
        " ",
        "<!-- id:1 -->",
        "<!-- id:99 -->  ",
        "## 2026-03-16T16:51",
        "## 2026-03-16T16:51 · #a #b-c",
        "\\## 2026-01-01",
        "\\\\<!-- id:5 -->",
        "## heading",
        "#tag",
        "- [ ] task",
        "---  ",
        "\t",
        "\\",
    ]
)
_lines = st.one_of(
    _tricky_lines, st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r"), max_size=40)
)
bodies = st.lists(_lines, max_size=12).map("\n".join)
tags = st.lists(st.from_regex(r"[\w\-]{1,12}", fullmatch=True).filter(lambda t: not t.isspace()), max_size=4)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(bodies, tags), min_size=1, max_size=6))
def test_every_body_round_trips_byte_for_byte(items):
    entries = [Entry(1000 + i, None, t, b) for i, (b, t) in enumerate(items)]
    out = roundtrip(entries)
    assert [(e.id, e.body, e.tags) for e in out] == [(e.id, e.body, e.tags) for e in entries]


@settings(max_examples=400, deadline=None)
@given(st.lists(_lines, max_size=30).map("\n".join))
def test_any_file_keeps_its_text_and_rewriting_is_stable(text):
    entries = vault.parse(text)
    written = vault.serialize(entries)
    out_lines = set(written.split("\n"))
    for line in text.split("\n"):
        structural = vault.P.marker.fullmatch(line) or vault.P.header.fullmatch(line) or re.fullmatch(r"-*\s*", line)
        if not structural:
            assert line in out_lines or "\\" + line in out_lines, line
    again = vault.parse(written)
    assert [(e.id, e.body, e.tags) for e in again] == [(e.id, e.body, e.tags) for e in entries]
    assert vault.serialize(again) == written


def _line_parser(text: str) -> list:
    if "\r\n" in text and text.count("\r\n") == text.count("\n"):
        text = text.replace("\r\n", "\n")
    return vault.assign_content_ids(vault._parse(text))


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.tuples(bodies, tags), min_size=1, max_size=6),
    st.lists(_lines, max_size=8).map("\n".join),
    st.integers(min_value=0, max_value=10**6),
)
def test_the_fast_reading_of_memcli_written_files_agrees_with_the_line_parser(items, noise, where):
    """The one-expression reading is taken only when it gives exactly what the line parser gives,
    on files as memcli writes them and on the same files with hand-made text put in anywhere."""
    entries = [Entry(1_700_000_000_000 + i, None, t, b) for i, (b, t) in enumerate(items)]
    written = vault.serialize(entries)
    assert vault._parse_canonical(written) is not None
    assert vault.parse(written) == _line_parser(written)
    cut = where % (len(written) + 1)
    edited = written[:cut] + noise + written[cut:]
    assert vault.parse(edited) == _line_parser(edited) or vault.split_conflict(edited) is not None


_header_edits = st.sampled_from(
    [
        ("<!-- id:", "<!-- id:0"),  # a leading zero: the line parser keeps the digits' value
        (" \u00b7 #", " \u00b7  #"),
        (" \u00b7 #", " \u00b7 #x #"),
        ("\n\n", " \n\n"),
        ("\n\n", "\t\n\n"),
        ("\n\n", "\r\n\n"),
        ("\n\n", "\n\n\\"),
        ("\n\n", "\n\n---\n"),
        ("\n\n", "\n\n\\---\n"),
        ("\n\n", "\n\n\\\\---\n"),
        ("-->\n", "--> \n"),
        ("\n\n---\n", "\n\n--- \n"),
        ("\n\n---\n", "\n\n---\n\n---\n"),
        ("\n\n---\n", "\n\n---\n\n"),
    ]
)


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.tuples(bodies, tags), min_size=1, max_size=4),
    _header_edits,
    st.integers(min_value=0, max_value=7),
    st.sampled_from(["a", "a-b", "\u00e9t\u00e9", "x\u00a0y", "x\x85y", "x\u2028y", "x\x1cy", "#"]),
)
def test_the_fast_reading_refuses_every_header_memcli_would_not_write(items, edit, which, tag):
    """Each piece of a file must be exactly what memcli writes for what is read from it; a file
    that differs anywhere (spaces, zeros, unusual whitespace in tags, unescaped structure) gets
    the line parser's reading."""
    entries = [Entry(1_700_000_000_000 + i, None, t + [tag], b) for i, (b, t) in enumerate(items)]
    written = vault.serialize(entries)
    old, new = edit
    places = [i for i in range(len(written)) if written.startswith(old, i)]
    if places:
        at = places[which % len(places)]
        written = written[:at] + new + written[at + len(old) :]
    parsed = vault.parse(written)
    assert parsed == _line_parser(written) or vault.split_conflict(written) is not None
    fast = vault._parse_canonical(written)
    if fast is not None:
        assert vault.serialize(fast) == written


def test_ids_in_other_scripts_digits_are_read_but_never_taken_as_written():
    text = "<!-- id:\u0661\u0662 -->\n## 2024-01-01\n\nx\n\n---\n"  # Arabic-Indic digits
    assert vault._parse_canonical(text) is None
    assert vault.parse(text) == _line_parser(text)


def test_headers_that_split_into_tags_many_ways_are_refused_in_linear_time(tmp_path):
    """A line like "## 2024-01-01 · #a#a#a…" followed by a character no header allows used to take
    exponential time to refuse (40 pairs: days); run in a process so a regression cannot hang the suite."""
    script = (
        "from memcli.storage import vault\n"
        "tags = '#a' * 40\n"
        "line = '## 2024-01-01 \\u00b7 ' + tags + '\\x0c'\n"
        "assert not vault._is_special(line)\n"
        "body = line + '\\nmore'\n"
        "entry = vault.Entry(1_700_000_000_000, None, ['t%d#x' % i for i in range(40)], body)\n"
        "text = vault.serialize([entry])\n"
        "[read] = vault.parse(text)\n"
        "assert (read.id, read.tags, read.body) == (entry.id, entry.tags, entry.body)\n"
        "edited = text.replace('#x\\n', '#x\\t\\n', 1)\n"
        "assert vault.parse(edited)[0].body == body\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_an_id_of_thousands_of_digits_is_text_not_a_crash(tmp_path):
    huge = "1" * 5000
    text = f"<!-- id:{huge} -->\n## 2024-01-01\n\nzebra\n\n---\n"
    entries = vault.parse(text)
    assert [e.body for e in entries] == [f"<!-- id:{huge} -->", "zebra"]  # the line is kept as text
    assert vault.parse(vault.serialize(entries)) == entries


_structure_pieces = st.sampled_from(
    ["<!-- id:", "1", " -->", "## ", "2024-01-01", " \u00b7 ", "#a", "---", "<" * 7, "=" * 7, ">" * 7, "|" * 7]
    + ["<", "#", "-", "=", "|", ">", "\\", " ", "\t", "\r", "\n", "x"]
)


@settings(max_examples=2000, deadline=None)
@given(st.lists(_structure_pieces, max_size=7).map("".join))
def test_the_quick_tests_for_structure_lines_agree_with_the_expressions(text):
    """_is_special looks at a line's start before its four expressions, and the fast reader looks
    for such starts before it escapes a body to compare: neither may skip a line that counts."""
    line = text.replace("\n", "")
    full = any(r.fullmatch(line) for r in (vault.P.marker, vault.P.header, vault.P.closer, vault.P.conflict))
    assert vault._is_special(line) == full
    assert vault._maybe_special(text) == (vault.P.maybe_special_line.search(text) is not None)
    if not vault._maybe_special(text):
        assert vault._escape_body(text) == text

"""The operations that memcli's two faces share: the CLI (``memcli.cli``) and the MCP server
(``memcli.agents.mcp_server``) parse their input, call these and format the result, so that both
validate, refuse secrets, lock and stay fresh in the same way."""

from __future__ import annotations

from memcli.storage import vault
from memcli.errors import MemcliError
from memcli.storage.store import ARCHIVED_TAG, SUPERSEDES, Located, Store, current, predecessors, replaced

TYPE_CHECKING = False  # names for annotations only
if TYPE_CHECKING:
    from typing import Any

    from memcli.search.index import Hit


def check_text(text: str, where: str = "TEXT") -> str:
    """Text to store: UTF-8 (no lone surrogates), no NUL bytes, not blank."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise MemcliError(f"{where} is not UTF-8 text; nothing written") from None
    if "\x00" in text:
        raise MemcliError(f"{where} holds NUL bytes; nothing written")
    return text


def require_text(text: str) -> str:
    if not text.strip():
        raise MemcliError("empty text; nothing written")
    return text


def check_secrets(text: str, allow: bool) -> None:
    """The one secret policy for what is written to the vault (conversations are redacted instead)."""
    if allow:
        return
    from memcli.storage import secrets

    findings = secrets.scan(text)
    if findings:
        raise MemcliError(
            f"refusing to store what looks like a secret: {secrets.describe(findings)};"
            " remove it (the CLI's --allow-secret stores it anyway)"
        )


def allow_tags(rules: list[str] | None) -> list[str]:
    """The tags that record a writer's ``--allow RULE`` (``allow-RULE``); unknown rules are refused."""
    from memcli.storage import guard

    out = []
    for rule in rules or ():
        rule = rule.strip().lower().removeprefix("allow-")
        if rule == "invisible":
            raise MemcliError("invisible characters cannot be allowed: nobody sees them in a diff; nothing written")
        if rule not in guard.RULES:
            raise MemcliError(
                f"unknown rule {rule!r} for --allow; rules: {', '.join(r for r in guard.RULES if r != 'invisible')}"
            )
        out.append(f"allow-{rule}")
    return list(dict.fromkeys(out))


def clean_tags(tags: list[str] | None) -> list[str]:
    """Tags as given (a leading '#' dropped); each one word."""
    cleaned = [t.lstrip("#") for t in tags or []]
    for t in cleaned:
        if not t or any(ch.isspace() or ord(ch) < 32 for ch in t):
            raise MemcliError(f"invalid tag {t!r}: tags are single words without spaces")
    return cleaned


def _is_number(value: str) -> bool:
    """ASCII digits only (``str.isdigit`` also takes '²' and '٣'), and not absurdly many."""
    return value.isascii() and value.isdigit() and len(value) <= vault.MAX_ID_DIGITS


def parse_id(value: str | int) -> int:
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    if not isinstance(value, str) or not _is_number(value):
        raise MemcliError(f"invalid entry id {value!r}: ids are numbers (see `memcli list`)")
    return int(value)


def add(
    store: Store,
    agent: str,
    category: str,
    text: str,
    tags: list[str] | None = None,
    allow_secret: bool = False,
    allow: list[str] | None = None,
) -> vault.Entry:
    """A new entry, checked: text, size, secrets, and the content rules (``allow``: rules the writer
    means to break, kept as ``allow-RULE`` tags)."""
    store.check(agent, category)
    body = require_text(check_text(text))
    store.check_size(body)  # before the secret scan: a 20 MB text is refused at once
    check_secrets(body, allow_secret)
    return store.add(agent, category, body, clean_tags(tags) + allow_tags(allow))


COPY_SCAN_FILES = 300  # without an index, a category of at most this many files is read to find a copy


def edit(
    store: Store,
    located: Located,
    text: str | None,
    tags: list[str] | None = None,
    allow_secret: bool = False,
    allow: list[str] | None = None,
) -> Located:
    """New text (None: unchanged) and, if given, new tags for an entry, checked as ``add`` checks."""
    if text is not None:
        text = require_text(check_text(text))
        store.check_size(text)
        check_secrets(text, allow_secret)
    return store.update(
        located.agent, located.entry.id, text, clean_tags(tags) if tags is not None else None, allow_tags(allow)
    )


def existing_copy(store: Store, agent: str, category: str, text: str) -> Located | None:
    """An entry of the agent's category that already holds ``text`` (``extract.is_copy``), found
    through the search index; None when there is none.  Without an index (a fresh clone, one being
    rebuilt) a small category is read whole, and a large one is not looked through: an add never
    waits for a build (``compact`` merges exact copies later)."""
    import os

    from memcli.capture.copies import is_copy
    from memcli.search.index import SearchIndex

    if len(text) > store.config.vault_max_entry_bytes:
        return None  # too large to be an entry: the add refuses it without a look
    words = " ".join(text[:4096].split()[:60])  # enough words to find it; a query needs no more
    if not words:
        return None
    index = SearchIndex(store)
    if not index.exists():
        try:
            files = len(os.listdir(store.layout.category_dir(agent, category)))
        except OSError:
            files = 0
        if files > COPY_SCAN_FILES:
            return None
        same = next((e for e in store.read(agent, category) if is_copy(e.body, text)), None)
        return Located(agent, category, same) if same is not None else None
    hits = index.search(words, agent, category, 5, neighbours=False, archived=True)
    for hit in hits:
        if is_copy(hit.body, text):
            return store.find(agent, hit.id)
    return None


def entries(
    store: Store,
    agent: str | None = None,
    category: str | None = None,
    tag: str | None = None,
    limit: int | None = None,
    archived: bool = False,
) -> list[Located]:
    """Entries, newest first, of one agent and category if given, with a tag if given; archived
    entries only with ``archived`` (or when the tag asked for is ``archived``)."""
    from memcli.search.summary import HEAD

    store.check(agent, category)
    if limit and limit <= HEAD and not tag and not archived:
        return _newest(store, agent, category, limit)
    rows = []
    wanted = tag.lstrip("#").lower() if tag else None
    archived = archived or wanted == ARCHIVED_TAG
    groups: dict[tuple[str, str], list[Located]] = {}  # what is current is told a whole category at a time
    for located in store.iter_entries(agent, category):
        groups.setdefault((located.agent, located.category), []).append(located)
    for group in groups.values():
        shown = {id(e) for e in current([r.entry for r in group])}
        for located in group:
            if wanted and wanted not in {t.lower() for t in located.entry.tags}:
                continue
            if archived or id(located.entry) in shown:
                rows.append(located)
    rows.sort(key=lambda r: vault.newest_first(r.entry), reverse=True)
    return rows[:limit] if limit else rows


def _newest(store: Store, agent: str | None, category: str | None, limit: int) -> list[Located]:
    """The ``limit`` newest entries, from the summary cache: only the files that hold them are read."""
    from memcli.search.summary import Summaries

    summaries = Summaries(store)
    heads: list[tuple[int, int, str, str]] = []
    for a in [agent] if agent else store.agents():
        for c in [category] if category else store.categories:
            try:
                info = summaries.get(a, c)
            except MemcliError as exc:  # one unreadable file hides itself, never the others
                from memcli.storage.fsutil import warn

                warn(f"{exc.message}; skipped")
                continue
            heads.extend((key, entry_id, a, c) for key, entry_id in info["head"])
    summaries.save()
    heads.sort(key=lambda h: h[0], reverse=True)
    chosen = heads[:limit]
    files = {(a, c): store.read(a, c) for _, _, a, c in chosen}
    rows: list[Located] = []
    for _, entry_id, a, c in chosen:
        entry = next((e for e in files[(a, c)] if e.id == entry_id and not any(r.entry is e for r in rows)), None)
        if entry is not None:
            rows.append(Located(a, c, entry))
    return rows


def show(store: Store, agent: str, entry_id: str | int) -> tuple[Located, int]:
    """The entry, and how many other entries share its id (what a merge by hand can leave)."""
    located = store.find(agent, parse_id(entry_id))
    return located, twins(store, located)


def twins(store: Store, located: Located) -> int:
    """How many other entries of the agent share the entry's id."""
    return sum(1 for t in store.iter_entries(located.agent) if t.entry.id == located.entry.id) - 1


def _names_an_id(store: Store, first: str) -> bool:
    """Whether a command's first argument is an entry id with the agent left out: digits, and no
    agent of that name."""
    return _is_number(first) and first not in store.agents(with_sessions=True)


def find_anywhere(store: Store, entry_id: int) -> Located:
    """The entry with this id, whichever agent has it; an error if none or several agents do."""
    from memcli.errors import NotFound

    owners = []
    for agent in store.agents():
        try:
            owners.append(store.find(agent, entry_id))
        except NotFound:
            continue
    if not owners:
        raise NotFound(f"no entry {entry_id} (see `memcli list`)")
    if len(owners) > 1:
        names = ", ".join(o.agent for o in owners)
        raise MemcliError(f"entry {entry_id} exists for several agents ({names}): name the agent")
    return owners[0]


def locate(store: Store, first: str, second: str | None, rest: str | None, usage: str) -> tuple[Located, str | None]:
    """``AGENT ID [TEXT]`` or, with the agent left out, ``ID [TEXT]``: the entry and the text."""
    if _names_an_id(store, first) and (second is None or not _is_number(second) or rest is None):
        if rest is not None:
            raise MemcliError(f"unexpected argument {rest!r}: `{usage}`")
        return find_anywhere(store, int(first)), second
    store.check(first)
    if second is None:
        raise MemcliError(f"missing ID: `{usage}` (see `memcli list {first}` for ids)")
    return find_of(store, first, parse_id(second)), rest


def find_of(store: Store, agent: str, entry_id: int) -> Located:
    """The agent's entry with this id; an unknown id that another agent holds is named as theirs."""
    from memcli.errors import NotFound

    try:
        return store.find(agent, entry_id)
    except NotFound:
        others = sorted({r.agent for r in store.iter_entries() if r.entry.id == entry_id and r.agent != agent})
        if others:
            raise NotFound(f"entry {entry_id} is {others[0]}'s, not {agent}'s: nothing done") from None
        raise


def locate_many(store: Store, first: str, rest: list[str], command: str = "rm") -> dict[str, list[Located]]:
    """``AGENT ID...`` or ``ID...``: the entries, by agent (an id given twice counts once); an error,
    before anything is done, if one is unknown."""
    groups: dict[str, list[Located]] = {}
    rest = list(dict.fromkeys(rest))
    if _names_an_id(store, first):
        for value in dict.fromkeys([first, *rest]):
            located = find_anywhere(store, parse_id(value))
            groups.setdefault(located.agent, []).append(located)
        return groups
    if not rest:
        raise MemcliError(f"missing ID: `memcli {command} AGENT ID...` (see `memcli list {first}` for ids)")
    store.check(first)
    groups[first] = [find_of(store, first, parse_id(value)) for value in rest]
    return groups


def mark_done(store: Store, located: Located, text: str | None = None) -> list[str]:
    """Tick the entry's open tasks (those containing ``text``, if given); the lines ticked."""
    lines = located.entry.body.split("\n")
    ticked = []
    for n, line in enumerate(lines):
        if vault.OPEN_TASK_RE.match(line) and (text is None or text.lower() in line.lower()):
            lines[n] = line.replace("[ ]", "[x]", 1)
            ticked.append(lines[n].strip())
    if not ticked:
        what = f" containing {text!r}" if text else ""
        raise MemcliError(f"entry {located.entry.id} has no open task{what}; nothing changed")
    store.update(located.agent, located.entry.id, "\n".join(lines), located.entry.tags)
    return ticked


def first_line(body: str) -> str:
    """The first line of a body that says something: a line of nothing but #hashtags is passed
    over, and a run of #hashtags at the end of the line is left to the tags column."""
    for raw in body.splitlines():
        line = " ".join(raw.split())
        words = line.split(" ")
        while words and vault.HASHTAG_RE.fullmatch(words[-1]):
            words.pop()
        if words:
            return " ".join(words)
    return ""


def search(
    store: Store,
    query: str,
    agent: str | None = None,
    category: str | None = None,
    limit: int | None = None,
    archived: bool = False,
    explain: bool = False,
) -> tuple[list[Hit], str | None]:
    """The best matches (archived entries only with ``archived``), and a notice to pass on (an index
    rebuilt, a file skipped), if any."""
    from memcli.recall import trust
    from memcli.search.index import SearchIndex

    store.check(agent, category)
    index = SearchIndex(store)
    index.explain = explain
    hits = index.search(query, agent, category, limit or store.config.search_limit, archived=archived)
    from memcli.storage.citations import cited_paths, missing

    root = str(store.layout.root)
    if hits:
        prov, memo = trust.provenance(store.layout), trust.Verdicts(store.layout)
        for hit in hits:  # the few paths of the hits shown: one lstat each
            hit.stale = missing(root, cited_paths(hit.body))
            hit.superseded_by = index.newest_version(hit) if archived else None
            hit.held = trust.verdict(prov, hit.agent, hit.category, hit.id, hit.date, hit.tags, hit.body, memo)
        memo.save()
    return hits, index.notice()


def held_of(store: Store, located: Located) -> str | None:
    """Why one entry is held back from agents, or None."""
    return next(iter(held(store, [located]).values()))


def held(store: Store, rows: list[Located]) -> dict[int, str | None]:
    """Why each entry is held back from agents (None: it is not), by ``id(row)``."""
    from memcli.recall import trust

    if not rows:
        return {}
    prov, memo = trust.provenance(store.layout), trust.Verdicts(store.layout)
    found = {
        id(r): trust.verdict(
            prov, r.agent, r.category, r.entry.id, r.entry.header_date, r.entry.tags, r.entry.body, memo
        )
        for r in rows
    }
    memo.save()
    return found


def supersede(
    store: Store,
    located: Located,
    text: str,
    tags: list[str] | None = None,
    allow_secret: bool = False,
    allow: list[str] | None = None,
) -> vault.Entry:
    """Replace an entry with a newer one: one new entry, in the same category, with the old one's
    tags (a pin too) and ``supersedes-OLD``.  The old file is left as it is: readers tell from the
    new entry's tag that it is replaced, so superseding merges wherever an add does."""
    old = located.entry
    if ARCHIVED_TAG in old.tags:
        raise MemcliError(f"entry {old.id} is archived; unarchive it first, or add a new entry")
    newest = newest_version(store, located)
    if newest is not None:
        raise MemcliError(f"entry {old.id} is superseded by {newest} already; supersede {newest} instead")
    body = require_text(check_text(text))
    store.check_size(body)
    check_secrets(body, allow_secret)
    kept = [t for t in old.tags if not t.startswith((SUPERSEDES, "allow-"))]  # an allowance is for its text only
    new_tags = vault.merge_tags(kept, clean_tags(tags) + allow_tags(allow))
    return store.add(located.agent, located.category, body, new_tags + [f"{SUPERSEDES}{old.id}"])


def versions(store: Store, agent: str, category: str) -> dict[int, int]:
    """The replaced entries of a category: id -> the id of its newest version."""
    return replaced((e.id, e.tags) for e in store.read(agent, category))


def newest_version(store: Store, located: Located) -> int | None:
    """The id of the newest version of a replaced entry (the one shown for it), or None if it is current."""
    return versions(store, located.agent, located.category).get(located.entry.id)


def set_flag(store: Store, groups: dict[str, list[Located]], tag: str, on: bool) -> list[tuple[Located, bool]]:
    """Give entries a state tag (``archived``) or take it away: each entry as it is after, and
    whether it changed (an entry archived already is left as it is)."""
    done = []
    for agent, targets in groups.items():
        for t in targets:
            if (tag in t.entry.tags) == on:
                done.append((t, False))
                continue
            tags = [x for x in t.entry.tags if x != tag] + ([tag] if on else [])
            done.append((store.update(agent, t.entry.id, None, tags), True))
    return done


def entry_json(agent: str, category: str, entry: vault.Entry, superseded_by: int | None = None) -> dict[str, Any]:
    """An entry as data; ``superseded_by`` (the newest version, if a newer one replaces it) is told
    by ``show`` and ``list``, which read the entry's category (see ``versions``)."""
    return {
        "id": entry.id,
        "agent": agent,
        "category": category,
        "date": entry.header_date,
        "tags": entry.tags,
        "body": entry.body,
        "superseded_by": superseded_by,
        "supersedes": predecessors(entry.tags),
    }

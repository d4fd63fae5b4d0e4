"""memcli's operations layer: one function per operation, and ``OPERATIONS``, the table the three
faces are built over.

The faces are the command line (``memcli.cli.commands``), the MCP server
(``memcli.agents.mcp_server``, whose tools are generated from the table) and the page
(``memcli.ui``, whose writes are looked up in it).  A face parses its input, opens a ``Memory``
(the store with index upkeep, and how that face names agents) and calls the operation; the
operation resolves the agent, checks the text (size, secrets, the content rules), finds copies,
locks and writes, and returns a typed result that knows its JSON form and its one-line message.
So every face validates, refuses, locks and stays fresh in the same way, and says the same.
``tests/test_faces.py`` fails when a face offers an operation this table does not have, or a
write operation has neither an MCP tool nor a stated reason for having none."""

from __future__ import annotations

from memcli.storage import vault
from memcli.errors import MemcliError
from memcli.storage.store import ARCHIVED_TAG, SUPERSEDES, Located, Store, current, predecessors, replaced

TYPE_CHECKING = False  # names for annotations only
if TYPE_CHECKING:
    from typing import Any, Callable, Sequence, TypeVar

    from memcli.storage.paths import Layout

    from memcli.search.index import Hit

    T = TypeVar("T")


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


PERSONAL_RULE = "personal"  # --allow personal: a text that says a personal note again, shared on purpose


def not_a_personal_note(store: Store, body: str, allowed: list[str], tags: list[str] | None = None) -> None:
    """Refuse, for a project's memory, a text (or its ``tags``) that says one of the developer's
    personal notes again (``capture.personal``): the project's memory is committed for the whole
    team, and an agent that read the note in its block would save it there.  ``--allow personal``
    shares it."""
    if store.layout.personal or f"allow-{PERSONAL_RULE}" in allowed:
        return
    from memcli.capture.personal import repeated

    note = repeated(store.layout, body + ("\n" + " ".join(tags) if tags else ""))
    if note is not None:
        raise MemcliError(
            f"refused: this says your personal note {note} again, and the project's memory is committed for the"
            f" whole team (keep it yours with --user; --allow {PERSONAL_RULE} shares it); nothing written"
        )


def allow_tags(rules: list[str] | None) -> list[str]:
    """The tags that record a writer's ``--allow RULE`` (``allow-RULE``); unknown rules are refused."""
    from memcli.storage import guard

    out = []
    for rule in rules or ():
        rule = rule.strip().lower().removeprefix("allow-")
        if rule == PERSONAL_RULE:
            out.append(f"allow-{rule}")
            continue
        if rule == "invisible":
            raise MemcliError("invisible characters cannot be allowed: nobody sees them in a diff; nothing written")
        if rule not in guard.RULES:
            raise MemcliError(
                f"unknown rule {rule!r} for --allow; rules: {', '.join(r for r in guard.RULES if r != 'invisible')}"
            )
        out.append(f"allow-{rule}")
    return list(dict.fromkeys(out))


def clean_tags(tags: list[str] | None, imported: bool = False) -> list[str]:
    """Tags as given (a leading '#' dropped); each one word, with no invisible character, none
    of them an ``allow-RULE`` (only a person's ``--allow`` writes those: ``allow_tags``) and, but
    for an import's own (``imported``: its mark, a rule applied always pinned), none of memcli's
    state tags (``pin``, ``archive`` and ``supersede`` set those, with their checks)."""
    from memcli.storage import guard
    from memcli.storage.store import is_state_tag

    cleaned = [t.lstrip("#") for t in tags or []]
    for t in cleaned:
        if not t or any(ch.isspace() or ord(ch) < 32 for ch in t):
            raise MemcliError(f"invalid tag {t!r}: tags are single words without spaces")
        hidden = guard.invisible(t)
        if hidden:
            raise MemcliError(
                f"refused: the tag {guard.make_visible(t)!r} holds an invisible character (U+{ord(hidden[0][1]):04X}):"
                " nobody sees it in a diff; nothing written"
            )
    no_allowances(cleaned)
    for t in cleaned if not imported else ():
        if is_state_tag(t):
            raise MemcliError(
                f"refused: #{t} is a state memcli keeps, not a tag to write (`pin`, `archive` and `supersede`"
                " set it); nothing written"
            )
    return cleaned


def no_allowances(tags: list[str]) -> None:
    """Refuse ``allow-RULE`` among tags a writer typed (``--tag``, a tool's ``tags``, a #hashtag in the
    text): it would let the text break a content rule without the person's ``--allow``."""
    for t in tags:
        if t.lower().startswith("allow-"):
            raise MemcliError(
                f"refused: #{t} is memcli's record of a person's --allow, not a tag to write; nothing written"
            )


_is_number = vault.is_id  # an id typed where an agent could be


def parse_id(value: str | int) -> int:
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    if not isinstance(value, str) or not _is_number(value):
        raise MemcliError(f"invalid entry id {value!r}: ids are numbers (see `memcli list`)")
    return int(value)


def _store_new(
    store: Store,
    agent: str,
    category: str,
    text: str,
    tags: list[str] | None = None,
    allow_secret: bool = False,
    allow: list[str] | None = None,
    imported: bool = False,
) -> vault.Entry:
    """A new entry, checked: text, size, secrets, the content rules (``allow``: rules the writer
    means to break, kept as ``allow-RULE`` tags), and but for an import's item (``imported``: see
    ``add``), the personal notes (``not_a_personal_note``) and state tags (``clean_tags``)."""
    store.check(agent, category)
    body = _checked_text(store, text, allow_secret)
    allowed = allow_tags(allow)
    tags = clean_tags(tags, imported)
    if not imported:
        not_a_personal_note(store, body, allowed, tags)
    return store.add(agent, category, body, tags + allowed)


def _checked_text(store: Store, text: str, allow_secret: bool) -> str:
    """A new text for an entry (``add``, ``edit``, ``supersede``), checked: UTF-8 and not blank,
    its size (before the secret scan: a 20 MB text is refused at once), secrets, and no
    ``#allow-RULE`` written in it (an allowance is ``--allow``'s alone)."""
    body = require_text(check_text(text))
    store.check_size(body)
    check_secrets(body, allow_secret)
    no_allowances(vault.hashtags(body))
    return body


COPY_SCAN_FILES = 300  # without an index, a category of at most this many files is read to find a copy


def _store_edit(
    store: Store,
    located: Located,
    text: str | None,
    tags: list[str] | None = None,
    allow_secret: bool = False,
    allow: list[str] | None = None,
) -> Located:
    """New text (None: unchanged) and, if given, new tags for an entry, checked as ``add`` checks."""
    if text is not None:
        text = _checked_text(store, text, allow_secret)
    allowed = allow_tags(allow)
    if tags is not None:  # the tags typed replace the tags typed before, never the entry's state
        from memcli.storage.store import is_state_tag

        tags = clean_tags(tags) + [t for t in located.entry.tags if is_state_tag(t)]
    if text is not None or tags is not None:  # (new tags alone: the text stays as it was allowed)
        not_a_personal_note(store, text or "", allowed, tags)
    return store.update(located.agent, located.entry.id, text, tags, allowed)


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


def agent_and_ids(store: Store, first: str, rest: list[str], command: str = "rm") -> tuple[str | None, list[str]]:
    """``AGENT ID...`` or ``ID...`` as a command line gives them: the agent (None: left out, the ids
    name it) and the ids."""
    if _names_an_id(store, first):
        return None, [first, *rest]
    if not rest:
        raise MemcliError(f"missing ID: `memcli {command} AGENT ID...` (see `memcli list {first}` for ids)")
    store.check(first)
    return first, list(rest)


def mark_done(store: Store, located: Located, text: str | None = None) -> list[str]:
    """Tick the entry's open tasks (those containing ``text``, if given); the lines ticked."""
    lines = located.entry.body.split("\n")
    ticked = []
    for n, line in enumerate(lines):
        if vault.P.open_task.match(line) and (text is None or text.lower() in line.lower()):
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
        while words and vault.P.hashtag.fullmatch(words[-1]):
            words.pop()
        if words:
            return " ".join(words)
    return ""


def find(
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
        for hit in hits:  # the few paths of the hits shown: one lstat each (none for personal memory: no repository)
            hit.stale = [] if store.layout.personal else missing(root, cited_paths(hit.body))
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


def _store_successor(
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
    body = _checked_text(store, text, allow_secret)
    allowed = allow_tags(allow)
    kept = [t for t in old.tags if not t.startswith((SUPERSEDES, "allow-"))]  # an allowance is for its text only
    new_tags = vault.merge_tags(kept, clean_tags(tags) + allowed)
    not_a_personal_note(store, body, allowed, new_tags)
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


# -- the memory a face works on -----------------------------------------------------------------


def open_store(layout: Layout) -> Store:
    """The store as a face that writes opens it: a listener keeps an existing search index current
    after writes (no index yet: the next search builds it), and the first write registers the
    merge driver."""
    store = Store(layout)
    store.listeners.append(_update_index)
    store.written = []  # kept for the listener that judges them
    store.listeners.append(_judge_written())
    store.before_first_write.append(register_merge_driver)
    return store


def open_personal() -> Store:
    """The developer's personal memory as a face opens it (``open_store``), outside every
    repository (``paths.personal_root``); refused in one line when memcli must not use it (a
    symlinked ``.memory``).  A write makes it first, after its checks: on taking the lock."""
    from memcli.storage.paths import personal_layout
    from memcli.upkeep import personal

    layout = personal_layout()
    personal.check(layout)
    store = open_store(layout)
    store.before_first_write.insert(0, _make_personal)
    return store


def _make_personal(store: Store) -> None:
    from memcli import output
    from memcli.upkeep import personal

    for line in personal.create(store.layout):
        output.echo(line, err=True)


def register_merge_driver(store: Store) -> None:
    """The first write in a git clone that lacks memcli's merge driver registers it (a fresh clone,
    a teammate's: git reads drivers only from config); never fails."""
    from memcli.git.repo import ensure_merge_driver

    ensure_merge_driver(store.layout.root, own=store.layout.personal)  # never the repository git's env names


def _update_index(store: Store, agent: str, category: str) -> None:
    from memcli.search.freshness import MANIFEST

    if (store.layout.index_dir / MANIFEST).exists():
        from memcli.search.index import SearchIndex

        SearchIndex(store).update_after_write(agent, category)


JUDGED_PER_STORE = 50  # entries a store's writes judge at most: a compaction or a migration leaves them to the blocks


def _judge_written() -> Callable[[Store, str, str], None]:
    """A store listener that writes down the content rules' verdicts on what memcli wrote
    (``trust.remember``): the write judged its text already (the rules are loaded and their
    patterns compiled in this process), and the next ``inject`` shows new entries first.  Judged
    there instead, a text not seen before cost a block 150-250 M instructions, 2.2-2.7x a warm one
    (loading the rules).  Each entry is judged once: ``store.written`` is emptied after."""
    judged = 0

    def judge(store: Store, agent: str, category: str) -> None:
        nonlocal judged
        written = store.written
        if not written:
            return
        judged += len(written)
        if judged > JUDGED_PER_STORE:  # a bulk write: no more kept, the blocks judge what they show
            store.written = None
            return
        from memcli.recall import trust

        trust.remember(store.layout, [(e.body, e.tags) for e in written])
        written.clear()

    return judge


def judge_checkpoint(store: Store, messages: list[dict[str, Any]]) -> None:
    """After a checkpoint: the verdicts on what it stored (extracted insights, the handoff; kept in
    ``store.written`` when the caller set it to a list and no listener judged them already) and on the last messages the next block
    may show of the session (its "Last Session" snapshot), judged by the write that already loaded
    the rules (``checkpoint``, the agents' session-end hooks)."""
    from memcli.recall import trust

    written = (store.written or [])[:JUDGED_PER_STORE]
    texts = [(e.body, e.tags) for e in written]
    texts += [(str(m.get("text", "")), []) for m in messages[-store.config.inject_snapshot_messages :]]
    trust.remember(store.layout, texts)


class Memory:
    """The memory one call of a face works on: the store (opened on first use, with index upkeep)
    and how the face names agents.  ``default_agent`` answers for a call that names none (the MCP
    server's ``--agent``); ``known_agents_only`` refuses a write to an agent that has no memory while
    others have some (a model that says "claude" where the hooks read "dev" would write memory no
    session ever gets; a person typing a new agent's name means it).  ``project_only``: the face
    serves a project's memory, never the developer's personal one (a model writing into memory
    that follows the developer into every repository is too much power for it): started in the
    personal memory's folder, it finds no memory to serve."""

    def __init__(
        self,
        dir_option: str | None = None,
        *,
        store: Store | None = None,
        default_agent: str | None = None,
        known_agents_only: bool = False,
        project_only: bool = False,
    ):
        self.dir_option, self._store = dir_option, store
        self.default_agent, self.known_agents_only = default_agent, known_agents_only
        self.project_only = project_only

    @property
    def personal(self) -> bool:
        """Whether this is the developer's personal memory (``--user``), not a project's."""
        return self.store.layout.personal

    @property
    def store(self) -> Store:
        if self._store is None:
            from memcli.errors import NotInitialized
            from memcli.storage.paths import find_layout

            layout = find_layout(self.dir_option)
            if layout.personal and self.project_only:
                raise NotInitialized(
                    f"{layout.root} is your personal memory, which only your own commands (--user) change;"
                    " this serves a project's memory: start it in a project"
                )
            self._store = open_store(layout)
        return self._store

    def agent(self, given: str | None, *, writing: bool = False) -> str:
        """The one agent resolver: the agent a call names, else the face's default; on a write, one
        with no memory while others have some is refused when the face asks for that."""
        from memcli.storage.paths import validate_agent

        chosen = given or self.default_agent
        if chosen is None:
            names = ", ".join(self.store.agents()) or "none yet"
            raise MemcliError(f"name the agent (known agents: {names})")
        validate_agent(chosen)
        if writing and self.known_agents_only:
            known = self.store.agents()
            if known and chosen not in known:
                mine = f" (this server's agent is {self.default_agent})" if self.default_agent else ""
                raise MemcliError(f"agent {chosen!r} has no memory here; known agents: {', '.join(known)}{mine}")
        return chosen

    def entry(self, agent: str | None, entry_id: str | int) -> Located:
        """The entry with this id: the named agent's (else the face's default agent's); with no agent
        at all, whichever agent holds it (an error if none or several do)."""
        number = parse_id(entry_id)
        chosen = agent or self.default_agent
        if chosen is None:
            return find_anywhere(self.store, number)
        self.store.check(chosen)
        return find_of(self.store, chosen, number)

    def entries(self, agent: str | None, ids: Sequence[str | int]) -> dict[str, list[Located]]:
        """The entries with these ids, by agent (an id given twice counts once); an error, before
        anything is done, if one is unknown."""
        if not ids:
            raise MemcliError("no ids given")
        groups: dict[str, list[Located]] = {}
        for value in dict.fromkeys(ids):
            located = self.entry(agent, value)
            if all(t.entry is not located.entry for t in groups.get(located.agent, [])):
                groups.setdefault(located.agent, []).append(located)
        return groups


# -- scopes: the project's memory and the developer's personal one (--user) ----------------------


def personal_exists() -> bool:
    """Whether there is a personal memory to look in (one ``stat``)."""
    from memcli.storage.paths import personal_layout

    return personal_layout().exists()


def scoped(dir_option: str | None, user: bool, project: bool, find: Callable[[Memory], T]) -> tuple[Memory, T]:
    """The memory that holds what ``find`` looks up (an entry by id), and what it found.  ``--user``:
    the personal memory; ``--project``: the project's; neither: the project's, else (no such id, or
    no project memory) the personal one; an id that both hold is refused, in one line, before
    anything is done."""
    from memcli.errors import NotFound, NotInitialized

    if user and project:
        raise MemcliError("--user and --project exclude each other; nothing done")
    if user:
        mine = Memory(store=open_personal())
        return mine, find(mine)
    mem = None
    try:
        mem = Memory(dir_option)
        found = find(mem)
    except (NotFound, NotInitialized) as exc:
        if project or not personal_exists() or (mem is not None and mem.personal):
            raise
        try:
            mine = Memory(store=open_personal())
            return mine, find(mine)
        except MemcliError:
            raise exc from None
    if not project and not mem.personal and personal_exists():
        try:
            find(Memory(store=open_personal()))
        except MemcliError:
            pass  # not there (or not usable): the project's it is
        else:
            raise MemcliError(
                "that id names an entry in this project's memory and one in your personal memory:"
                " add --project or --user; nothing done"
            )
    return mem, found


def scope_note(mem: Memory, message: str) -> str:
    """A write's message, each line marked when it was done in the personal memory."""
    if not mem.personal:
        return message
    return "\n".join(f"{line} (personal memory)" if line else line for line in message.split("\n"))


def scopes(dir_option: str | None, user: bool, project: bool, category: str | None) -> list[tuple[str, Memory]]:
    """The memories a read looks in, as (scope, ``Memory``): the project's ("project") and the
    personal one ("user", when there is one: one ``stat``), or the one asked for."""
    from memcli.errors import NotInitialized
    from memcli.storage.fsutil import warn
    from memcli.storage.paths import find_layout, personal_layout

    if user and project:
        raise MemcliError("--user and --project exclude each other")
    found = []
    mine = personal_layout()
    if not user:
        try:
            here = find_layout(dir_option)
        except NotInitialized:
            if project or not mine.exists():
                raise
        else:
            found.append(("user" if here.personal else "project", Memory(store=Store(here))))  # no index upkeep
            if here.personal:  # run in the personal memory's own folder: it is the one memory here
                return found
    if project:
        return found
    if not mine.exists():
        if user:
            raise MemcliError(
                f"no personal memory yet (it goes in {mine.root}): `memcli add --user AGENT CATEGORY TEXT` starts it"
            )
        return found
    from memcli.upkeep.personal import check

    try:
        check(mine)
        store = Store(mine)
        usable = user or category is None or category in store.categories  # (its config.toml is read here)
    except MemcliError as exc:  # a personal memory that cannot be read never hides the project's
        if user or not found:
            raise
        warn(f"{exc.message}; the project's memory only")
        return found
    if usable:  # a category of the project's own config
        found.append(("user", Memory(store=store)))
    return found


def entries_by_id(mem: Memory, agent: str, ids: Sequence[str] | None, command: str) -> tuple[str | None, list[str]]:
    """``[AGENT] ID...`` as the memory reads it: the agent (None: left out) and the ids, every one
    known (else NotFound, before anything is done)."""
    owner, wanted = agent_and_ids(mem.store, agent, list(ids or ()), command)
    mem.entries(owner, wanted)
    return owner, wanted


# -- results: what an operation did, as data and as one line ------------------------------------


class Result:
    """What an operation did.  ``message``: one line (or one a thing done) for a person; ``to_json``:
    the data; ``for_agents``: the text and data an agent is given (held memory named, never quoted)."""

    @property
    def message(self) -> str:
        raise NotImplementedError

    def to_json(self) -> Any:
        raise NotImplementedError

    def for_agents(self) -> tuple[str, dict[str, Any]]:
        """A write's answer to an agent: what was done, by id, without the texts of the entries it
        touched (the agent named them by id, and one may be memory held back from it)."""
        return self.agent_message, _without_texts(self.to_json())

    @property
    def agent_message(self) -> str:
        """``message`` as an agent is told it: no entry's text quoted."""
        return self.message

    shown: Located | None = None  # the entry a face shows after the operation (the new one, the one changed)

    @property
    def entry_id(self) -> int | None:
        return self.shown.entry.id if self.shown is not None else None


def _without_texts(data: Any) -> Any:
    """``data`` with every entry's text (``body``) left out."""
    if isinstance(data, dict):
        return {k: _without_texts(v) for k, v in data.items() if k != "body"}
    if isinstance(data, list):
        return [_without_texts(v) for v in data]
    return data


def where(located: Located) -> str:
    """``dev/decisions 1773679871839``: how every face names an entry."""
    return f"{located.agent}/{located.category} {located.entry.id}"


class Added(Result):
    def __init__(self, located: Located, duplicate: bool):
        self.located, self.duplicate, self.shown = located, duplicate, located

    @property
    def message(self) -> str:
        if self.duplicate:
            return f"already stored as {where(self.located)}; nothing added"
        return f"added {where(self.located)}"

    def to_json(self) -> dict[str, Any]:
        return {**located_json(self.located), "duplicate": self.duplicate}


class Edited(Result):
    def __init__(self, located: Located):
        self.located = self.shown = located

    @property
    def message(self) -> str:
        return f"updated {where(self.located)}"

    def to_json(self) -> dict[str, Any]:
        return located_json(self.located)


class Removed(Result):
    """The entries removed, each with how many others share its id and were left."""

    def __init__(self, rows: list[tuple[Located, int]]):
        self.rows = rows
        self.shown = rows[0][0] if rows else None

    @property
    def message(self) -> str:
        return self._lines(quote=True)

    @property
    def agent_message(self) -> str:
        return self._lines(quote=False)

    def _lines(self, quote: bool) -> str:
        """A line an entry; where others share its id, the one removed is told apart by its first
        words (for a person only: an agent is never quoted an entry's text)."""
        from memcli.output import plural

        lines = []
        for located, twins in self.rows:
            first = f'"{" ".join(located.entry.body.split())[:60]}"; ' if quote else ""
            note = f" ({first}{plural(twins, 'other entry', 'other entries')} with this id left)" if twins else ""
            lines.append(f"removed {where(located)}{note}")
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        return {"removed": [located_json(r) for r, _ in self.rows]}


class Ticked(Result):
    def __init__(self, located: Located, lines: list[str]):
        self.located, self.lines, self.shown = located, lines, located

    @property
    def message(self) -> str:
        return "\n".join(self.lines)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.located.entry.id, "agent": self.located.agent, "ticked": self.lines}

    def for_agents(self) -> tuple[str, dict[str, Any]]:
        from memcli.output import plural

        return f"ticked {plural(len(self.lines), 'task')} in {where(self.located)}", {
            "id": self.located.entry.id,
            "agent": self.located.agent,
        }


class Superseded(Result):
    def __init__(self, old: Located, new: Located):
        self.old, self.new, self.shown = old, new, new

    @property
    def message(self) -> str:
        return f"superseded {where(self.old)} by {self.new.entry.id}"

    def to_json(self) -> dict[str, Any]:
        return located_json(self.new)


class Flagged(Result):
    """archive, unarchive, pin, unpin: each entry as it is after, and whether it changed."""

    def __init__(self, verb: str, rows: list[tuple[Located, bool]]):
        self.verb, self.rows = verb, rows
        self.shown = rows[0][0] if rows else None

    @property
    def message(self) -> str:
        return "\n".join(
            f"{self.verb} {where(t)}" if changed else f"{where(t)} was {self.verb} already" for t, changed in self.rows
        )

    def to_json(self) -> dict[str, Any]:
        return {"entries": [{**located_json(t), "changed": changed} for t, changed in self.rows]}


class Trusted(Result):
    """What was trusted (``_project`` for the project text), and what was not, and why."""

    def __init__(self, entries: list[Located], project: bool, refused: list[str]):
        self.entries, self.project, self.refused = entries, project, refused
        self.shown = entries[0] if entries else None

    @property
    def message(self) -> str:
        lines = list(self.refused) + (["trusted _project"] if self.project else [])
        lines += [f"trusted {where(t)}" for t in self.entries]
        return "\n".join(lines) if self.entries or self.project else "\n".join([*self.refused, "nothing to trust"])

    def to_json(self) -> dict[str, Any]:
        rows = [{"agent": t.agent, "category": t.category, "id": t.entry.id} for t in self.entries]
        return {"trusted": rows, "project": self.project}


def located_json(located: Located, superseded_by: int | None = None) -> dict[str, Any]:
    return entry_json(located.agent, located.category, located.entry, superseded_by)


def withheld(row: dict[str, Any]) -> dict[str, Any]:
    """An entry held back from agents (``memcli review``) as an agent is given it: named, never
    quoted (its text could be a contributor's unreviewed words or a hijack)."""
    if not row.get("held"):
        return row
    from memcli.recall.trust import short

    held = short(row["held"])  # a commit's author and subject are the contributor's own words
    note = (
        f"[{held}. Its text is not shown to agents; the user can read it with"
        " `memcli review` and let it in with `memcli trust`.]"
    )
    row = {**row, "held": held, "body": note, "matches": [], "tags": []}
    if "snippet" in row:
        row["snippet"] = note
    return row


def entry_text(row: dict[str, Any]) -> str:
    """An entry as an agent reads it: a head line (id, agent/category, date, tags) and the text."""
    tags = " ".join("#" + t for t in row.get("tags") or [])
    head = f"{row['id']}  {row['agent']}/{row['category']}  {row['date']}" + (f"  {tags}" if tags else "")
    return f"{head}\n{row['body']}"


class Read(Result):
    """A result that shows entries: the same text and data for a person and, with held memory
    named and never quoted (``withheld``), for an agent."""

    def rows(self, for_agents: bool) -> Any:
        raise NotImplementedError

    def text(self, data: Any) -> str:
        raise NotImplementedError

    @property
    def message(self) -> str:
        return self.text(self.rows(False))

    def to_json(self) -> Any:
        return self.rows(False)

    def for_agents(self) -> tuple[str, dict[str, Any]]:
        data = self.rows(True)
        return self.text(data), data


class Found(Read):
    def __init__(self, hits: list[Hit], notice: str | None):
        self.hits, self.notice = hits, notice

    def rows(self, for_agents: bool) -> dict[str, Any]:
        rows = [h.to_json() for h in self.hits]
        return {"results": [withheld(r) for r in rows] if for_agents else rows}

    def text(self, data: dict[str, Any]) -> str:
        return "\n\n".join(entry_text(r) for r in data["results"]) or "no matches"


class Shown(Read):
    def __init__(self, located: Located, newest: int | None, twins: int, held: str | None):
        self.located, self.newest, self.twins, self.held = located, newest, twins, held

    def rows(self, for_agents: bool) -> dict[str, Any]:
        row = {**located_json(self.located, self.newest), "held": self.held}
        return withheld(row) if for_agents else row

    def text(self, data: dict[str, Any]) -> str:
        newest = f"\n\n(superseded: the newest version is {self.newest})" if self.newest is not None else ""
        return entry_text(data) + newest


class Listed(Read):
    def __init__(self, rows: list[Located], held: dict[int, str | None]):
        self.found, self.held = rows, held

    def rows(self, for_agents: bool) -> dict[str, Any]:
        rows = [{**located_json(r), "held": self.held.get(id(r))} for r in self.found]
        return {"entries": [withheld(r) for r in rows] if for_agents else rows}

    def text(self, data: dict[str, Any]) -> str:
        lines = [
            f"{r['id']}  {r['agent']}/{r['category']}  {r['date']}  {first_line(r['body'])[:100]}"
            for r in data["entries"]
        ]
        return "\n".join(lines) or "no entries"


class Injected(Result):
    def __init__(self, agent: str, task: str, selection: Any, used: int, notes: list[str], empty: str):
        self.agent, self.task, self.selection, self.used, self.notes, self.empty = (
            agent,
            task,
            selection,
            used,
            notes,
            empty,
        )

    @property
    def message(self) -> str:
        return self.selection.render() or self.empty

    def to_json(self) -> dict[str, Any]:
        data = self.selection.to_json(self.agent, self.task, self.used)
        data["notes"] = self.notes
        return data


class Status(Result):
    def __init__(self, report: dict[str, Any], default_agent: str | None, categories: list[str]):
        self.report, self.default_agent, self.categories = report, default_agent, categories

    @property
    def message(self) -> str:
        agents = self.to_json()["agents"]
        lines = [f"{name}: {a['entries']} entries, {a['open_tasks']} open tasks" for name, a in agents.items()]
        if self.default_agent:
            lines.append(f"this server's agent: {self.default_agent}")
        return "\n".join(lines) or "no memory yet"

    def to_json(self) -> dict[str, Any]:
        agents = {
            name: {"entries": a["entries"], "open_tasks": a["open_tasks"], "categories": a["categories"]}
            for name, a in self.report["agents"].items()
        }
        return {"agents": agents, "default_agent": self.default_agent, "categories": self.categories}


# -- the operations ---------------------------------------------------------------------------------


def _target(mem: Memory, agent: str | None, entry_id: str | int | Located) -> Located:
    """The entry an operation acts on; a face that has found it already (to open an editor on it)
    passes the ``Located``."""
    return entry_id if isinstance(entry_id, Located) else mem.entry(agent, entry_id)


def add(
    mem: Memory,
    agent: str | None,
    category: str,
    text: str,
    tags: list[str] | None = None,
    allow_secret: bool = False,
    allow: list[str] | None = None,
    imported: bool = False,
) -> Added:
    """A new entry; the same memory stored already (``extract.is_copy``) is not stored twice.
    ``imported``: an item of a source the person named (``memcli import``), which the caller
    compared with memory itself, under the lock (a search per item re-indexed the growing category
    every time); a personal note in it is the person's to share."""
    chosen = mem.agent(agent, writing=True)
    store = mem.store
    store.check(chosen, category)
    text = require_text(check_text(text))
    same = None if imported else existing_copy(store, chosen, category, text)
    if same is not None:
        return Added(same, duplicate=True)
    entry = _store_new(store, chosen, category, text, tags, allow_secret, allow, imported)
    return Added(Located(chosen, category, entry), duplicate=False)


def edit(
    mem: Memory,
    agent: str | None,
    entry_id: str | int | Located,
    text: str | None = None,
    tags: list[str] | None = None,
    allow_secret: bool = False,
    allow: list[str] | None = None,
) -> Edited:
    """New text (its #hashtags and ``tags`` become the tags), or new tags alone."""
    if text is None and tags is None:
        raise MemcliError("give the new text, or tags, or both")
    located = _target(mem, agent, entry_id)
    return Edited(_store_edit(mem.store, located, text, tags, allow_secret, allow))


def remove(mem: Memory, agent: str | None, ids: Sequence[str | int]) -> Removed:
    """Remove entries: all of them, or none if one is unknown."""
    groups = mem.entries(agent, ids)
    rows: list[tuple[Located, int]] = []
    for name, targets in groups.items():
        rows.extend(mem.store.remove(name, [t.entry.id for t in targets]))
    return Removed(rows)


def done(mem: Memory, agent: str | None, entry_id: str | int | Located, text: str | None = None) -> Ticked:
    """Tick a task entry's open tasks (only those holding ``text``, if given)."""
    located = _target(mem, agent, entry_id)
    return Ticked(located, mark_done(mem.store, located, text))


def supersede(
    mem: Memory,
    agent: str | None,
    entry_id: str | int | Located,
    text: str,
    tags: list[str] | None = None,
    allow_secret: bool = False,
    allow: list[str] | None = None,
) -> Superseded:
    located = _target(mem, agent, entry_id)
    new = _store_successor(mem.store, located, text, tags, allow_secret, allow)
    return Superseded(located, Located(located.agent, located.category, new))


def set_state(mem: Memory, agent: str | None, ids: Sequence[str | int], tag: str, on: bool) -> Flagged:
    """Give entries a state tag (archived, pinned) or take it away: all known, or nothing done."""
    done = set_flag(mem.store, mem.entries(agent, ids), tag, on)
    return Flagged(tag if on else f"un{tag}", done)


def archive(mem: Memory, agent: str | None, ids: Sequence[str | int]) -> Flagged:
    return set_state(mem, agent, ids, ARCHIVED_TAG, True)


def unarchive(mem: Memory, agent: str | None, ids: Sequence[str | int]) -> Flagged:
    return set_state(mem, agent, ids, ARCHIVED_TAG, False)


def pin(mem: Memory, agent: str | None, ids: Sequence[str | int]) -> Flagged:
    from memcli.storage.store import PINNED_TAG

    return set_state(mem, agent, ids, PINNED_TAG, True)


def unpin(mem: Memory, agent: str | None, ids: Sequence[str | int]) -> Flagged:
    from memcli.storage.store import PINNED_TAG

    return set_state(mem, agent, ids, PINNED_TAG, False)


def trust(
    mem: Memory,
    agent: str | None = None,
    ids: Sequence[str | int] | None = None,
    *,
    project: bool = False,
    branches: list[str] | None = None,
    everything: bool = False,
) -> Trusted:
    """Let held-back memory steer agents again: entries by id, the project text, what branches
    bring (an entry that also holds lines of another branch only when that branch is named too),
    or everything held back now."""
    from memcli.recall import trust as trusting

    store = mem.store
    if sum(bool(x) for x in (ids, project, branches, everything)) != 1:
        raise MemcliError("say what to trust: ID…, --branch REF or --all (one of them)")
    targets: list[Located] = []
    refused: list[str] = []
    if ids:
        for group in mem.entries(agent, list(ids)).values():
            targets.extend(group)
    elif not project:
        items = [i for i in trusting.review(store) if i.kind != "allowed"]
        if branches:
            from memcli.git.provenance import branch_commits

            commits: set[str] = set()
            for ref in branches:
                brought = branch_commits(store.layout, ref)
                if brought is None:
                    raise MemcliError(f"unknown branch or ref {ref!r}, or not a git repository")
                commits |= brought
            mixed = [i for i in items if i.hold is not None and set(i.hold.commits) & commits]
            # all that holds it back must come from the branches named: a file two branches wrote
            # is trusted only when each branch has been trusted
            items = [i for i in items if i.hold is not None and set(i.hold.commits) <= commits]
            refused = [
                f"not trusted: {i.path} also holds lines of other branches (name them too)"
                for i in mixed
                if i not in items
            ]
        for item in items:
            if item.id is None:
                project = True
            else:
                targets.append(store.find(item.agent, item.id))
    if project:
        trusting.trust_project(store)
    trusting.trust_entries(store, targets)
    return Trusted(targets, project, refused)


def search(
    mem: Memory,
    query: str,
    agent: str | None = None,
    category: str | None = None,
    limit: int | None = None,
    archived: bool = False,
    explain: bool = False,
) -> Found:
    """The best matches, each marked stale, superseded or held where it is."""
    return Found(*find(mem.store, query, agent, category, limit, archived, explain))


def show(mem: Memory, agent: str | None, entry_id: str | int | Located) -> Shown:
    """One entry, with its newest version if a newer one replaces it, how many others share its id
    and why it is held back (if it is); a use of the entry (``storage.usage``)."""
    from memcli.storage import usage

    store = mem.store
    located = _target(mem, agent, entry_id)
    usage.record(store.layout, located.agent, [located.entry.id])
    return Shown(located, newest_version(store, located), twins(store, located), held_of(store, located))


def list_entries(
    mem: Memory,
    agent: str | None = None,
    category: str | None = None,
    limit: int | None = None,
    tag: str | None = None,
    archived: bool = False,
) -> Listed:
    rows = entries(mem.store, agent, category, tag, limit, archived)
    return Listed(rows, held(mem.store, rows))


def inject(mem: Memory, agent: str | None = None, task: str | None = None, budget: int | None = None) -> Injected:
    """The memory block for an agent and a task, within the token budget."""
    from memcli.recall import block

    from memcli.errors import NotInitialized

    chosen = mem.agent(agent)
    notes: list[str] = []
    try:
        layout = mem.store.layout
        known = chosen in mem.store.agents()
    except NotInitialized:  # no project memory here: the developer's personal memory alone, as `memcli inject` gives
        from memcli.storage.paths import find_layout, personal_layout

        if not personal_layout().exists():
            raise
        layout, known = find_layout(mem.dir_option, must_exist=False), True
    selection, used = block.build(layout, chosen, task or "", budget, False, notes.append)
    empty = f"(no memory yet for {chosen})" if not known else "(nothing fits in the budget)"
    return Injected(chosen, task or "", selection, used, notes, empty)


def status(mem: Memory, agent: str | None = None) -> Status:
    """The agents with memory here, their entries per category and open tasks, and the categories."""
    from memcli.upkeep.status import vault_status

    report = vault_status(mem.store, agent)
    return Status(report, mem.default_agent, list(mem.store.categories))


# -- the table the faces are built over ---------------------------------------------------------


class Input:
    """An operation's input as a face built from the table offers it.  ``kind``: "text" (a string,
    not empty), "string", "number" (an int in ``low``..``high``), "id" (an entry id), "ids" (one or
    more), "words" (a list of strings), "agent", "category" (one of the memory's categories).  The
    command line declares its own (``cli.spec``), with what only a terminal has ('-' for stdin,
    $EDITOR, ``AGENT ID`` or ``ID``)."""

    def __init__(
        self,
        name: str,
        kind: str,
        help: str,
        *,
        required: bool = False,
        low: int = 0,
        high: int = 0,
        default: Any = None,
        arg: str | None = None,
    ):
        """``arg``: the operation's keyword, where it is not ``name``; ``default``: what a face passes
        when the input is not given (None: the operation's own default)."""
        self.name, self.kind, self.help, self.required, self.low, self.high = name, kind, help, required, low, high
        self.default, self.arg = default, arg or name


class Operation:
    """One row of the table.  ``run(mem, **inputs)`` is the operation; ``tool``: the MCP tool's name
    (None: not offered to agents, and ``no_tool`` says why); ``page``: the page offers it."""

    def __init__(
        self,
        name: str,
        run: Callable[..., Result],
        help: str,
        inputs: tuple[Input, ...],
        *,
        writes: bool,
        destructive: bool = False,
        tool: str | None = None,
        no_tool: str = "",
        page: bool = False,
    ):
        self.name, self.run, self.help, self.inputs = name, run, help, inputs
        self.writes, self.destructive, self.tool, self.no_tool, self.page = writes, destructive, tool, no_tool, page


AGENT = Input("agent", "agent", "Agent id, e.g. dev (lower-case letters, digits, '.', '_', '-').")
ONLY_AGENT = Input("agent", "string", "Only this agent's entries.")
ONLY_CATEGORY = Input("category", "category", "Only this category.")
ENTRY_ID = Input("id", "id", "The entry's id (from search or list).", required=True, arg="entry_id")
IDS = Input("ids", "ids", "The ids of the entries.", required=True)


def _state(name: str, help: str) -> Operation:
    return Operation(name, globals()[name], help, (IDS, AGENT), writes=True, tool=name, page=True)


OPERATIONS: dict[str, Operation] = {
    op.name: op
    for op in (
        Operation(
            "search",
            search,
            "Search the memory (BM25, typo-tolerant): the best matching entries, best first.",
            (
                Input("query", "text", "Words to search for (any text).", required=True),
                ONLY_AGENT,
                ONLY_CATEGORY,
                Input("limit", "number", "At most this many results.", low=1, high=1000),
            ),
            writes=False,
            tool="search",
        ),
        Operation(
            "add",
            add,
            'Add an entry when a decision is made, a lesson learned, work is left open (tasks as "- [ ] ...") or a'
            " session ends (handoffs). Returns the new entry with its id. Secrets are refused.",
            (
                Input("category", "category", "What kind of memory it is.", required=True),
                Input("text", "text", "The entry: one fact, a line or two; #hashtags become tags.", required=True),
                Input("tags", "words", "More tags, one word each."),
                AGENT,
            ),
            writes=True,
            tool="add",
            page=True,
        ),
        Operation(
            "show",
            show,
            "One entry in full: its text, tags, category and date.",
            (ENTRY_ID, AGENT),
            writes=False,
            tool="show",
        ),
        Operation(
            "list",
            list_entries,
            "Entries, newest first.",
            (
                ONLY_AGENT,
                ONLY_CATEGORY,
                Input("limit", "number", "At most this many entries [default: 20].", low=1, high=1000, default=20),
            ),
            writes=False,
            tool="list",
        ),
        Operation(
            "inject",
            inject,
            "The memory block for an agent and a task: project, last session, relevant decisions and lessons, open"
            " tasks, within the token budget.",
            (
                AGENT,
                Input("task", "string", "What the agent is asked to do: picks the relevant decisions and lessons."),
                Input("budget", "number", "Token budget [default: 2000].", low=1, high=100_000),
            ),
            writes=False,
            tool="inject",
        ),
        Operation(
            "edit",
            edit,
            "Correct a memory that became wrong or incomplete: new text, new tags, or both. Returns the entry.",
            (
                ENTRY_ID,
                Input("text", "text", "The new text (its #hashtags become tags)."),
                Input("tags", "words", "Tags: with new text, added to its #hashtags; alone, they replace them."),
                AGENT,
            ),
            writes=True,
            tool="edit",
            page=True,
        ),
        Operation(
            "rm",
            remove,
            "Remove memories that are no longer worth keeping (wrong, outdated, duplicated): all of the ids, or none"
            " if one is unknown. Returns what was removed.",
            (Input("ids", "ids", "The ids of the entries to remove.", required=True), AGENT),
            writes=True,
            destructive=True,
            tool="remove",
            page=True,
        ),
        Operation(
            "done",
            done,
            'Mark a finished task done: the entry\'s open tasks ("- [ ]", or only those containing text) become'
            ' "- [x]" and leave the memory block. Returns the lines ticked.',
            (
                Input(
                    "id", "id", "The task entry's id (from list with category tasks).", required=True, arg="entry_id"
                ),
                Input("text", "string", "Only the open tasks that contain this text."),
                AGENT,
            ),
            writes=True,
            tool="done",
            page=True,
        ),
        _state(
            "archive",
            "Archive memories that were true once (a reversed decision, a lesson about code that is gone): they"
            " leave the memory block, list and search, and stay in git. Returns the entries.",
        ),
        _state(
            "unarchive",
            "Bring archived memories back into the memory block, list and search (they became true again)."
            " Returns the entries.",
        ),
        _state(
            "pin",
            "Pin the few standing rules every session must see: they head the memory block whatever the task."
            " Returns the entries.",
        ),
        _state("unpin", "Unpin entries: they are injected again only when relevant to the task. Returns the entries."),
        Operation(
            "supersede",
            supersede,
            "Replace a memory that changed (a decision reversed, a lesson corrected) with its new version: the old"
            " one is kept for the record and leaves the memory block, list and search. Returns the new entry.",
            (ENTRY_ID, Input("text", "text", "The new version of the memory.", required=True), AGENT),
            writes=True,
            tool="supersede",
            page=True,
        ),
        Operation(
            "status",
            status,
            "The agents that have memory here, with their entries per category and open tasks, and the categories"
            " an entry may have. Use it to find the agent to read and write.",
            (ONLY_AGENT,),
            writes=False,
            tool="status",
        ),
        Operation(
            "trust",
            trust,
            "Let held-back memory steer agents again.",
            (IDS, AGENT),
            writes=True,
            no_tool="trust is the reader's decision: an agent must never let in memory that is held back from it"
            " (it may be the very text that hijacked it)",
            page=True,
        ),
    )
}

# The commands that are not operations on memory entries, and why none of them has an MCP tool.
NOT_OPERATIONS = {
    "init": "sets a repository up (files, git hooks, the merge driver): done once, by a person",
    "checkpoint": "the wrapper and the agents' hooks save sessions from the agent's own transcript",
    "recover": "restores a terminal session's conversation; an agent has its own",
    "compact": "folds and archives memory for the team: run by the git hook and by people, after review",
    "migrate": "moves a whole AITEAM-X memory in: done once, by a person",
    "import": "moves the instruction files and memory folders of other agents in: a person's choice of files,"
    " done once (an agent adds what it learns with add)",
    "export": "writes memory into an instruction file of the repository (AGENTS.md ...): a person's decision,"
    " kept current by the pre-commit hook",
    "resolve": "settles a git merge conflict in memory files: part of a person's merge",
    "review": "shows held-back text, which is never shown to agents",
    "audit": "checks memory changed between two refs, for CI and pre-commit",
    "setup": "wires agents' hooks and MCP servers into their configuration: a person's decision",
    "mcp": "serves the operations to agents: the MCP face itself",
    "ui": "serves the operations to a person in a browser: the page itself",
}

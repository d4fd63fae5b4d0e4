"""What the memory page shows and does, as plain data: every read and write goes through the same
core as the CLI (``memcli.api``, ``recall.block``, ``upkeep.status``), so the page validates,
refuses secrets and locks exactly as the commands do.  ``memcli.ui.server`` only carries it."""

from __future__ import annotations

import os
import time

from memcli import api
from memcli.errors import MemcliError
from memcli.storage import vault
from memcli.storage.store import Located, Store, read_vault_file

TYPE_CHECKING = False  # names for annotations only
if TYPE_CHECKING:
    from typing import Any

PAGE = 20  # entries a page: the newest 20 come from the summary cache, whatever the memory holds
MAX_PAGE = 200


def _int(value: Any, name: str, low: int, high: int, default: int) -> int:
    if value in (None, ""):
        return default
    try:
        n = int(value)
    except (TypeError, ValueError):
        raise MemcliError(f"{name} must be a number, not {value!r}") from None
    if not low <= n <= high:
        raise MemcliError(f"{name} must be between {low} and {high}")
    return n


def _text(value: Any, name: str) -> str:
    if not isinstance(value, str):
        raise MemcliError(f"{name} must be text")
    return value


def _opt(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def overview(store: Store) -> dict[str, Any]:
    """What `memcli status` says, and the categories the page offers."""
    from memcli.upkeep.status import full_status

    report = full_status(store)
    for info in report["agents"].values():
        for row in info["categories"].values():
            row["shown"] = row["entries"] - row.get("hidden", 0)
    report["categories"] = list(store.categories)
    return report


def _shown(store: Store, agent: str | None, category: str | None) -> int:
    """How many entries `list` shows for an agent and a category (None: all), from the summary cache."""
    from memcli.search.summary import Summaries

    summaries = Summaries(store)
    total = 0
    for a in [agent] if agent else store.agents():
        for c in [category] if category else store.categories:
            try:
                info = summaries.get(a, c)
            except MemcliError:  # an unreadable file: api.entries has said so
                continue
            total += info["entries"] - info["hidden"]
    summaries.save()
    return total


def entry_row(store: Store, located: Located, newer: int | None = None, held: str | None = None) -> dict[str, Any]:
    from memcli.storage.citations import cited_paths, missing

    row = api.entry_json(located.agent, located.category, located.entry, newer)
    row["held"] = held  # why it is held back from agents (see `memcli review`), or None
    row["stale"] = missing(str(store.layout.root), cited_paths(located.entry.body))
    row["title"] = api.first_line(located.entry.body)
    return row


def page(store: Store, params: dict[str, str]) -> dict[str, Any]:
    """One page of entries, newest first: an agent's, a category's, a tag's (archived and replaced
    versions too with ``hidden``)."""
    agent, category, tag = _opt(params.get("agent")), _opt(params.get("category")), _opt(params.get("tag"))
    offset = _int(params.get("offset"), "offset", 0, 10_000_000, 0)
    limit = _int(params.get("limit"), "limit", 1, MAX_PAGE, PAGE)
    hidden = params.get("hidden") in ("1", "true")
    from memcli.search.summary import HEAD

    if not tag and not hidden and offset + limit <= HEAD:  # the newest: from the summary cache
        rows = api.entries(store, agent, category, None, offset + limit)
        more = _shown(store, agent, category) > offset + limit
    else:  # deeper pages, a tag, hidden versions: every file of the scope is read
        rows = api.entries(store, agent, category, tag, None, hidden)
        more = len(rows) > offset + limit
    chosen = rows[offset : offset + limit]
    heads: dict[tuple[str, str], dict[int, int]] = {}
    if hidden:
        for key in {(r.agent, r.category) for r in chosen}:
            heads[key] = api.versions(store, *key)
    held = api.held(store, chosen)
    return {
        "entries": [
            entry_row(store, r, heads.get((r.agent, r.category), {}).get(r.entry.id), held[id(r)]) for r in chosen
        ],
        "offset": offset,
        "more": more,
    }


def _entry_file(store: Store, agent: str, category: str, entry_id: int) -> str | None:
    """The file that holds an entry (its own file, or a legacy category file), relative to the root."""
    folder = store.layout.category_dir(agent, category)
    try:
        names = sorted(n for n in os.listdir(folder) if n.startswith(str(entry_id)) and n.endswith(".md"))
    except OSError:
        names = []
    for name in names:
        stem = name[: -len(".md")]
        if stem == str(entry_id) or stem.startswith(f"{entry_id}-"):
            return os.path.relpath(folder / name, store.layout.root)
    legacy = store.layout.category_file(agent, category)
    try:  # read as every vault file is: never through a symlink that leads outside .memory/
        if any(e.id == entry_id for e in read_vault_file(legacy, store.layout.memory)):
            return os.path.relpath(legacy, store.layout.root)
    except MemcliError:
        pass
    return None


def entry(store: Store, params: dict[str, str]) -> dict[str, Any]:
    """One entry whole: its versions (what it replaced, what replaces it) and its git history."""
    from memcli.git import repo
    from memcli.storage.store import predecessors

    agent = _text(params.get("agent"), "agent")
    located = api.find_of(store, agent, api.parse_id(_text(params.get("id"), "id")))
    newer = api.newest_version(store, located)
    row = entry_row(store, located, newer, api.held_of(store, located))
    row["replaces"] = predecessors(located.entry.tags)
    path = _entry_file(store, located.agent, located.category, located.entry.id)
    row["file"] = path
    row["history"] = repo.file_log(store.layout.root, store.layout.root / path) if path else []
    return row


def search(store: Store, params: dict[str, str]) -> dict[str, Any]:
    """``memcli search``'s ranking, a tag filter, and each snippet as (text, marked) pieces."""
    query = _text(params.get("q", ""), "q")
    agent, category, tag = _opt(params.get("agent")), _opt(params.get("category")), _opt(params.get("tag"))
    limit = _int(params.get("limit"), "limit", 1, MAX_PAGE, 20)
    if not query.strip():
        return {"hits": [], "notice": None}
    found = api.search(api.Memory(store=store), query, agent, category, MAX_PAGE if tag else limit)
    hits, notice = found.hits, found.notice
    if tag:
        wanted = tag.lstrip("#").lower()
        hits = [h for h in hits if wanted in {t.lower() for t in h.tags}][:limit]
    out = []
    for h in hits:
        row = h.to_json()
        row["pieces"] = _pieces(h.snippet)
        row["title"] = api.first_line(h.body)
        out.append(row)
    return {"hits": out, "notice": notice}


def review(store: Store, params: dict[str, str]) -> dict[str, Any]:
    """What `memcli review` lists: held-back memory, and entries whose writer allowed a rule."""
    from memcli.recall import trust

    return {"items": [item.to_json() for item in trust.review(store, _opt(params.get("agent")))]}


def _pieces(snippet: str) -> list[list[Any]]:
    """A snippet whose matches are marked ``\\x00...\\x01`` as [text, marked] pieces."""
    out: list[list[Any]] = []
    for n, part in enumerate(snippet.split("\x00")):
        marked, _, rest = part.partition("\x01") if n else ("", "", part)
        if marked:
            out.append([marked, True])
        if rest:
            out.append([rest, False])
    return out


def preview(store: Store, params: dict[str, str]) -> dict[str, Any]:
    """The block ``memcli inject AGENT TASK --budget N`` prints, what each section costs, and the
    ``--explain`` account."""
    from memcli.recall import block

    agent = _text(params.get("agent"), "agent")
    task = _text(params.get("task", ""), "task")
    budget = _int(params.get("budget"), "budget", 1, 10_000_000, store.config.inject_budget)
    warnings: list[str] = []
    # a preview is not a use: it leaves compaction's record of what agents were shown as it is
    sel, budget = block.build(store.layout, agent, task, budget, False, warnings.append, True, record_use=False)
    text = sel.render()
    return {
        "block": text,
        "tokens": block.tokens(text),
        "budget": budget,
        "costs": sel.costs(),
        "explain": block.explain_lines(sel, budget, text),
        "warnings": warnings,
    }


def timeline(store: Store) -> dict[str, Any]:
    """Entries made per month (an id is its creation time in ms), by category and by agent, and
    what compaction last did."""
    from memcli.upkeep import compact_log

    by_category: dict[str, dict[str, int]] = {}
    by_agent: dict[str, dict[str, int]] = {}
    for a in store.agents():
        for c in store.categories:
            for entry_id in _ids(store, a, c):
                month = time.strftime("%Y-%m", time.gmtime(entry_id / 1000)) if entry_id > 10**11 else "undated"
                by_category.setdefault(month, {}).setdefault(c, 0)
                by_category[month][c] += 1
                by_agent.setdefault(month, {}).setdefault(a, 0)
                by_agent[month][a] += 1
    months = sorted(by_category)
    return {
        "months": months,
        "by_category": by_category,
        "by_agent": by_agent,
        "last_compaction": compact_log.last_run(store),
    }


def _ids(store: Store, agent: str, category: str) -> list[int]:
    """The ids of a category, from its entry files' names (no file read); a legacy category file is read."""
    ids = []
    folder = store.layout.category_dir(agent, category)
    try:
        names = os.listdir(folder)
    except OSError:
        names = []
    for name in names:
        head = name.split("-", 1)[0].removesuffix(".md")
        if name.endswith(".md") and vault.is_id(head):
            ids.append(int(head))
    if store.layout.category_file(agent, category).is_file():
        try:
            ids.extend(e.id for e in store.read(agent, category) if e.id is not None)
        except MemcliError:
            pass
        ids = list(set(ids))
    return ids


# -- writes: the operations of `memcli.api.OPERATIONS` that the page offers --------------------


def write(store: Store, action: str, body: dict[str, Any]) -> dict[str, Any]:
    """One operation on one entry (the page acts on the entry it shows): its inputs read from the
    request's JSON (``agent``, ``id``, ``category``, ``text``, ``tags``, ``project``), the entry to
    show next and the operation's message."""
    op = api.OPERATIONS.get(action)
    if op is None or not op.page:
        raise MemcliError(f"unknown action {action!r}")
    inputs: dict[str, Any] = {}
    if action == "trust" and body.get("project") is True:
        inputs["project"] = True
    else:
        for i in op.inputs:
            if i.kind == "ids":
                inputs[i.arg] = [api.parse_id(body.get("id", ""))]
            elif i.kind == "id":
                inputs[i.arg] = api.parse_id(body.get("id", ""))
            elif i.kind == "words":
                inputs[i.arg] = _tags(body) if i.name in body else None  # none given: edit keeps the tags
            elif body.get(i.name) is not None or i.required or i.kind in ("agent", "category"):  # the page names both
                inputs[i.arg] = _text(body.get(i.name), i.name)
    done = op.run(api.Memory(store=store), **inputs)
    return {"id": done.entry_id, "message": done.message}


def _tags(body: dict[str, Any]) -> list[str]:
    tags = body.get("tags") or []
    if isinstance(tags, str):
        tags = tags.replace(",", " ").split()
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise MemcliError("tags must be a list of words")
    return tags

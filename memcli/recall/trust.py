"""What may steer an agent: the one verdict every face asks (the block, the agent hooks, the MCP
server, search, list, show, status, review and the page).

An entry is *held back* from every block, and marked wherever it is shown, when

- its content is unreviewed (``memcli.git.provenance``: brought by a commit made elsewhere that is
  not on the trusted branch), or
- its text holds invisible or direction-control characters, or a hijack pattern
  (``memcli.storage.guard``) that its tags do not allow (``allow-RULE``, which ``add --allow RULE``
  writes),

unless the reader trusted that very content (``memcli trust``).  A trusted entry that holds
invisible characters is shown with them made visible; no block ever holds one.
"""

from __future__ import annotations

from memcli.git.provenance import NOTHING, Hold, Provenance, provenance
from memcli.storage.paths import Layout, may_be_agent

__all__ = ["NOTHING", "Provenance", "provenance", "flagged", "verdict", "project_verdict", "LEFT_OUT"]

LEFT_OUT = "{n} {memories} from unreviewed or flagged changes left out: `memcli review`"


class Verdicts:
    """The content rules' verdicts on texts seen before, kept between runs: ``inject`` judges every
    open task and handoff it may show on every prompt, and the first scan of a text in a process
    compiles the patterns it needs (tens of ms); a text's verdict is the same every time.  Kept
    beside the provenance cache (in git's folder: a branch cannot ship a verdict), keyed by the
    SHA-1 of the text and its tags and by the guard module's version.  Outside git the file can only
    be in the cache folder (``.memory/.vault/``), which an archive of someone else's folder may
    carry: the version holds the identity (device, inode) of the folder it is kept in, which a copy
    unpacked anywhere else does not have."""

    LIMIT = 50_000  # verdicts kept; past it the file starts again (a cache)

    def __init__(self, layout: Layout):
        import json
        import os

        from memcli.git.provenance import state_file

        self.path = state_file(layout, "verdicts.json")
        # The rules' version without importing them (a verdict from other rules is judged again):
        # the guard modules' and this one's sizes and change times.
        storage = os.path.join(os.path.dirname(os.path.dirname(__file__)), "storage")
        try:
            stats = [os.stat(os.path.join(storage, name)) for name in ("guard.py", "guard_prose.py")]
            stats.append(os.stat(__file__))  # _judge, here, is part of the rules too
            self.rules = ":".join(f"{st.st_size}:{st.st_mtime_ns}" for st in stats)
        except OSError:
            self.rules = "?"
        self.version = self._sealed()
        self.new: dict[str, str] = {}
        try:
            with open(self.path, "rb") as handle:
                data = json.loads(handle.read())
            ok = isinstance(data, dict) and data.get("v") == self.version and isinstance(data.get("seen"), dict)
            seen = data["seen"] if ok else {}
            self.seen: dict[str, str] = {k: v for k, v in seen.items() if isinstance(v, str)}
        except (OSError, ValueError):
            self.seen = {}

    def _sealed(self) -> str:
        import os

        try:
            st = os.stat(os.path.dirname(self.path))
        except OSError:
            return f"{self.rules}/-"
        return f"{self.rules}/{st.st_dev}:{st.st_ino}"

    def get(self, body: str, tags: list[str]) -> str | None:
        from memcli.search.freshness import sha1  # hashlib's (the same digest) imports OpenSSL: 3 ms

        key = sha1(f"{' '.join(tags)}\0{body}".encode("utf-8", "surrogatepass"))[:32]
        found = self.seen.get(key)
        if found is None:
            found = self.new[key] = self.seen[key] = _judge(body, tags) or ""
        return found or None

    def save(self) -> None:
        if not self.new:
            return
        import _thread
        import contextlib
        import json
        import os

        seen = self.seen if len(self.seen) <= self.LIMIT else self.new
        folder = os.path.dirname(self.path)
        # A temporary name of this process and thread, made new (O_EXCL: never a file or link
        # already there), not tempfile's: importing tempfile (shutil, random, bz2, lzma) cost
        # 16 M instructions of each search or inject that met a text not judged before.
        tmp = f"{folder}/.verdicts.{os.getpid()}-{_thread.get_ident()}.tmp"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        try:
            os.makedirs(folder, exist_ok=True)
            self.version = self._sealed()  # (the folder may be new)
            try:
                fd = os.open(tmp, flags, 0o600)
            except FileExistsError:  # left by a killed process of the same pid: its name only
                os.unlink(tmp)
                fd = os.open(tmp, flags, 0o600)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as handle:
                    handle.write(json.dumps({"v": self.version, "seen": seen}))
                os.replace(tmp, self.path)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                raise
        except OSError:
            pass
        self.new = {}


def remember(layout: Layout, texts: list[tuple[str, list[str]]]) -> None:
    """Judge these (text, tags) now and write the verdicts down, for the blocks to come: a write or
    a git hook that has the rules loaded spares the next block loading them (2-6x its time)."""
    if not texts:
        return
    memo = Verdicts(layout)
    for body, tags in texts:
        memo.get(body, tags)
    memo.save()


def flagged(body: str, tags: list[str], memo: Verdicts | None = None) -> str | None:
    """The first content rule ``body`` breaks that its tags do not allow, as a reason; else None."""
    return memo.get(body, tags) if memo is not None else _judge(body, tags)


def _judge(body: str, tags: list[str]) -> str | None:
    from memcli.storage import guard

    for tag in tags:  # a tag is printed beside the text: it may hide nothing either
        if guard.invisible(tag):
            return f"flagged: {guard.RULES['invisible']} (invisible) in a tag"
    findings = guard.scan(body)
    if not findings:
        return None
    allowed = guard.allowed_rules(tags)
    for f in findings:
        if f.rule not in allowed:
            return f"flagged: {guard.RULES.get(f.rule, f.rule)} ({f.rule})"  # no excerpt: it may be read by an agent
    return None


def verdict(
    prov: Provenance,
    agent: str,
    category: str,
    entry_id: int,
    date: str,
    tags: list[str],
    body: str,
    memo: Verdicts | None = None,
) -> str | None:
    """Why this entry may not steer an agent (one line), or None when it may."""
    hold = prov.held(agent, category, entry_id)
    if hold is not None:
        return hold.reason()
    reason = flagged(body, tags, memo)
    if reason and prov.is_trusted(agent, category, entry_id, date, tags, body):
        return None
    return reason


def short(reason: str) -> str:
    """A mark for a list: ``held back: unreviewed`` or ``held back: flagged remote-code``."""
    if reason.startswith("unreviewed"):
        return "held back: unreviewed"
    rule = reason.rsplit("(", 1)[1].rstrip(")") if reason.endswith(")") else "flagged"
    return f"held back: flagged {rule}"


def project_verdict(prov: Provenance, text: str, memo: Verdicts | None = None) -> str | None:
    """Why the project text may not head a block, or None."""
    from memcli.git.provenance import project_digest

    if prov.project is not None:
        return prov.project.reason()
    reason = flagged(text, [], memo)
    if reason and prov.trusted and project_digest(text) in prov.trusted:
        return None
    return reason


# ------------------------------------------------------------------------------------- review


class Held:
    """An entry (or the project text) that may not steer an agent, or one its writer allowed."""

    __slots__ = ("agent", "category", "id", "kind", "reason", "text", "path", "hold", "tags", "date")

    def __init__(self, agent: str, category: str, entry_id: int | None, kind: str, reason: str, text: str, path: str):
        self.agent, self.category, self.id, self.kind = agent, category, entry_id, kind
        self.reason, self.text, self.path = reason, text, path
        self.hold: Hold | None = None
        self.tags: list[str] = []
        self.date = ""

    def to_json(self) -> dict:
        from memcli.storage import guard

        data: dict = {
            "agent": self.agent,
            "category": self.category,
            "id": self.id,
            "kind": self.kind,  # "unreviewed", "flagged" or "allowed"
            "reason": self.reason,
            "path": self.path,
            "date": self.date,
            "tags": self.tags,
            "text": guard.make_visible(self.text),
            "commit": None,
        }
        if self.hold is not None:
            h = self.hold
            data["commit"] = {"id": h.commit, "author": h.author, "date": h.date, "ref": h.ref, "subject": h.subject}
        return data


def review(store, agent: str | None = None) -> list[Held]:
    """Every entry that is held back (unreviewed or flagged), and every one whose writer allowed a
    content rule (``allow-RULE``), newest first; the project text first when it is held."""
    from memcli.storage import guard
    from memcli.storage.paths import PROJECT_FILE

    prov = provenance(store.layout)
    out: list[Held] = []
    project = store.read_project()
    why = project_verdict(prov, project) if project.strip() else None
    if why:
        item = Held("_project", "", None, "unreviewed" if prov.project else "flagged", why, project, PROJECT_FILE)
        item.hold = prov.project
        out.append(item)
    found: list[Held] = []
    for loc in store.iter_entries(agent):
        e = loc.entry
        hold = prov.held(loc.agent, loc.category, e.id)
        reason = verdict(prov, loc.agent, loc.category, e.id, e.header_date, e.tags, e.body)
        kind = "unreviewed" if hold else "flagged" if reason else ""
        if not reason:
            allowed = guard.allowed_rules(e.tags)
            rules = {f.rule for f in guard.scan(e.body)} & allowed
            if not rules:
                continue
            kind, reason = "allowed", "allowed by its writer: " + ", ".join(f"#allow-{r}" for r in sorted(rules))
        elif hold:
            also = flagged(e.body, e.tags)
            if also:
                reason += f"; also {also}"
        item = Held(loc.agent, loc.category, e.id, kind, reason, e.body, e.source or "")
        item.hold, item.tags, item.date = hold, e.tags, e.header_date
        found.append(item)
    found.sort(key=lambda h: (h.kind == "allowed", -(h.id or 0)))
    return out + found


def trust_entries(store, targets: list) -> list:
    """Trust these entries (``Located``) as they are now: they may steer agents until they change."""
    from memcli.git.provenance import digest_of, trust

    trust(
        store.layout,
        [(digest_of(t.agent, t.category, t.entry), f"{t.agent}/{t.category}/{t.entry.id}") for t in targets],
    )
    return targets


def trust_project(store) -> None:
    from memcli.git.provenance import project_digest, trust

    trust(store.layout, [(project_digest(store.read_project()), "_project")])


# -------------------------------------------------------------------------------------- audit


def _memory_files(text_files: list[str]) -> list[str]:
    """The files of a memory tree whose text reaches a block: entries and the project text."""
    out = []
    for rel in text_files:
        parts = rel.split("/")
        if rel == "_project.md" or (len(parts) in (2, 3) and parts[-1].endswith(".md") and may_be_agent(parts[0])):
            out.append(rel)
    return out


def audit(layout: Layout, refs: list[str], files: list[str] | None = None) -> dict:
    """The content rules over memory: all of it (no ``refs``), what changed since ``refs[0]`` (in
    the work tree) or between ``refs[0]`` and ``refs[1]``, or the ``files`` given (pre-commit).
    Returns {"checked": entries, "files": n, "held": [...], "allowed": [...]}; raises MemcliError
    for an unknown ref or a path outside the memory."""
    import os

    from memcli.errors import MemcliError
    from memcli.git import repo
    from memcli.storage import guard
    from memcli.storage.fsutil import decode_text
    from memcli.storage.store import parse_vault_bytes

    memory = os.path.realpath(layout.memory)
    top = repo.toplevel(layout.root) if refs else None
    if refs and top is None:
        from memcli.git.provenance import GitFailed

        said = GitFailed.of("rev-parse", repo.git(layout.root, "rev-parse", "--show-toplevel"))
        why = f" ({said})" if said.refused else ""
        raise MemcliError(f"memcli audit BASE [HEAD] needs a git repository{why}")
    memrel = os.path.relpath(memory, os.path.realpath(top)) if top else ""
    where = top or layout.root
    for ref in refs:
        done = repo.git(layout.root, "rev-parse", "--verify", "-q", f"{ref}^{{commit}}")
        if done is None or done.returncode != 0:
            raise MemcliError(f"unknown ref {ref!r}")

    def at(ref: str | None, rel: str) -> bytes | None:
        if ref is None:
            try:
                with open(os.path.join(memory, rel), "rb") as handle:
                    return handle.read()
            except OSError:
                return None
        return repo.git_bytes(layout.root, "cat-file", "blob", f"{ref}:{memrel}/{rel}")

    report_early: list[dict] = []  # what no entry says: memcli's cache, links and submodules a branch carries
    if files is not None:
        names = []
        for f in files:
            full = os.path.realpath(f)
            if not full.startswith(memory + os.sep):
                continue  # pre-commit passes every staged file its pattern matched: only memory counts
            names.append(os.path.relpath(full, memory).replace(os.sep, "/"))
        for rel in names:
            if os.path.islink(os.path.join(memory, rel)):
                report_early.append({"path": rel, "id": None, "rule": "symlink", "line": 1, "excerpt": rel})
        names = _memory_files(names)
        base = None
        head = None
    elif refs:
        args = ["diff", "--raw", "-z", "--no-abbrev", "--no-renames", "--diff-filter=AMT", *refs[:2], "--", memrel]
        done = repo.git(where, *args)
        if done is None or done.returncode != 0:
            raise MemcliError(
                "git diff failed: " + ((done.stderr.strip().splitlines() or ["?"])[0] if done else "no git")
            )
        prefix = memrel + "/"
        tokens = done.stdout.split("\0")
        changed: list[str] = []
        for meta, path in zip(tokens[::2], tokens[1::2]):
            if not path.startswith(prefix):
                continue
            rel, mode = path[len(prefix) :], (meta.split() or [":", ""])[1]
            if rel.startswith(".vault/"):
                report_early.append({"path": rel, "id": None, "rule": "cache-file", "line": 1, "excerpt": rel})
            elif mode in ("120000", "160000"):
                what = "symlink" if mode == "120000" else "submodule"
                report_early.append({"path": rel, "id": None, "rule": what, "line": 1, "excerpt": rel})
            else:
                changed.append(rel)
        names = _memory_files(changed)
        base, head = refs[0], (refs[1] if len(refs) > 1 else None)
    else:
        names = []
        for folder, dirs, filenames in os.walk(memory):
            dirs[:] = [d for d in dirs if not d.startswith(".")]
            for n in filenames:
                names.append(os.path.relpath(os.path.join(folder, n), memory).replace(os.sep, "/"))
        names = _memory_files(sorted(names))
        base = head = None
    report: dict = {"checked": 0, "files": len(names), "held": report_early, "allowed": []}
    for rel in names:
        raw = at(head, rel)
        if raw is None:
            continue
        try:
            text = decode_text(raw, rel)
        except MemcliError as exc:
            report["held"].append({"path": rel, "id": None, "rule": "invisible", "line": 1, "excerpt": exc.message})
            continue
        units: list[tuple[int | None, list[str], str]]
        if rel == "_project.md":
            units = [(None, [], text)]
        else:
            try:
                entries = parse_vault_bytes(rel, raw)
            except MemcliError as exc:
                report["held"].append({"path": rel, "id": None, "rule": "format", "line": 1, "excerpt": exc.message})
                continue
            before: set = set()
            if base is not None:
                old = at(base, rel)
                if old:
                    try:
                        before = {(e.id, e.content()) for e in parse_vault_bytes(rel, old)}
                    except MemcliError:
                        before = set()
            units = [(e.id, e.tags, e.body) for e in entries if (e.id, e.content()) not in before]
        for entry_id, tags, body in units:
            report["checked"] += 1
            allowed = guard.allowed_rules(tags)
            offset = max(text.find(body), 0) if body else 0
            for found in guard.scan(body):
                line = text.count("\n", 0, offset + found.start) + 1
                row = {"path": rel, "id": entry_id, "rule": found.rule, "line": line, "excerpt": found.excerpt}
                report["allowed" if found.rule in allowed else "held"].append(row)
    return report

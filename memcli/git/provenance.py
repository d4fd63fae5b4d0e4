"""Which memory was reviewed: where each memory file's content came from, as git tells it, and
the reader's own trust decisions.

The rule (README, "Trusted memory").  A memory file's content is *reviewed* when

1. it is on the trusted branch: the same content at the same path in the tree of ``T``, where
   ``T`` is ``git config memcli.trustedRef`` if set, else the remote's default branch as last
   fetched (``origin/HEAD``, else ``main``, ``master`` or ``trunk`` of the first remote that has
   one), else the local default branch (``init.defaultBranch``, ``main``, ``master``, ``trunk``); or
2. no commit made in another clone brought it: memcli's own writes and hand edits (uncommitted,
   or committed here: git's reflog records a commit made in this clone as ``commit``, and a
   merge made here as ``merge …: Merge made by``, which counts for what the merge itself wrote);
   or
3. the reader trusted it (``memcli trust``), a decision kept in this clone's
   ``.git/memcli/trusted``, which no branch can ship.

Content brought by a commit made elsewhere that is not on ``T`` — a checkout of someone else's
branch, a merge, rebase or cherry-pick of one, ``git checkout BRANCH -- PATH`` — is *unreviewed*:
it is held back from every block until it reaches ``T`` or the reader trusts it.  A repository
with no remote holds nothing back (its commits are its own); nor does pulling the trusted branch,
nor one's own work.  Outside git nothing is held back.

Cost.  ``inject`` asks on every prompt, so the answer is kept in ``.vault/provenance.json`` with a
stamp of git's state (HEAD, the index, the reflog, the trusted ref, packed refs, the config, the
trust file: about a dozen ``stat`` calls) and of each held file; while the stamp holds, no git
process runs.  When it changed, four or five git commands find the commits that are not on
``T`` (``git log --raw -c`` over ``.memory/``), and only files whose content such a commit wrote
are hashed.
"""

from __future__ import annotations

import os

from memcli.storage.paths import PROJECT_FILE, Layout

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from memcli.storage.vault import Entry

CACHE = "provenance.json"  # in .vault/: a cache, rebuilt from git whenever it is missing or stale
TRUST_FOLDER = "memcli"  # in git's common folder: the reader's decisions, local to the clone
TRUST_FILE = "trusted"
VERSION = 1
DEFAULT_BRANCHES = ("main", "master", "trunk")
STATE_FILES = ("HEAD", "index", "logs/HEAD", "MERGE_HEAD", "CHERRY_PICK_HEAD", "REBASE_HEAD", "rebase-merge")
COMMON_FILES = ("packed-refs", "config", f"{TRUST_FOLDER}/{TRUST_FILE}")
ZERO = "0" * 40


class GitFailed(Exception):
    """git could not say where content came from (it hung, or failed): the last answer stands."""


class Hold:
    """A memory file held back, and why: the commit made elsewhere that brought its content."""

    __slots__ = ("path", "blob", "commit", "author", "date", "ref", "subject", "keys", "stat")

    def __init__(self, path: str, blob: str, info: dict[str, str], keys: list[list[Any]], stat: list[int]):
        self.path = path  # inside .memory/, with '/'
        self.blob = blob
        self.commit = info.get("commit", "")
        self.author = info.get("author", "")
        self.date = info.get("date", "")
        self.ref = info.get("ref", "")
        self.subject = info.get("subject", "")
        self.keys = keys  # [agent, category, id] of each entry held in it; [] for the project text
        self.stat = stat

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "blob": self.blob,
            "commit": self.commit,
            "author": self.author,
            "date": self.date,
            "ref": self.ref,
            "subject": self.subject,
            "keys": self.keys,
            "stat": self.stat,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Hold:
        return cls(data["path"], data["blob"], data, data["keys"], data["stat"])

    def reason(self) -> str:
        """One line: where the content came from."""
        where = f" on {self.ref}" if self.ref and self.ref != "HEAD" else ""
        return f"unreviewed: from commit {self.commit[:10]} by {self.author}{where}, not on the trusted branch"


class Provenance:
    """The held files of one memory tree, and the entries the reader trusted."""

    def __init__(self, holds: list[Hold], trusted: set[str], trusted_ref: str | None, in_git: bool):
        self.holds = holds
        self.trusted = trusted  # digests (``entry_digest``, ``project_digest``) the reader trusted
        self.trusted_ref = trusted_ref
        self.in_git = in_git
        self._by_key = {(k[0], k[1], int(k[2])): h for h in holds for k in h.keys}
        self.project = next((h for h in holds if h.path == PROJECT_FILE), None)

    def held(self, agent: str, category: str, entry_id: int) -> Hold | None:
        """The hold on an entry (by agent, category and id), if its content is unreviewed."""
        return self._by_key.get((agent, category, entry_id)) if self._by_key else None

    def entries(self, agent: str | None = None) -> list[tuple[tuple[str, str, int], Hold]]:
        """The held entries ((agent, category, id), hold), of one agent or all."""
        return [(k, h) for k, h in self._by_key.items() if agent is None or k[0] == agent]

    def is_trusted(self, agent: str, category: str, entry_id: int, date: str, tags: list[str], body: str) -> bool:
        return bool(self.trusted) and entry_digest(agent, category, entry_id, date, tags, body) in self.trusted

    def __len__(self) -> int:
        return len(self._by_key) + (1 if self.project else 0)


NOTHING = Provenance([], set(), None, False)


def entry_digest(agent: str, category: str, entry_id: int, date: str, tags: list[str], body: str) -> str:
    """What a trust decision names: this entry's content, as it is now (an edit asks again)."""
    import hashlib

    text = f"{agent}/{category}/{entry_id}\n{date}\n{' '.join(tags)}\n{body}"
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()


def digest_of(agent: str, category: str, entry: Entry) -> str:
    return entry_digest(agent, category, entry.id, entry.header_date, entry.tags, entry.body)


def project_digest(text: str) -> str:
    import hashlib

    return hashlib.sha1(f"_project\n{text}".encode("utf-8", "surrogatepass")).hexdigest()


def blob_id(data: bytes) -> str:
    """git's id of a file's content (``git hash-object``, without filters)."""
    import hashlib

    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


# ------------------------------------------------------------------------------------ the cache


def git(root: Any, *args: str) -> Any:
    """``memcli.git.repo.git``, imported when first needed: a check whose stamp holds runs no git
    and needs no ``subprocess`` (about 3 ms of imports on every prompt)."""
    from memcli.git.repo import git as run

    return run(root, *args)


def _stat(path: str) -> list[int]:
    try:
        st = os.stat(path)
    except OSError:
        return [0]
    return [st.st_size, st.st_mtime_ns, st.st_ino]


def _stamp(where: dict[str, Any]) -> list[list[int]]:
    gdir, common = where["dir"], where["common"]
    files = [f"{gdir}/{name}" for name in STATE_FILES] + [f"{common}/{name}" for name in COMMON_FILES]
    files += [f"{common}/{ref}" for ref in where.get("refs", ())]
    return [_stat(f) for f in files]


def _no_git_stamp(layout: Layout) -> list[list[int]]:
    """Outside git: whether a ``.git`` appeared in the folder or above it, and the trust file."""
    out = [_stat(str(layout.state / TRUST_FILE))]
    folder = str(layout.root)
    while True:
        out.append(_stat(folder + "/.git"))
        parent = os.path.dirname(folder)
        if parent == folder:
            return out
        folder = parent


def _load(layout: Layout) -> dict[str, Any] | None:
    import json

    try:
        with open(layout.state / CACHE, "rb") as handle:
            data = json.loads(handle.read())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("v") == VERSION else None


def _save(layout: Layout, data: dict[str, Any]) -> None:
    import json

    from memcli.storage.fsutil import write_hint

    try:
        write_hint(layout.state / CACHE, json.dumps(data, ensure_ascii=False), layout.memory)
    except Exception:  # a cache: not being able to keep it costs time, never the answer
        pass


def _from_cache(data: dict[str, Any], layout: Layout) -> Provenance | None:
    where = data.get("git")
    if where is None:
        if data.get("stamp") != _no_git_stamp(layout):
            return None
        return Provenance([], set(data.get("trusted", ())), None, False)
    if data.get("stamp") != _stamp(where):
        return None
    holds = [Hold.from_json(h) for h in data.get("holds", ())]
    for h in holds:  # a held file edited here since: its content is the reader's own now
        if _stat(str(layout.memory / h.path)) != h.stat:
            return None
    return Provenance(holds, set(data.get("trusted", ())), data.get("ref"), True)


def provenance(layout: Layout, refresh: bool = False) -> Provenance:
    """The memory's provenance, from the cache while git's state holds; never raises.  When git
    fails to answer, what the cache held last stands (it is not replaced, so the next call asks
    again): a git that hangs never lets what was held back through."""
    data = None
    try:
        if not refresh:
            data = _load(layout)
            if data is not None:
                found = _from_cache(data, layout)
                if found is not None:
                    return found
        return _compute(layout)
    except GitFailed:
        if data and data.get("git"):
            holds = [Hold.from_json(h) for h in data.get("holds", ())]
            return Provenance(holds, set(data.get("trusted", ())), data.get("ref"), True)
        return NOTHING
    except Exception as exc:  # noqa: BLE001  a bug here must never hide memory: say so when debugging
        if os.environ.get("MEMCLI_DEBUG"):
            raise
        del exc
        return NOTHING


# ------------------------------------------------------------------------------ asking git


def _where(layout: Layout) -> dict[str, Any] | None:
    """git's folders for the memory tree (absolute), or None outside git."""
    done = git(layout.root, "rev-parse", "--path-format=absolute", "--git-dir", "--git-common-dir", "--show-toplevel")
    if done is None or done.returncode != 0:
        return None
    lines = done.stdout.splitlines()
    if len(lines) != 3:
        return None
    return {"dir": lines[0], "common": lines[1], "top": lines[2]}


def _refs(top: str) -> dict[str, tuple[str, str]]:
    """Every branch and remote-tracking ref: name -> (commit, symbolic target or '')."""
    done = git(top, "for-each-ref", "--format=%(refname)%00%(objectname)%00%(symref)", "refs/heads", "refs/remotes")
    out: dict[str, tuple[str, str]] = {}
    for line in done.stdout.splitlines() if done and done.returncode == 0 else ():
        parts = line.split("\0")
        if len(parts) == 3:
            out[parts[0]] = (parts[1], parts[2])
    return out


def _config(top: str) -> dict[str, str]:
    done = git(top, "config", "--get-regexp", r"^(memcli\.trustedref|init\.defaultbranch|remote\..*\.url)$")
    out: dict[str, str] = {}
    for line in done.stdout.splitlines() if done and done.returncode == 0 else ():
        key, _, value = line.partition(" ")
        out[key.lower()] = value
    return out


def trusted_ref(refs: dict[str, tuple[str, str]], config: dict[str, str]) -> str | None:
    """The full name of the trusted branch (see the module's rule), or None if there is none."""
    chosen = config.get("memcli.trustedref")
    if chosen:
        for name in (chosen, f"refs/heads/{chosen}", f"refs/remotes/{chosen}", f"refs/{chosen}"):
            if name in refs:
                return name
        return None  # a trusted ref that does not exist trusts nothing more than the rule says
    remotes = sorted(k.split(".")[1] for k in config if k.startswith("remote.") and k.endswith(".url"))
    remotes.sort(key=lambda r: r != "origin")
    for remote in remotes:
        head = refs.get(f"refs/remotes/{remote}/HEAD")
        if head and head[1] in refs:
            return head[1]
        for name in DEFAULT_BRANCHES:
            if f"refs/remotes/{remote}/{name}" in refs:
                return f"refs/remotes/{remote}/{name}"
    default = config.get("init.defaultbranch")
    for name in (default, *DEFAULT_BRANCHES) if default else DEFAULT_BRANCHES:
        if f"refs/heads/{name}" in refs:
            return f"refs/heads/{name}"
    return None


def _local_commits(where: dict[str, Any]) -> set[str]:
    """Commits made in this clone, as its reflogs record them: ``commit…`` (a commit, an amend, a
    merge concluded by hand) and ``…: Merge made by`` (a merge git made here)."""
    made: set[str] = set()
    logs = [f"{where['dir']}/logs/HEAD"]
    heads = f"{where['common']}/logs/refs/heads"
    for folder, _, names in os.walk(heads):
        logs.extend(os.path.join(folder, n) for n in names)
    for log in dict.fromkeys(logs):
        try:
            with open(log, "rb") as handle:
                text = handle.read().decode("utf-8", "replace")
        except OSError:
            continue
        for line in text.splitlines():
            head, _, message = line.partition("\t")
            parts = head.split(" ", 2)
            if len(parts) < 2:
                continue
            if message.startswith("commit") or ": Merge made by" in message or message.startswith("revert:"):
                made.add(parts[1])
    return made


Commits = list[tuple[dict[str, str], list[tuple[str, str]]]]


def _log(top: str, args: list[str], memrel: str, stdin: str = "") -> Commits:
    """Commits with the memory files each wrote: [(info, [(path, blob)])], newest first."""
    from memcli.git.repo import git_input

    fmt = "%x01%H%x00%P%x00%an <%ae>%x00%aI%x00%S%x00%s"
    cmd = ["log", "--raw", "-c", "--no-abbrev", "--no-renames", "-z", "--source", f"--format={fmt}", *args]
    done = git_input(top, *cmd, "--", memrel, input=stdin)
    if done is None or done.returncode != 0:
        raise GitFailed(done.stderr.strip() if done is not None else "git did not run")
    out = []
    for record in done.stdout.split("\x01")[1:]:
        fields = record.split("\0")
        if len(fields) < 6:
            continue
        info = {"commit": fields[0], "parents": fields[1], "author": fields[2], "date": fields[3]}
        info["ref"] = fields[4].removeprefix("refs/heads/").removeprefix("refs/remotes/")
        info["subject"] = fields[5]
        wrote = []
        rest = fields[6:]
        for meta, path in zip(rest[::2], rest[1::2]):
            meta = meta.strip()
            if not meta.startswith(":"):
                continue
            parts = meta.split()
            if len(parts) >= 2 and parts[-2] != ZERO and not parts[-1].startswith("D"):
                wrote.append((path, parts[-2]))
        out.append((info, wrote))
    return out


def _trust_file(layout: Layout, where: dict[str, Any] | None) -> str:
    """Where the reader's trust decisions live: in git's own folder (no branch can ship them), or,
    outside git, in the cache folder."""
    return f"{where['common']}/{TRUST_FOLDER}/{TRUST_FILE}" if where else str(layout.state / TRUST_FILE)


def _read_trusted(path: str) -> set[str]:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return {line.split("\t", 1)[0] for line in handle if line.strip() and not line.startswith("#")}
    except OSError:
        return set()


def _compute(layout: Layout) -> Provenance:
    where = _where(layout)
    if where is None:
        stamp = _no_git_stamp(layout)
        trusted = _read_trusted(_trust_file(layout, None))
        _save(layout, {"v": VERSION, "git": None, "stamp": stamp, "trusted": sorted(trusted)})
        return Provenance([], trusted, None, False)
    top = where["top"]
    refs = _refs(top)
    config = _config(top)
    ref_t = trusted_ref(refs, config)
    head_ref = ""
    try:
        with open(f"{where['dir']}/HEAD", encoding="utf-8") as handle:
            first = handle.read().strip()
        head_ref = first[5:].strip() if first.startswith("ref: ") else ""
    except OSError:
        pass
    where["refs"] = [r for r in (head_ref, ref_t, "refs/remotes/origin/HEAD") if r]
    stamp = _stamp(where)  # taken before asking git: a change meanwhile is seen next time
    trusted = _read_trusted(_trust_file(layout, where))
    memrel = os.path.relpath(os.path.realpath(layout.memory), os.path.realpath(top))
    unborn = bool(head_ref) and head_ref not in refs  # no commit yet on this branch
    starts = ["--branches", "--remotes"] + ([] if unborn else ["HEAD"])  # a commit is named by a branch that has it
    starts += [n for n in ("MERGE_HEAD", "CHERRY_PICK_HEAD", "REBASE_HEAD") if os.path.exists(f"{where['dir']}/{n}")]
    not_t = ["--not", ref_t] if ref_t else []
    # No remote: every commit is this clone's own (solo use holds nothing back, reflog or not).
    remote = any(k.startswith("remote.") for k in config)
    commits = _log(top, starts + not_t, memrel) if remote and (ref_t or refs) else []
    made = _local_commits(where)
    foreign: dict[str, dict[str, dict[str, str]]] = {}  # path -> blob -> the newest commit that wrote it
    local_blobs: set[str] = set()
    for info, wrote in commits:
        if info["commit"] in made:
            local_blobs.update(blob for _, blob in wrote)
            continue
        for path, blob in wrote:
            foreign.setdefault(path, {}).setdefault(blob, info)
    holds: list[Hold] = []
    candidates: list[tuple[str, str, dict[str, str], list[int]]] = []
    for path, blobs in foreign.items():
        full = os.path.join(top, path)
        try:
            with open(full, "rb") as handle:
                data = handle.read()
        except OSError:
            continue
        blob = blob_id(data)
        if blob in blobs and blob not in local_blobs:
            candidates.append((path, blob, blobs[blob], _stat(full)))
    if candidates:
        rest = made - {info["commit"] for info, _ in commits}
        if rest:  # commits made here that no ref reaches now (rebased, amended): what they wrote is the reader's
            try:
                again = _log(top, ["--no-walk=unsorted", "--stdin"], memrel, "\n".join(sorted(rest)) + "\n")
            except GitFailed:  # a commit the reflog names but git no longer has: nothing of it is here
                again = []
            for _, wrote in again:
                local_blobs.update(blob for _, blob in wrote)
        on_t = _blobs_on(top, ref_t, [c[0] for c in candidates]) if ref_t else {}
        for path, blob, info, st in candidates:
            if blob in local_blobs or on_t.get(path) == blob:
                continue
            rel = os.path.relpath(os.path.join(top, path), os.path.realpath(layout.memory)).replace(os.sep, "/")
            if rel.startswith("../"):
                continue
            hold = _hold(layout, rel, blob, info, st, top, ref_t, path, trusted)
            if hold is not None:
                holds.append(hold)
    _save(
        layout,
        {
            "v": VERSION,
            "git": where,
            "stamp": stamp,
            "ref": ref_t,
            "holds": [h.to_json() for h in holds],
            "trusted": sorted(trusted),
        },
    )
    return Provenance(holds, trusted, ref_t, True)


def _blobs_on(top: str, ref: str, paths: list[str]) -> dict[str, str]:
    """The blob each path has in ``ref``'s tree (paths it lacks are left out)."""
    from memcli.git.repo import git_input

    lines = "".join(f"{ref}:{p}\n" for p in paths)
    done = git_input(top, "cat-file", "--batch-check=%(objectname) %(objecttype)", input=lines)
    if done is None:
        return {}
    out = {}
    for path, line in zip(paths, done.stdout.splitlines()):
        parts = line.split()
        if len(parts) == 2 and parts[1] == "blob":
            out[path] = parts[0]
    return out


def _hold(
    layout: Layout,
    rel: str,
    blob: str,
    info: dict[str, str],
    st: list[int],
    top: str,
    ref_t: str | None,
    path: str,
    trusted: set[str],
) -> Hold | None:
    """The hold on one file: the entries in it that are neither on ``T`` (a category file's other
    entries) nor trusted; None when nothing in it is held."""
    from memcli.errors import MemcliError
    from memcli.storage.store import parse_vault_bytes

    if rel == PROJECT_FILE:
        try:
            text = (layout.memory / rel).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            text = ""
        return None if project_digest(text) in trusted else Hold(rel, blob, info, [], st)
    parts = rel.split("/")
    if len(parts) not in (2, 3) or not parts[-1].endswith(".md") or parts[0].startswith((".", "_")):
        return None  # not an entry file (config, conversations, removal records): no text of it is injected
    agent = parts[0]
    category = parts[1] if len(parts) == 3 else parts[1][:-3]
    try:
        entries = parse_vault_bytes(rel, (layout.memory / rel).read_bytes())
    except (OSError, MemcliError):
        return None
    reviewed: set[tuple] = set()
    if len(parts) == 2 and ref_t:  # a category file: its entries that T has as they are stay shown
        from memcli.git.repo import git_bytes

        before = git_bytes(layout.root, "cat-file", "blob", f"{ref_t}:{path}")
        if before:
            try:
                reviewed = {(e.id, e.content()) for e in parse_vault_bytes(rel, before)}
            except MemcliError:
                reviewed = set()
    keys: list[list[Any]] = [
        [agent, category, e.id]
        for e in entries
        if (e.id, e.content()) not in reviewed and digest_of(agent, category, e) not in trusted
    ]
    return Hold(rel, blob, info, keys, st) if keys else None


# ---------------------------------------------------------------------------- trust decisions


def trust(layout: Layout, digests: list[tuple[str, str]]) -> int:
    """Record the reader's trust in these contents ((digest, what) pairs); how many were new."""
    import time

    path = _trust_file(layout, _where(layout))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    have = _read_trusted(path)
    now = time.strftime("%Y-%m-%dT%H:%M:%S")
    new = [(d, what) for d, what in dict(digests).items() if d not in have]
    if new:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write("".join(f"{d}\t{what}\t{now}\n" for d, what in new))
    return len(new)


def branch_commits(layout: Layout, ref: str) -> Commits | None:
    """The commits ``ref`` brings that the trusted branch lacks (None if ``ref`` is unknown)."""
    where = _where(layout)
    if where is None:
        return None
    top = where["top"]
    check = git(top, "rev-parse", "--verify", "-q", f"{ref}^{{commit}}")
    if check is None or check.returncode != 0:
        return None
    ref_t = trusted_ref(_refs(top), _config(top))
    memrel = os.path.relpath(os.path.realpath(layout.memory), os.path.realpath(top))
    try:
        return _log(top, [ref, *(["--not", ref_t] if ref_t else [])], memrel)
    except GitFailed:
        return None

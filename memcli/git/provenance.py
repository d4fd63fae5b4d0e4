"""Which memory was reviewed: what commits made in other clones wrote into it, as git tells it,
and the reader's own trust decisions.

The rule (README, "Trusted memory").  The trusted branch ``T`` is ``git config memcli.trustedRef``
if set, else ``origin``'s default branch as last fetched (``origin/HEAD``; else the upstream of the
local default branch), else the local default branch (``init.defaultBranch``, ``main``, ``master``,
``trunk``).  A *foreign* commit is one that is not on ``T`` and that this clone did not make (its
reflogs record every commit, merge, rebase, cherry-pick, revert and ``am`` made here; a fetch, a
clone, a pull that fast-forwards makes nothing), and one made here that keeps another author (a
rebase, cherry-pick, ``am`` or amend of their commit: author and committer differ) is theirs
still.  Then a memory entry (or the project text, or
``config.toml``) is *unreviewed* when

- a line of it (a body line, or a tag) is one that a foreign commit reachable from what is checked
  out (HEAD, a merge or cherry-pick under way, ``FETCH_HEAD``) *added*, or
- its whole text is the text of an entry that any other foreign commit wrote (a branch or tag not
  checked out, copied in with ``checkout BRANCH -- PATH``, a squash merge, a cherry-pick),

and ``T`` does not have that line at that path, and the reader did not trust that content
(``memcli trust``, kept in ``.git/memcli/trusted``, which no branch can ship).  An entry each of whose
lines is a line of ``T``'s instruction files (``INSTRUCTION_SOURCES``: reviewed text that agents
read already, an imported item's source) is held for its state tags alone.  Only files whose
content differs from ``T`` are looked at.  So one's own writes and edits, one's own commits,
rebased or not, and a pull of ``T`` hold nothing back; a repository with no remote and no
``FETCH_HEAD`` holds nothing back; outside git nothing is held back.  Judging lines, not files,
keeps what a merge, a squash, ``compact``, ``pin`` or a pre-commit hook rewrote here as foreign as
it came.

A branch that tracks files in ``.memory/.vault/`` (the cache: a forged index or checkpoint) or
puts a submodule inside ``.memory/`` *poisons* the memory: no block shows any of it until that is
undone.

Cost.  ``inject`` asks on every prompt, so the answer is kept in ``.git/memcli/provenance.json``
(in git's own folder: a branch cannot forge it) with a stamp of git's state (HEAD, the index, the
reflog, the trusted ref, packed refs, ``FETCH_HEAD``, the config, the trust file and the search
index's manifest, which changes whenever memory files change: about fifteen ``stat`` calls); while
the stamp holds, no git process runs.  When it changed, a few git commands read the foreign
commits and the files that differ from ``T``.  When git fails or hangs, the last answer stands.
"""

from __future__ import annotations

import os
import re

from memcli.storage.paths import PROJECT_FILE, Layout, may_be_agent

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from memcli.storage.vault import Entry

CACHE = "provenance.json"  # in git's folder (per work tree): a cache, rebuilt whenever it is stale
FOLDER = "memcli"  # in git's folders: memcli's own state, which no branch can ship
TRUST_FILE = "trusted"  # in git's common folder: the reader's decisions, for every work tree
VERSION = 3
DEFAULT_BRANCHES = ("main", "master", "trunk")
STATE_FILES = ("HEAD", "index", "logs/HEAD", "MERGE_HEAD", "CHERRY_PICK_HEAD", "REBASE_HEAD", "FETCH_HEAD")
COMMON_FILES = ("packed-refs", "config", f"{FOLDER}/{TRUST_FILE}", "FETCH_HEAD")
MIN_LINE = 4  # shorter lines ("-", "ok") say nothing a line can be held for
GIT_TIMEOUT = 8.0  # seconds: a SessionStart hook has about ten
ZERO = "0" * 40


class GitFailed(Exception):
    """git could not say where content came from (it hung, or failed): the last answer stands.
    ``refused``: git refuses the repository (another user owns it), which the user can act on."""

    refused = False

    @classmethod
    def of(cls, what: str, done: Any) -> GitFailed:
        """``what`` failed: with git's own first line when it said one, in words for the reason a
        user can act on (a repository another user owns, which git refuses to read)."""
        said = (getattr(done, "stderr", "") or "").strip()
        owned = re.search(r"dubious ownership in repository at '([^']*)'", said)
        if owned:
            top = owned.group(1)
            failed = cls(
                f"git refuses to read {top}: another user owns it (if you trust it:"
                f" `git config --global --add safe.directory {top}`)"
            )
            failed.refused = True
            return failed
        if done is None:
            return cls(f"{what}: git did not answer")
        first = next((line for line in said.splitlines() if line.strip()), "")
        return cls(f"{what}: {first.removeprefix('fatal: ')}" if first else what)


class Poisoned(Exception):
    """The memory as checked out may not be shown at all (see ``_poisoned``)."""


class Hold:
    """A memory file (or entries of it) held back, and why: the foreign commit that brought it."""

    __slots__ = ("path", "commit", "author", "date", "ref", "subject", "keys", "stat", "commits")

    def __init__(self, path: str, info: dict[str, str], keys: list[list[Any]], stat: list[int]):
        self.path = path  # inside .memory/, with '/'
        self.commit = info.get("commit", "")
        self.author = info.get("author", "")
        self.date = info.get("date", "")
        self.ref = info.get("ref", "")
        self.subject = info.get("subject", "")
        self.keys = keys  # [agent, category, id] of each entry held in it; [] for the project text
        self.stat = stat
        self.commits: list[str] = list(info.get("commits") or [self.commit])

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "commit": self.commit,
            "author": self.author,
            "date": self.date,
            "ref": self.ref,
            "subject": self.subject,
            "keys": self.keys,
            "stat": self.stat,
            "commits": self.commits,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Hold:
        return cls(data["path"], data, data["keys"], data["stat"])

    def reason(self) -> str:
        """One line: where the content came from (the author and branch are shown made safe)."""
        from memcli.storage.guard import make_visible

        where = f" on {self.ref}" if self.ref and self.ref != "HEAD" else ""
        who = make_visible(self.author)[:80]
        return f"unreviewed: from commit {self.commit[:10]} by {who}{make_visible(where)}, not on the trusted branch"


class Provenance:
    """The held entries of one memory tree, and the contents the reader trusted."""

    def __init__(
        self,
        holds: list[Hold],
        trusted: set[str],
        trusted_ref: str | None,
        in_git: bool,
        poisoned: str | None = None,
        config_held: bool = False,
        note: str | None = None,
    ):
        self.holds = holds
        self.trusted = trusted  # digests (``entry_digest``, ``project_digest``) the reader trusted
        self.trusted_ref = trusted_ref
        self.in_git = in_git
        self.poisoned = poisoned  # why no memory may be shown at all (a tracked cache, a submodule)
        self.config_held = config_held  # config.toml holds unreviewed lines: the defaults are used
        self.note = note  # something the reader should hear (a trusted ref that does not exist)
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

    text = f"{agent}/{category}/{entry_id}\n{date}\n{' '.join(tags)}\n{body}".replace("\r", "")
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()


def digest_of(agent: str, category: str, entry: Entry) -> str:
    return entry_digest(agent, category, entry.id, entry.header_date, entry.tags, entry.body)


def project_digest(text: str) -> str:
    import hashlib

    return hashlib.sha1(f"_project\n{text}".replace("\r", "").encode("utf-8", "surrogatepass")).hexdigest()


def git(root: Any, *args: str, timeout: float = GIT_TIMEOUT) -> Any:
    """``memcli.git.repo.git``, imported when first needed: a check whose stamp holds runs no git
    and needs no ``subprocess`` (about 3 ms of imports on every prompt)."""
    from memcli.git.repo import git as run

    return run(root, "--no-replace-objects", "-c", "core.quotePath=false", *args, timeout=timeout)


# ------------------------------------------------------------------------------------ the cache


def _stat(path: str) -> list[int]:
    try:
        st = os.stat(path)
    except OSError:
        return [0]
    return [st.st_size, st.st_mtime_ns, st.st_ino]


def _git_dirs(layout: Layout) -> tuple[str, str] | None:
    """git's folder for the work tree holding the memory, and its common folder, found without
    running git (a ``.git`` folder, or a ``.git`` file naming one); None outside git, or where only
    git can tell (``GIT_DIR`` naming another folder).  git runs a linked work tree's hooks with
    ``GIT_DIR`` set to that work tree's folder: the one found, so the hooks read the reader's trust
    decisions and memcli's state where every other command does, never ``.memory/.vault/``."""
    found = _walk_git_dirs(layout)
    named = os.environ.get("GIT_DIR")
    if named and (found is None or os.path.realpath(named) != os.path.realpath(found[0])):
        return None
    return found


def _walk_git_dirs(layout: Layout) -> tuple[str, str] | None:
    folder = os.path.abspath(str(layout.root))
    while True:
        dot = os.path.join(folder, ".git")
        if os.path.isdir(dot):
            return dot, _common(dot)
        if os.path.isfile(dot):
            try:
                with open(dot, encoding="utf-8") as handle:
                    first = handle.read(4096).strip()
            except OSError:
                return None
            if first.startswith("gitdir:"):
                gdir = os.path.normpath(os.path.join(folder, first[7:].strip()))
                return gdir, _common(gdir)
            return None
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def _common(gdir: str) -> str:
    try:
        with open(os.path.join(gdir, "commondir"), encoding="utf-8") as handle:
            return os.path.normpath(os.path.join(gdir, handle.read().strip()))
    except OSError:
        return gdir


def state_file(layout: Layout, name: str, common: bool = False) -> str:
    """Where memcli keeps a file of its own about this clone: in git's folder (``.git/memcli/``;
    with ``common``, the folder every work tree shares), which no branch can ship; outside git, in
    the cache folder.  (Where only git can tell, ``GIT_DIR``, the cache folder too.)"""
    return _state_file(layout, name, _git_dirs(layout), common)


def _state_file(layout: Layout, name: str, dirs: tuple[str, str] | None, common: bool = False) -> str:
    """``state_file`` with git's folders found already (``_git_dirs``)."""
    return f"{dirs[1 if common else 0]}/{FOLDER}/{name}" if dirs else str(layout.state / name)


def _stamp(layout: Layout, where: dict[str, Any]) -> list[list[int]]:
    gdir, common = where["dir"], where["common"]
    files = [f"{gdir}/{name}" for name in STATE_FILES] + [f"{common}/{name}" for name in COMMON_FILES]
    files += [f"{common}/{ref}" for ref in where.get("refs", ())]
    files.append(str(layout.index_dir / "memcli-manifest.json"))  # memory files changed (a restore, a hand copy)
    files.append(f"{gdir}/config.worktree")
    home = os.path.expanduser("~")  # the user's git config may set memcli.trustedRef too
    xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    files += [os.path.join(home, ".gitconfig"), os.path.join(xdg, "git", "config")]
    return [_stat(f) for f in files]


def _no_git_stamp(layout: Layout) -> list[list[int]]:
    """Outside git: the cache folder's own identity (an archive's copy of a cache is not this
    folder's), the trust file, and whether a ``.git`` appeared in the folder or above it."""
    out = [_identity(str(layout.state)), _stat(str(layout.state / TRUST_FILE))]
    folder = os.path.abspath(str(layout.root))
    while True:
        out.append(_stat(folder + "/.git"))
        parent = os.path.dirname(folder)
        if parent == folder:
            return out
        folder = parent


def _load(path: str) -> dict[str, Any] | None:
    import json

    try:
        with open(path, "rb") as handle:
            data = json.loads(handle.read())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("v") == VERSION else None


def _save(path: str, data: dict[str, Any]) -> None:
    import json
    import tempfile

    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".provenance.", suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(json.dumps(data, ensure_ascii=False))
        os.replace(tmp, path)
    except Exception:  # a cache: not being able to keep it costs time, never the answer
        pass


def _answer(data: dict[str, Any]) -> Provenance:
    holds = [Hold.from_json(h) for h in data.get("holds", ())]
    return Provenance(
        holds,
        set(data.get("trusted", ())),
        data.get("ref"),
        data.get("git") is not None,
        data.get("poisoned"),
        bool(data.get("config_held")),
        data.get("note"),
    )


def _fresh(data: dict[str, Any], layout: Layout, dirs: tuple[str, str] | None) -> bool:
    where = data.get("git")
    if where is None:
        return data.get("stamp") == _no_git_stamp(layout)
    if dirs is None:  # git's answer kept in the cache folder: an archive may carry one
        return False
    if data.get("stamp") != _stamp(layout, where):
        return False
    for h in data.get("holds", ()):  # a held file changed here since: judge it again
        if _stat(str(layout.memory / h["path"])) != h["stat"]:
            return False
    return True


def provenance(layout: Layout, refresh: bool = False) -> Provenance:
    """The memory's provenance, from the cache while git's state holds; never raises.  When git
    fails to answer, what the cache held last stands (it is not replaced, so the next call asks
    again): a git that hangs or refuses never lets what was held back through.  The developer's
    personal memory (``paths.PersonalLayout``) is their own writing: nothing in it is unreviewed
    (the content rules still judge its text, and what the reader trusted of it stands)."""
    if layout.personal:
        trusted = _read_trusted(*_trust_file(layout))
        return Provenance([], trusted, None, False) if trusted else NOTHING
    dirs = _git_dirs(layout)  # found once: every step below asks
    path = _state_file(layout, CACHE, dirs)
    data = _load(path)
    in_git = dirs is not None or bool(os.environ.get("GIT_DIR"))
    try:
        if data is not None and not refresh and _fresh(data, layout, dirs):
            return _answer(data)
        return _compute(layout, path, in_git)
    except Exception as exc:  # GitFailed, or a bug: never a reason to let held memory through
        if data and data.get("git") and dirs is not None and not _debugging(exc):
            return _answer(data)
        return _unanswered(exc, in_git)


def without_reader_trust(layout: Layout, answer: Provenance) -> Provenance:
    """``answer`` (``provenance``'s) as if the reader had trusted nothing (``memcli trust`` is one
    clone's decision): what ``memcli export`` may write into a file every clone commits (never the
    personal memory's).  Worked out anew, and kept nowhere, when the reader did trust something;
    never raises."""
    if not answer.trusted:
        return answer
    try:
        return _compute(layout, None, _git_dirs(layout) is not None or bool(os.environ.get("GIT_DIR")), trusting=False)
    except Exception as exc:  # as in ``provenance``, but held in or out of git: it is written for every clone
        return _unanswered(exc, True)


def _debugging(exc: Exception) -> bool:
    """Whether ``exc`` is a bug to show (``MEMCLI_DEBUG``), not git failing to answer."""
    return bool(os.environ.get("MEMCLI_DEBUG")) and not isinstance(exc, GitFailed)


def _unanswered(exc: Exception, in_git: bool) -> Provenance:
    """What stands when git did not answer and there is no earlier answer to stand by: in git,
    nothing from memory is shown until git answers; outside it, nothing is held.  A bug is raised
    under ``MEMCLI_DEBUG``."""
    if _debugging(exc):
        raise exc
    if in_git:
        return Provenance([], set(), None, True, f"git did not say where memory came from ({str(exc)[:300]})")
    return NOTHING


# ------------------------------------------------------------------------------ asking git


def work_tree(folder: str) -> str | None:
    """The folder holding ``.git`` (a folder, or a file: a linked work tree, a submodule) at or
    above ``folder``, as the path gives it; None outside git as far as files tell."""
    while not os.path.exists(os.path.join(folder, ".git")):
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent
    return folder


def _found(layout: Layout) -> dict[str, Any] | None:
    """git's folders as ``_git_dirs`` finds them (no process), with the work tree's top: the folder
    that holds ``.git``.  None where only git can tell."""
    if os.environ.get("GIT_DIR") or os.environ.get("GIT_WORK_TREE"):
        return None
    folder = work_tree(os.path.abspath(str(layout.root)))
    if folder is None:
        return None
    dirs = _git_dirs(layout)
    if dirs is None:
        return None
    return {"dir": os.path.realpath(dirs[0]), "common": os.path.realpath(dirs[1]), "top": os.path.realpath(folder)}


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
    if done is None or done.returncode != 0:
        raise GitFailed.of("for-each-ref", done)
    out: dict[str, tuple[str, str]] = {}
    for line in done.stdout.splitlines():
        parts = line.split("\0")
        if len(parts) == 3:
            out[parts[0]] = (parts[1], parts[2])
    return out


def _config(top: str) -> dict[str, str]:
    pattern = r"^(memcli\.trustedref|init\.defaultbranch|remote\..*\.url|branch\..*\.(remote|merge))$"
    done = git(top, "config", "-z", "--get-regexp", pattern)
    if done is None or done.returncode not in (0, 1):
        raise GitFailed.of("config", done)
    out: dict[str, str] = {}
    for record in done.stdout.split("\0"):
        key, _, value = record.partition("\n")
        if key:
            out[key.lower()] = value
    return out


def trusted_ref(refs: dict[str, tuple[str, str]], config: dict[str, str]) -> tuple[str | None, str | None]:
    """The full name of the trusted branch (see the module's rule), or None; and a note when the
    configured one does not exist."""
    chosen = config.get("memcli.trustedref")
    if chosen:
        for name in (chosen, f"refs/heads/{chosen}", f"refs/remotes/{chosen}", f"refs/{chosen}"):
            if name in refs:
                return name, None
        return None, f"memcli.trustedRef {chosen!r} names no branch: nobody's work counts as reviewed"
    head = refs.get("refs/remotes/origin/HEAD")
    if head and head[1] in refs:
        return head[1], None
    default = config.get("init.defaultbranch")
    for name in (default, *DEFAULT_BRANCHES) if default else DEFAULT_BRANCHES:
        # the branch the local default branch follows on origin (set by clone and push -u)
        if f"refs/heads/{name}" in refs and config.get(f"branch.{name}.remote") == "origin":
            upstream = config.get(f"branch.{name}.merge", "")
            candidate = "refs/remotes/origin/" + upstream.removeprefix("refs/heads/")
            if upstream and candidate in refs:
                return candidate, None
    for name in (default, *DEFAULT_BRANCHES) if default else DEFAULT_BRANCHES:
        if f"refs/heads/{name}" in refs:
            return f"refs/heads/{name}", None
    return None, None


def on_trusted_branch(top: str) -> bool:
    """Whether the branch checked out in ``top`` is the trusted branch, or the local branch that
    follows it (``main`` for ``origin/main``); with none yet (no commit, no remote), the default
    branch's name.  False when detached, or when git does not answer."""
    head = git(top, "symbolic-ref", "-q", "HEAD")
    if head is None or head.returncode != 0:
        return False
    branch = head.stdout.strip().removeprefix("refs/heads/")
    try:
        refs, config = _refs(top), _config(top)
    except GitFailed:
        return False
    ref_t, _ = trusted_ref(refs, config)
    if ref_t is None:
        default = config.get("init.defaultbranch")
        return branch in ((default,) if default else DEFAULT_BRANCHES)
    if ref_t == f"refs/heads/{branch}":
        return True
    if not ref_t.startswith("refs/remotes/"):
        return False
    remote, _, name = ref_t.removeprefix("refs/remotes/").partition("/")
    upstream = config.get(f"branch.{branch}.merge")
    if upstream:
        return config.get(f"branch.{branch}.remote") == remote and upstream == f"refs/heads/{name}"
    return branch == name


_STEPS = ("(pick)", "(reword)", "(squash)", "(fixup)", "(edit)", "(continue)")


def _made_a_commit(message: str) -> bool:
    """Whether a reflog entry records a commit made here: ``commit…``, ``cherry-pick``,
    ``revert``, ``am``, a merge git made (``… Merge made by``), a rebase's picked commits
    (``rebase (pick)``, ``pull --rebase (pick)``, reword, squash, fixup, edit, continue).  Not a
    rebase's start, finish or abort (they name the commit it started from or returned to), a
    fast-forward, a checkout, a reset or a clone."""
    action = message.split(":", 1)[0]
    word = action.split(" ", 1)[0]
    if word in ("commit", "cherry-pick", "revert", "am"):
        return "Fast-forward" not in message and "fast-forward" not in message
    if word in ("rebase", "pull"):
        if any(step in action for step in _STEPS):
            return True
        return word == "pull" and "Merge made by" in message
    return word == "merge" and "Merge made by" in message


def _local_commits(where: dict[str, Any]) -> set[str]:
    """Commits made in this clone, as its reflogs record them (every work tree's and branch's):
    a commit, an amend, a merge git made or one concluded by hand, a rebase, a cherry-pick, a
    revert, ``am``.  A fast-forward, a clone, a checkout or a reset makes nothing."""
    made: set[str] = set()
    logs = [f"{where['dir']}/logs/HEAD", f"{where['common']}/logs/HEAD"]
    for base in (f"{where['common']}/logs/refs/heads", f"{where['common']}/worktrees"):
        for folder, _, names in os.walk(base):
            logs.extend(os.path.join(folder, n) for n in names if base.endswith("heads") or n == "HEAD")
    for log in dict.fromkeys(logs):
        try:
            with open(log, "rb") as handle:
                text = handle.read().decode("utf-8", "replace")
        except OSError:
            continue
        for line in text.splitlines():
            head, _, message = line.partition("\t")
            parts = head.split(" ", 2)
            if len(parts) >= 2 and _made_a_commit(message):
                made.add(parts[1])
    return made


def _applied_here(top: str, commits: list[str]) -> set[str]:
    """Of commits this clone made, those that apply somebody else's work: a rebase, cherry-pick,
    ``am`` or amend of their commit keeps its author, so the author is not the committer.  Their
    lines stay theirs (a contributor's branch rebased onto main here is still unreviewed)."""
    rows = _commit_fields(top, commits, ["%ae", "%ce"])
    if rows is None:
        raise GitFailed("log")
    return {c for c, (author, committer) in rows.items() if author.strip().lower() != committer.strip().lower()}


def _commit_fields(top: str, commits: list[str], fields: list[str]) -> dict[str, list[str]] | None:
    """``git log``'s ``fields`` (placeholders such as ``%ae``) of each of a few commits, by commit;
    None when git fails."""
    from memcli.git.repo import git_input

    if not commits:
        return {}
    done = git_input(
        top,
        "--no-replace-objects",
        "log",
        "--no-walk=unsorted",
        "--stdin",
        "-z",
        "--format=" + "%x00".join(["%H", *fields]),
        input="\n".join(dict.fromkeys(commits)) + "\n",
        timeout=GIT_TIMEOUT,
    )
    if done is None or done.returncode != 0:
        return None
    values = done.stdout.split("\0")  # -z: every record ends in NUL too
    width = len(fields) + 1
    return {
        values[n].strip("\n"): values[n + 1 : n + width]
        for n in range(0, len(values) - width + 1, width)
        if values[n].strip("\n") in commits
    }


class Commit:
    __slots__ = ("id", "ref", "wrote")

    def __init__(self, commit_id: str, ref: str):
        self.id, self.ref = commit_id, ref
        self.wrote: list[tuple[str, list[str], str]] = []  # (path, the parents' blobs, the new blob)


def _log(top: str, args: list[str], memrel: str, stdin: str = "") -> list[Commit]:
    """Commits with the memory files each wrote, newest first.  Nothing of a commit's message or
    author is parsed here (they are the contributor's own text): ``%H %S`` then git's raw records."""
    from memcli.git.repo import git_input

    return _parse_log(git_input(top, *_log_command(args, memrel), input=stdin, timeout=GIT_TIMEOUT * 3))


def _log_command(args: list[str], *paths: str) -> list[str]:
    cmd = ["--no-replace-objects", "-c", "log.showRoot=true", "log", "--raw", "-c", "--no-abbrev", "--no-renames"]
    cmd += ["-z", "--source"]
    return cmd + ["--no-ext-diff", "--no-textconv", "--ignore-missing", "--format=%n%H %S", *args, "--", *paths]


def _parse_log(done: Any) -> list[Commit]:
    if done is None or done.returncode != 0:
        raise GitFailed.of("log", done)
    out: list[Commit] = []
    tokens = done.stdout.split("\0")
    i = 0
    while i < len(tokens):
        token = tokens[i].strip("\n")
        i += 1
        head = token.split(" ", 1)
        if _is_hash(head[0]) and not token.startswith(":"):
            ref = head[1].removeprefix("refs/heads/").removeprefix("refs/remotes/") if len(head) > 1 else ""
            out.append(Commit(head[0], "" if _is_hash(ref) else ref))  # (reached from FETCH_HEAD's commit: no branch)
            continue
        if token.startswith(":") and out and i < len(tokens):
            path = tokens[i]
            i += 1
            colons = len(token) - len(token.lstrip(":"))
            parts = token.lstrip(":").split()
            if len(parts) < 2 * (colons + 1) + 1:
                continue
            blobs = parts[colons + 1 : 2 * (colons + 1)]
            new, parents = blobs[-1], [b for b in blobs[:-1] if b.strip("0")]
            if parts[colons] == "160000":  # a submodule where memory is read
                out[-1].wrote.append((path, [], "gitlink"))
                continue
            if new.strip("0") and not parts[-1].startswith("D"):
                out[-1].wrote.append((path, parents, new))
    return out


def _is_hash(text: str) -> bool:
    return len(text) in (40, 64) and all(c in "0123456789abcdef" for c in text)


def _infos(top: str, commits: list[str]) -> dict[str, dict[str, str]]:
    """Author, date and subject of a few commits (only those a hold names)."""
    rows = _commit_fields(top, commits, ["%an <%ae>", "%aI", "%s"]) or {}
    return {c: {"commit": c, "author": a, "date": d, "subject": s} for c, (a, d, s) in rows.items()}


def _blobs(top: str, names: list[str]) -> dict[str, bytes]:
    """The contents of objects (blob ids or ``REF:PATH``), by name; missing ones left out."""
    from memcli.git.repo import git_input_bytes

    if not names:
        return {}
    names = list(dict.fromkeys(names))
    asked = "".join(n + "\n" for n in names).encode("utf-8", "surrogateescape")
    data = git_input_bytes(top, "--no-replace-objects", "cat-file", "--batch", input=asked, timeout=GIT_TIMEOUT * 3)
    if data is None:
        raise GitFailed("cat-file")
    out: dict[str, bytes] = {}
    pos = 0
    for name in names:
        end = data.find(b"\n", pos)
        if end < 0:
            break
        head = data[pos:end].split()
        pos = end + 1
        if len(head) == 3 and head[1] in (b"blob", b"tree", b"commit", b"tag"):
            size = int(head[2])
            if head[1] == b"blob":
                out[name] = data[pos : pos + size]
            pos += size + 1
    return out


def _trust_file(layout: Layout) -> tuple[str, str | None]:
    """The reader's trust decisions: the file, and the seal its lines must carry (None in git).
    In git the file is in git's folder, which no branch, clone or archive carries.  Outside git it
    can only be in the cache folder, ``.memory/.vault/``, which an archive or a tarball of someone
    else's folder may carry (a ``git archive`` of a branch that forced it in, GitHub's ZIP): there a
    decision counts only with the seal of the folder it was made in (its device and inode, which a
    copy unpacked anywhere does not have; a folder copied or moved is read again, and trusted again)."""
    path = state_file(layout, TRUST_FILE, common=True)
    return path, (None if _git_dirs(layout) is not None else _identity(os.path.dirname(path), "-"))


def _identity(path: str, none: Any = None) -> Any:
    """A folder's device and inode (``none`` if it is not there)."""
    try:
        st = os.stat(path)
    except OSError:
        return [0] if none is None else none
    return [st.st_dev, st.st_ino] if none is None else f"{st.st_dev}:{st.st_ino}"


def _read_trusted(path: str, seal: str | None = None) -> set[str]:
    """The digests trusted (with ``seal``: only the lines sealed so, ``_trust_file``)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            rows = [line.rstrip("\n").split("\t") for line in handle if line.strip() and not line.startswith("#")]
    except OSError:
        return set()
    return {row[0] for row in rows if seal is None or (len(row) > 3 and row[3] == seal)}


# ------------------------------------------------------------------------- lines and bodies


def _kind(rel: str) -> tuple[str, str] | str | None:
    """What a file inside .memory/ is: (agent, category) for entry and category files,
    "project", "config", or None (nothing of it reaches a block)."""
    if rel == PROJECT_FILE:
        return "project"
    if rel == "config.toml":
        return "config"
    parts = rel.split("/")
    if not parts[-1].endswith(".md") or not may_be_agent(parts[0]):
        return None
    if len(parts) == 3:
        return parts[0], parts[1]
    if len(parts) == 2:
        return parts[0], parts[1][:-3]
    return None


def _line_key(line: str) -> str | None:
    """A memory file's line as holds compare it (``source_key``), None for one that says nothing."""
    key = source_key(line)
    if key is None or len(key) < MIN_LINE or key.startswith("<!-- id:") or key.strip("-") == "":
        return None
    return key


_IDENT = r"\$Id(?::[^$\n]*)?\$"  # what `ident` expands: compiled only for a line that holds "$Id"


def _body_key(body: str) -> str:
    if "$Id" in body:
        body = re.sub(_IDENT, "$Id$", body)
    return "\x00" + " ".join(body.replace("\r", "").split())


def _entries(rel: str, raw: bytes) -> list[Entry]:
    from memcli.errors import MemcliError
    from memcli.storage.store import parse_vault_bytes

    try:
        return parse_vault_bytes(rel, raw)
    except MemcliError:
        return []


def _keys(rel: str, raw: bytes, bodies: bool = True) -> set[str]:
    """What a file's text says, as keys: its lines (raw, and an entry's body lines unescaped), each
    entry's tags (``#tag``) and, with ``bodies``, each entry's whole text."""
    text = raw.decode("utf-8", "replace")
    keys = {k for k in map(_line_key, text.splitlines()) if k}
    if isinstance(_kind(rel), tuple):
        for e in _entries(rel, raw):
            keys.update(k for k in map(_line_key, e.body.splitlines()) if k)
            keys.update(_tag_keys(e.tags))
            if bodies:
                keys.add(_body_key(e.body))
    elif bodies:
        keys.add(_body_key(text))
    return keys


def _tag_keys(tags: list[str]) -> list[str]:
    """The tags that change what a block shows (``pinned``, ``supersedes-…``, ``allow-…``), as
    keys: a common tag (``#deploy``) is no one's, and no block prints tags."""
    return ["#" + t for t in tags if t == "pinned" or t.startswith(("supersedes-", "allow-"))]


def _entry_keys(e: Entry) -> list[str]:
    return [k for k in map(_line_key, e.body.splitlines()) if k] + _tag_keys(e.tags)


# ------------------------------------------------------------------------------ the answer


def _compute(layout: Layout, cache: str | None, in_git: bool, trusting: bool = True) -> Provenance:
    """Ask git (``cache``: where to keep the answer; ``trusting=False``: ignoring the reader's
    ``memcli trust`` decisions, and kept nowhere)."""
    where = _found(layout) or _where(layout)
    if where is None:
        if in_git:
            raise GitFailed("rev-parse")  # a repository git will not read now (ownership, a hang)
        stamp = _no_git_stamp(layout)
        trusted = _read_trusted(*_trust_file(layout)) if trusting else set()
        if cache is not None:
            _save(cache, {"v": VERSION, "git": None, "stamp": stamp, "trusted": sorted(trusted)})
        return Provenance([], trusted, None, False)
    top = where["top"]
    refs = _refs(top)
    config = _config(top)
    ref_t, note = trusted_ref(refs, config)
    head_ref = _head_ref(where)
    where["refs"] = [r for r in (head_ref, ref_t, "refs/remotes/origin/HEAD") if r]
    stamp = _stamp(layout, where)  # taken before asking git: a change meanwhile is seen next time
    trusted = _read_trusted(*_trust_file(layout)) if trusting else set()
    memrel = os.path.relpath(os.path.realpath(layout.memory), os.path.realpath(top)).replace(os.sep, "/")
    prefix = memrel + "/"
    poisoned = _poisoned(top, memrel)
    holds: list[Hold] = []
    config_held = False
    if _was_fetched(where) or _has_remote(config):
        try:
            holds, config_held = _holds(layout, where, refs, ref_t, head_ref, memrel, prefix, trusted)
        except Poisoned as exc:
            poisoned = poisoned or str(exc)
    if cache is None:
        return Provenance(holds, trusted, ref_t, True, poisoned, config_held, note)
    _save(
        cache,
        {
            "v": VERSION,
            "git": where,
            "stamp": stamp,
            "ref": ref_t,
            "holds": [h.to_json() for h in holds],
            "trusted": sorted(trusted),
            "poisoned": poisoned,
            "config_held": config_held,
            "note": note,
        },
    )
    return Provenance(holds, trusted, ref_t, True, poisoned, config_held, note)


def _poisoned(top: str, memrel: str) -> str | None:
    """Why the memory as checked out may not be shown at all, or None: git tracks files in
    memcli's cache (a forged index or checkpoint would speak for memory), or a submodule or a
    symlink leading out sits where memory is read."""
    done = git(top, "ls-files", "-s", "-z", "--", f"{memrel}/.vault")
    if done is None or done.returncode != 0:
        raise GitFailed.of("ls-files", done)
    for record in done.stdout.split("\0"):
        info, _, path = record.partition("\t")
        if path:  # (not named: a file's name is the branch's own text, and the block is no place for it)
            return "git tracks files in memcli's cache folder, .memory/.vault/, which no branch may carry"
    return None


def _holds(
    layout: Layout,
    where: dict[str, Any],
    refs: dict[str, tuple[str, str]],
    ref_t: str | None,
    head_ref: str,
    memrel: str,
    prefix: str,
    trusted: set[str],
) -> tuple[list[Hold], bool]:
    top = where["top"]
    made = _local_commits(where)
    not_t = ["--not", ref_t] if ref_t else []
    unborn = bool(head_ref) and head_ref not in refs
    here = _checked_out(where, unborn)
    from memcli.git.repo import git_many

    # Both at once (git reads; two cores): what is checked out, and every other branch and tag.
    asked = [_log_command(here + not_t, memrel), _log_command(["--branches", "--remotes", "--tags"] + not_t, memrel)]
    done = git_many(top, asked, timeout=GIT_TIMEOUT * 3)
    checked_out = _parse_log(done[0]) if here else []
    elsewhere = _parse_log(done[1]) if refs else []
    made -= _applied_here(top, [c.id for c in checked_out + elsewhere if c.id in made])
    for c in checked_out + elsewhere:
        for path, _, new in c.wrote:
            if new == "gitlink" and c.id not in made and os.path.exists(os.path.join(top, path)):
                raise Poisoned(f"a submodule inside the memory, from commit {c.id[:10]}")
    # Every foreign commit, checked out or on any other branch or tag.  The lines one checked out
    # added are theirs wherever they land; the lines one elsewhere added are theirs in the files
    # its commits wrote (a squash, a cherry-pick, a rebase of theirs, a file checked out), and its
    # whole entries anywhere: a line that merely reads like one on somebody's unmerged branch ("Run
    # the tests before pushing") does not hold back what the reader writes elsewhere.
    near_ids = {c.id for c in checked_out}
    foreign = list({c.id: c for c in checked_out + elsewhere if c.id not in made}.values())
    wanted = [b for c in foreign for _, parents, new in c.wrote for b in (*parents, new)]
    blobs = _blobs(top, wanted)
    added: dict[str, Commit] = {}  # a line or whole text a checked-out foreign commit added -> it
    far: dict[str, Commit] = {}  # the same for foreign commits elsewhere (lines count at their paths)
    for c in foreign:
        into = added if c.id in near_ids else far
        for path, parents, new in c.wrote:
            if not path.startswith(prefix) or new not in blobs:
                continue
            rel = path[len(prefix) :]
            before: set[str] = set()
            for p in parents:
                before |= _keys(rel, blobs.get(p, b""), bodies=False)
            for key in _keys(rel, blobs[new]) - before:
                into.setdefault(key, c)
    if not added and not far:
        return [], False
    written = {p[len(prefix) :] for c in foreign for p, _, _ in c.wrote if p.startswith(prefix)}
    candidates = _candidates(layout, top, ref_t, "" if unborn else "HEAD", memrel, prefix, written)
    # The trusted branch's version of each, and the index's (what git would store: a branch's
    # .gitattributes may have git write the work tree's copy otherwise, re-encoded or expanded).
    versions = [f"{ref_t}:{prefix}{rel}" for rel in candidates] if ref_t else []
    reviewed = _blobs(top, versions + [f":{prefix}{rel}" for rel in candidates])
    holds: list[Hold] = []
    config_held = False
    named: dict[str, tuple[str, list[Commit], list[list[Any]], list[int]]] = {}
    instructions = _Instructions(top, ref_t)
    for rel, full in _files(layout, candidates):
        kind = _kind(rel)
        if kind is None:
            continue
        try:
            with open(full, "rb") as handle:
                raw = handle.read()
        except OSError:
            continue
        on_t = _keys(rel, reviewed[f"{ref_t}:{prefix}{rel}"]) if f"{ref_t}:{prefix}{rel}" in reviewed else set()
        staged = reviewed.get(f":{prefix}{rel}")

        def theirs(keys: list[str]) -> list[Commit]:
            """The foreign commits that added any of these keys (a body's lines and whole text)."""
            found = [added[k] for k in keys if k in added and k not in on_t]
            if rel in written:  # lines from elsewhere count in the files its commits wrote
                found += [far[k] for k in keys if k in far and k not in on_t]
            else:
                found += [far[k] for k in keys if k.startswith("\x00") and k in far and k not in on_t]
            return found

        if isinstance(kind, tuple):
            keys: list[list[Any]] = []
            by: list[Commit] = []
            also = {e.id: e for e in _entries(rel, staged)} if staged is not None and staged != raw else {}
            for e in _entries(rel, raw):
                twin = also.get(e.id)
                more = (*_entry_keys(twin), _body_key(twin.body)) if twin is not None else ()
                hits = theirs([*_entry_keys(e), _body_key(e.body), *more])
                if hits and all(_in_instructions(x, instructions) for x in (e, twin) if x is not None):
                    hits = theirs([k for x in (e, twin) if x is not None for k in _tag_keys(x.tags)])
                if not hits or digest_of(kind[0], kind[1], e) in trusted:
                    continue
                keys.append([kind[0], kind[1], e.id])
                by.extend(c for c in hits if c not in by)
            if keys:
                named[rel] = (rel, by, keys, _stat(full))
        else:
            text = raw.decode("utf-8", "replace")
            lines = [k for k in map(_line_key, text.splitlines()) if k] + [_body_key(text)]
            if staged is not None and staged != raw:
                index_text = staged.decode("utf-8", "replace")
                lines += [k for k in map(_line_key, index_text.splitlines()) if k] + [_body_key(index_text)]
            hits = theirs(lines)
            if not hits:
                continue
            if kind == "config":
                config_held = True
            elif project_digest(text) not in trusted:
                named[rel] = (rel, list(dict.fromkeys(hits)), [], _stat(full))
    infos = _infos(top, sorted({c.id for _, by, _, _ in named.values() for c in by[:1]}))
    for rel, by, keys, st in named.values():
        info = {**infos.get(by[0].id, {"commit": by[0].id}), "ref": by[0].ref}
        hold = Hold(rel, info, keys, st)
        hold.commits = [c.id for c in by]  # every commit whose lines it holds: trust --branch needs all
        holds.append(hold)
    return holds, config_held


_MARKER = re.compile(r"(?:[-*+]\s+(?:\[[ xX]\]\s+)?|\d{1,3}[.)]\s+|#{1,6}\s+|>\s*)")


def _unmarked(line: str) -> str:
    """A line without its list, task, heading or quote marker: an imported item's text as its
    instruction file has it ("- Use type hints" is the entry "Use type hints")."""
    return _MARKER.sub("", line, count=1) if _MARKER.match(line) else line


class _Instructions:
    """The lines of the trusted branch's instruction files (``INSTRUCTION_SOURCES``), read when
    first asked: reviewed text that agents read already.  An entry saying nothing else (each
    of its lines one of theirs: an item imported from CLAUDE.md, by this clone or a teammate's
    branch) holds nothing back for its text; its state tags (``#pinned``…) still count."""

    def __init__(self, top: str, ref_t: str | None):
        self.top, self.ref_t = top, ref_t
        self._lines: set[str] | None = None

    @property
    def lines(self) -> set[str]:
        if self._lines is None:
            self._lines = set()
            if self.ref_t:
                import fnmatch

                from memcli.storage.paths import INSTRUCTION_SOURCES

                done = git(self.top, "--literal-pathspecs", "ls-tree", "-r", "-z", "--name-only", self.ref_t, "--")
                names = done.stdout.split("\0") if done is not None and done.returncode == 0 else []
                patterns = {q for p in INSTRUCTION_SOURCES for q in (p, p.replace("**/", ""))}
                wanted = [n for n in names if any(fnmatch.fnmatch(n, p) for p in patterns)]
                for raw in _blobs(self.top, [f"{self.ref_t}:{n}" for n in wanted[:200]]).values():
                    for line in raw[:1_000_000].decode("utf-8", "replace").splitlines():
                        key = _line_key(line)
                        if key:
                            self._lines.add(_unmarked(key))
        return self._lines


def _in_instructions(e: Entry, instructions: _Instructions) -> bool:
    """Whether every line of an entry's text is a line of the trusted branch's instruction files."""
    keys = [k for k in map(_line_key, e.body.splitlines()) if k]
    return bool(keys) and all(_unmarked(k) in instructions.lines for k in keys)


def _was_fetched(where: dict[str, Any]) -> bool:
    """Whether this clone ever fetched (``FETCH_HEAD``, in the work tree's folder or the clone's)."""
    return os.path.exists(f"{where['dir']}/FETCH_HEAD") or os.path.exists(f"{where['common']}/FETCH_HEAD")


def _has_remote(config: dict[str, str]) -> bool:
    return any(k.startswith("remote.") and k.endswith(".url") for k in config)


def _checked_out(where: dict[str, Any], unborn: bool) -> list[str]:
    """What is checked out, as revisions for ``git log``: HEAD, a merge, cherry-pick or rebase
    under way, what was last fetched, and what other work trees of this clone have checked out."""
    here = ([] if unborn else ["HEAD"]) + [
        n for n in ("MERGE_HEAD", "CHERRY_PICK_HEAD", "REBASE_HEAD") if os.path.exists(f"{where['dir']}/{n}")
    ]
    return here + _fetched(where) + _other_work_trees(where)


def _fetched(where: dict[str, Any]) -> list[str]:
    """The commits the last fetch brought, read from ``FETCH_HEAD``: the work tree's own, else the
    clone's (a linked work tree's git does not read the main tree's, so the name ``FETCH_HEAD``
    would be a bad revision there)."""
    for folder in dict.fromkeys((where["dir"], where["common"])):
        try:
            with open(f"{folder}/FETCH_HEAD", encoding="utf-8", errors="replace") as handle:
                text = handle.read()
        except OSError:
            continue
        found = [line.split("\t", 1)[0] for line in text.splitlines()]
        return list(dict.fromkeys(c for c in found if len(c) in (40, 64) and all(x in "0123456789abcdef" for x in c)))
    return []


def _head_ref(where: dict[str, Any]) -> str:
    """The branch HEAD names ('' when detached or unreadable)."""
    try:
        with open(f"{where['dir']}/HEAD", encoding="utf-8") as handle:
            first = handle.read().strip()
    except OSError:
        return ""
    return first[5:].strip() if first.startswith("ref: ") else ""


class Foreign:
    """What foreign commits did to one file outside the memory (``foreign_lines``): the lines they
    added that the trusted branch lacks (None: the file is all theirs), the hold naming the newest
    of them, the file as each of them wrote it (with its hold), and the trusted branch's version
    (None: it has none)."""

    __slots__ = ("keys", "hold", "theirs", "trusted")

    def __init__(self, keys: set[str] | None, hold: Hold, theirs: list[tuple[str, Hold]], trusted: str | None):
        self.keys, self.hold, self.theirs, self.trusted = keys, hold, theirs, trusted


def foreign_lines(layout: Layout, paths: list[str]) -> dict[str, Foreign]:
    """For files of the work tree outside the memory (the instruction files ``memcli import``
    reads): the lines of each (``source_key``) that a foreign commit added and the trusted branch's
    version of the file lacks; None for a file that is all theirs (a symlink a foreign commit made:
    they chose what it shows).  The memory's own rule (the module's docstring) applied to other
    files, so an import cannot turn a contributor's unreviewed CLAUDE.md into the reader's own
    memory.  Foreign commits on any branch count (a file is the work of the commits that wrote it,
    however it arrived).  Files with nothing foreign are left out; all of them outside git and with
    no remote and no ``FETCH_HEAD``.  With the lines, the file as each foreign commit wrote it and
    as the trusted branch has it: a line they took out or moved adds nothing, yet changes what the
    lines around it say (``memcli import`` compares its units).  Raises GitFailed when git does not answer.  ``paths`` are
    absolute, as named (a symlink's own path); the answer is keyed by the same strings."""
    where = _found(layout) or _where(layout)
    if where is None or not paths:
        return {}
    top = os.path.realpath(where["top"])
    refs = _refs(top)
    config = _config(top)
    ref_t, _ = trusted_ref(refs, config)
    if not _was_fetched(where) and not _has_remote(config):
        return {}
    named: dict[str, tuple[str, str]] = {}  # path -> (its own place, what it resolves to), from the top
    for p in paths:
        link = os.path.join(os.path.realpath(os.path.dirname(p)), os.path.basename(p))
        rels = (os.path.relpath(link, top), os.path.relpath(os.path.realpath(p), top))
        if not rels[0].startswith(".."):
            named[p] = (rels[0].replace(os.sep, "/"), rels[1].replace(os.sep, "/"))
    if not named:
        return {}
    head_ref = _head_ref(where)
    here = _checked_out(where, bool(head_ref) and head_ref not in refs)
    from memcli.git.repo import git_input

    # What is checked out and every branch and tag: a file is the work of the commits that wrote
    # it, whether it came by a checkout, a merge, a squash or `git checkout BRANCH -- CLAUDE.md`.
    asked = sorted({r for pair in named.values() for r in pair if not r.startswith("..")})
    revisions = [*here, "--branches", "--remotes", "--tags", *(["--not", ref_t] if ref_t else [])]
    command = _log_command(revisions, *asked)
    made = _local_commits(where)
    logged = _parse_log(git_input(top, *command, input="", timeout=GIT_TIMEOUT * 3))
    made -= _applied_here(top, [c.id for c in logged if c.id in made])
    foreign = [c for c in logged if c.id not in made]
    if not foreign:
        return {}
    wanted = [b for c in foreign for _, parents, new in c.wrote for b in (*parents, new)]
    blobs = _blobs(top, wanted + ([f"{ref_t}:{rel}" for rel in asked] if ref_t else []))

    def lines(raw: bytes) -> set[str]:
        return {k for k in map(source_key, raw.decode("utf-8", "replace").splitlines()) if k}

    added: dict[str, set[str]] = {}
    by: dict[str, Commit] = {}  # the newest foreign commit that changed each path
    versions: dict[str, list[tuple[str, Commit]]] = {}  # each path as foreign commits wrote it
    pointers = _foreign_pointers(top, foreign, ref_t)
    for c in foreign:
        for path, parents, new in c.wrote:
            if new not in blobs:
                continue
            before = set().union(*(lines(blobs.get(b, b"")) for b in parents)) if parents else set()
            reviewed = lines(blobs.get(f"{ref_t}:{path}", b"")) if ref_t else set()
            theirs = lines(blobs[new]) - before - reviewed
            added.setdefault(path, set()).update(theirs)
            by.setdefault(path, c)
            versions.setdefault(path, []).append((blobs[new].decode("utf-8", "replace"), c))
    found: dict[str, tuple[set[str] | None, Commit, str]] = {}
    for p, (link, real) in named.items():
        if link in pointers:  # a submodule their commit added or moved: whatever it holds is their choice
            found[p] = (None, pointers[link], link)
        elif link != real and link in added:
            found[p] = (None, by[link], link)  # a symlink of theirs: whatever it leads to is their choice
        elif real in added:
            found[p] = (added[real], by[real], real)
    infos = _infos(
        top, sorted({c.id for rel in found.values() for c in [rel[1], *(v[1] for v in versions.get(rel[2], []))]})
    )

    def hold(p: str, c: Commit) -> Hold:
        return Hold(named[p][0], {**infos.get(c.id, {"commit": c.id}), "ref": c.ref}, [], [])

    out: dict[str, Foreign] = {}
    for p, (keys, c, rel) in found.items():
        on_t = blobs.get(f"{ref_t}:{rel}") if ref_t else None
        versions_held = [(text, hold(p, by_c)) for text, by_c in versions.get(rel, [])]
        out[p] = Foreign(keys, hold(p, c), versions_held, None if on_t is None else on_t.decode("utf-8", "replace"))
    return out


def _foreign_pointers(top: str, foreign: list[Commit], ref_t: str | None) -> dict[str, Commit]:
    """The submodules (their paths) whose pointer a foreign commit wrote, unless the submodule has
    checked out the commit the trusted branch points it at: its own history says only what its own
    default branch holds, and that is the contributor's to choose (their repository)."""
    wrote = {path: c for c in foreign for path, _, new in c.wrote if new == "gitlink"}
    if not wrote:
        return {}
    reviewed: dict[str, str] = {}
    if ref_t:
        done = git(top, "ls-tree", "-z", ref_t, "--", *wrote)
        for record in done.stdout.split("\0") if done is not None and done.returncode == 0 else []:
            info, _, path = record.partition("\t")
            parts = info.split()
            if len(parts) == 3 and parts[1] == "commit":
                reviewed[path] = parts[2]
    from memcli.git.repo import git as run

    out = {}
    for path, c in wrote.items():
        here = run(os.path.join(top, path), "rev-parse", "-q", "--verify", "HEAD", own=True)
        checked_out = here.stdout.strip() if here is not None and here.returncode == 0 else None
        if checked_out is None or reviewed.get(path) != checked_out:
            out[path] = c
    return out


def source_key(line: str) -> str | None:
    """A line as provenance compares it: stripped, an expanded ``$Id$`` put back (a branch's
    .gitattributes may ask git for ``ident``: the work tree's copy expands it); None for a blank
    line.  ``foreign_lines`` compares the lines of sources so; a memory file's, ``_line_key``."""
    line = line.replace("\r", "").strip()
    if "$Id" in line:
        line = re.sub(_IDENT, "$Id$", line)
    return line or None


def _other_work_trees(where: dict[str, Any]) -> list[str]:
    """The commits other work trees of this clone have checked out (``git worktree add``)."""
    out: list[str] = []
    base = f"{where['common']}/worktrees"
    try:
        names = os.listdir(base)
    except OSError:
        return out
    for name in names:
        folder = os.path.join(base, name)
        if os.path.realpath(folder) == os.path.realpath(where["dir"]):
            continue
        try:
            with open(os.path.join(folder, "HEAD"), encoding="utf-8") as handle:
                head = handle.read().strip()
        except OSError:
            continue
        if len(head) in (40, 64) and all(c in "0123456789abcdef" for c in head):
            out.append(head)  # detached there (a branch there is among --branches already)
    return out


def _candidates(
    layout: Layout, top: str, ref_t: str | None, head: str, memrel: str, prefix: str, written: set[str]
) -> list[str]:
    """The memory files that may hold a foreign line, found without stat'ing every memory file
    (at 100,000 entries `git diff` against the work tree and `git ls-files -o` cost 85-160 ms each):

    - the paths foreign commits wrote (a checkout, merge, squash, cherry-pick, ``restore`` or
      ``checkout -- PATH`` of theirs, and memcli's own rewrites of such a file: pin, edit, a hook);
    - every file in those paths' folders (a new file memcli made from theirs: ``supersede``
      carries its tags, ``migrate`` moves a category file's entries into its folder);
    - what HEAD holds that the trusted branch does not, what is staged (two tree diffs), and
      tracked files changed in the work tree (``diff-files``: a stat of each, side by side with
      the others; untracked files elsewhere are the reader's own)."""
    from memcli.git.repo import git_many

    names = set(written)
    memory = str(layout.memory)
    for rel in written:
        folder = os.path.dirname(rel)
        for where in {folder, rel[:-3] if rel.endswith(".md") else ""} - {""}:
            try:
                names.update(f"{where}/{n}" for n in os.listdir(os.path.join(memory, where)))
            except OSError:
                pass
    asked = [["--no-replace-objects", "diff-files", "--name-only", "-z", "--", memrel]]  # changed, not staged
    if ref_t and head:
        asked.append(["--no-replace-objects", "diff", "--name-only", "-z", "--no-renames", ref_t, head, "--", memrel])
    if head:
        asked.append(["--no-replace-objects", "diff-index", "--cached", "--name-only", "-z", head, "--", memrel])
    for done in git_many(top, asked, timeout=GIT_TIMEOUT * 3) if asked else ():
        if done is None or done.returncode != 0:
            raise GitFailed.of("diff", done)
        names.update(n[len(prefix) :] for n in done.stdout.split("\0") if n.startswith(prefix))
    return sorted(n for n in names if n and not n.startswith(".vault/"))


def _files(layout: Layout, rels: list[str]) -> list[tuple[str, str]]:
    """Each candidate's file in the work tree (rel, full path); a symlinked folder's files each."""
    memory = str(layout.memory)
    out = []
    for rel in rels:
        full = os.path.join(memory, rel)
        if os.path.isdir(full):
            for folder, _, names in os.walk(full, followlinks=False):
                for name in names:
                    path = os.path.join(folder, name)
                    out.append((os.path.relpath(path, memory).replace(os.sep, "/"), path))
        else:
            out.append((rel, full))
    return out


# ---------------------------------------------------------------------------- trust decisions


def trust(layout: Layout, digests: list[tuple[str, str]]) -> int:
    """Record the reader's trust in these contents ((digest, what) pairs); how many were new."""
    import time

    from memcli.errors import MemcliError

    path = state_file(layout, TRUST_FILE, common=True)
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        seal = _trust_file(layout)[1]  # (outside git, the folder's seal: made first)
        have = _read_trusted(path, seal)
        now = time.strftime("%Y-%m-%dT%H:%M:%S")
        new = [(d, what) for d, what in dict(digests).items() if d not in have]
        sealed = f"\t{seal}" if seal is not None else ""
        if new:
            with open(path, "a", encoding="utf-8") as handle:
                handle.write("".join(f"{d}\t{what}\t{now}{sealed}\n" for d, what in new))
    except OSError as exc:
        raise MemcliError(f"cannot record trust in {path}: {exc.strerror or exc}") from None
    return len(new)


def branch_commits(layout: Layout, ref: str) -> set[str] | None:
    """The commits ``ref`` brings that the trusted branch lacks (None if ``ref`` is unknown)."""
    where = _where(layout)
    if where is None or ref.startswith("-"):
        return None
    top = where["top"]
    check = git(top, "rev-parse", "--verify", "-q", f"{ref}^{{commit}}")
    if check is None or check.returncode != 0:
        return None
    ref_t, _ = trusted_ref(_refs(top), _config(top))
    memrel = os.path.relpath(os.path.realpath(layout.memory), os.path.realpath(top))
    try:
        return {c.id for c in _log(top, [ref, *(["--not", ref_t] if ref_t else [])], memrel)}
    except GitFailed:
        return None

"""Entry point.  Every command runs on a path that never imports Typer, rich or GitPython
(``memcli.cli.fast`` parses its arguments from the command's spec): ``search`` and ``inject``
run on every agent prompt, and Typer alone costs 60-200 ms to import.  Typer is loaded only
for ``--help``, shell completion, and a command line the fast parser does not accept (a usage
error, printed with Typer's wording and suggestions).  git and agents' hooks call their own
entry points here (``merge-driver``, ``hook``, ``agent-hook``), which never fail their caller.
"""

from __future__ import annotations

import os
import sys

from memcli import output
from memcli.cli.spec import COMMANDS, ENTRY_POINTS, OPTION_LIKE, TEXT_COMMANDS

SERVING = ("mcp", "ui")  # run until stopped: their warnings show as they come
# Run before every agent prompt, and read-only but for caches: in a process of their own they run with
# the cycle collector off and end without tearing the interpreter down (quick_exit).  Measured with
# callgrind (bench/RESULTS.md): the collector's passes over the objects the imports made and the
# teardown (freeing every module, one more collection) were 22 M of search's 170 M instructions.
QUICK_EXIT = ("search", "inject")


def split_global(argv: list[str]) -> tuple[str | None, list[str]] | None:
    """``--dir PATH`` before the command, and the rest.  None if anything else is there."""
    dir_option = None
    i = 0
    while i < len(argv) and argv[i].startswith("-"):
        arg = argv[i]
        if arg == "--dir" and i + 1 < len(argv):
            dir_option = argv[i + 1]
            i += 2
        elif arg.startswith("--dir="):
            dir_option = arg[len("--dir=") :]
            i += 1
        else:
            return None
    return dir_option, argv[i:]


def protect_text(argv: list[str]) -> list[str]:
    """Let ``memcli add dev tasks "- [ ] write the test"`` store the text as typed.

    For the commands whose last arguments are free text (add, edit, search, inject), an argument
    that starts with '-' but cannot be an option ("- [ ] x", "-5") is text: it moves after a
    ``--``.  For ``search`` and ``inject``, whose text is a query or a task that may be anything,
    so is one that looks like an option the command does not have ("--force", "-rf"); ``add`` and
    ``edit`` refuse those instead (a mistyped ``--tags`` must not become an entry's text).
    ``--help``/``-h`` stay help.
    """
    parsed = split_global(argv)
    if not parsed or not parsed[1] or parsed[1][0] not in TEXT_COMMANDS or "--" in argv:
        return argv
    from memcli.cli.fast import load
    from memcli.cli.spec import DIR

    params = (*load(parsed[1][0]).SPEC.params, DIR)
    takes_value = {f for p in params if p.kind in ("option", "options") for f in p.flags}
    known = {f for p in params if p.kind in ("option", "options", "flag") for f in p.flags} | {"-h", "--help"}
    start = len(argv) - len(parsed[1]) + 1  # the arguments after the command's name
    head, texts = list(argv[:start]), []
    i = start
    while i < len(argv):
        arg = argv[i]
        i += 1
        if not arg.startswith("-") or arg == "-":
            head.append(arg)
            continue
        name = arg.partition("=")[0] if arg.startswith("--") else arg[:2]
        if OPTION_LIKE.fullmatch(arg) and (name in known or parsed[1][0] in ("add", "edit")):
            head.append(arg)
            if arg in takes_value and i < len(argv):  # its value, whatever it looks like
                head.append(argv[i])
                i += 1
        else:
            texts.append(arg)
    return head + ["--", *texts] if texts else argv


def main(argv: list[str] | None = None) -> int:
    own = argv is None  # the process's own command line: memcli runs as a program, not called in one
    argv = list(sys.argv[1:] if argv is None else argv)
    if sys.stdout is None or sys.stderr is None:  # started with one closed (`2>&-`): what goes there is lost,
        _closed_streams_to_null()  # not an error (inject and the hooks exit 0 whatever they cannot say)
    if sys.platform == "win32":  # the lock is fcntl's, the hooks and the wrapper are sh: POSIX only
        parsed = split_global(argv)
        if parsed and parsed[1][:1] in (["inject"], ["agent-hook"], ["hook"]):
            return 0  # a wrapper or a hook goes on without memory
        sys.stderr.write("memcli: error: memcli runs on POSIX systems (Linux, macOS, WSL), not on Windows\n")
        return 1
    os.environ.setdefault("RUST_BACKTRACE", "0")  # a tantivy panic (a corrupt index, healed) says one line
    bad = _not_utf8(argv)
    if bad is not None:
        parsed = split_global(argv)
        if parsed and parsed[1][:1] == ["inject"]:  # a wrapper must go on: the words as near as they can be
            argv = [a.encode("utf-8", "surrogateescape").decode("utf-8", "replace") for a in argv]
        else:
            sys.stderr.write(f"memcli: error: argument {bad + 1} is not UTF-8 text; nothing done\n")
            return 1
    try:
        parsed = split_global(argv)
        if parsed and parsed[1][:1] == ["__complete"]:
            return _complete(parsed[0], parsed[1][1:])
        if parsed and parsed[1] and parsed[1][0] in ENTRY_POINTS:  # run by git or an agent: no Typer
            return _entry_point(parsed[1][0], parsed[1][1:], parsed[0])
        if parsed and parsed[1] and parsed[1][0] in COMMANDS:
            from memcli.cli import fast

            if parsed[1][0] in TEXT_COMMANDS:
                argv = protect_text(argv)
                parsed = split_global(argv)
                assert parsed is not None  # protect_text only moves arguments after the command
            if parsed[1][0] not in SERVING:
                output.hold_warnings()  # a command that fails says one line: its error
            quick = own and parsed[1][0] in QUICK_EXIT
            if quick:
                import gc

                gc.disable()  # short-lived; what it allocates goes with the process (cycles are rare)
            code = fast.run(parsed[1][0], parsed[1][1:], parsed[0])
            output.release_warnings(failed=False)
            if code is not None:
                if quick:
                    quick_exit(code)
                return code
        elif argv == ["--version"]:
            from memcli import __version__

            sys.stdout.write(f"memcli {__version__}\n")
            return 0
        from memcli.cli.app import run

        return run(protect_text(argv))
    except BaseException as exc:  # tantivy's PanicException is a BaseException too
        if isinstance(exc, SystemExit):
            output.release_warnings(failed=exc.code not in (0, None))
            raise
        if isinstance(exc, KeyboardInterrupt):
            output.release_warnings(failed=True)
            sys.stderr.write("memcli: interrupted\n")
            return 130
        from memcli.errors import MemcliError

        if isinstance(exc, MemcliError):
            held = output.release_warnings(failed=True)
            more = (
                f" ({held} warning{'s' if held > 1 else ''} held back: MEMCLI_DEBUG=1 shows {'them' if held > 1 else 'it'})"
                if held
                else ""
            )
            sys.stderr.write(f"memcli: error: {output.visible(exc.message, lines=False)}{more}\n")
            return exc.exit_code
        from memcli.storage.fsutil import CannotWrite

        if isinstance(exc, CannotWrite):  # the system refused a write: not a bug, one line naming the path
            output.release_warnings(failed=True)
            sys.stderr.write(f"memcli: error: {output.visible(exc.message, lines=False)}\n")
            return 1
        output.release_warnings(failed=False)  # anything else: every word helps
        if isinstance(exc, BrokenPipeError):
            return _quiet_broken_pipe()
        if isinstance(exc, OSError) and exc.errno in (28, 5):  # ENOSPC, EIO: where the output goes
            sys.stderr.write(f"memcli: error: cannot write the output: {exc.strerror}\n")
            return 1
        if os.environ.get("MEMCLI_DEBUG"):
            raise
        # A bug: still one line, unless asked for the traceback.
        sys.stderr.write(f"memcli: internal error: {type(exc).__name__}: {exc} (MEMCLI_DEBUG=1 shows a traceback)\n")
        return 1


def _closed_streams_to_null() -> None:
    for name in ("stdout", "stderr"):
        if getattr(sys, name) is None:
            setattr(sys, name, open(os.devnull, "w", encoding="utf-8"))  # noqa: SIM115 (the process's own)


def quick_exit(code: int) -> None:
    """End this process now, as a normal exit would but for freeing what it holds: the output
    flushed (a reader gone away raises here, inside ``main``'s handlers), the functions registered
    with ``atexit`` run (``_discard_build``; weakref finalizers), then ``os._exit``.  Nothing is
    left to close: memcli's writes are whole files closed where made (fsutil), tantivy's writers
    are committed and their merges waited for, and the lock is released with the process."""
    import atexit

    _flush()
    atexit._run_exitfuncs()
    _flush()
    os._exit(code)


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:  # None: started with it closed (`>&-`)
            stream.flush()


def _entry_point(name: str, args: list[str], dir_option: str | None) -> int:
    """What git (``merge-driver``, ``hook``) and agents' session hooks (``agent-hook``) run, their
    arguments read from their specs (``cli.spec.ENTRY_POINTS``) as every command's are.  A wrong
    call gets the usage: on stderr with exit 2 for git's (a person typed it), never a failure for
    an agent's hook (``--help`` prints it)."""
    from memcli.cli.fast import parse
    from memcli.cli.spec import POSITIONAL_ONLY

    spec = ENTRY_POINTS[name]
    asks_help = name not in POSITIONAL_ONLY and ("-h" in args or "--help" in args)
    values = None if asks_help else parse(spec, ["--", *args] if name in POSITIONAL_ONLY else args)
    if values is None:
        usage = f"usage: memcli {name} {spec.help}"
        if name == "agent-hook":
            if asks_help:
                sys.stdout.write(usage + "\n")
            elif os.environ.get("MEMCLI_DEBUG"):
                sys.stderr.write(f"memcli: agent-hook: cannot read {args!r}; {usage}\n")
            return 0
        sys.stderr.write(f"memcli: error: {usage}\n")
        return 2
    dir_option = values.pop("dir") or dir_option
    if name == "merge-driver":
        from memcli.git.merge import run_driver

        return run_driver(**values)
    if name == "hook":
        from memcli.git.hooks import run as run_hook

        return run_hook(values["name"], dir_option)
    from memcli.agents.hook import run as run_agent_hook

    return run_agent_hook(values["client"], values["agent"], dir_option, values["user"])


def _not_utf8(argv: list[str]) -> int | None:
    """The index of the first argument that was not valid UTF-8 (Python keeps such bytes as lone
    surrogates), or None."""
    for n, arg in enumerate(argv):
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError:
            return n
    return None


def _quiet_broken_pipe() -> int:
    """The reader went away (`memcli list | head`): not an error."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return 0


def _complete(dir_option: str | None, what: list[str]) -> int:
    """Names for shell completion (agents or categories), one a line; never an error."""
    from memcli.storage.paths import find_layout

    try:
        layout = find_layout(dir_option)
        if what == ["agents"]:
            from memcli.storage.store import Store

            names = Store(layout).agents()
        elif what == ["categories"]:
            from memcli.config import load_config

            names = list(load_config(layout.memory).vault_categories)
        else:
            names = []
    except Exception:
        from memcli.config import DEFAULT_CATEGORIES

        names = list(DEFAULT_CATEGORIES) if what == ["categories"] else []
    sys.stdout.write("".join(f"{n}\n" for n in names))
    return 0

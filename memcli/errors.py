"""Errors that the CLI turns into one line on stderr and an exit code."""

# Exit codes: the one place that says them.  `memcli --help` (short), the man page and the README's
# "Exit codes" table (long) are made from this table (``python -m memcli.cli.docs``).
EXIT_ERROR = 1
EXIT_USAGE = 2  # Click's code for a usage error, which memcli keeps
EXIT_NO_CHECKPOINT = 3
EXIT_CODES = (
    (0, "ok", "success (and always for `inject`, whatever the memory holds and however large its `--budget`)"),
    (
        EXIT_ERROR,
        "error (bad input, missing memory, refused write)",
        "an error: bad input, missing `.memory/` (run `memcli init`), refused write, lock timeout; `audit`: memory"
        " that would be held back",
    ),
    (
        EXIT_USAGE,
        "usage error",
        "a usage error: unknown command or option, bad option value — for `inject` too (`--budget 0`, `--format"
        " xml`): nothing is printed on stdout",
    ),
    (EXIT_NO_CHECKPOINT, "`recover` found no valid checkpoint", "`recover`: no valid checkpoint"),
)


class MemcliError(Exception):
    """An error with a message meant for the user (one line, no traceback)."""

    exit_code = EXIT_ERROR

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class NotInitialized(MemcliError):
    pass


class InvalidName(MemcliError):
    pass


class NotFound(MemcliError):
    pass


class LockTimeout(MemcliError):
    pass


class VaultFormatError(MemcliError):
    pass

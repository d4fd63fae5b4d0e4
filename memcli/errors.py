"""Errors that the CLI turns into one line on stderr and an exit code."""

# Exit codes, documented in one place (README "Exit codes" and `memcli --help`).
EXIT_OK = 0
EXIT_ERROR = 1  # bad input, missing memory, refused write, lock timeout ...
EXIT_USAGE = 2  # command-line usage error (unknown option, bad value)
EXIT_NO_CHECKPOINT = 3  # `recover`: no valid checkpoint for that agent


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

"""Exit statuses and the one exception type that carries a user-facing message."""

# The exit statuses are shared with hpcprobe-bench (docs/cli.md), so a script can treat
# both programs alike.
EXIT_OK = 0
EXIT_VALIDATION_FAILED = 1
EXIT_BAD_INPUT = 2
EXIT_RUNTIME_FAILURE = 3
# An output that could not be written: a full disk, a closed pipe, /dev/full.
EXIT_IO_FAILURE = 4


class HpcprobeError(Exception):
    """A failure to report as one line on stderr, ending the program with `exit_status`."""

    def __init__(self, message: str, exit_status: int = EXIT_RUNTIME_FAILURE) -> None:
        super().__init__(message)
        self.message = message
        self.exit_status = exit_status


class UsageError(HpcprobeError):
    """Bad command-line input: exit status 2, like hpcprobe-bench."""

    def __init__(self, message: str) -> None:
        super().__init__(message, EXIT_BAD_INPUT)

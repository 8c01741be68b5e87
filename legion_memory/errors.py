"""The single error root. The CLI turns any of these into one line and an exit code."""

from __future__ import annotations

EXIT_OK = 0
EXIT_DOMAIN = 1
EXIT_USAGE = 2
EXIT_WRITE = 3


class LegionMemoryError(Exception):
    """Root of every error the tool raises on purpose."""

    exit_code = EXIT_DOMAIN

    def __init__(self, message: str, *, where: str = "", hint: str = "") -> None:
        self.message = message
        self.where = where
        self.hint = hint
        super().__init__(self.line())

    def line(self) -> str:
        """One line: where, what, what to do."""
        text = f"{self.where}: {self.message}" if self.where else self.message
        return f"{text} ({self.hint})" if self.hint else text


class InputError(LegionMemoryError):
    """A value given by the caller is invalid (bad enum, date, ID, secret...)."""

    exit_code = EXIT_USAGE


class ParseError(LegionMemoryError):
    """A memory file cannot be understood well enough to be changed safely."""


class SchemaError(LegionMemoryError):
    """A memory table's columns do not match what its file kind requires."""


class UnsafePathError(ParseError):
    """A memory path cannot be read safely, or at all: not a regular file, a link leading out of
    the project, or refused by the system. Readers treat it as unreadable; it is never written."""


class GitError(LegionMemoryError):
    """Git could not answer or refused an operation."""


class RollbackError(LegionMemoryError):
    """A multi-file change failed and was rolled back; nothing was changed."""


class WriteError(LegionMemoryError):
    """A write failed; the caller must show the intended record so it is not lost."""

    exit_code = EXIT_WRITE

    def __init__(self, message: str, *, where: str = "", hint: str = "", record: str = "") -> None:
        super().__init__(message, where=where, hint=hint)
        self.record = record


class LockError(WriteError):
    """The memory lock could not be taken (in time, or at all): nothing was written."""


class IntegrityError(LegionMemoryError):
    """What is about to be written does not re-parse to the intended records: a bug."""


EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE: what `git log | head` reports
EXIT_INTERRUPTED = 130  # 128 + SIGINT

_OS_HINTS = {
    "EISDIR": "a file is expected there: move the directory away, then retry",
    "ENOTDIR": "a directory is expected there: move the file away, then retry",
    "EACCES": "check the permissions of that path, then retry",
    "EPERM": "check the permissions of that path, then retry",
    "EROFS": "the file system is read-only: run from a writable checkout",
    "ENOSPC": "free some disk space, then retry",
    "EDQUOT": "free some disk space, then retry",
    "ELOOP": "a symbolic link is in the way (or loops): replace it with a regular file",
}


class FileSystemError(LegionMemoryError):
    """The operating system refused to read a path the command needs (a directory where a file
    should be, no permission). Nothing was changed."""


def os_error_parts(error: OSError) -> tuple[str, str, str]:
    """What the system said, the path it said it of, and what to do: one line's three parts."""
    import errno

    name = errno.errorcode.get(error.errno or 0, "")
    what = (error.strerror or str(error)).lower()
    where = str(error.filename) if error.filename is not None else ""
    return what, where, _OS_HINTS.get(name, "check that path, then retry")


def symlink_loop(error: RuntimeError) -> OSError | None:
    """The OSError that `Path.resolve` reports as RuntimeError before Python 3.13: a link that
    leads back to itself. None for any other RuntimeError, which is a bug and is not hidden."""
    prefix = "Symlink loop from "
    message = str(error)
    if not message.startswith(prefix):
        return None
    import errno

    return OSError(
        errno.ELOOP, "too many levels of symbolic links", message[len(prefix) :].strip("'")
    )


def file_system_error(error: OSError) -> FileSystemError:
    what, where, hint = os_error_parts(error)
    return FileSystemError(what, where=where, hint=hint)

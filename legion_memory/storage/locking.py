"""The memory directory's exclusive lock, and the directory itself, created on first write.

Every change of memory files happens under the lock (a separate file, never a data file), and
taking it first rolls back a journaled change that a killed process left half done.
"""

import fcntl
import os
import stat
import time
from pathlib import Path

from legion_memory.errors import LockError, WriteError
from legion_memory.storage.confinement import require_inside
from legion_memory.storage.files import TEMP_PREFIX, TEMP_SUFFIX, atomic_write
from legion_memory.storage.reading import JOURNAL_NAME, LOCK_NAME, Memory

GITIGNORE = f"{LOCK_NAME}\n{JOURNAL_NAME}\n{TEMP_PREFIX}*{TEMP_SUFFIX}\n"
LOCK_TIMEOUT_SECONDS = 30.0


def locked(memory: Memory, timeout: float | None = None) -> "_Locked":
    """Hold the memory directory's exclusive lock (a separate file, never a data file), waiting
    up to `timeout` seconds (LOCK_TIMEOUT_SECONDS by default) for another command to finish.

    A change interrupted by a killed process is rolled back first; `with` gives the files it
    restored.
    """
    return _Locked(memory, timeout)


class _Locked:
    """`locked`'s context manager: a class, not `contextlib`'s, which a store would import for
    it alone (docs/decisions.md#what-a-store-imports)."""

    def __init__(self, memory: Memory, timeout: float | None) -> None:
        self.memory, self.timeout, self.handle = memory, timeout, -1

    def __enter__(self) -> list[str]:
        memory = self.memory
        ensure_directory(memory)
        self.handle = _open_lock(memory.lock_path)
        try:
            _wait_for_lock(self.handle, memory, self.timeout)
            return _roll_back_leftover(memory)
        except BaseException:
            os.close(self.handle)
            raise

    def __exit__(self, *_: object) -> None:
        os.close(self.handle)  # closing releases the lock


def _wait_for_lock(handle: int, memory: Memory, timeout: float | None) -> None:
    deadline = time.monotonic() + (LOCK_TIMEOUT_SECONDS if timeout is None else timeout)
    while True:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() > deadline:
                raise LockError(
                    "memory is locked by another process",
                    where=str(memory.lock_path),
                    hint="retry when the other legion-memory command has finished",
                ) from None
            time.sleep(0.005)


def _open_lock(path: Path) -> int:
    """The lock file, opened for `flock`: a committed lock that is a link must not make the tool
    create or open a file elsewhere, and one that is a FIFO or a device is no lock."""
    try:
        flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
        handle = os.open(path, flags, 0o644)
    except OSError as exc:
        why = "it is a symbolic link" if os.path.islink(path) else exc.strerror or str(exc)
        raise LockError(f"cannot open the memory lock: {why}; nothing was written", where=str(path),
                        hint=_LOCK_HINT) from None  # fmt: skip
    if not stat.S_ISREG(os.fstat(handle).st_mode):
        os.close(handle)
        raise LockError(
            "the memory lock is not a regular file; nothing was written",
            where=str(path),
            hint=_LOCK_HINT,
        )
    return handle


_LOCK_HINT = "remove it (no legion-memory command may be running) and retry"


def _roll_back_leftover(memory: Memory) -> list[str]:
    # Almost every lock finds no journal: the journal module is imported only when there is one.
    if not memory.journal_path.exists():
        return []
    from legion_memory.storage import journal
    from legion_memory.storage.writing import journal_files

    return journal.roll_back_leftover(memory.journal_path, journal_files())


def ensure_directory(memory: Memory) -> None:
    """Create the memory directory on first write, with a .gitignore for the lock file; never
    through a link that leads out of the project."""
    require_inside(memory.directory, memory.directory)
    if memory.directory.is_dir():
        return
    try:
        memory.directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise WriteError(
            f"cannot create the memory directory: {exc.strerror or exc}; nothing was written",
            where=str(memory.directory),
        ) from None
    atomic_write(memory.directory / ".gitignore", GITIGNORE)

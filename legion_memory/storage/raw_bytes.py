"""A memory file's bytes read with `os` alone: for the git hooks' clean-memory scan, which must
not import pathlib or anything else that `storage.files` needs."""

from __future__ import annotations

import io
import os
import stat


def open_raw(path: str) -> io.BufferedReader | None:
    """The file opened for reading bytes, line by line (a large file is never held whole); None
    when it cannot be read as a regular file (missing, a directory, a FIFO or a device, which a
    commit can put there and whose reading would never end, denied)."""
    try:
        # Non-blocking, so that opening a FIFO with no writer returns at once instead of waiting.
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        if stat.S_ISREG(os.fstat(descriptor).st_mode):
            return open(descriptor, "rb")
    except OSError:
        pass
    os.close(descriptor)
    return None

"""A memory file's bytes read with `os` alone: for the git hooks' clean-memory scan, which must
not import pathlib or anything else that `storage.files` needs."""

from __future__ import annotations

import os
import stat


def read_raw(path: str) -> bytes | None:
    """The file's bytes; None when it cannot be read as a regular file (missing, a directory, a
    FIFO or a device, which a commit can put there and whose reading would never end, denied)."""
    try:
        # Non-blocking, so that opening a FIFO with no writer returns at once instead of waiting.
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            return None
        with open(descriptor, "rb", closefd=False) as handle:
            return handle.read()
    except OSError:
        return None
    finally:
        os.close(descriptor)

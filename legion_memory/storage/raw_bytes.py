"""A memory file's bytes read with `os` alone: for the git hooks' clean-memory scan, which must
not import pathlib or anything else that `storage.files` needs."""

from __future__ import annotations

import io


def open_raw(path: str) -> io.BufferedReader | None:
    """The file opened for reading bytes, line by line (a large file is never held whole); None
    when it cannot be opened as a file."""
    try:
        return open(path, "rb")
    except OSError:
        return None

"""A memory file's bytes read with `os` alone: for the git hooks' clean-memory scan, which must
not import pathlib or anything else that `storage.files` needs."""

from __future__ import annotations


def read_raw(path: str) -> bytes | None:
    """The file's bytes; None when it cannot be read as a file (missing, a directory, denied)."""
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError:
        return None

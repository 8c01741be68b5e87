"""File primitives of the storage layer: read, atomic replace, fsync. Memory files are read
through `reading` and changed through `store`; the merge driver (git's temporary versions, its
merge log) and `doctor` (the merge log) use a few primitives directly."""

from __future__ import annotations

import os
from pathlib import Path

from legion_memory.errors import ParseError, WriteError

TEMP_PREFIX, TEMP_SUFFIX = ".legion-memory-", ".tmp"


def read_text(path: Path) -> str | None:
    """A file's text, or None when it does not exist. Not UTF-8 -> ParseError naming the line."""
    data = read_data(path)
    return None if data is None else decode(path, data)


def read_data(path: Path) -> bytes | None:
    """A file's bytes, or None when it does not exist."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def decode(path: Path, data: bytes) -> str:
    """The text of `path`'s bytes. Not UTF-8 -> ParseError naming the line."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ParseError(
            "file is not valid UTF-8", where=f"{path}:{line}", hint="re-save it as UTF-8"
        ) from exc


def atomic_write(path: Path, text: str, errors: str = "strict") -> None:
    """Replace `path` with `text`: temp file in the same directory, fsync, same mode, rename."""
    data = text.encode("utf-8", errors)
    mode = _mode_for(path)
    fd, temp = _create_temp(path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp, mode)
        os.replace(temp, path)
    except OSError as exc:
        Path(temp).unlink(missing_ok=True)
        raise WriteError(f"could not write: {exc.strerror or exc}", where=str(path)) from exc
    fsync_directory(path.parent)


def _create_temp(directory: Path) -> tuple[int, Path]:
    """A new private file in `directory`, as `tempfile.mkstemp` makes one: importing tempfile
    (shutil, random, bz2, lzma) would cost a store on a small file more than its write."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    while True:
        temp = directory / f".legion-memory-{os.urandom(6).hex()}.tmp"
        try:
            return os.open(temp, flags, 0o600), temp
        except FileExistsError:
            continue  # a name already taken: draw another


def _mode_for(path: Path) -> int:
    try:
        return path.stat().st_mode & 0o7777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def fsync_directory(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def read_bytes(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise WriteError(f"could not read back: {exc.strerror or exc}", where=str(path)) from exc


def remove(path: Path) -> None:
    try:
        path.unlink(missing_ok=True)
        fsync_directory(path.parent)
    except OSError as exc:
        raise WriteError(f"could not remove: {exc.strerror or exc}", where=str(path)) from exc


def read_version(path: Path) -> str:
    """A file version git hands to the merge driver; bytes that are not UTF-8 survive the trip."""
    return path.read_bytes().decode("utf-8", "surrogateescape")


def write_version(path: Path, text: str) -> None:
    """Write a merge result where git expects it (the `%A` file), atomically."""
    atomic_write(path, text, errors="surrogateescape")


def append_lines(path: Path, lines: list[str]) -> None:
    """Add lines to a small log file (created when missing); one write, flushed to disk."""
    with path.open("a", encoding="utf-8") as handle:
        handle.write("".join(line + "\n" for line in lines))
        handle.flush()
        os.fsync(handle.fileno())


def discard(path: Path) -> None:
    path.unlink(missing_ok=True)

"""File primitives of the storage layer: read, atomic replace, fsync. Memory files are read
through `reading` and changed through `store`; the merge driver (git's temporary versions, its
merge log) and `doctor` (the merge log) use a few primitives directly."""

from __future__ import annotations

import io
import os
import stat
from pathlib import Path

from legion_memory.errors import ParseError, UnsafePathError, WriteError
from legion_memory.storage.confinement import require_inside

TYPE_CHECKING = False  # not typing's: docs/decisions.md#hot-paths-without-typing
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import BinaryIO

TEMP_PREFIX, TEMP_SUFFIX = ".legion-memory-", ".tmp"


def read_text(path: Path) -> str | None:
    """A file's text, or None when it does not exist. Not UTF-8 -> ParseError naming the line."""
    data = read_data(path)
    return None if data is None else decode(path, data)


def read_data(path: Path) -> bytes | None:
    """A file's bytes, or None when it does not exist. Only a regular file is read, and a project's
    memory file only inside the project: anything else raises UnsafePathError (readers warn and
    go on without it), an unreadable one ParseError."""
    handle = _open_regular(path)
    if handle is None:
        return None
    with handle:
        try:
            return handle.read()
        except OSError as exc:
            raise _unreadable(path, exc) from None


def read_lines(path: Path) -> list[str] | None:
    """`read_text` as lines, each with its ending (split on "\\n" only), or None: decoded line by
    line, so that the file is never held whole, nor as one string, which one emoji makes four bytes
    a character (docs/decisions.md#memory-as-lines). Checked and refused as `read_data` does."""
    handle = _open_regular(path)
    if handle is None:
        return None
    with handle:
        try:
            # A multi-byte character never holds a newline byte: the file decodes if each line does.
            # `bytes.decode` called from C by `map`, its default UTF-8 named by no argument.
            return list(map(bytes.decode, handle))
        except UnicodeDecodeError:
            handle.seek(0)
            decode(path, handle.read())  # the same error, naming the same line
            raise
        except OSError as exc:
            raise _unreadable(path, exc) from None


def decode_lines(path: Path, data: bytes) -> list[str]:
    """`decode(path, data)` as lines, each with its ending, decoded one by one (`read_lines`)."""
    try:
        # `bytes.decode` called from C by `map`, its default UTF-8 named by no argument.
        return list(map(bytes.decode, io.BytesIO(data)))
    except UnicodeDecodeError:
        decode(path, data)  # the same error, naming the same line
        raise


def _open_regular(path: Path) -> BinaryIO | None:
    require_inside(path)
    try:
        # Non-blocking, so that opening a FIFO returns at once instead of waiting for a writer.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise _unreadable(path, exc) from None
    try:
        require_regular(path, os.fstat(fd).st_mode)
    except UnsafePathError:
        os.close(fd)
        raise
    return open(fd, "rb")


def _unreadable(path: Path, exc: OSError) -> UnsafePathError:
    return UnsafePathError(f"cannot be read: {exc.strerror or exc}", where=str(path))


def require_regular(path: Path, mode: int) -> None:
    """UnsafePathError unless `mode` is a regular file's: a FIFO or a device never ends."""
    if not stat.S_ISREG(mode):
        raise UnsafePathError(
            f"is not a regular file but {_file_type(mode)}; it is not read",
            where=str(path),
            hint="replace it with a memory file, or remove it",
        )


def _file_type(mode: int) -> str:
    kinds = {
        stat.S_IFDIR: "a directory",
        stat.S_IFIFO: "a FIFO",
        stat.S_IFCHR: "a character device",
        stat.S_IFBLK: "a block device",
        stat.S_IFSOCK: "a socket",
    }
    return kinds.get(stat.S_IFMT(mode), "not a file")


def decode(path: Path, data: bytes) -> str:
    """The text of `path`'s bytes. Not UTF-8 -> ParseError naming the line."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ParseError(
            "file is not valid UTF-8", where=f"{path}:{line}", hint="re-save it as UTF-8"
        ) from exc


def atomic_write(
    path: Path, text: str | bytes | tuple[bytes | memoryview, ...], errors: str = "strict"
) -> None:
    """Replace `path` with `text` (or bytes already encoded, or pieces of them, written one after
    the other and never joined): temp file in the same directory, fsync, same mode, rename."""
    if isinstance(text, str):
        pieces: tuple[bytes | memoryview, ...] = (text.encode("utf-8", errors),)
    else:
        pieces = (text,) if isinstance(text, bytes) else text

    def write(handle: BinaryIO) -> None:
        for piece in pieces:
            handle.write(piece)

    replace_with(path, write)


def replace_with(path: Path, write: Callable[[BinaryIO], object]) -> None:
    """`atomic_write` of what `write` writes to the temporary file."""
    require_inside(path)
    temp: Path | None = None
    try:
        mode = _mode_for(path)
        fd, temp = _create_temp(path.parent)
        with os.fdopen(fd, "wb") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp, mode)
        os.replace(temp, path)
        temp = None
        fsync_directory(path.parent)
    except OSError as exc:
        if temp is not None:
            _discard_quietly(temp)
        raise WriteError(f"could not write: {exc.strerror or exc}", where=str(path)) from exc


def _discard_quietly(temp: Path) -> None:
    try:
        temp.unlink(missing_ok=True)
    except OSError:
        return  # the temporary file stays; `doctor --fix` removes it


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


def holds_bytes(path: Path, data: bytes) -> bool:
    """Whether `path` holds exactly `data`, compared a chunk at a time: a store checks under the
    lock that the file is still what it parsed, without reading it whole a second time. Checked
    and refused as `read_data` does; False when the file does not exist."""
    handle = _open_regular(path)
    if handle is None:
        return False
    position = 0
    with handle:
        try:
            while chunk := handle.read(_CHUNK):
                # `bytes.startswith` compares in place; a memoryview would compare byte by byte.
                if not data.startswith(chunk, position):
                    return False
                position += len(chunk)
        except OSError as exc:
            raise _unreadable(path, exc) from None
    return position == len(data)


_CHUNK = 1 << 20


def read_bytes(path: Path) -> bytes | None:
    """Read-back of a file just written (a failure is the write's): regular files only."""
    try:
        return read_data(path)
    except ParseError as exc:
        raise WriteError(f"could not read back: {exc.message}", where=str(path)) from exc


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

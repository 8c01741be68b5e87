"""The three versions git hands the merge driver, read and written in pieces: a large file's
rows all three hold alike are compared and copied as bytes, never held three times over."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

from legion_memory.storage.files import replace_with

TYPE_CHECKING = False  # not typing's: docs/decisions.md#hot-paths-without-typing
if TYPE_CHECKING:
    from typing import BinaryIO

CHUNK = 1 << 20

Copied = tuple[Path, int, int]
"""Bytes `start` to `end` of a file, copied as they are."""


def shared_start(paths: Sequence[Path]) -> int:
    """How many bytes at the start every file holds alike, up to the end of a line."""
    handles = [path.open("rb") for path in paths]
    try:
        done = line_end = 0
        while True:
            blocks = [handle.read(CHUNK) for handle in handles]
            first = blocks[0]
            same = _common_length(blocks)
            newline = first.rfind(b"\n", 0, same)
            if newline >= 0:
                line_end = done + newline + 1
            if same < CHUNK or any(len(block) < CHUNK for block in blocks):
                return line_end
            done += CHUNK
    finally:
        for handle in handles:
            handle.close()


def _common_length(blocks: Sequence[bytes]) -> int:
    """The length of the longest start all blocks share (a binary search of C comparisons)."""
    first = blocks[0]
    low, high = 0, min(len(block) for block in blocks)
    if all(block[:high] == first[:high] for block in blocks[1:]):
        return high
    while low + 1 < high:  # first[:low] is shared, first[:high] is not
        middle = (low + high) // 2
        if all(block[low:middle] == first[low:middle] for block in blocks[1:]):
            low = middle
        else:
            high = middle
    return low


def read_range(path: Path, start: int, end: int | None = None) -> bytes:
    with path.open("rb") as handle:
        handle.seek(start)
        return handle.read() if end is None else handle.read(end - start)


def line_chunks(path: Path, start: int, end: int) -> Iterator[bytes]:
    """Bytes `start` to `end` (a line's end) of the file, in pieces that end at a line's end."""
    with path.open("rb") as handle:
        handle.seek(start)
        left = end - start
        carried = b""
        while left > 0:
            block = handle.read(min(CHUNK, left))
            if not block:
                break
            left -= len(block)
            block = carried + block
            cut = block.rfind(b"\n") + 1 if left > 0 else len(block)
            carried = block[cut:]
            if cut:
                yield block[:cut]
        if carried:
            yield carried


def write_pieces(path: Path, pieces: Sequence[str | Copied]) -> None:
    """Replace `path` atomically (as `files.atomic_write`) with the pieces one after another: text
    (bytes that were not UTF-8 written back as they were) or a range of a file (`path` itself
    included: it is read before the rename)."""

    def write(handle: BinaryIO) -> None:
        for piece in pieces:
            if isinstance(piece, str):
                handle.write(piece.encode("utf-8", "surrogateescape"))
            else:
                for block in line_chunks(*piece):
                    handle.write(block)

    replace_with(path, write)

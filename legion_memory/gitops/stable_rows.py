"""The stable run of a merge: the rows at the start of a table's body that base, ours and theirs
hold byte for byte alike, found as bytes and left out of the merge (docs/decisions.md#stable-rows).

Memory files grow at the end, so two branches' versions of a large file share almost all of it
from the first byte on. Those rows are read once, as they stream past, for what the merge of the
rest must know of them (`row_merge.StableRun`), and copied back into the result as bytes.
"""

import re
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from legion_memory.gitops.row_merge import StableRun
from legion_memory.markdown.cells import cell_count
from legion_memory.markdown.document import Table, parse, split_lines, strip_ending
from legion_memory.named_tuple import NamedTuple
from legion_memory.schema.records import column_key

HEAD_BYTES = 1 << 16
"""How much of the shared start is read to find the table: a memory file's title and prose."""
_MARKERS = (b"<<<<<<<", b">>>>>>>")


class Source(NamedTuple):
    """How the versions' files are read (`storage.versions`: only storage opens them)."""

    shared_start: Callable[[Sequence[Path]], int]
    read_range: Callable[[Path, int, int | None], bytes]
    line_chunks: Callable[[Path, int, int], Iterator[bytes]]


class Split(NamedTuple):
    """The three versions without their stable run, the run, and where it lies in each file."""

    texts: tuple[str, str, str]
    run: StableRun
    start: int
    end: int


def split_versions(paths: Sequence[Path], versions: Source) -> Split | None:
    """The versions (base, ours, theirs) without their stable run; None when they have none, or
    when the run holds what only the merge of whole files answers for (bytes that are not UTF-8,
    conflict markers, a row with more or fewer cells than its header)."""
    shared = versions.shared_start(paths)
    head_bytes = versions.read_range(paths[0], 0, min(shared, HEAD_BYTES))
    head_bytes = head_bytes[: head_bytes.rfind(b"\n") + 1]
    try:
        head = head_bytes.decode("utf-8")
    except UnicodeDecodeError:
        return None
    document = parse(head)
    if not document.tables:
        return None
    table = document.tables[-1]
    start = len(head_bytes) - len("".join(document.lines[table.header + 2 :]).encode("utf-8"))
    if start >= shared:
        return None
    if column_key(table.columns[0]) != "id":  # the ID is read as a row's first cell
        return None
    reader = _RunReader(table)
    end = reader.read(versions.line_chunks(paths[0], start, shared))
    if not end:
        return None
    end += start
    lead = head_bytes[:start].decode("utf-8")
    base, ours, theirs = (lead + _rest(versions, path, end) for path in paths)
    run = reader.run(lambda values: _cells(versions.line_chunks(paths[0], start, end), values))
    return Split((base, ours, theirs), run, start, end)


def _rest(versions: Source, path: Path, start: int) -> str:
    """The file from byte `start` on, bytes that are not UTF-8 kept as `read_version` keeps them."""
    return versions.read_range(path, start, None).decode("utf-8", "surrogateescape")


class _RunReader:
    """The rows of one table from a byte offset on, for as long as they are rows, read a chunk at
    a time by regular expressions rather than row by row."""

    def __init__(self, table: Table) -> None:
        self.header = table.header
        self.width = len(table.columns)
        self.ids: set[str] = set()
        self.highest: dict[str, int] = {}
        self.crlf = self.lf = 0

    def read(self, chunks: Iterator[bytes]) -> int | None:
        """How many bytes the run holds; None when a row in it is one the fast merge must not
        take."""
        at = 0
        for chunk in chunks:
            if b"\0" in chunk or any(marker in chunk for marker in _MARKERS):
                return None
            try:
                text = chunk.decode("utf-8")
            except UnicodeDecodeError:
                return None
            stop = None if _all_rows(text) else re.search(_NOT_A_ROW, text, re.MULTILINE)
            rows = text[: stop.start()] if stop else text
            if not self.take(rows):
                return None
            if stop:
                return at + len(rows.encode("utf-8"))
            at += len(chunk)
        return at

    def take(self, rows: str) -> bool:
        """Note what the merge must know of these rows; False when one cannot be in the run:
        a row with more or fewer cells than the header, one whose first cell is not plainly an
        ID, an ID held twice."""
        lines = split_lines(rows)
        if any(cell_count(strip_ending(line)) != self.width for line in lines):
            return False
        found = _ID_CELL.findall("\n" + rows)
        if len(found) != len(lines):
            return False
        count = len(self.ids)
        self.ids.update(prefix + "-" + number for prefix, number in found)
        if len(self.ids) != count + len(found):
            return False
        for prefix, number in found:
            if int(number) > self.highest.get(prefix, 0):
                self.highest[prefix] = int(number)
        crlf = rows.count("\r\n")
        self.crlf += crlf
        self.lf += len(lines) - crlf
        return True

    def run(self, cells: Callable[[set[bytes]], set[bytes]]) -> StableRun:
        ids = frozenset(self.ids)
        return StableRun(self.header, ids, self.highest, self.crlf, self.lf, cells)


def _cells(chunks: Iterator[bytes], values: set[bytes]) -> set[bytes]:
    """Which of the values (cleaned, white space removed, UTF-8, no pipe) the rows hold as a
    piece between pipes, once unescaped as `markdown.cells.unescape` does and white space (as
    `str.split` sees it) removed: each cell's value is then such a piece, or several joined by
    pipes when it holds one itself."""
    found: set[bytes] = set()
    for chunk in chunks if values else ():
        flat = _flat(chunk) + b"|"  # every row starts with a pipe: each piece has one either side
        found |= {value for value in values - found if b"|" + value + b"|" in flat}
    return found


def _flat(chunk: bytes) -> bytes:
    if chunk.isascii() and b"<" not in chunk:  # most rows: bytes as they are, C all the way
        return chunk.replace(b"\\|", b"|").translate(None, _ASCII_SPACE)
    text = chunk.decode("utf-8").replace("\\|", "|")
    if "<" in text:
        text = re.sub(_BR, "\n", text, flags=re.IGNORECASE)
    return "".join(text.split()).encode("utf-8")


# What `str.split` takes for white space among ASCII characters (the file separators too).
_ASCII_SPACE = bytes(code for code in range(128) if chr(code).isspace())


def _all_rows(text: str) -> bool:
    """Whether every line starts with a pipe, so that each is a table row."""
    return text.startswith("|") and text.count("\n|") == text.count("\n") - 1


# A line holding no unescaped pipe: not a table row (`markdown.document.is_row`). It and the
# line break tag are compiled only for the rows that need them.
_NOT_A_ROW = r"^(?:[^|\n]|(?<=\\)\|)*\n"
# `markdown.document`'s line break tag, kept to one line: a cell never holds a line ending.
_BR = r"<br[^\S\n]*/?>"
# A row whose first cell is plainly an ID, after the line break before it: `row_merge.cell(row,
# 0)` and `split_id` read it as it is. The break makes the search one for a literal.
_ID_CELL = re.compile(r"\n\|[ ]*([A-Za-z]+)-(\d+)[ ]*\|")

"""The hash of each row's identity, read from its line: what finds a record held twice among
100,000 rows without keeping their identities (docs/decisions.md#repeats-by-hash).

Equal identities must hash alike whatever the rows' layout, padding or escapes, so the hash is of
one text: the identity's values joined by " | ". A row written as the tool writes rows holds that
text as it lies, after its ID cell; any other row's values are read and joined.
"""

from collections.abc import Iterator, Sequence
from itertools import compress, repeat
from operator import contains, itemgetter

from legion_memory.markdown.cells import line_cells
from legion_memory.markdown.document import Document, Table
from legion_memory.schema.identity import clean, identity
from legion_memory.schema.kinds import Kind, identity_keys

TYPE_CHECKING = False  # not typing's: docs/decisions.md#hot-paths-without-typing
if TYPE_CHECKING:
    from array import array
    from typing import Any

_JOIN = " | "
# What `clean` collapses, in an ASCII line, but a CR: two spaces, or another whitespace character.
_SPACES = ("  ", "\t", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x1f")
# The whitespace `str.split` knows beyond ASCII (tests/test_validate_rows.py holds it to Python's).
WIDE_SPACES = tuple(
    map(chr, (0x85, 0xA0, 0x1680, *range(0x2000, 0x200B), 0x2028, 0x2029, 0x202F, 0x205F, 0x3000))
)
_ANY_SPACES = _SPACES + WIDE_SPACES


class RowHasher:
    """The hash of the identity of a kind's rows in one table's layout."""

    __slots__ = (
        "columns", "getter", "id_position", "kind", "picker", "single", "tail", "wanted", "width"
    )  # fmt: skip

    def __init__(self, kind: Kind, columns: tuple[str, ...]) -> None:
        self.kind = kind
        self.columns = columns
        self.wanted = kind.prefix + "-"
        last = {key: position for position, key in enumerate(columns)}
        self.id_position = last["id"]
        # A column the table lacks reads empty: the position past the row's cells, where an
        # empty cell is put (and picked last, so that one key too gives a tuple).
        self.width = len(columns)
        positions = [last.get(key, self.width) for key in identity_keys(kind)]
        self.getter = itemgetter(*positions, self.width)
        # The ID first and the identity all the other cells, in order: a row as the tool writes
        # it holds the identity's text after its ID.
        self.tail = self.id_position == 0 and positions == list(range(1, self.width))
        # What picks the identity's cells from a row's when the table has every one of them (a
        # plain run's rows are then hashed from C): the cells after the ID in the tool's layout.
        self.picker: itemgetter[Any] | None = None
        if self.tail:
            self.picker = itemgetter(slice(1, None))
        elif positions and self.width not in positions:
            self.picker = itemgetter(*positions)
        self.single = not self.tail and len(positions) == 1  # its picker gives the cell itself

    def of_line(self, line: str) -> int | None:
        """The hash of the row's identity; None when its ID lacks the kind's prefix."""
        written = _as_written(line, self.width) if self.tail else None
        if written is None:
            return self.of_cells(line, line_cells(line))
        return hash(written[1]) if written[0].startswith(self.wanted) else None

    def of_cells(self, line: str, cells: list[str], plain: bool | None = None) -> int | None:
        """`of_line`, the line's cells (`line_cells`) already read; `plain`, when known, what
        `_clean_text(line)` would say (`all_clean` of the lines around it)."""
        if len(cells) != self.width:  # a ragged row: its record is read as `kind_rows` reads it
            values = dict(zip(self.columns, cells, strict=False))
            if values.get("id", "").startswith(self.wanted):
                return hash(_JOIN.join(identity(self.kind, values)[1:]))
            return None
        if not cells[self.id_position].startswith(self.wanted):
            return None
        picked = self.getter([*cells, ""])
        # An escaped pipe unescapes to a pipe, a `<br>` to a line break: only the latter adds
        # whitespace to what the line holds.
        if "<" in line or not (_clean_text(line) if plain is None else plain):
            return hash(_JOIN.join(map(clean, picked[:-1])))
        return hash(_JOIN.join(picked[:-1]))


def hashes_of_rows(
    hasher: RowHasher,
    run: tuple[Sequence[str], list[list[str]], int],
    alone: Sequence[int],
    plain: bool | None,
    found: "tuple[array[int], array[int]]",
) -> None:
    """Adds (line index, identity hash) of each row of a run (its lines, their `line_cells`, the
    index of its first line) whose ID has the kind's prefix. When the run is plain (`all_clean`)
    and the table has every column of the identity, each hash is of the identity's cells as they
    lie, found from C for the whole run, and only the rows at the offsets `alone` (read alone by
    `cells_of_rows`) that hold a `<br>` or have another width are hashed one by one."""
    lines, rows, start = run
    if not plain or hasher.picker is None:
        alone = range(len(rows))
        held, values = [False] * len(rows), [0] * len(rows)
    else:
        ids = map(itemgetter(hasher.id_position), rows)
        held = list(map(str.startswith, ids, repeat(hasher.wanted)))
        picked = map(hasher.picker, rows)
        values = list(map(hash, picked if hasher.single else map(_JOIN.join, picked)))
        # A row read alone for an escaped pipe has the width and clean values: hashed as above.
        width = hasher.width
        alone = [at for at in alone if len(rows[at]) != width or "<" in lines[at]]
    for offset in alone:
        value = hasher.of_cells(lines[offset], rows[offset], plain)
        held[offset], values[offset] = value is not None, value or 0
    found[0].extend(compress(range(start, start + len(rows)), held))
    found[1].extend(compress(values, held))


def row_hashes(
    kind: Kind, document: Document, table: Table, columns: tuple[str, ...]
) -> Iterator[tuple[int, int]]:
    """(line index, hash of the identity) of each of the table's rows whose ID has the kind's
    prefix, as `kind_rows` reads them. A row whose text lacks the prefix cannot have it."""
    hasher = RowHasher(kind, columns)
    lines = document.lines
    rows = lines[table.header + 2 : table.end]
    for index in compress(table.rows, map(contains, rows, repeat(hasher.wanted))):
        found = hasher.of_line(lines[index])
        if found is not None:
            yield index, found


def _as_written(line: str, width: int) -> tuple[str, str] | None:
    """(ID cell, the other cells as " | " joins them) of a row written as the tool writes rows:
    `| a | b |`, one space of padding, every cell clean and none empty, nothing escaped, ASCII.
    None for any other line."""
    end = len(line) - (2 if line.endswith("\r\n") else 1 if line.endswith("\n") else 0)
    if not (line.startswith("| ") and line.endswith(" |", 0, end)) or width < 2:
        return None
    if line.count("|") != width + 1 or line.count(_JOIN) != width - 1:
        return None  # then every pipe is an edge or a separator with one space each side
    if "\\" in line or "<" in line or not line.isascii() or not _clean_text(line):
        return None
    first = line.find(_JOIN)
    return line[2:first], line[first + 3 : end - 2]


def all_clean(text: str) -> bool:
    """True when `_clean_text` holds for each of the lines joined in `text`, line feed ended (a
    table's rows but perhaps the file's last), asked of them all at once: no line feed sits beside
    a space that could make a double space of two lines, and a CR anywhere sends each line to be
    asked alone."""
    if text.isascii():
        return "\r" not in text and not any(map(text.__contains__, _SPACES))
    # Every whitespace character but the space is a control or separator character, none of them
    # printable: a text printable once its line feeds are taken out holds none (asked of its
    # UTF-8 bytes, as `printable_but_line_feeds` asks; tests/test_validate_rows.py holds the
    # premise). Looking for each wide space is twenty passes.
    data = text.encode("utf-8", "surrogatepass")
    if b"\r" in data:
        return False
    if b"  " not in data and printable_utf8_but_line_feeds(data):
        return True
    return not any(map(text.__contains__, _ANY_SPACES))


def printable_but_line_feeds(text: str) -> bool:
    """`text.replace("\\n", "").isprintable()`, with only the characters beyond ASCII asked."""
    return printable_utf8_but_line_feeds(text.encode("utf-8", "surrogatepass"))


def printable_utf8_but_line_feeds(data: bytes) -> bool:
    """`printable_but_line_feeds` of the text `data` encodes: the UTF-8 bytes without their
    printable ASCII and line feeds are a control character's or those of the characters beyond
    ASCII (no byte of theirs is ASCII). `str.isprintable` reads each character through Unicode's
    tables, about twenty instructions, where `bytes.translate` takes a few."""
    rest = data.translate(None, _PRINTABLE_ASCII)
    if rest.translate(None, _BEYOND_ASCII):
        return False  # a control character
    return rest.decode("utf-8", "surrogatepass").isprintable()


_PRINTABLE_ASCII = bytes(range(0x20, 0x7F)) + b"\n"
_BEYOND_ASCII = bytes(range(0x80, 0x100))


def _clean_text(line: str) -> bool:
    """Whether the line's whitespace is single spaces, its CRLF ending's CR aside: then each cell
    of it is already as `clean` makes it."""
    if any(map(line.__contains__, _SPACES if line.isascii() else _ANY_SPACES)):
        return False
    first_cr = line.find("\r")
    return first_cr == -1 or (first_cr == len(line) - 2 and line.endswith("\n"))

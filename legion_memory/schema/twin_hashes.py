"""The hash of each row's identity, read from its line: what finds a record held twice among
100,000 rows without keeping their identities (docs/decisions.md#repeats-by-hash).

Equal identities must hash alike whatever the rows' layout, padding or escapes, so the hash is of
one text: the identity's values joined by " | ". A row written as the tool writes rows holds that
text as it lies, after its ID cell; any other row's values are read and joined.
"""

from collections.abc import Iterator
from itertools import compress, repeat
from operator import contains, itemgetter

from legion_memory.markdown.document import Document, Table, line_cells
from legion_memory.schema.identity import clean, identity, identity_keys
from legion_memory.schema.kinds import Kind

_JOIN = " | "
# What `clean` collapses, in an ASCII line, but a CR: two spaces, or another whitespace character.
_SPACES = ("  ", "\t", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x1f")


def row_hashes(
    kind: Kind, document: Document, table: Table, columns: tuple[str, ...]
) -> Iterator[tuple[int, int]]:
    """(line index, hash of the identity) of each of the table's rows whose ID has the kind's
    prefix, as `kind_rows` reads them. A row whose text lacks the prefix cannot have it."""
    wanted = kind.prefix + "-"
    last = {key: position for position, key in enumerate(columns)}
    # A column the table lacks reads empty: the position past the row's cells, where an empty
    # cell is put (and picked last, so that one key too gives a tuple).
    width = len(columns)
    positions = [last.get(key, width) for key in identity_keys(kind)]
    getter = itemgetter(*positions, width)
    # The ID first and the identity all the other cells, in order: a row as the tool writes it
    # holds the identity's text after its ID.
    tail = last["id"] == 0 and positions == list(range(1, width))
    lines = document.lines
    rows = lines[table.header + 2 : table.end]
    for index in compress(table.rows, map(contains, rows, repeat(wanted))):
        line = lines[index]
        written = _as_written(line, width) if tail else None
        if written is not None:
            if written[0].startswith(wanted):
                yield index, hash(written[1])
            continue
        cells = line_cells(line)
        if len(cells) != width:  # a ragged row: its record is read as `kind_rows` reads it
            values = dict(zip(columns, cells, strict=False))
            if values.get("id", "").startswith(wanted):
                yield index, hash(_JOIN.join(identity(kind, values)[1:]))
        elif cells[last["id"]].startswith(wanted):
            cells = _cleaned(line, cells)
            cells.append("")
            yield index, hash(_JOIN.join(getter(cells)[:-1]))


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


def _clean_text(line: str) -> bool:
    """Whether the ASCII line's whitespace is single spaces, its CRLF ending's CR aside: then
    each cell of it is already as `clean` makes it."""
    if any(map(line.__contains__, _SPACES)):
        return False
    first_cr = line.find("\r")
    return first_cr == -1 or (first_cr == len(line) - 2 and line.endswith("\n"))


def _cleaned(line: str, cells: list[str]) -> list[str]:
    """`[clean(cell) for cell in cells]`, `cells` being `line_cells(line)`."""
    if "\\" in line or "<" in line or not (line.isascii() and _clean_text(line)):
        return list(map(clean, cells))
    return cells

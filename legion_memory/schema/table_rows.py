"""A table's rows read cell by cell on demand: a reader that ranks every row by two or three
cells (a recall, a prune's preview, a merge's pairing) splits each row only as far as those cells
and builds the records of the few it keeps (docs/decisions.md#lazy-rows).
"""

from __future__ import annotations

from collections.abc import Iterator
from operator import itemgetter

from legion_memory.markdown.cells import (
    CLOSED,
    CLOSED_ESCAPED,
    cell_count,
    first_ragged,
    line_cells,
)
from legion_memory.markdown.document import strip_ending
from legion_memory.schema.records import Record, column_key, ragged_error

TYPE_CHECKING = False  # not typing's: docs/decisions.md#hot-paths-without-typing
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from legion_memory.errors import ParseError
    from legion_memory.markdown.document import Document, Table
    from legion_memory.schema.kinds import Kind


class TableRows:
    """A table's row lines, read cell by cell on demand: a reader that ranks every row by two or
    three cells builds the records of the few it keeps only, and holds the lines, not an object
    per row (docs/decisions.md#lazy-rows). The rows are checked (no ragged row) before they are
    read; with `unchecked`, the file's path, as `cells` reads them instead, in the same pass
    (docs/decisions.md#rows-checked-as-read)."""

    __slots__ = ("first_line", "header", "keys", "kind", "lines", "positions", "unchecked")

    def __init__(
        self, kind: Kind, document: Document, table: Table, unchecked: Path | None = None
    ) -> None:
        self.kind = kind
        self.keys = tuple(column_key(name) for name in table.columns)
        # A record's values keep the last of repeated columns: so does each key's position.
        self.positions = {key: position for position, key in enumerate(self.keys)}
        self.lines = document.lines[table.header + 2 : table.end]
        self.first_line = table.header + 3
        self.header = table
        self.unchecked = unchecked

    def __len__(self) -> int:
        return len(self.lines)

    def require_sound(self) -> None:
        """ParseError naming the first row whose cell count is not the header's, if any."""
        if self.unchecked is None:
            return
        found = first_ragged(self.lines, len(self.keys))
        if found is not None:
            raise self._ragged(*found)
        self.unchecked = None

    def _ragged(self, offset: int, cells: int) -> ParseError:
        assert self.unchecked is not None
        return ragged_error(self.unchecked, self.header, self.first_line - 1 + offset, cells)

    def record(self, offset: int) -> Record:
        """The record of row `offset`, exactly as `read_records` reads it (of a checked row)."""
        values = dict(zip(self.keys, line_cells(self.lines[offset]), strict=False))
        return Record(self.kind, values, self.first_line + offset)

    def records(self) -> list[Record]:
        self.require_sound()
        return [self.record(offset) for offset in range(len(self.lines))]

    def cells(self, *keys: str) -> Iterator[tuple[str, ...]]:
        """For every row, the values of `keys` (empty for a missing column), as its record has
        them."""
        return self._read(keys, True)

    def padded_cells(self, *keys: str) -> Iterator[tuple[str, ...]]:
        """`cells`, each value maybe with the blanks around it: through `unpadded`, they are
        `cells`. A caller that looks each value up (a date's weight) unpads only the distinct
        ones: stripping every value was a third of reading three cells of 100,000 rows."""
        return self._read(keys, False)

    def _read(self, keys: tuple[str, ...], strip: bool) -> Iterator[tuple[str, ...]]:
        """`cells` (`strip`) or `padded_cells`. A row with nothing escaped (no backslash, no
        `<br>`) is split only as far as the last cell asked for, by one split in C; any other is
        read in full."""
        positions = [self.positions.get(key) for key in keys]
        present = [p for p in positions if p is not None]
        if len(present) < 2 or len(present) != len(positions):
            # One key or a missing column: rare, read in full.
            self.require_sound()
            for offset in range(len(self.lines)):
                record = self.record(offset)
                yield tuple(record[key] for key in keys)
            return
        depth = max(present) + 2
        # The cells by position, after an opening pipe (1) or without one (0).
        pick = (itemgetter(*present), itemgetter(*(p + 1 for p in present)))
        if self.unchecked is not None:
            yield from self._checked_cells(pick, depth, strip)
            return
        for raw in self.lines:
            # A row with no closing pipe: its last cell would hold the line's ending, unstripped.
            line = raw if strip or raw.endswith(CLOSED) else strip_ending(raw)
            pieces = line.split("|", depth)
            if ("\\" in line or "<" in line) and _escaped_before(line, pieces, depth):
                yield pick[0](line_cells(line))
                continue
            found = pick[not pieces[0] or pieces[0].isspace()](pieces)
            yield tuple(map(str.strip, found)) if strip else found

    def _checked_cells(
        self, pick: tuple[itemgetter[Any], itemgetter[Any]], depth: int, strip: bool
    ) -> Iterator[tuple[str, ...]]:
        """`_read` of unchecked rows, each row counted in the same pass that reads it. A row that
        has the header's cells in the plainest way (as `rows_to_count` tells it: a pipe at each
        edge of the line, the closing one not escaped, one pipe more than the header's cells
        once escaped ones are taken away) is split only as far as `_read` splits it; any other
        is counted as `cell_count` counts it and read in full. ParseError at the first ragged
        row, as checking first would give."""
        width = len(self.keys)
        pipes = width + 1
        for offset, line in enumerate(self.lines):
            found = line.count("|")
            escaped = "\\" in line
            if escaped:
                found -= line.count("\\|")
            if (
                found != pipes
                or not line.endswith(CLOSED)
                or line[0] != "|"
                or (escaped and line.endswith(CLOSED_ESCAPED))
            ):
                cells = cell_count(line)
                if cells != width:
                    raise self._ragged(offset, cells)
                yield pick[0](line_cells(line))
                continue
            pieces = line.split("|", depth)
            if (escaped or "<" in line) and _escaped_before(line, pieces, depth):
                yield pick[0](line_cells(line))
            elif strip:
                yield tuple(map(str.strip, pick[1](pieces)))
            else:
                yield pick[1](pieces)


def _escaped_before(line: str, pieces: list[str], depth: int) -> bool:
    """Whether a backslash or `<` stands before the rest `line.split("|", depth)` left whole: only
    there can an escaped pipe move a split or a `<br>` change a cell asked for. An escape in the
    cells after them (a summary's `\\|`) leaves them as a plain split reads them."""
    cut = len(line) - len(pieces[-1]) if len(pieces) > depth else len(line)
    return line.find("\\", 0, cut) >= 0 or line.find("<", 0, cut) >= 0


def unpadded(value: str) -> str:
    """A value of `TableRows.padded_cells` as its record has it. A value split from a line holds
    no line break (the line's ending is cut before a row with no closing pipe is split), and a
    value read in full is stripped already: one with a line break is a `<br>` read in full,
    which may stand at its edge and must stay."""
    return value if "\n" in value else value.strip()

"""PURE 3-way merge of one table's rows, by ID (rows without an ID column: by their text).

`merge.py` finds the tables that line up in the three versions of a file and hands each here, with
a `Ledger` that collects what happened (conflicts, rows that arrived from theirs, renumberings) and
hands out free ID numbers for the whole file.
"""

import re
from collections.abc import Callable, Iterable, Sequence
from typing import NamedTuple

from legion_memory.markdown.document import RowStyle, cell_at, split_cells, strip_ending, unescape

_ID = re.compile(r"^([A-Za-z]+)-(\d+)$")
_PIPES = re.compile(r"(?<!\\)\|")


class Row(NamedTuple):
    key: str
    id: str
    raw: str

    @property
    def content(self) -> str:
        return strip_ending(self.raw)


class Block(NamedTuple):
    """A table of one version: its place (heading, rank), header lines, column keys and rows."""

    key: tuple[str, int]
    head: tuple[str, ...]
    columns: tuple[str, ...]
    rows: tuple[Row, ...]

    def lines(self) -> list[str]:
        return [*self.head, *(row.raw for row in self.rows)]

    def by_key(self) -> dict[str, Row]:
        return {row.key: row for row in self.rows}

    @property
    def head_text(self) -> tuple[str, ...]:
        return tuple(strip_ending(line) for line in self.head)


class Incoming(NamedTuple):
    """A row that arrived from theirs, as it stands in the result (after any renumbering)."""

    id: str
    content: str
    columns: tuple[str, ...]
    renumbered_from: str = ""


class Ledger:
    """What a merge did so far, and the next free number of each ID prefix."""

    def __init__(
        self, *, marker_size: int = 7, ending: str = "\n", reserved: frozenset[str] = frozenset()
    ) -> None:
        self.marker_size = marker_size
        self.ending = ending
        self.reserved = reserved
        self.conflicts: list[str] = []
        self.incoming: list[Incoming] = []
        self.ours_added = 0
        self.identical = 0
        self.highest: dict[str, int] = {}

    def see(self, ids: Iterable[str]) -> None:
        """Count IDs as used: renumbering always goes past the highest of them."""
        for record_id in ids:
            parts = split_id(record_id)
            if parts:
                self.highest[parts[0]] = max(self.highest.get(parts[0], 0), parts[1])

    def renumber(self, record_id: str) -> str | None:
        parts = split_id(record_id)
        if parts is None:
            return None
        prefix, _ = parts
        self.highest[prefix] = self.highest.get(prefix, 0) + 1
        width = max(3, len(record_id) - len(prefix) - 1)
        return f"{prefix}-{self.highest[prefix]:0{width}d}"

    def markers(self, what: str, ours: Sequence[str], theirs: Sequence[str]) -> list[str]:
        """Standard conflict markers around two versions of some lines."""
        self.conflicts.append(what)
        size = self.marker_size
        return [
            "<" * size + " ours" + self.ending,
            *closed(ours, self.ending),
            "=" * size + self.ending,
            *closed(theirs, self.ending),
            ">" * size + " theirs" + self.ending,
        ]


def closed(lines: Iterable[str], ending: str) -> list[str]:
    """The lines, each ending with a line break (a file's last line may have none)."""
    return [line if strip_ending(line) != line else line + ending for line in lines]


def split_id(record_id: str) -> tuple[str, int] | None:
    match = _ID.match(record_id)
    return (match.group(1), int(match.group(2))) if match else None


def cell(raw: str, index: int) -> str:
    """The unescaped value of cell `index` of a row line ('' when the row is shorter)."""
    try:
        value = cell_at(raw, index)  # splits only up to that cell: the driver reads every ID
    except IndexError:
        return ""
    return unescape(value) if "\\" in value or "<" in value else value


def set_cell(raw: str, index: int, old: str, new: str) -> str:
    """The row line with `old` replaced by `new` inside cell `index`; every other byte kept."""
    return edit_cell(raw, index, lambda text: text.replace(old, new, 1))


def edit_cell(raw: str, index: int, change: Callable[[str], str]) -> str:
    """The row line with the raw (escaped) text of cell `index` changed; every other byte kept."""
    content = strip_ending(raw)
    pieces = _PIPES.split(content)
    target = index + (1 if content.strip().startswith("|") else 0)
    if target < len(pieces):
        pieces[target] = change(pieces[target])
    return "|".join(pieces) + raw[len(content) :]


def fit(raw: str, columns: tuple[str, ...], to: tuple[str, ...]) -> str:
    """A row written for `columns` laid out for the columns `to` (missing ones empty)."""
    if columns == to:
        return raw
    cells = dict(zip(columns, split_cells(strip_ending(raw)), strict=False))
    return RowStyle.of(raw).format([cells.get(key, "") for key in to])


def _head(base: Block | None, ours: Block | None, theirs: Block | None) -> Block | None:
    """The version whose header wins, None when both sides changed it differently."""
    if ours is None or theirs is None:
        return ours or theirs
    base_head = base.head_text if base else None
    if theirs.head_text in (ours.head_text, base_head):
        return ours
    return theirs if ours.head_text == base_head else None


def merge_rows(
    ledger: Ledger, base: Block | None, ours: Block | None, theirs: Block | None
) -> list[str]:
    """The merged lines of one table: header, then rows (with markers around conflicting rows)."""
    chosen = _head(base, ours, theirs)
    if chosen is None:
        mine, other = ours.lines() if ours else [], theirs.lines() if theirs else []
        return ledger.markers("the table header changed differently on both sides", mine, other)
    merger = _RowMerger(ledger, chosen.columns, base, ours, theirs)
    return [*chosen.head, *merger.ours_rows(), *merger.removed_by_ours(), *merger.theirs_rows()]


class _RowMerger:
    def __init__(
        self,
        ledger: Ledger,
        columns: tuple[str, ...],
        base: Block | None,
        ours: Block | None,
        theirs: Block | None,
    ) -> None:
        self.ledger = ledger
        self.columns = columns
        self.base = base
        self.ours = ours
        self.theirs = theirs
        self.base_rows = self.base.by_key() if self.base else {}
        self.our_rows = self.ours.by_key() if self.ours else {}
        self.their_rows = self.theirs.by_key() if self.theirs else {}

    def fit(self, row: Row, side: Block | None) -> str:
        return fit(row.raw, side.columns, self.columns) if side else row.raw

    def ours_rows(self) -> list[str]:
        out: list[str] = []
        for row in self.ours.rows if self.ours else ():
            old = self.base_rows.get(row.key)
            if old is None:
                self.ledger.ours_added += 1
                out.append(self.fit(row, self.ours))
            else:
                out += self.three_way(old, row, self.their_rows.get(row.key))
        return out

    def three_way(self, old: Row, mine: Row, other: Row | None) -> list[str]:
        name = mine.id or mine.content.strip()[:40]
        if other is None:
            if mine.content == old.content:
                return []  # removed (or moved to ARCHIVE) by theirs
            what = f"row {name} changed on ours, removed on theirs"
            return self.ledger.markers(what, [self.fit(mine, self.ours)], [])
        if other.content in (mine.content, old.content):
            return [self.fit(mine, self.ours)]
        if mine.content == old.content:
            return [self.fit(other, self.theirs)]
        what = f"row {name} changed differently on both sides"
        return self.ledger.markers(
            what, [self.fit(mine, self.ours)], [self.fit(other, self.theirs)]
        )

    def removed_by_ours(self) -> list[str]:
        """Rows ours removed: gone, unless theirs changed them (then a conflict)."""
        out: list[str] = []
        for key, old in self.base_rows.items():
            other = self.their_rows.get(key)
            if key in self.our_rows or other is None or other.content == old.content:
                continue
            name = other.id or other.content.strip()[:40]
            what = f"row {name} removed on ours, changed on theirs"
            out += self.ledger.markers(what, [], [self.fit(other, self.theirs)])
        return out

    def theirs_rows(self) -> list[str]:
        """Theirs's new rows after ours's. If one's ID is taken, all of them are renumbered, in
        their order, so that they follow ours's rows in one sequence."""
        new_rows = []
        for row in self.theirs.rows if self.theirs else ():
            if row.key in self.base_rows:
                continue
            mine = self.our_rows.get(row.key)
            if mine is not None and mine.content == row.content:
                self.ledger.identical += 1
            else:
                new_rows.append(row)
        taken = any(r.key in self.our_rows or r.id in self.ledger.reserved for r in new_rows)
        if not taken:
            self.ledger.see(row.id for row in new_rows)
        return [self.arrive(row, renumber=taken) for row in new_rows]

    def arrive(self, row: Row, *, renumber: bool) -> str:
        raw = self.fit(row, self.theirs)
        can_renumber = renumber and row.id and "id" in self.columns
        new_id = self.ledger.renumber(row.id) if can_renumber else None
        if new_id:
            raw = set_cell(raw, self.columns.index("id"), row.id, new_id)
        final = Incoming(
            new_id or row.id, strip_ending(raw), self.columns, row.id if new_id else ""
        )
        self.ledger.incoming.append(final)
        return raw

"""PURE findings of one record held twice: under two IDs, or live and archived at once, and of an
ARCHIVE.md whose per-kind sections are doubled or hold another kind's rows.

Both are damage a line merge leaves (docs/decisions.md#record-identity); `validate` reports them
and `doctor --fix` repairs them by the identity rules.
"""

import os
from array import array
from collections.abc import Iterable, Iterator
from itertools import repeat
from operator import or_

from legion_memory.markdown.document import Document, Table, row_cells
from legion_memory.named_tuple import NamedTuple
from legion_memory.schema.fingerprints import hashes, positions_of, repeated
from legion_memory.schema.identity import (
    Identity,
    identity_of_cells,
)
from legion_memory.schema.kinds import KINDS, Kind, kind_of_filename
from legion_memory.schema.records import column_key, records_table
from legion_memory.schema.twin_hashes import row_hashes


class Holder(NamedTuple):
    """One row of a kind's table: in which file, archived or not, at which line index."""

    name: str
    archived: bool
    line_index: int
    record_id: str


class Twin(NamedTuple):
    """A row holding a record an earlier row already holds."""

    first: Holder
    again: Holder

    def message(self) -> str:
        where = f"{self.first.name}:{self.first.line_index + 1}"
        if self.first.archived != self.again.archived:
            return f"{self.again.record_id} is live and archived at once (archived at {where})"
        if self.first.record_id == self.again.record_id:
            return f"{self.again.record_id} is held twice (first at {where})"
        return f"{self.again.record_id} is the same record as {self.first.record_id} at {where}"


def kind_rows(
    kind: Kind, documents: Iterable[tuple[str, Document, bool]]
) -> Iterator[tuple[Holder, Identity]]:
    """The kind's rows with their identities, archive first as given, in file order."""
    for name, document, archived in documents:
        for table in _tables(name, document, kind, archived=archived):
            columns = tuple(column_key(c) for c in table.columns)
            if "id" not in columns:
                continue
            for index in table.rows:
                cells = row_cells(document, index)
                values = dict(zip(columns, cells, strict=False))
                record_id = values.get("id", "")
                if record_id.startswith(kind.prefix + "-"):
                    holder = Holder(name, archived, index, record_id)
                    yield holder, identity_of_cells(kind, columns, cells)


def _tables(name: str, document: Document, kind: Kind, *, archived: bool) -> list[Table]:
    """The kind's table; in ARCHIVE.md every table under its heading (a merge may double one).
    A live file whose name names a kind holds that kind's table only: every kind's is under
    `## Records`, and another kind's row in it breaks its ID rule, which `validate` reports."""
    if archived:
        heading = kind.archive_section.casefold()
        return [table for table in document.tables if table.heading.casefold() == heading]
    named = kind_of_filename(os.path.basename(name))
    if named is not None and named is not kind:
        return []
    table = records_table(document, kind)
    return [] if table is None else [table]


KnownHashes = dict[tuple[int, int, str], "tuple[array[int], array[int]]"]
"""By (id of a document, its table's header line, kind name): (line indexes, identity hashes) of
the table's rows of that kind, as `row_hashes` gives them, read already."""


def twins(
    documents: list[tuple[str, Document, bool]], known: KnownHashes | None = None
) -> list[Twin]:
    """Every row that repeats a record an earlier row holds (archived rows come first). Each
    row's identity is kept as its hash alone; only the rows whose hash repeats are compared by
    their identities (docs/decisions.md#repeats-by-hash)."""
    found: list[Twin] = []
    for kind in KINDS.values():
        places: list[_Place] = []
        identity_hashes, rows = hashes(), hashes()
        for name, document, archived in documents:
            for table in _tables(name, document, kind, archived=archived):
                columns = tuple(column_key(c) for c in table.columns)
                if "id" not in columns:
                    continue
                held = (known or {}).get((id(document), table.header, kind.name))
                indexes, read = _read(kind, document, table, columns) if held is None else held
                identity_hashes.extend(read)
                # Each row as its place's number and its line index in one integer, from C.
                rows.extend(map(or_, repeat(len(places) << _INDEX_BITS), indexes))
                places.append((name, document, archived, columns))
        again = positions_of(identity_hashes, repeated(identity_hashes))
        found += _repeats(kind, places, [rows[offset] for offset in again])
    return found


_Place = tuple[str, Document, bool, tuple[str, ...]]


def _read(
    kind: Kind, document: Document, table: Table, columns: tuple[str, ...]
) -> "tuple[array[int], array[int]]":
    """(line indexes, identity hashes) of the table's rows, as `row_hashes` gives them."""
    indexes, read = hashes(), hashes()
    for index, identity_hash in row_hashes(kind, document, table, columns):
        indexes.append(index)
        read.append(identity_hash)
    return indexes, read


def _repeats(kind: Kind, places: list[_Place], rows: list[int]) -> Iterator[Twin]:
    """The twins among `rows` (each a place's number and a line index), compared by identity."""
    first: dict[Identity, Holder] = {}
    for row in rows:
        name, document, archived, columns = places[row >> _INDEX_BITS]
        index = row & _INDEX_MASK
        cells = row_cells(document, index)
        record_id = dict(zip(columns, cells, strict=False)).get("id", "")
        holder = Holder(name, archived, index, record_id)
        key = identity_of_cells(kind, columns, cells)
        if key in first:
            yield Twin(first[key], holder)
        else:
            first[key] = holder


_INDEX_BITS = 40
_INDEX_MASK = (1 << _INDEX_BITS) - 1


class Misfiled(NamedTuple):
    line: int
    message: str


def archive_layout(document: Document) -> list[Misfiled]:
    """Archive sections that appear twice, and rows under another kind's archive heading."""
    found: list[Misfiled] = []
    seen: dict[str, int] = {}
    by_section = {kind.archive_section.casefold(): kind for kind in KINDS.values()}
    for table in document.tables:
        kind = by_section.get(table.heading.casefold())
        if kind is None:
            continue
        if table.heading.casefold() in seen:
            found.append(
                Misfiled(
                    table.header + 1,
                    f"section '## {kind.archive_section}' appears again "
                    f"(first at line {seen[table.heading.casefold()]})",
                )
            )
        seen.setdefault(table.heading.casefold(), table.header + 1)
        found += _foreign_rows(document, table, kind)
    return found


def _foreign_rows(document: Document, table: Table, kind: Kind) -> Iterator[Misfiled]:
    for index in table.rows:
        record_id = (row_cells(document, index) or [""])[0]
        other = next((k for k in KINDS.values() if record_id.startswith(k.prefix + "-")), None)
        if other is not None and other is not kind:
            yield Misfiled(
                index + 1,
                f"{record_id} is a {other.singular} under '## {kind.archive_section}'",
            )

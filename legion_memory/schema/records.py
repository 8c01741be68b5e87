"""Records: one row of a memory table as values keyed by column, and reading them from a parsed
document (a kind's table, its records, the numbers of its IDs). Pure: files are `reading`'s.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from functools import partial
from itertools import compress, repeat
from operator import contains

from legion_memory.errors import ParseError
from legion_memory.markdown.cells import (
    cell_at,
    first_cell,
    line_cells,
    unescape,
)
from legion_memory.markdown.document import Document, Table, row_cells
from legion_memory.markdown.table_bytes import each_row_matching, rows_holding
from legion_memory.schema.fields import MAX_ID_DIGITS

TYPE_CHECKING = False  # not typing's: docs/decisions.md#hot-paths-without-typing
if TYPE_CHECKING:
    import datetime as dt
    from pathlib import Path
    from typing import Final

    from legion_memory.schema.kinds import Kind


def column_key(name: str) -> str:
    """A header cell's record key: `Task Type` -> `task_type`."""
    key = _KEYS.get(name)
    if key is None:
        # Each run of characters outside [a-z0-9] is one `_`, none at the ends: without a pattern,
        # which would cost a hot command more to compile than all its keys cost to work out.
        lowered = name.strip().lower()
        words = "".join(char if char in _KEY_CHARACTERS else " " for char in lowered).split()
        key = _KEYS[name] = "_".join(words)
    return key


_KEY_CHARACTERS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")
_KEYS: dict[str, str] = {}  # each header's key, worked out once: every read asks for them


class Record:
    """One row of a memory table as text values keyed by column key; missing columns read empty.
    `line` is the row's 1-based line number in its file (0 for a record not yet written)."""

    # A slotted class: one is built per row read, and reads are the hot path.
    __slots__ = ("kind", "line", "values")
    kind: Final[Kind]
    values: Final[Mapping[str, str]]
    line: Final[int]

    def __init__(self, kind: Kind, values: Mapping[str, str], line: int = 0) -> None:
        self.kind = kind
        self.values = values
        self.line = line

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Record):
            return NotImplemented
        return (self.kind, self.values, self.line) == (other.kind, other.values, other.line)

    def __repr__(self) -> str:
        return f"Record({self.kind!r}, {dict(self.values)!r}, line={self.line})"

    __hash__ = None  # type: ignore[assignment]  # the values are a mutable mapping

    def replace(
        self, *, values: Mapping[str, str] | None = None, line: int | None = None
    ) -> Record:
        """A copy with new values or a new line number."""
        return Record(
            self.kind,
            self.values if values is None else values,
            self.line if line is None else line,
        )

    def __getitem__(self, key: str) -> str:
        return self.values.get(key, "")

    @property
    def id(self) -> str:
        return self["id"]

    @property
    def day(self) -> dt.date | None:
        """The record's date, or None when it does not parse."""
        import datetime as dt  # imported by the readers that ask; a store never does

        try:
            return dt.date.fromisoformat(self["date"])
        except ValueError:
            return None

    @property
    def importance(self) -> int:
        value = self["importance"]
        return int(value) if value in {"1", "2", "3", "4", "5"} else 0

    @property
    def tags(self) -> tuple[str, ...]:
        return split_list(self["tags"])

    @property
    def agents(self) -> tuple[str, ...]:
        return split_list(self["agent"])

    @property
    def number(self) -> int:
        """The numeric part of the ID (0 when there is none), for ordering and next-ID."""
        return id_number(self.id, self.kind.prefix)

    def to_json(self) -> dict[str, object]:
        """Typed values: importance an integer, resolved a boolean, a numeric phase an integer."""
        # The kind's keys in order (empty when missing), then the extra ones in the row's order:
        # `update` keeps a key where it stands and appends a new one.
        data: dict[str, object] = dict.fromkeys(self.kind.keys, "")
        data.update(self.values)
        importance, resolved, phase = (self[key] for key in ("importance", "resolved", "phase"))
        if "importance" in data and importance.isdigit():
            data["importance"] = int(importance)
        if "resolved" in data and resolved in {"true", "false"}:
            data["resolved"] = resolved == "true"
        # Only a canonical number becomes an integer: `05` stays text so it reads back as written.
        if "phase" in data and phase.isascii() and phase.isdigit() and str(int(phase)) == phase:
            data["phase"] = int(phase)
        return data

    def extra_keys(self) -> list[str]:
        return [key for key in self.values if key not in self.kind.keys]


def ragged_error(path: Path, table: Table, index: int, cells: int) -> ParseError:
    """The error of a row (at line `index`) whose cell count is not the header's."""
    return ParseError(
        f"row has {cells} cells but the header has {len(table.columns)}",
        where=f"{path}:{index + 1}",
        hint="escape pipes inside values as \\| and fix the row by hand",
    )


def split_list(cell: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in cell.split(",") if part.strip())


def id_number(record_id: str, prefix: str) -> int:
    head, _, digits = record_id.partition("-")
    # ASCII decimal of a sane length only: int() takes other scripts' digits (isdecimal does too)
    # and, past 4,300 digits, raises.
    plain = digits.isascii() and digits.isdecimal() and len(digits) <= MAX_ID_DIGITS
    return int(digits) if head == prefix and plain else 0


def format_id(prefix: str, number: int) -> str:
    return f"{prefix}-{number:03d}"


def records_table(document: Document, kind: Kind, *, archived: bool = False) -> Table | None:
    """The table holding a kind's records: the one under its section heading, else the first
    table whose columns look like the kind's (legacy files have other headings)."""
    section = kind.archive_section if archived else kind.section
    table = document.table_under(section)
    if table is not None or archived:
        return table
    keys = set(kind.keys)
    return next(
        (t for t in document.tables if len({column_key(c) for c in t.columns} & keys) >= 2), None
    )


def read_records(
    document: Document,
    table: Table,
    kind: Kind,
    *,
    mentioning: Sequence[str] = (),
    data: bytes | None = None,
) -> Iterator[Record]:
    """The table's records, in order. With `mentioning`, only the records of rows whose text holds
    one of those strings, which skips splitting every other row: a value can hold a string only
    where its row's text does, unless the string has a pipe or a line break (escaping changes
    those), so such strings filter nothing. With `data` too, the bytes the document was parsed
    from, those rows are found by `bytes.find` over the table's bytes, and only they are looked
    at (docs/decisions.md#rows-found-in-bytes)."""
    keys = [column_key(name) for name in table.columns]
    filtering = mentioning and not any("|" in text or "\n" in text for text in mentioning)
    if filtering and data is not None and all(mentioning):
        for index, line in rows_holding(document, table, data, mentioning):
            yield Record(kind, dict(zip(keys, line_cells(line), strict=False)), index + 1)
        return
    lines = document.lines[table.header + 2 : table.end]
    rows: Iterator[tuple[int, str]] = enumerate(lines, start=table.header + 3)
    if filtering:
        # One test per row, called from C: on a long history most rows are skipped. One string
        # (a store's usual agent) is found by `in`, several by one regex search.
        if len(mentioning) == 1:
            rows = compress(rows, map(contains, lines, repeat(mentioning[0])))
        else:
            search = re.compile("|".join(map(re.escape, mentioning))).search
            rows = compress(rows, map(search, lines))
    for number, line in rows:
        yield Record(kind, dict(zip(keys, line_cells(line), strict=False)), number)


def record_at(document: Document, table: Table, kind: Kind, index: int) -> Record:
    """The record of the row at line `index`, as `read_records` reads it."""
    keys = [column_key(name) for name in table.columns]
    return Record(kind, dict(zip(keys, row_cells(document, index), strict=False)), line=index + 1)


def id_numbers(document: Document, table: Table, kind: Kind) -> Iterator[int]:
    """`Record.number` of every row of a checked table (no ragged row), reading only the ID cell:
    the next ID needs nothing else, and a file can hold 100,000 rows."""
    keys = [column_key(name) for name in table.columns]
    # A record's values keep the last of repeated columns, so its ID is the last ID column's.
    position = max((i for i, key in enumerate(keys) if key == "id"), default=None)
    if position is None:  # a legacy table without IDs
        yield from repeat(0, len(table.rows))
        return
    lines = document.lines[table.header + 2 : table.end]
    if position > 0:
        cell = partial(cell_at, position=position)
        yield from (id_number(unescape(cell(line)), kind.prefix) for line in lines)
        return
    # The usual first cell, `| O-123 |`, read by one regex match (called from C) for each row;
    # any other first cell is read as it is everywhere else.
    plain = re.compile(
        rf"\s*+\|?+\s*+{re.escape(kind.prefix)}-([0-9]{{1,{MAX_ID_DIGITS}}})[ \t]*\|"
    )
    for line, match in zip(lines, map(plain.match, lines), strict=True):
        yield int(match[1]) if match else id_number(unescape(first_cell(line)), kind.prefix)


def highest_id_number(
    document: Document, table: Table, kind: Kind, data: bytes | None = None
) -> int:
    """`max(id_numbers(...), default=0)` by one regex scan of the whole table, in C, when every
    row has the usual first cell (`| O-123 |`); by `id_numbers` otherwise. `data`, the bytes the
    document was parsed from, is scanned where given: as it lies, without joining the lines into
    one string (four bytes a character once a row holds an emoji)."""
    keys = [column_key(name) for name in table.columns]
    lines = document.lines[table.header + 2 : table.end]
    if not lines or max((i for i, k in enumerate(keys) if k == "id"), default=None) != 0:
        return max(id_numbers(document, table, kind), default=0)
    if data is not None:
        return _highest_in_bytes(document, table, kind, data)
    # `id_numbers`' pattern for the usual first cell, one match per line: spaces and tabs only
    # before it, so a match never starts on one line and reads the next. It opens with the newline
    # before the line, not `^`: a literal first character lets `re` skip from newline to newline.
    # The first line has no newline before it: it is matched on its own, so that the table's text
    # is not copied once more to put one there.
    digits = rf"[0-9]{{1,{MAX_ID_DIGITS}}}"
    plain = rf"\n[ \t]*+\|?+[ \t]*+{re.escape(kind.prefix)}-({digits})[ \t]*\|"
    first = re.match(plain[2:], lines[0])
    found = [first[1]] if first else []
    found += re.findall(plain, "".join(lines))
    if len(found) != len(lines):
        return max(id_numbers(document, table, kind), default=0)
    return max(map(int, found))


def _highest_in_bytes(document: Document, table: Table, kind: Kind, data: bytes) -> int:
    """`highest_id_number`'s scan, of the table's rows where they lie in `data`. The pattern is
    ASCII and a multi-byte character holds no ASCII byte: each row matches as its text does."""
    digits = rb"[0-9]{1,%d}" % MAX_ID_DIGITS
    prefix = re.escape(kind.prefix.encode("ascii"))
    # The first cell as the tool writes it, `| O-123 |`, then the forms a hand may give it. The
    # written form's literal start lets `re` skip from row to row; each form reads the same number.
    for plain in (
        rb"\n\| " + prefix + rb"-(" + digits + rb") \|",
        rb"\n[ \t]*+\|?+[ \t]*+" + prefix + rb"-(" + digits + rb")[ \t]*\|",
    ):
        found = each_row_matching(document, table, data, plain)
        if found is not None:
            # Padded to one width, the numbers order as their bytes do: one `int`, not one a row.
            return int(max(map(bytes.rjust, found, repeat(MAX_ID_DIGITS), repeat(b"0"))))
    return max(id_numbers(document, table, kind), default=0)

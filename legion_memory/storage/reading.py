"""A memory directory and reading its files: where they are, parsed and checked, their records
and their highest ID. Only this module and `store`, which changes them, open memory files.
"""

import os
import re
from collections.abc import Iterator, Mapping, Sequence
from itertools import chain, compress, count, repeat
from operator import contains
from pathlib import Path

from legion_memory.errors import ParseError
from legion_memory.markdown.cells import cell_count, first_ragged, rows_to_count
from legion_memory.markdown.document import Document, Table, parse, parse_lines, render, table_cells
from legion_memory.named_tuple import NamedTuple
from legion_memory.schema.kinds import ARCHIVE_FILENAME, Kind
from legion_memory.schema.records import (
    Record,
    column_key,
    highest_id_number,
    ragged_error,
    read_records,
    records_table,
)
from legion_memory.storage.files import decode, decode_lines, read_data, read_lines
from legion_memory.storage.files import read_text as read_file_text

TYPE_CHECKING = False  # not typing's: docs/decisions.md#hot-paths-without-typing
if TYPE_CHECKING:
    from legion_memory.schema.table_rows import TableRows

__all__ = [
    "JOURNAL_NAME",
    "LOCK_NAME",
    "MEMORY_DIR",
    "Checked",
    "Memory",
    "checked_records",
    "checked_row_count",
    "load",
    "load_archived",
    "load_checked",
    "load_records",
    "load_rows",
    "max_id_number",
    "parses_kept",
    "ragged_row",
    "read_text",
    "records_of",
    "require_table",
    "rows_to_count",
    "sound_table",
]

MEMORY_DIR = Path(".planning") / "memory"
LOCK_NAME = ".legion-memory.lock"
JOURNAL_NAME = ".legion-memory.journal"
LEDGER_FILENAME = "IMPORTED.txt"  # the import ledger's format is interop's; its place is here


class Memory(NamedTuple):
    """A memory directory (`<root>/.planning/memory` for a project)."""

    directory: Path

    @classmethod
    def of_project(cls, root: Path) -> "Memory":
        return cls(root / MEMORY_DIR)

    def path(self, kind: Kind) -> Path:
        return self.directory / kind.filename

    @property
    def archive(self) -> Path:
        return self.directory / ARCHIVE_FILENAME

    @property
    def lock_path(self) -> Path:
        return self.directory / LOCK_NAME

    @property
    def ledger_path(self) -> Path:
        return self.directory / LEDGER_FILENAME

    @property
    def journal_path(self) -> Path:
        return self.directory / JOURNAL_NAME

    def exists(self, kind: Kind) -> bool:
        return self.path(kind).is_file()


# Within `parses_kept()`: each file's last parse and the text it came from.
_kept: dict[Path, tuple[str, Document]] | None = None


class parses_kept:
    """Within, a file whose text has not changed since it was last parsed is not parsed again.

    The file is still read every time: any write, this process's own or another's, changes the
    text and so the parse (docs/decisions.md#batch). One parse is kept per file. A class, not
    `contextlib`'s, which every hot command would import for it alone.
    """

    def __enter__(self) -> None:
        global _kept  # noqa: PLW0603 - one batch per process; the cache is its scope
        _kept = {}

    def __exit__(self, *_: object) -> None:
        global _kept  # noqa: PLW0603
        _kept = None


def _parsed(path: Path, text: str) -> Document:
    if _kept is None:
        return parse(text)
    found = _kept.get(path)
    if found is not None and found[0] == text:
        return found[1]
    document = parse(text)
    _kept[path] = (text, document)
    return document


def read_text(path: Path) -> str | None:
    """A memory file's text (None when missing). While a journal beside it records an interrupted
    change to it, the text it had before that change: a half-applied change is never read, and
    the next writer rolls it back to exactly that text."""
    if os.path.lexists(path.parent / JOURNAL_NAME):
        from legion_memory.storage import journal  # only when there is one: almost never

        try:
            return journal.text_before(path.parent / JOURNAL_NAME, path.name, read_data)
        except KeyError:
            pass
    return read_file_text(path)


def load(path: Path) -> Document | None:
    """A memory file parsed as `read_text` reads it. Without a journal and outside a batch (which
    keeps each parse by its text) it is read as lines, never as one string
    (docs/decisions.md#memory-as-lines)."""
    if _kept is None and not os.path.lexists(path.parent / JOURNAL_NAME):
        lines = read_lines(path)
        return None if lines is None else parse_lines(lines)
    text = read_text(path)
    return None if text is None else _parsed(path, text)


def ragged_row(document: Document, table: Table) -> tuple[int, int] | None:
    """The first body row whose cell count differs from the header's: (line index, cells)."""
    found = first_ragged(document.lines[table.header + 2 : table.end], len(table.columns))
    return None if found is None else (table.header + 2 + found[0], found[1])


def require_table(path: Path, document: Document, kind: Kind, *, archived: bool = False) -> Table:
    """The kind's records table, structurally sound enough to change; ParseError otherwise."""
    table = _found_table(path, document, kind, archived)
    ragged = ragged_row(document, table)
    if ragged is not None:
        raise ragged_error(path, table, *ragged)
    return table


class Checked(NamedTuple):
    """A file's bytes as read, its parse and its kind's table as `require_table` returns it.

    A write, which must re-read the file under the lock, reuses the parse and the check when the
    file still holds exactly these bytes: on a large file they are most of the write's time, and
    comparing bytes spares decoding the file a second time.
    """

    path: Path
    kind: Kind
    data: bytes
    document: Document
    table: Table
    suspects: tuple[int, ...] = ()
    """The line indexes of the table's rows that may be git conflict markers (`sound_table`)."""


def load_checked(path: Path, kind: Kind) -> Checked | None:
    """A file read, parsed and checked as a write to it requires; None when it does not exist."""
    data = read_data(path)
    if data is None:
        return None
    if _kept is None:  # as lines, never as one string (docs/decisions.md#memory-as-lines)
        document = parse_lines(decode_lines(path, data))
    else:
        document = _parsed(path, decode(path, data))
    table, suspects = sound_table(path, document, kind)
    return Checked(path, kind, data, document, table, suspects)


def sound_table(path: Path, document: Document, kind: Kind) -> tuple[Table, tuple[int, ...]]:
    """`require_table`'s table, and the line indexes of its rows that were counted one by one:
    the only rows that can be git conflict markers, since every other row opens with a pipe and
    a cell (`rows_to_count`; docs/decisions.md#markers-among-counted-rows)."""
    table = _found_table(path, document, kind, False)
    rows = document.lines[table.header + 2 : table.end]
    width = len(table.columns)
    suspects = []
    for offset in rows_to_count(rows, width):
        cells = cell_count(rows[offset])  # the line ending goes with the padding
        if cells != width:
            raise ragged_error(path, table, table.header + 2 + offset, cells)
        suspects.append(table.header + 2 + offset)
    return table, tuple(suspects)


def _found_table(path: Path, document: Document, kind: Kind, archived: bool) -> Table:
    table = records_table(document, kind, archived=archived)
    if table is None:
        raise ParseError(
            f"no {kind.singular} table found",
            where=str(path),
            hint="run `legion-memory validate` to see what is wrong",
        )
    return table


def records_of(path: Path, document: Document, kind: Kind, archived: bool = False) -> list[Record]:
    return checked_records(path, document, kind, archived)[1]


def checked_records(
    path: Path, document: Document, kind: Kind, archived: bool = False
) -> tuple[Table, list[Record]]:
    """The table `require_table` returns and its records, each row split only once: every read
    command comes here, and splitting rows is most of its time."""
    table = _found_table(path, document, kind, archived)
    keys = [column_key(name) for name in table.columns]
    records = [
        Record(kind, dict(zip(keys, cells, strict=False)), line)
        for line, cells in _checked_cells(path, document, table)
    ]
    return table, records


def checked_row_count(path: Path, document: Document, kind: Kind, archived: bool = False) -> int:
    """`len(records_of(...))`, every row checked alike, without a record built."""
    table = _found_table(path, document, kind, archived)
    for _ in _checked_cells(path, document, table):
        pass
    return len(table.rows)


def _checked_cells(path: Path, document: Document, table: Table) -> Iterator[tuple[int, list[str]]]:
    """Each row's 1-based line number and cells; ParseError at the first ragged row."""
    width = len(table.columns)
    for line, cells in enumerate(table_cells(document, table), start=table.header + 3):
        if len(cells) != width:
            raise ragged_error(path, table, line - 1, len(cells))
        yield line, cells


def load_records(memory: Memory, kind: Kind) -> list[Record]:
    """The live records of a kind; [] when the file does not exist; ParseError when unreadable."""
    path = memory.path(kind)
    document = load(path)
    return [] if document is None else records_of(path, document, kind)


def load_rows(memory: Memory, kind: Kind, *, checked: bool = True) -> "TableRows | None":
    """The live table of a kind, checked as `load_records` checks it, its rows read on demand;
    None when the file does not exist; ParseError when unreadable. Not `checked`, a ragged row is
    found as the rows are read (`TableRows`), which saves a ranking recall a pass over them."""
    from legion_memory.schema.table_rows import TableRows  # only now: a store never reads so

    path = memory.path(kind)
    document = load(path)
    if document is None:
        return None
    if not checked:
        return TableRows(kind, document, _found_table(path, document, kind, False), path)
    return TableRows(kind, document, require_table(path, document, kind))


def load_archived(memory: Memory, kind: Kind, *, mentioning: Sequence[str] = ()) -> list[Record]:
    """The archived records of a kind; [] when ARCHIVE.md or that kind's table does not exist.
    `mentioning` keeps only some of them, as `read_records` says."""
    return archived_in(memory.archive, load(memory.archive), kind, mentioning=mentioning)


def archived_in(
    path: Path, document: Document | None, kind: Kind, *, mentioning: Sequence[str] = ()
) -> list[Record]:
    """`load_archived` of an archive already read."""
    if document is None or records_table(document, kind, archived=True) is None:
        return []
    if not mentioning:
        return records_of(path, document, kind, archived=True)
    table = require_table(path, document, kind, archived=True)
    return list(read_records(document, table, kind, mentioning=mentioning))


_MARKERS = ("<<<<<<<", ">>>>>>>", "|||||||")
_MARKER_LINE = r"(?:<{7}|>{7}|\|{7})(?:[ \t]|\r?\n?$)"  # compiled by `re` on first use


def require_no_conflict_markers(
    path: Path, document: Document | None, sound: tuple[Table, Sequence[int]] | None = None
) -> None:
    """ParseError when a file holds a git conflict: its rows on either side are both half of the
    truth, and an ID computed from the rows above the marker may already be used below it.
    `sound`, the table and suspects `sound_table` gave for this document: then only the lines
    outside the table's rows and those suspects are looked at, as no other line can be one."""
    if document is None:
        return
    if sound is None:
        _refuse_marker(path, document.lines)
        return
    table, suspects = sound
    lines = document.lines
    around = chain(range(table.header + 2), suspects, range(table.end, len(lines)))
    for index in around:
        if lines[index].startswith(_MARKERS):
            _refuse_marker_at(path, lines, index)


def require_no_conflict_markers_in(texts: Mapping[Path, str | None]) -> None:
    """The same for files read as text: what `forget`, `restore`, `prune` and `migrate` change."""
    for path, text in texts.items():
        if text is not None and any(marker in text for marker in _MARKERS):
            _refuse_marker(path, text.splitlines(keepends=True))


def require_no_conflict_markers_as_read(documents: Mapping[Path, Document | None]) -> None:
    """`require_no_conflict_markers_in` of the texts these documents were read from: the same
    error, at the same line (of the text's `splitlines`), without joining the lines when no line
    holds a marker (no marker holds a newline, so a text holds one only where a line does)."""
    for path, document in documents.items():
        if document is not None and any(
            any(map(contains, document.lines, repeat(marker))) for marker in _MARKERS
        ):
            require_no_conflict_markers_in({path: render(document)})


def _refuse_marker(path: Path, lines: Sequence[str]) -> None:
    # One pass in C over the lines; only a line starting with a marker is looked at closer.
    for index in compress(count(), map(str.startswith, lines, repeat(_MARKERS))):
        _refuse_marker_at(path, lines, index)


def _refuse_marker_at(path: Path, lines: Sequence[str], index: int) -> None:
    """ParseError when line `index`, which starts with a marker's characters, is a marker."""
    if re.match(_MARKER_LINE, lines[index]):
        raise ParseError(
            "the file has unresolved git conflict markers",
            where=f"{path}:{index + 1}",
            hint="run `legion-memory doctor --fix` first",
        )


def max_id_number(
    memory: Memory,
    kind: Kind,
    live: Document | None,
    checked: Table | None = None,
    data: bytes | None = None,
    suspects: Sequence[int] | None = None,
) -> int:
    """The highest ID number of a kind, live and archived together: IDs are never reissued.

    `checked` is the live document's table when the caller has already required it, `data` the
    bytes the live document was parsed from, `suspects` the rows of `checked` that `sound_table`
    gave, when the caller holds them.
    """
    archive = load(memory.archive)
    require_no_conflict_markers(memory.archive, archive)
    numbers = [record.number for record in archived_in(memory.archive, archive, kind)]
    if live is not None:
        sound = None if checked is None or suspects is None else (checked, suspects)
        require_no_conflict_markers(memory.path(kind), live, sound)
        table = checked or require_table(memory.path(kind), live, kind)
        numbers.append(highest_id_number(live, table, kind, data))
    return max(numbers, default=0)

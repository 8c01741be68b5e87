"""The only code that touches memory files: locate, read, lock, append, update, replace atomically.

Every change happens under an exclusive lock on a separate lock file, re-reads the files inside the
lock, and replaces a file only after re-parsing the exact text about to be written and checking that
its records are the intended ones. A change to several files (`transact`) is journaled first, so
a failure or a killed process never leaves it half done: taking the lock rolls back a leftover one.
"""

import fcntl
import os
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from .errors import (
    IntegrityError,
    LegionMemoryError,
    LockError,
    ParseError,
    SchemaError,
    WriteError,
)
from .fileio import (
    TEMP_PREFIX,
    TEMP_SUFFIX,
    atomic_write,
    decode,
    read_bytes,
    read_data,
    read_text,
    remove,
)
from .schema import (
    ARCHIVE_FILENAME,
    KINDS,
    Kind,
    Record,
    archive_template,
    column_key,
    format_id,
    id_numbers,
    read_records,
    record_at,
    records_table,
    row_for,
)
from .table import (
    Document,
    RowStyle,
    Table,
    cell_count,
    parse,
    render,
    strip_ending,
    table_cells,
)

if TYPE_CHECKING:
    from . import journal

__all__ = [
    "GITIGNORE",
    "JOURNAL_NAME",
    "LOCK_NAME",
    "LOCK_TIMEOUT_SECONDS",
    "MEMORY_DIR",
    "TEMP_PREFIX",
    "TEMP_SUFFIX",
    "Checked",
    "Dedupe",
    "Memory",
    "Mutation",
    "append",
    "append_or_update",
    "atomic_write",
    "checked_records",
    "create_file",
    "describe",
    "ensure_directory",
    "init",
    "insert_row",
    "leftover_journal",
    "load",
    "load_archived",
    "load_checked",
    "load_records",
    "locked",
    "max_id_number",
    "ragged_row",
    "read_text",
    "records_of",
    "recover",
    "remove_stray_temp_files",
    "require_table",
    "stray_temp_files",
    "transact",
    "update",
    "verify_append",
]

MEMORY_DIR = Path(".planning") / "memory"
LOCK_NAME = ".legion-memory.lock"
JOURNAL_NAME = ".legion-memory.journal"
GITIGNORE = f"{LOCK_NAME}\n{JOURNAL_NAME}\n{TEMP_PREFIX}*{TEMP_SUFFIX}\n"
LOCK_TIMEOUT_SECONDS = 30.0


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
    def journal_path(self) -> Path:
        return self.directory / JOURNAL_NAME

    def exists(self, kind: Kind) -> bool:
        return self.path(kind).is_file()


def load(path: Path) -> Document | None:
    text = read_text(path)
    return None if text is None else parse(text)


def ragged_row(document: Document, table: Table) -> tuple[int, int] | None:
    """The first body row whose cell count differs from the header's: (line index, cells)."""
    width = len(table.columns)
    for index in table.rows:
        cells = cell_count(document.lines[index])  # the line ending goes with the padding
        if cells != width:
            return index, cells
    return None


def require_table(path: Path, document: Document, kind: Kind, *, archived: bool = False) -> Table:
    """The kind's records table, structurally sound enough to change; ParseError otherwise."""
    table = _found_table(path, document, kind, archived)
    ragged = ragged_row(document, table)
    if ragged is not None:
        raise _ragged(path, table, *ragged)
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


def load_checked(path: Path, kind: Kind) -> Checked | None:
    """A file read, parsed and checked as a write to it requires; None when it does not exist."""
    data = read_data(path)
    if data is None:
        return None
    document = parse(decode(path, data))
    return Checked(path, kind, data, document, require_table(path, document, kind))


def _found_table(path: Path, document: Document, kind: Kind, archived: bool) -> Table:
    table = records_table(document, kind, archived=archived)
    if table is None:
        raise ParseError(
            f"no {kind.singular} table found",
            where=str(path),
            hint="run `legion-memory validate` to see what is wrong",
        )
    return table


def _ragged(path: Path, table: Table, index: int, cells: int) -> ParseError:
    return ParseError(
        f"row has {cells} cells but the header has {len(table.columns)}",
        where=f"{path}:{index + 1}",
        hint="escape pipes inside values as \\| and fix the row by hand",
    )


def records_of(path: Path, document: Document, kind: Kind, archived: bool = False) -> list[Record]:
    return checked_records(path, document, kind, archived)[1]


def checked_records(
    path: Path, document: Document, kind: Kind, archived: bool = False
) -> tuple[Table, list[Record]]:
    """The table `require_table` returns and its records, each row split only once: every read
    command comes here, and splitting rows is most of its time."""
    table = _found_table(path, document, kind, archived)
    keys = [column_key(name) for name in table.columns]
    width = len(keys)
    records = []
    for line, cells in enumerate(table_cells(document, table), start=table.header + 3):
        if len(cells) != width:
            raise _ragged(path, table, line - 1, len(cells))
        records.append(Record(kind, dict(zip(keys, cells, strict=False)), line))
    return table, records


def load_records(memory: Memory, kind: Kind) -> list[Record]:
    """The live records of a kind; [] when the file does not exist; ParseError when unreadable."""
    path = memory.path(kind)
    document = load(path)
    return [] if document is None else records_of(path, document, kind)


def load_archived(memory: Memory, kind: Kind, *, mentioning: Sequence[str] = ()) -> list[Record]:
    """The archived records of a kind; [] when ARCHIVE.md or that kind's table does not exist.
    `mentioning` keeps only some of them, as `read_records` says."""
    document = load(memory.archive)
    if document is None or records_table(document, kind, archived=True) is None:
        return []
    if not mentioning:
        return records_of(memory.archive, document, kind, archived=True)
    table = require_table(memory.archive, document, kind, archived=True)
    return list(read_records(document, table, kind, mentioning=mentioning))


def max_id_number(
    memory: Memory, kind: Kind, live: Document | None, checked: Table | None = None
) -> int:
    """The highest ID number of a kind, live and archived together: IDs are never reissued.

    `checked` is the live document's table when the caller has already required it.
    """
    numbers = [record.number for record in load_archived(memory, kind)]
    if live is not None:
        table = checked or require_table(memory.path(kind), live, kind)
        numbers.extend(id_numbers(live, table, kind))
    return max(numbers, default=0)


@contextmanager
def locked(memory: Memory, timeout: float = LOCK_TIMEOUT_SECONDS) -> Iterator[list[str]]:
    """Hold the memory directory's exclusive lock (a separate file, never a data file).

    A change interrupted by a killed process is rolled back first; yields the files it restored.
    """
    ensure_directory(memory)
    handle = os.open(memory.lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise LockError(
                        "memory is locked by another process",
                        where=str(memory.lock_path),
                        hint="retry when the other legion-memory command has finished",
                    ) from None
                time.sleep(0.005)
        yield _roll_back_leftover(memory)
    finally:
        os.close(handle)  # closing releases the lock


def _roll_back_leftover(memory: Memory) -> list[str]:
    # Almost every lock finds no journal: the journal module is imported only when there is one.
    if not memory.journal_path.exists():
        return []
    from . import journal

    return journal.roll_back_leftover(memory.journal_path, _files())


def recover(memory: Memory) -> list[str]:
    """Roll back a change a killed process left half done; the files restored (relative paths)."""
    if not memory.journal_path.exists():
        return []
    with locked(memory) as restored:
        return restored


def leftover_journal(memory: Memory) -> list[str] | None:
    """What rolling back a journal left by a killed process would restore, read without the lock
    (None: no journal); RollbackError when it cannot be rolled back automatically."""
    from . import journal

    return journal.pending(memory.journal_path, _files())


def stray_temp_files(memory: Memory) -> list[Path]:
    """Temporary files a killed writer left in the memory directory."""
    return sorted(memory.directory.glob(f"{TEMP_PREFIX}*{TEMP_SUFFIX}"))


def remove_stray_temp_files(memory: Memory) -> list[Path]:
    """Delete them under the lock: every write holds it, so none is a write in progress."""
    if not stray_temp_files(memory):
        return []  # nothing to do: no lock taken
    with locked(memory):
        strays = stray_temp_files(memory)
        for path in strays:
            remove(path)
    return strays


def ensure_directory(memory: Memory) -> None:
    """Create the memory directory on first write, with a .gitignore for the lock file."""
    if memory.directory.is_dir():
        return
    memory.directory.mkdir(parents=True, exist_ok=True)
    (memory.directory / ".gitignore").write_text(GITIGNORE, encoding="utf-8")


def append(memory: Memory, record: Record, seen: Checked | None = None) -> Record:
    """Store a new record with the next free ID; returns it with its ID and line number.

    `seen`: the file as the caller read and checked it before taking the lock, if it did.
    """
    with locked(memory):
        return _append_held(memory, record, seen)


def _append_held(memory: Memory, record: Record, seen: Checked | None = None) -> Record:
    kind = record.kind
    path = memory.path(kind)
    document, table = _current(path, kind, seen)
    _require_id_column(path, table)
    next_id = format_id(kind.prefix, max_id_number(memory, kind, document, table) + 1)
    stored = record.replace(values={**record.values, "id": next_id})
    text, line = insert_row(document, table, row_for(stored, table.columns))
    verify_append(path, document, text, table, stored)
    _write(path, text, stored)
    return stored.replace(line=line)


def _current(path: Path, kind: Kind, seen: Checked | None) -> tuple[Document, Table]:
    """The file as it is now (read under the lock), parsed and checked; the parse and check of
    `seen` when the file still holds the very text they were made from."""
    data = read_data(path)
    if seen is not None and seen.path == path and seen.kind is kind and seen.data == data:
        return seen.document, seen.table
    document = parse(kind.template() if data is None else decode(path, data))
    return document, require_table(path, document, kind)


Dedupe = Callable[[list[Record]], tuple[Record, Mapping[str, str]] | None]
"""Given the live records of a kind, the existing record a new one duplicates and the changes to
make to it (none: leave it alone), or None when the new record is not a duplicate."""


def append_or_update(
    memory: Memory, record: Record, dedupe: Dedupe
) -> tuple[Record | None, Record]:
    """Append `record`, unless `dedupe` names an existing row: then change that row in place.

    The duplicate check and the write happen under one lock, so two writers storing the same
    record cannot both append it. Returns (the existing record before, the record now stored):
    (None, new) when appended, (existing, existing) when nothing needed changing.
    """
    kind = record.kind
    path = memory.path(kind)
    with locked(memory):
        document = load(path)
        records = [] if document is None else records_of(path, document, kind)
        found = dedupe(records)
        if found is None:
            return None, _append_held(memory, record)
        existing, changes = found
        if not changes:
            return existing, existing
        if not existing.id or [r.id for r in records].count(existing.id) > 1:
            raise ParseError(
                f"the row to update has {'a repeated' if existing.id else 'no'} ID",
                where=f"{path}:{existing.line}",
                hint="run `legion-memory doctor --fix` to give every row its own ID, then retry",
            )
        return _update_held(memory, kind, existing.id, changes)


def _require_id_column(path: Path, table: Table) -> None:
    if "id" not in {column_key(name) for name in table.columns}:
        raise SchemaError(
            "table has no ID column, so a new row could not be told apart",
            where=f"{path}:{table.header + 1}",
            hint="run `legion-memory migrate` to add the missing columns",
        )


def _write(path: Path, text: str, record: Record) -> None:
    try:
        atomic_write(path, text)
    except WriteError as exc:
        raise WriteError(exc.message, where=exc.where, record=describe(record)) from exc


def describe(record: Record) -> str:
    """A record as `Column: value` lines, printed when a write fails so nothing is lost."""
    names = {column.key: column.name for column in record.kind.columns}
    return "\n".join(f"{names.get(key, key)}: {value}" for key, value in record.values.items())


def insert_row(document: Document, table: Table, cells: list[str]) -> tuple[str, int]:
    """The text with one row line after the table's last row, and that row's line number."""
    anchor = table.end - 1
    lines = list(document.lines)
    style = _row_style(document, table)
    if not style.ending:
        # The anchor is the file's last line and has no newline: it gains one, the new row doesn't.
        lines[anchor] += document.dominant_ending()
    lines.insert(table.end, style.format(cells))
    return render(Document(lines, bom=document.bom)), table.end + 1


def _row_style(document: Document, table: Table) -> RowStyle:
    """The last row's style; for an empty table the header's, which the delimiter cannot show."""
    last = document.lines[table.end - 1]
    if table.rows:
        return RowStyle.of(last)
    return RowStyle.of(document.lines[table.header])._replace(ending=RowStyle.of(last).ending)


def verify_append(path: Path, before: Document, text: str, table: Table, record: Record) -> None:
    """Re-parse what is about to be written: same rows as before plus exactly the new record."""
    after = parse(text)
    new_table = records_table(after, record.kind)
    if new_table is None or len(new_table.rows) != len(table.rows) + 1:
        raise _bug(path)
    read_back = record_at(after, new_table, record.kind, new_table.end - 1)
    if not _same_rows(before, table, after, new_table) or not _same_values(read_back, record):
        raise _bug(path)


def _same_rows(before: Document, table: Table, after: Document, new_table: Table) -> bool:
    """The old rows are the new table's rows but its last, in order. Lines are compared whole
    (a list comparison, fast on large files); only the old last row may have gained a line
    ending, when it was the file's last line."""
    old = before.lines[table.header + 2 : table.end]
    new = after.lines[new_table.header + 2 : new_table.end - 1]
    if old[:-1] != new[:-1]:
        return False
    return [strip_ending(line) for line in old[-1:]] == [strip_ending(line) for line in new[-1:]]


def _same_values(read_back: Record, intended: Record) -> bool:
    return all(read_back[key] == intended[key] for key in read_back.values)


def _bug(path: Path) -> IntegrityError:
    return IntegrityError(
        "the text about to be written does not read back as the intended records; nothing was "
        "written (this is a bug)",
        where=str(path),
        hint="please report it with the file attached",
    )


def update(
    memory: Memory, kind: Kind, record_id: str, changes: Mapping[str, str]
) -> tuple[Record, Record]:
    """Change fields of one row in place (the rest of the file stays byte-identical)."""
    with locked(memory):
        return _update_held(memory, kind, record_id, changes)


def _update_held(
    memory: Memory, kind: Kind, record_id: str, changes: Mapping[str, str]
) -> tuple[Record, Record]:
    path = memory.path(kind)
    document = load(path)
    if document is None:
        raise ParseError(f"{kind.filename} does not exist", where=str(path))
    table = require_table(path, document, kind)
    old = _find(path, document, table, kind, record_id)
    new = old.replace(values={**old.values, **changes})
    lines = list(document.lines)
    style = RowStyle.of(lines[old.line - 1])
    lines[old.line - 1] = style.format(row_for(new, table.columns))
    text = render(Document(lines, bom=document.bom))
    _verify_update(path, document, text, table, new)
    _write(path, text, new)
    return old, new


def _find(path: Path, document: Document, table: Table, kind: Kind, record_id: str) -> Record:
    for record in read_records(document, table, kind):
        if record.id == record_id:
            return record
    raise ParseError(f"no record {record_id}", where=str(path))


def _verify_update(path: Path, before: Document, text: str, table: Table, new: Record) -> None:
    after = parse(text)
    new_table = records_table(after, new.kind)
    if new_table is None or new_table.rows != table.rows:
        raise _bug(path)
    changed = [i for i in table.rows if after.lines[i] != before.lines[i]]
    read_back = next(r for r in read_records(after, new_table, new.kind) if r.line == new.line)
    if changed not in ([], [new.line - 1]) or not _same_values(read_back, new):
        raise _bug(path)


def create_file(memory: Memory, path: Path, template: str) -> bool:
    """Create a file from its template unless it exists; True when created. Never overwrites."""
    with locked(memory):
        if path.exists():
            return False
        atomic_write(path, template)
        return True


def init(memory: Memory) -> list[Path]:
    """Create the memory directory and its five files; returns the files it created."""
    created = []
    for kind in KINDS.values():
        if create_file(memory, memory.path(kind), kind.template()):
            created.append(memory.path(kind))
    if create_file(memory, memory.archive, archive_template()):
        created.append(memory.archive)
    return created


Mutation = Callable[[Mapping[Path, str | None]], Mapping[Path, str]]
"""Given the current text of some files (None when missing), the new text of those to change."""


def transact(memory: Memory, paths: list[Path], mutate: Mutation) -> Mapping[Path, str]:
    """Read `paths` under the lock, let `mutate` compute new texts, write them all or none.

    The previous text of every path is journaled before the first write; the files are then written
    in the order of `paths`, read back and compared, and the journal is removed last. Any failure
    puts every file back as it was and raises RollbackError (a failure to write the journal itself
    changes nothing and raises WriteError). A killed process leaves the journal: `locked` undoes it.
    """
    from . import journal

    with locked(memory):
        current = {path: read_text(path) for path in paths}
        changes = mutate(current)
        ordered = [path for path in paths if path in changes]
        if len(ordered) != len(changes):
            raise IntegrityError(
                "a change tried to write a file it did not read first (this is a bug)",
                where=", ".join(str(path) for path in changes if path not in current),
            )
        if not ordered:
            return changes
        record = journal.build(memory.directory, current, changes)
        try:
            atomic_write(memory.journal_path, journal.encode(record))
        except WriteError as exc:
            raise WriteError(f"{exc.message}; nothing was changed", where=exc.where) from exc
        try:
            for path in ordered:
                atomic_write(path, changes[path])
            _verify_written(ordered, changes)
            _drop_journal(memory)
        except LegionMemoryError as failure:
            journal.undo(memory.journal_path, record, _files(), failure)
        return changes


def _verify_written(paths: list[Path], changes: Mapping[Path, str]) -> None:
    for path in paths:
        if read_bytes(path) != changes[path].encode("utf-8"):
            raise IntegrityError(
                "the file does not read back as what was just written", where=str(path)
            )


def _drop_journal(memory: Memory) -> None:
    remove(memory.journal_path)


def _files() -> "journal.Files":
    # Looked up on every call, so that replacing `atomic_write` reaches the journal's writes too.
    from . import journal

    return journal.Files(read=read_bytes, write=atomic_write, remove=remove)

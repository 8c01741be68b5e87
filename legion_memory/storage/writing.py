"""Changing memory files: append, update, create, and journaled changes of several files.

Every change happens under the memory directory's lock (`locking`), re-reads the files inside the
lock, and replaces a file only after re-parsing the exact text about to be written and checking that
its records are the intended ones (`row_edits`). A change to several files (`transact`) is journaled
first, so a failure or a killed process never leaves it half done: taking the lock rolls back a
leftover one. Reading is `reading`'s.
"""

from collections.abc import Callable, Mapping
from pathlib import Path

from legion_memory.errors import (
    IntegrityError,
    LegionMemoryError,
    ParseError,
    WriteError,
    os_error_parts,
)
from legion_memory.markdown.document import Document, Table, parse
from legion_memory.schema.kinds import KINDS, Kind, archive_template, row_for
from legion_memory.schema.records import Record, format_id
from legion_memory.storage.files import (
    atomic_write,
    decode,
    holds_bytes,
    read_bytes,
    read_data,
    read_text,
    remove,
)
from legion_memory.storage.locking import locked
from legion_memory.storage.reading import (
    Checked,
    Memory,
    load,
    max_id_number,
    records_of,
    require_no_conflict_markers,
    require_no_conflict_markers_in,
    require_table,
    sound_table,
)
from legion_memory.storage.row_edits import (
    Pieces,
    find_record,
    held_already,
    replace_row,
    require_id_column,
    row_insertion,
    verify_append,
    verify_update,
)

TYPE_CHECKING = False  # not typing's: docs/decisions.md#hot-paths-without-typing
if TYPE_CHECKING:
    from legion_memory.storage import journal

__all__ = [
    "Dedupe",
    "Mutation",
    "append",
    "append_once",
    "append_or_update",
    "atomic_write",
    "create_file",
    "describe",
    "init",
    "journal_files",
    "transact",
    "update",
]


def append(memory: Memory, record: Record, seen: Checked | None = None) -> Record:
    """Store a new record with the next free ID; returns it with its ID and line number. A record
    the file holds already (its identity) is not stored twice: returned as held (`append_once`).

    `seen`: the file as the caller read and checked it before taking the lock, if it did.
    """
    return append_once(memory, record, seen)[0]


def append_once(
    memory: Memory,
    record: Record,
    seen: Checked | None = None,
    inferred: frozenset[str] = frozenset(),
) -> tuple[Record, bool]:
    """`append`, and whether it wrote the record (False: the file held it already, its
    `inferred` values aside: `row_edits.held_already`)."""
    with _echoing(record), locked(memory):
        return _append_held(memory, record, seen, inferred)


class _echoing:
    """A store whose write fails (the lock, the directory, permissions, a read-only or full disk)
    raises WriteError with the record, so the caller can show it. A memory file that cannot be
    read is no failed write: UnsafePathError says what to fix (see
    docs/decisions.md#memory-confinement)."""

    def __init__(self, record: Record) -> None:
        self.record = record

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: object, failure: BaseException | None, _: object) -> None:
        record = self.record
        if isinstance(failure, WriteError):
            if failure.record:
                return
            raise type(failure)(
                failure.message, where=failure.where, hint=failure.hint, record=describe(record)
            ) from failure
        if isinstance(failure, OSError):  # a refusal the storage layer did not name itself
            what, where, hint = os_error_parts(failure)
            given = {key: value for key, value in record.values.items() if key != "id" or value}
            shown = describe(record.replace(values=given))  # no ID yet: none is shown
            raise WriteError(what, where=where, hint=hint, record=shown) from failure


def _append_held(
    memory: Memory,
    record: Record,
    seen: Checked | None = None,
    inferred: frozenset[str] = frozenset(),
) -> tuple[Record, bool]:
    kind = record.kind
    path = memory.path(kind)
    document, table, data, suspects = _current(path, kind, seen)
    require_id_column(path, table)
    highest = max_id_number(memory, kind, document, table, data, suspects)
    next_id = format_id(kind.prefix, highest + 1)
    stored = record.replace(values={**record.values, "id": next_id})
    cells = row_for(stored, table.columns)
    held = held_already(document, table, data, kind, cells, inferred)
    if held is not None:
        return held, False
    new, line = row_insertion(document, table, data, cells)
    verify_append(path, document, data, new, table, stored)
    _write(path, new, stored)
    return stored.replace(line=line), True


def _current(
    path: Path, kind: Kind, seen: Checked | None
) -> tuple[Document, Table, bytes, tuple[int, ...]]:
    """The file as it is now (read under the lock), parsed and checked, its bytes (the kind's
    template when there is no file) and the rows that may be conflict markers (`sound_table`);
    the parse and check of `seen` when the file still holds the very bytes they were made from."""
    if (
        seen is not None
        and seen.path == path
        and seen.kind is kind
        and holds_bytes(path, seen.data)
    ):
        return seen.document, seen.table, seen.data, seen.suspects
    data = read_data(path)
    if data is None:
        data = kind.template().encode("utf-8")
    document = parse(decode(path, data))
    table, suspects = sound_table(path, document, kind)
    return document, table, data, suspects


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
    with _echoing(record), locked(memory):
        document = load(path)
        require_no_conflict_markers(path, document)
        records = [] if document is None else records_of(path, document, kind)
        found = dedupe(records)
        if found is None:
            return None, _append_held(memory, record)[0]
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


def _write(path: Path, text: str | bytes | Pieces, record: Record) -> None:
    try:
        atomic_write(path, text)
    except WriteError as exc:
        raise WriteError(exc.message, where=exc.where, record=describe(record)) from exc


def describe(record: Record) -> str:
    """A record as `Column: value` lines, printed when a write fails so nothing is lost."""
    names = {column.key: column.name for column in record.kind.columns}
    return "\n".join(f"{names.get(key, key)}: {value}" for key, value in record.values.items())


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
    require_no_conflict_markers(path, document)
    table = require_table(path, document, kind)
    old = find_record(path, document, table, kind, record_id)
    new = old.replace(values={**old.values, **changes})
    text = replace_row(document, old.line - 1, row_for(new, table.columns))
    verify_update(path, document, text, table, new)
    _write(path, text, new)
    return old, new


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


def transact(
    memory: Memory, paths: list[Path], mutate: Mutation, *, resolving_conflicts: bool = False
) -> Mapping[Path, str]:
    """Read `paths` under the lock, let `mutate` compute new texts, write them all or none.

    A file with git conflict markers is refused (ParseError) unless the change is the one
    `resolving_conflicts` that repairs them: any other change would compute from half the truth.

    The previous text of every path is journaled before the first write; the files are then written
    in the order of `paths`, read back and compared, and the journal is removed last. Any failure
    puts every file back as it was and raises RollbackError (a failure to write the journal itself
    changes nothing and raises WriteError). A killed process leaves the journal: `locked` undoes it.
    """
    from legion_memory.storage import journal

    with locked(memory):
        current = {path: read_text(path) for path in paths}
        if not resolving_conflicts:
            require_no_conflict_markers_in(current)
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
        _write_journal(memory, journal.encode(record))
        try:
            for path in ordered:
                atomic_write(path, changes[path])
            _verify_written(ordered, changes)
            _drop_journal(memory)
        except LegionMemoryError as failure:
            journal.undo(memory.journal_path, record, journal_files(), failure)
        return changes


def _write_journal(memory: Memory, text: str) -> None:
    try:
        atomic_write(memory.journal_path, text)
    except WriteError as exc:
        raise WriteError(f"{exc.message}; nothing was changed", where=exc.where) from exc


def _verify_written(paths: list[Path], changes: Mapping[Path, str]) -> None:
    for path in paths:
        if read_bytes(path) != changes[path].encode("utf-8"):
            raise IntegrityError(
                "the file does not read back as what was just written", where=str(path)
            )


def _drop_journal(memory: Memory) -> None:
    remove(memory.journal_path)


def journal_files() -> "journal.Files":
    # Looked up on every call, so that replacing `atomic_write` reaches the journal's writes too.
    from legion_memory.storage import journal

    return journal.Files(read=read_bytes, write=atomic_write, remove=remove)

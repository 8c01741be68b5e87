"""`migrate`: add the spec's missing columns to legacy memory tables. Pure planning.

Legacy tables predate some columns (most often Branch). Migration inserts each missing column at
its spec position, in the header, the delimiter and every row, and fills it: Branch with the
repository's default branch (where the spec says such rows belong), a new ID for rows that never
had one, and the spec's own fallbacks for outcomes (Phase `N/A`, Plan `-`, Task Type `general`,
Importance from the outcome, Summary `-`). Existing cells keep their exact text and padding, so
the diff shows only the inserted cells. Everything outside the tables stays byte-identical.
"""

from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

from legion_memory.errors import IntegrityError
from legion_memory.knowledge.importance import OUTCOME_BASE
from legion_memory.markdown.cells import escape, split_raw
from legion_memory.markdown.document import Document, Table, ending_of, parse, render, strip_ending
from legion_memory.project.catalog import GENERAL
from legion_memory.schema.kinds import KINDS, OUTCOME, Kind
from legion_memory.schema.records import Record, column_key, format_id, read_records, records_table
from legion_memory.storage.reading import Memory, records_of, require_table

_OUTCOME_FILLS = {"phase": "N/A", "plan": "-", "task_type": GENERAL, "summary": "-"}


class TableChange(NamedTuple):
    path: Path
    kind: Kind
    archived: bool
    added: tuple[str, ...]
    rows: int

    def to_json(self, shown: str) -> dict[str, object]:
        return {
            "file": shown,
            "table": self.kind.archive_section if self.archived else self.kind.section,
            "added": list(self.added),
            "rows": self.rows,
        }


class Migration(NamedTuple):
    texts: dict[Path, tuple[str, str]]
    """Each changed file's text before and after."""
    tables: tuple[TableChange, ...]

    @property
    def new_texts(self) -> dict[Path, str]:
        return {path: after for path, (_, after) in self.texts.items()}


def memory_paths(memory: Memory) -> list[Path]:
    return [memory.path(kind) for kind in KINDS.values()] + [memory.archive]


def plan_migration(
    memory: Memory, texts: Mapping[Path, str | None], default_branch: str
) -> Migration:
    """What `migrate` changes, given the current text of every memory file (None: missing).
    ParseError when a table to migrate is malformed (then nothing at all is changed)."""
    documents = {path: parse(text) for path, text in texts.items() if text is not None}
    changed: dict[Path, Document] = {}
    tables: list[TableChange] = []
    for kind in KINDS.values():
        targets = [(memory.path(kind), False), (memory.archive, True)]
        next_number = _max_id(targets, documents, kind) + 1
        for path, archived in targets:
            document = changed.get(path) or documents.get(path)
            if document is None or not _has_table(document, kind, archived):
                continue
            table = require_table(path, document, kind, archived=archived)
            added = missing_columns(table.columns, kind)
            if not added:
                continue
            migrated, next_number = migrate_table(
                document, table, kind, default_branch, next_number
            )
            verify(path, document, table, migrated, kind, archived)
            changed[path] = migrated
            tables.append(TableChange(path, kind, archived, tuple(added), len(table.rows)))
    return Migration(
        {path: (texts[path] or "", render(doc)) for path, doc in changed.items()}, tuple(tables)
    )


def _has_table(document: Document, kind: Kind, archived: bool) -> bool:
    return records_table(document, kind, archived=archived) is not None


def _max_id(
    targets: list[tuple[Path, bool]], documents: Mapping[Path, Document], kind: Kind
) -> int:
    numbers = [0]
    for path, archived in targets:
        document = documents.get(path)
        if document is not None and _has_table(document, kind, archived):
            numbers += [r.number for r in records_of(path, document, kind, archived)]
    return max(numbers)


def missing_columns(columns: tuple[str, ...], kind: Kind) -> list[str]:
    present = {column_key(name) for name in columns}
    return [column.name for column in kind.columns if column.key not in present]


def new_header(columns: tuple[str, ...], kind: Kind) -> list[str]:
    """The columns after migration: each missing spec column right after the nearest spec
    column before it (at the start when there is none); other columns stay where they are."""
    result = list(columns)
    keys = [column_key(name) for name in result]
    for index, column in enumerate(kind.columns):
        if column.key in keys:
            continue
        earlier = {c.key for c in kind.columns[:index]}
        at = max((i + 1 for i, key in enumerate(keys) if key in earlier), default=0)
        result.insert(at, column.name)
        keys.insert(at, column.key)
    return result


def fill_value(kind: Kind, key: str, row: Record, default_branch: str) -> str:
    """What a newly added cell holds for an existing row (IDs are handed out separately)."""
    if key == "branch":
        return default_branch
    if kind is OUTCOME and key == "importance":
        base = OUTCOME_BASE.get(row["outcome"].strip().casefold())
        return "" if base is None else str(base)
    return _OUTCOME_FILLS.get(key, "") if kind is OUTCOME else ""


def migrate_table(
    document: Document, table: Table, kind: Kind, default_branch: str, next_number: int
) -> tuple[Document, int]:
    """The document with the table's missing columns added; and the next free ID number."""
    header = new_header(table.columns, kind)
    old_keys = [column_key(name) for name in table.columns]
    added = {column_key(name): name for name in header if column_key(name) not in old_keys}
    lines = list(document.lines)
    lines[table.header] = _with_cells(lines[table.header], old_keys, header, added)
    dashes = {key: "-" * (len(name) + 2) for key, name in added.items()}
    lines[table.delimiter] = _with_cells(lines[table.delimiter], old_keys, header, dashes)
    for record in read_records(document, table, kind):
        values = {}
        for key in added:
            if key == "id":
                values[key] = format_id(kind.prefix, next_number)
                next_number += 1
            else:
                values[key] = escape(fill_value(kind, key, record, default_branch))
        index = record.line - 1
        lines[index] = _with_cells(lines[index], old_keys, header, values)
    migrated = parse(render(Document(lines, bom=document.bom)))
    return migrated, next_number


def _with_cells(
    line: str, old_keys: list[str], header: list[str], inserted: Mapping[str, str]
) -> str:
    """`line` with a cell inserted for each column of `header` it lacks, holding
    `inserted[key]`; its own cells keep their exact text and padding."""
    lead, cells, trail = split_raw(strip_ending(line))
    pad = " " if cells and cells[0].startswith(" ") else ""
    own = dict(zip(old_keys, cells, strict=True))
    result = []
    for name in header:
        key = column_key(name)
        result.append(own[key] if key in own else f"{pad}{inserted[key]}{pad}")
    return lead + "|".join(result) + trail + ending_of(line)


def verify(
    path: Path, before: Document, table: Table, after: Document, kind: Kind, archived: bool
) -> None:
    """The migrated table has the same rows with the same values plus the new columns, and
    every line outside it is unchanged; IntegrityError otherwise (nothing is written)."""
    new_table = records_table(after, kind, archived=archived)
    same_place = new_table is not None and (new_table.header, new_table.end) == (
        table.header,
        table.end,
    )
    outside = [i for i in range(len(before.lines)) if i < table.header or i >= table.end]
    if not same_place or any(before.lines[i] != after.lines[i] for i in outside):
        raise _bug(path)
    assert new_table is not None
    old_rows = list(read_records(before, table, kind))
    new_rows = list(read_records(after, new_table, kind))
    if missing_columns(new_table.columns, kind) or len(old_rows) != len(new_rows):
        raise _bug(path)
    for old, new in zip(old_rows, new_rows, strict=True):
        if any(new[key] != value for key, value in old.values.items()):
            raise _bug(path)


def _bug(path: Path) -> IntegrityError:
    return IntegrityError(
        "the migrated text does not read back as the same records; nothing was written "
        "(this is a bug)",
        where=str(path),
        hint="please report it with the file attached",
    )

"""Many records added under one lock (imports): IDs kept or assigned, tables added where a file has
none, `/legion:learn` entries taken out, and every file verified by re-parsing before any write.

Files are read and written through `store` only; this module computes and checks their new text.
"""

from collections.abc import Sequence
from pathlib import Path

from legion_memory.errors import LegionMemoryError, ParseError
from legion_memory.markdown.document import Document, RowStyle, Table, parse, render, strip_ending
from legion_memory.named_tuple import NamedTuple
from legion_memory.schema.kinds import Kind, archive_section_lines, archive_template, row_for
from legion_memory.schema.records import Record, format_id, id_number, read_records, records_table
from legion_memory.storage.reading import (
    Memory,
    load,
    load_archived,
    records_of,
    require_no_conflict_markers,
    require_table,
)
from legion_memory.storage.row_edits import (
    insert_row,
    not_read_back,
    require_id_column,
    same_values,
)


class Removal(NamedTuple):
    """Lines to take out of a memory file: a `/legion:learn` entry moved into a table."""

    path: Path
    start: int
    lines: tuple[str, ...]


class Batch(NamedTuple):
    """Records with their IDs and the verified new texts of the files they go into."""

    records: tuple[Record, ...]
    texts: dict[Path, str]


def plan_batch(
    memory: Memory,
    live: Sequence[Record],
    archived: Sequence[Record] = (),
    removals: Sequence[Removal] = (),
) -> Batch:
    """The files after adding many records and making removals, verified; nothing is written.

    A record that carries an ID keeps it when no live or archived record of its kind has it, and
    is refused otherwise; the others get the next IDs, in order. A live file without any table (one
    only `/legion:learn` wrote) gains its kind's section; ARCHIVE.md gains a kind's section when
    first needed. For a real write, plan under `writing.transact`, which writes them as one change.
    """
    numbered = _assign_ids(memory, [*live, *archived])
    live_stored, archived_stored = numbered[: len(live)], numbered[len(live) :]
    documents: dict[Path, Document] = {}
    for path in dict.fromkeys(removal.path for removal in removals):
        mine = [removal for removal in removals if removal.path == path]
        documents[path] = _remove_lines(path, _existing(path), mine)
    for group, archive in ((live_stored, False), (archived_stored, True)):
        # Kinds are keyed by name: hashing a Kind hashes all its columns, per record.
        for kind in {record.kind.name: record.kind for record in group}.values():
            path = memory.archive if archive else memory.path(kind)
            if path not in documents:
                template = archive_template() if archive else kind.template()
                documents[path] = load(path) or parse(template)
            records = [record for record in group if record.kind.name == kind.name]
            documents[path] = _add_rows(path, documents[path], records, archived=archive)
    return Batch(tuple(numbered), {path: render(doc) for path, doc in documents.items()})


def _existing(path: Path) -> Document:
    document = load(path)
    if document is None:
        raise ParseError("file does not exist", where=str(path))
    return document


def _assign_ids(memory: Memory, records: Sequence[Record]) -> list[Record]:
    require_no_conflict_markers(memory.archive, load(memory.archive))  # IDs are taken there too
    taken: dict[str, set[str]] = {}
    top: dict[str, int] = {}
    for kind in {record.kind.name: record.kind for record in records}.values():
        ids = [r.id for r in live_records(memory, kind)] + [
            r.id for r in load_archived(memory, kind)
        ]
        taken[kind.name] = set(ids)
        top[kind.name] = max((id_number(i, kind.prefix) for i in ids), default=0)
    for record in records:
        if not record.id:
            continue
        if record.id in taken[record.kind.name]:
            raise LegionMemoryError(
                f"{record.id} already exists",
                where=str(memory.path(record.kind)),
                hint="IDs are never reused; import into a project that does not have it",
            )
        taken[record.kind.name].add(record.id)
        top[record.kind.name] = max(top[record.kind.name], record.number)
    numbered = []
    for record in records:
        if record.id:
            numbered.append(record)
            continue
        top[record.kind.name] += 1
        new_id = format_id(record.kind.prefix, top[record.kind.name])
        numbered.append(record.replace(values={**record.values, "id": new_id}))
    return numbered


def live_records(memory: Memory, kind: Kind) -> list[Record]:
    """Live records; none for a file without any table, which `_with_table` gives one."""
    path = memory.path(kind)
    document = load(path)
    if document is None or not document.tables:
        return []
    return records_of(path, document, kind)


def _remove_lines(path: Path, document: Document, removals: Sequence[Removal]) -> Document:
    require_no_conflict_markers(path, document)
    lines = list(document.lines)
    in_tables = {i for table in document.tables for i in range(table.header, table.end)}
    for removal in sorted(removals, key=lambda removal: removal.start, reverse=True):
        span = range(removal.start, removal.start + len(removal.lines))
        if tuple(lines[span.start : span.stop]) != removal.lines:
            raise LegionMemoryError(
                "the file changed while importing",
                where=f"{path}:{removal.start + 1}",
                hint="run the import again",
            )
        if in_tables.intersection(span):
            raise not_read_back(path)
        del lines[span.start : span.stop]
    return parse(render(Document(lines, bom=document.bom)))


def _with_table(document: Document, kind: Kind, *, archived: bool) -> Document:
    """The document with the kind's (archive) section added at the end when it lacks one."""
    if records_table(document, kind, archived=archived) is not None:
        return document
    if not archived and document.tables:
        return document  # some other table: require_table explains what is wrong
    section = archive_section_lines(kind) if archived else [f"## {kind.section}", ""]
    if not archived:
        section += kind.header_lines()
    lines = list(document.lines)
    ending = document.dominant_ending()
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += ending
    if lines and strip_ending(lines[-1]).strip():
        lines.append(ending)
    lines += [line + ending for line in section]
    return parse(render(Document(lines, bom=document.bom)))


def _add_rows(path: Path, document: Document, records: list[Record], *, archived: bool) -> Document:
    kind = records[0].kind
    require_no_conflict_markers(path, document)
    document = _with_table(document, kind, archived=archived)
    table = require_table(path, document, kind, archived=archived)
    require_id_column(path, table)
    text = insert_rows(document, table, [row_for(record, table.columns) for record in records])
    _verify_rows(path, document, text, table, records, archived=archived)
    return parse(text)


def insert_rows(document: Document, table: Table, rows: Sequence[list[str]]) -> str:
    """The text with rows after the table's last row: the first as `insert_row` writes it, the
    others in that first row's style."""
    first, _ = insert_row(document, table, render(document).encode("utf-8"), rows[0])
    text = first.decode("utf-8")
    if len(rows) == 1:
        return text
    after = parse(text)
    lines = list(after.lines)
    anchor = table.end
    style = RowStyle.of(lines[anchor])
    middle = style
    if not style.ending:
        middle = style._replace(ending=after.dominant_ending())
        lines[anchor] += middle.ending
    new = [middle.format(cells) for cells in rows[1:-1]] + [style.format(rows[-1])]
    lines[anchor + 1 : anchor + 1] = new
    return render(Document(lines, bom=after.bom))


def _verify_rows(
    path: Path, before: Document, text: str, table: Table, records: list[Record], *, archived: bool
) -> None:
    """Re-parse: every old line unchanged in place, and the new rows read back as the records."""
    after = parse(text)
    count = len(records)
    new_table = records_table(after, records[0].kind, archived=archived)
    if new_table is None or len(new_table.rows) != len(table.rows) + count:
        raise not_read_back(path)
    kept = after.lines[: table.end] + after.lines[table.end + count :]
    if [strip_ending(line) for line in kept] != [strip_ending(line) for line in before.lines]:
        raise not_read_back(path)
    read_back = list(read_records(after, new_table, records[0].kind))[len(table.rows) :]
    if not all(same_values(got, wanted) for got, wanted in zip(read_back, records, strict=True)):
        raise not_read_back(path)

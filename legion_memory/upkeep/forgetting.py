"""`forget` archives a record, never deletes it; `restore` brings it back.

`forget ID` moves the row, byte-for-byte (its line ending follows the file it lands in), from its
kind's file to the end of that kind's table in ARCHIVE.md: `## Archived Records` for outcomes,
`## Archived Patterns|Errors|Preferences` for the others, appended to ARCHIVE.md (after a
blank line) the first time that kind is archived. ARCHIVE.md itself is created from the spec's
template when missing. `restore ID` moves the row back into its kind's table at its place in ID
order: before the first row with a higher ID, so a table kept in ID order gets it back where it
was.

So that `forget` then `restore` leaves both files byte-identical, in whatever order records are
restored: a file that ends without a newline still does after a move, and when `restore` empties an
archive section that reads exactly as the tool writes it (a blank line, the heading, a blank line,
the header, the delimiter, then a blank line or the end of the file), that section is removed
again. `## Archived Records` is part of ARCHIVE.md's template and always stays.
"""

import re
from collections.abc import Callable, Mapping
from pathlib import Path

from legion_memory.errors import InputError, IntegrityError, LegionMemoryError, SchemaError
from legion_memory.markdown.document import Document, Table, ending_of, parse, render, strip_ending
from legion_memory.named_tuple import NamedTuple
from legion_memory.schema.kinds import (
    OUTCOME,
    Kind,
    archive_section_lines,
    archive_template,
    kind_of_id,
)
from legion_memory.schema.records import Record, column_key, id_numbers, read_records, records_table
from legion_memory.storage import reading, writing

_RECORD_ID = re.compile(r"^[OPED]-\d{3,}$")


class Moved(NamedTuple):
    """What a forget or restore did: the record, and the files it left and entered."""

    record: Record
    source: Path
    target: Path
    section: str

    def to_json(self) -> dict[str, object]:
        return {
            "id": self.record.id,
            "from": self.source.name,
            "to": self.target.name,
            "section": self.section,
            "record": self.record.to_json(),
        }


def kind_for(record_id: str) -> Kind:
    kind = kind_of_id(record_id)
    if kind is None or not _RECORD_ID.match(record_id):
        raise InputError(
            f"'{record_id}' is not a record ID",
            hint="IDs look like O-001, P-001, E-001 or D-001; learn and retro entries are "
            "edited by hand",
        )
    return kind


def forget(memory: reading.Memory, record_id: str) -> Moved:
    """Move the record's row from its kind's file into ARCHIVE.md."""
    kind = kind_for(record_id)
    if not memory.path(kind).is_file():
        raise _unknown(record_id, memory.path(kind))
    record = _move(memory, kind, record_id, archive_row, archive_first=True)
    return Moved(record, memory.path(kind), memory.archive, kind.archive_section)


def restore(memory: reading.Memory, record_id: str) -> Moved:
    """Move an archived record's row from ARCHIVE.md back into its kind's file."""
    kind = kind_for(record_id)
    if not memory.archive.is_file():
        raise _unknown(record_id, memory.archive, archived=True)
    record = _move(memory, kind, record_id, unarchive_row, archive_first=False)
    return Moved(record, memory.archive, memory.path(kind), kind.section)


Plan = Callable[[Kind, str, "Texts"], tuple[str, str, Record]]


def _move(
    memory: reading.Memory, kind: Kind, record_id: str, plan: Plan, *, archive_first: bool
) -> Record:
    live, archive = memory.path(kind), memory.archive
    # Plan once without the lock so that a refused move leaves the directory untouched (not even
    # a lock file), then again under the lock on what is really there.
    texts = Texts(live, reading.read_text(live), archive, reading.read_text(archive))
    reading.require_no_conflict_markers_in({live: texts.live_text, archive: texts.archive_text})
    plan(kind, record_id, texts)
    found: list[Record] = []

    def mutate(current: Mapping[Path, str | None]) -> dict[Path, str]:
        texts = Texts(live, current[live], archive, current[archive])
        live_text, archive_text, record = plan(kind, record_id, texts)
        found.append(record)
        # The destination first: should a crash ever split the two writes, the row is in both
        # files, never in neither.
        if archive_first:
            return {archive: archive_text, live: live_text}
        return {live: live_text, archive: archive_text}

    writing.transact(memory, [live, archive], mutate)
    return found[0]


class Texts(NamedTuple):
    """The two files a move touches and their current text (None when missing)."""

    live: Path
    live_text: str | None
    archive: Path
    archive_text: str | None


class Side(NamedTuple):
    """One end of a move: a file, its parsed text and the kind's table in it."""

    path: Path
    document: Document
    table: Table
    archived: bool

    def rows(self) -> list[str]:
        return [self.document.text(index) for index in self.table.rows]

    def find(self, kind: Kind, record_id: str) -> Record | None:
        # Only a row whose text holds the ID can hold it: the others are not split.
        records = read_records(self.document, self.table, kind, mentioning=(record_id,))
        return next((record for record in records if record.id == record_id), None)


def _side(path: Path, document: Document, kind: Kind, *, archived: bool) -> Side:
    return Side(
        path, document, reading.require_table(path, document, kind, archived=archived), archived
    )


def archive_row(kind: Kind, record_id: str, texts: Texts) -> tuple[str, str, Record]:
    """New (live, archive) texts with the record's row moved to the archive, and the record."""
    live = _side(texts.live, parse(texts.live_text or ""), kind, archived=False)
    archive_doc = parse(archive_template() if texts.archive_text is None else texts.archive_text)
    if records_table(archive_doc, kind, archived=True) is None:
        archive_doc = parse(render(Document(with_section(archive_doc, kind), bom=archive_doc.bom)))
    archive = _side(texts.archive, archive_doc, kind, archived=True)
    record, in_archive = live.find(kind, record_id), archive.find(kind, record_id)
    if record is None:
        if in_archive is not None:
            raise LegionMemoryError(
                f"{record_id} is already archived",
                where=str(texts.archive),
                hint=f"run `legion-memory restore {record_id}` to bring it back",
            )
        raise _unknown(record_id, texts.live)
    _refuse_both(record_id, in_archive, texts)
    _same_columns(live.table, archive.table, texts.archive)
    live_text, archive_text = _moved(kind, live, record.line - 1, archive, archive.table.end)
    return live_text, archive_text, record


def unarchive_row(kind: Kind, record_id: str, texts: Texts) -> tuple[str, str, Record]:
    """New (live, archive) texts with the record's row moved back to its kind's table."""
    live_doc = parse(kind.template() if texts.live_text is None else texts.live_text)
    live = _side(texts.live, live_doc, kind, archived=False)
    archive_doc = parse(texts.archive_text or "")
    has_table = records_table(archive_doc, kind, archived=True) is not None
    archive = _side(texts.archive, archive_doc, kind, archived=True) if has_table else None
    record = archive.find(kind, record_id) if archive else None
    in_live = live.find(kind, record_id)
    if archive is None or record is None:
        if in_live is not None:
            raise LegionMemoryError(
                f"{record_id} is not archived", where=f"{texts.live}:{in_live.line}"
            )
        raise _unknown(record_id, texts.archive, archived=True)
    _refuse_both(record_id, in_live, texts)
    _same_columns(live.table, archive.table, texts.archive)
    at = restore_index(live.document, live.table, kind, record.number)
    archive_text, live_text = _moved(kind, archive, record.line - 1, live, at)
    return live_text, archive_text, record


def _moved(kind: Kind, source: Side, index: int, target: Side, at: int) -> tuple[str, str]:
    """The (source, target) texts with line `index` of the source moved to line `at` of the
    target; an archive section the move leaves empty goes too when the tool wrote it."""
    row = source.document.text(index)
    source_lines = remove_line(source.document.lines, index)
    if source.archived and kind is not OUTCOME and len(source.table.rows) == 1:
        source_lines = without_empty_section(source_lines, kind, source.table.header)
    target_rows = target.rows()
    position = at - target.table.rows.start
    source_text = _checked(
        source.path,
        Document(source_lines, bom=source.document.bom),
        kind,
        _dropped(source.rows(), index - source.table.rows.start),
        archived=source.archived,
    )
    target_text = _checked(
        target.path,
        Document(insert_line(target.document, at, row), bom=target.document.bom),
        kind,
        [*target_rows[:position], row, *target_rows[position:]],
        archived=target.archived,
    )
    return source_text, target_text


def _unknown(record_id: str, path: Path, *, archived: bool = False) -> InputError:
    what = "no archived record" if archived else "no record"
    return InputError(
        f"{what} {record_id}",
        where=str(path),
        hint="check the ID with `legion-memory search` or `legion-memory recall`",
    )


def _refuse_both(record_id: str, other: Record | None, texts: Texts) -> None:
    if other is not None:
        raise IntegrityError(
            f"{record_id} is both live and archived",
            where=f"{texts.live} and {texts.archive}",
            hint="run `legion-memory doctor --fix`, then retry",
        )


def _same_columns(live: Table, archive: Table, archive_path: Path) -> None:
    # The row moves as it is written, so both tables must have the same columns in the same order.
    if [column_key(c) for c in live.columns] != [column_key(c) for c in archive.columns]:
        raise SchemaError(
            "the archive table's columns differ from the live table's, so the row cannot move "
            "as it is",
            where=f"{archive_path}:{archive.header + 1}",
            hint="run `legion-memory migrate` so that both tables have the same columns",
        )


def restore_index(document: Document, table: Table, kind: Kind, number: int) -> int:
    """Where a restored row goes: before the first row with a higher ID number, else at the end."""
    numbers = id_numbers(document, table, kind)  # the ID cells alone: the table is checked
    later = (offset for offset, found in enumerate(numbers) if found > number)
    first = next(later, None)
    return table.end if first is None else table.rows.start + first


def remove_line(lines: list[str], index: int) -> list[str]:
    kept = lines[:index] + lines[index + 1 :]
    if index == len(kept) and kept and not ending_of(lines[index]):
        # The file ended without a newline on the removed line; it still ends without one.
        kept[-1] = strip_ending(kept[-1])
    return kept


def insert_line(document: Document, index: int, text: str) -> list[str]:
    """The document's lines with `text` as line `index`, taking the line ending of its neighbour."""
    lines = list(document.lines)
    if index == len(lines) and lines and not ending_of(lines[-1]):
        lines[-1] += document.dominant_ending()
        lines.append(text)
        return lines
    ending = ending_of(lines[index - 1]) if index else document.dominant_ending()
    lines.insert(index, text + ending)
    return lines


def with_section(document: Document, kind: Kind) -> list[str]:
    """ARCHIVE.md's lines with the kind's empty archive table appended after a blank line."""
    ending = document.dominant_ending()
    lines = list(document.lines)
    block = ["", *archive_section_lines(kind)]
    if lines and not ending_of(lines[-1]):
        lines[-1] += ending
        return [*lines, *(line + ending for line in block[:-1]), block[-1]]
    return [*lines, *(line + ending for line in block)]


def without_empty_section(lines: list[str], kind: Kind, header: int) -> list[str]:
    """The lines without the kind's now empty archive section (its table header at `header`),
    when it reads exactly as `with_section` writes it, wherever it is; otherwise unchanged."""
    block = ["", *archive_section_lines(kind)]
    start, end = header - 3, header + 2
    if start < 0 or [strip_ending(line) for line in lines[start:end]] != block:
        return lines
    if end < len(lines) and strip_ending(lines[end]):
        return lines  # text right under the table: not the tool's section
    kept = lines[:start] + lines[end:]
    if end == len(lines) and start and not ending_of(lines[-1]):
        kept[-1] = strip_ending(kept[-1])
    return kept


def _dropped(rows: list[str], position: int) -> list[str]:
    return rows[:position] + rows[position + 1 :]


def _checked(
    path: Path, document: Document, kind: Kind, expected: list[str], *, archived: bool = False
) -> str:
    """The document's text, once re-parsing it shows exactly the expected rows of the kind."""
    text = render(document)
    after = parse(text)
    table = records_table(after, kind, archived=archived)
    rows = [] if table is None else [after.text(index) for index in table.rows]
    if rows != expected:
        raise IntegrityError(
            "the text about to be written does not read back as the intended rows; nothing was "
            "written (this is a bug)",
            where=str(path),
            hint="please report it with the file attached",
        )
    return text

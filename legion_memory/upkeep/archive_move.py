"""The move a prune makes: the exact new texts of OUTCOMES.md and ARCHIVE.md with the planned
rows moved, each row keeping its bytes (or its cells, in the archive's column order), re-parsed and
checked against the plan before anything is written."""

from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from legion_memory.errors import IntegrityError, SchemaError
from legion_memory.markdown.cells import split_cells
from legion_memory.markdown.document import (
    Document,
    RowStyle,
    Table,
    ending_of,
    parse,
    render,
    strip_ending,
)
from legion_memory.schema.kinds import OUTCOME, archive_section_lines, archive_template
from legion_memory.schema.records import Record, column_key, read_records, records_table
from legion_memory.storage import reading
from legion_memory.storage.row_edits import require_id_column
from legion_memory.wording import noun_for

if TYPE_CHECKING:
    from legion_memory.upkeep.prune import Plan, Snapshot


def moved(snapshot: "Snapshot", plan: "Plan", default_branch: str) -> dict[Path, str]:
    """The new text of both files with the candidates moved; {} when nothing is eligible."""
    document, table = snapshot.outcomes, snapshot.outcomes_table
    if not plan.candidates or document is None or table is None:
        return {}
    require_id_column(snapshot.outcomes_path, table, rows="archived rows")
    archive = _with_archive_table(snapshot.archive or parse(archive_template()))
    archive_table = reading.require_table(snapshot.archive_path, archive, OUTCOME, archived=True)
    _require_columns(snapshot.archive_path, archive_table, table.columns)
    rows = [
        _archive_row(
            document.lines[record.line - 1], table.columns, archive_table.columns, default_branch
        )
        for record in plan.candidates
    ]
    gone = {record.line - 1 for record in plan.candidates}
    kept_lines = [line for index, line in enumerate(document.lines) if index not in gone]
    texts = {
        snapshot.archive_path: _insert_rows(archive, archive_table, rows),
        snapshot.outcomes_path: render(Document(kept_lines, bom=document.bom)),
    }
    _verify(snapshot, plan, texts, rows)
    return texts


def _require_columns(path: Path, archive: Table, columns: Sequence[str]) -> None:
    """Moving a row into a table without one of its columns would drop that value: refuse."""
    have = {column_key(name) for name in archive.columns}
    missing = [name for name in columns if column_key(name) not in have]
    if missing:
        raise SchemaError(
            f"the archive table lacks the {noun_for(len(missing), 'column')} {', '.join(missing)}; "
            "moving rows into it would lose their values",
            where=f"{path}:{archive.header + 1}",
            hint="add the column to ARCHIVE.md's Archived Records table",
        )


def _with_archive_table(document: Document) -> Document:
    """ARCHIVE.md with its `## Archived Records` table, appended at the end when it has none."""
    if records_table(document, OUTCOME, archived=True) is not None:
        return document
    ending = document.dominant_ending()
    lines = list(document.lines)
    if lines and not ending_of(lines[-1]):
        lines[-1] += ending
    if lines and lines[-1].strip():
        lines.append(ending)
    lines += [line + ending for line in archive_section_lines(OUTCOME)]
    return parse(render(Document(lines, bom=document.bom)))


def _archive_row(line: str, source: Sequence[str], target: Sequence[str], branch: str) -> str:
    """The row as it goes into ARCHIVE.md: its own text when both tables have the same columns,
    else its cells (still escaped) in the archive's column order; a missing Branch is the default
    branch, which is what a row without one always meant."""
    text = strip_ending(line)
    if list(source) == list(target):
        return text
    cells = dict(zip((column_key(name) for name in source), split_cells(text), strict=True))
    defaults = {"branch": branch}
    ordered = [cells.get(key, defaults.get(key, "")) for key in map(column_key, target)]
    return strip_ending(RowStyle.of(line).format(ordered))


def _insert_rows(document: Document, table: Table, rows: list[str]) -> str:
    """The text with `rows` after the table's last row, each ending like the row above them."""
    lines = list(document.lines)
    anchor = table.end - 1
    ending = ending_of(lines[anchor])
    if ending:
        new = [row + ending for row in rows]
    else:
        # The anchor ends the file without a newline: it gains one, the last new row stays bare.
        ending = document.dominant_ending()
        lines[anchor] += ending
        new = [row + ending for row in rows[:-1]] + [rows[-1]]
    lines[table.end : table.end] = new
    return render(Document(lines, bom=document.bom))


def _verify(snapshot: "Snapshot", plan: "Plan", texts: Mapping[Path, str], rows: list[str]) -> None:
    """Re-parse both new texts: the kept rows unchanged, the moved rows after the archived ones,
    every record exactly once across the two files."""
    outcomes = _reread(snapshot.outcomes_path, texts, archived=False)
    archive = _reread(snapshot.archive_path, texts, archived=True)
    old_rows = [record.line for record in snapshot.archived]
    old_archive_rows = [snapshot.archive.text(n - 1) for n in old_rows] if snapshot.archive else []
    kept_rows = [snapshot.outcomes.text(r.line - 1) for r in plan.kept] if snapshot.outcomes else []
    expected = [*old_archive_rows, *rows]
    if [row for _, row in outcomes] != kept_rows or [row for _, row in archive] != expected:
        raise _bug(snapshot.archive_path)
    before = Counter(r.id for r in (*plan.candidates, *plan.kept, *snapshot.archived))
    after = Counter(record.id for record, _ in (*outcomes, *archive))
    moved_back = [record for record, _ in archive[len(old_archive_rows) :]]
    if before != after or any(
        not _same(a, b) for a, b in zip(moved_back, plan.candidates, strict=True)
    ):
        raise _bug(snapshot.archive_path)


def _reread(path: Path, texts: Mapping[Path, str], *, archived: bool) -> list[tuple[Record, str]]:
    document = parse(texts[path])
    table = records_table(document, OUTCOME, archived=archived)
    if table is None or reading.ragged_row(document, table) is not None:
        raise _bug(path)
    return [(record, document.text(record.line - 1)) for record in _records(document, table)]


def _same(archived: Record, original: Record) -> bool:
    return all(archived[key] == value for key, value in original.values.items())


def _bug(path: Path) -> IntegrityError:
    return IntegrityError(
        "the files about to be written do not read back as the intended move; nothing was "
        "written (this is a bug)",
        where=str(path),
        hint="please report it with OUTCOMES.md and ARCHIVE.md attached",
    )


def _records(document: Document, table: Table) -> list[Record]:
    return list(read_records(document, table, OUTCOME))

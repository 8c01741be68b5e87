"""A dry-run prune: what `prune` would move and the numbers it would report, read from the four
cells eligibility needs, with no record built per row (docs/decisions.md#prune-dry-run-from-cells).
"""

import datetime as dt
from collections.abc import Iterator
from pathlib import Path

from legion_memory.markdown.document import Document, strip_ending
from legion_memory.named_tuple import NamedTuple
from legion_memory.schema.kinds import OUTCOME
from legion_memory.schema.records import records_table
from legion_memory.schema.table_rows import TableRows
from legion_memory.storage import reading
from legion_memory.upkeep.prune import HIGH_IMPORTANCE, Criteria, Report, usable_day


class Preview(NamedTuple):
    """The outcomes that would move (their IDs and line indexes) and the counts of all rows."""

    criteria: Criteria
    total: int
    candidate_ids: tuple[str, ...]
    candidate_lines: tuple[int, ...]
    high_importance: int
    current_phase: int
    archived_before: int
    header: tuple[str, ...]
    lines: list[str]
    """OUTCOMES.md's lines, where the candidates' rows are read when they are listed."""

    def over(self, threshold: int | None) -> bool:
        """`Plan.over`: whether the live count exceeds `threshold` (None: always)."""
        return threshold is None or self.total > threshold

    def report(self) -> Report:
        """`Plan.report(applied=False)`: the numbers with every record left in place."""
        counts = (self.total, self.high_importance, self.current_phase, self.archived_before)
        return Report((), *counts)

    def listing(self) -> Iterator[str]:
        """`Plan.listing()`'s lines: the header, then each row that would move."""
        yield from self.header
        for index in self.candidate_lines:
            yield strip_ending(self.lines[index])


def preview(memory: reading.Memory, criteria: Criteria) -> Preview:
    """`prune.preview` of the files as they are now: the same candidates, counts and errors."""
    outcomes_path, archive_path = memory.path(OUTCOME), memory.archive
    outcomes, archive = reading.load(outcomes_path), reading.load(archive_path)
    reading.require_no_conflict_markers_as_read({outcomes_path: outcomes, archive_path: archive})
    if outcomes is None:
        return _of_rows(criteria, None, _archived(archive_path, archive))
    table = reading.require_table(outcomes_path, outcomes, OUTCOME)
    rows = TableRows(OUTCOME, outcomes, table)
    archived = _archived(archive_path, archive)
    header = (outcomes.text(table.header), outcomes.text(table.delimiter))
    return _of_rows(criteria, rows, archived)._replace(header=header, lines=outcomes.lines)


def _archived(path: Path, archive: Document | None) -> int:
    """How many records ARCHIVE.md's outcome table holds, checked as reading them checks it."""
    if archive is None or records_table(archive, OUTCOME, archived=True) is None:
        return 0
    return reading.checked_row_count(path, archive, OUTCOME, archived=True)


def _of_rows(criteria: Criteria, rows: TableRows | None, archived: int) -> Preview:
    ids: list[str] = []
    lines: list[int] = []
    high = current = 0
    # Dates repeat from row to row: each is read once.
    days: dict[str, tuple[dt.date | None, dt.date | None]] = {}
    cells = () if rows is None else rows.cells("id", "date", "importance", "phase")
    for offset, (record_id, date, importance, phase) in enumerate(cells):
        found = days.get(date)
        if found is None:
            found = days[date] = (usable_day(date), _day(date))
        if criteria.eligible_cells(found[0], importance, phase):
            ids.append(record_id)
            lines.append(offset)
        high += importance in HIGH_IMPORTANCE
        current += criteria.current_cells(phase, found[1])
    total = 0 if rows is None else len(rows)
    first = 0 if rows is None else rows.first_line - 1
    at = tuple(first + offset for offset in lines)
    return Preview(criteria, total, tuple(ids), at, high, current, archived, (), [])


def _day(date: str) -> dt.date | None:
    """`Record.day`: the date as `fromisoformat` reads it, whatever the column's rule says."""
    try:
        return dt.date.fromisoformat(date)
    except ValueError:
        return None

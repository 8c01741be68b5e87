"""Pruning: old, low-importance outcomes move from OUTCOMES.md into ARCHIVE.md, all or nothing.

Planning is pure: which rows are eligible, and the exact text both files become (the moved rows keep
their bytes, nothing else in either file changes), re-parsed and checked before anything is written.
Applying goes through `store.transact`, which journals both files, writes ARCHIVE.md before
OUTCOMES.md, reads them back, and puts both back byte-identical on any failure.
"""

import datetime as dt
from collections.abc import Mapping
from functools import cached_property
from pathlib import Path
from typing import NamedTuple

from legion_memory.errors import (
    IntegrityError,
    LegionMemoryError,
    RollbackError,
    WriteError,
)
from legion_memory.markdown.document import (
    Document,
    Table,
    parse,
)
from legion_memory.project.root import Settings
from legion_memory.schema.kinds import (
    ARCHIVE_FILENAME,
    OUTCOME,
    check_value,
)
from legion_memory.schema.records import Record, read_records, records_table
from legion_memory.storage import reading, writing
from legion_memory.upkeep.archive_move import moved
from legion_memory.wording import count_of

NO_ELIGIBLE = (
    "No records eligible for pruning. All records are either recent, high-importance, "
    "or in the current phase."
)
NO_PHASE_WARNING = (
    "Warning: no current phase found in .planning/STATE.md; "
    "records of the current phase are not protected from pruning."
)
_ARCHIVABLE_IMPORTANCE = frozenset({"1", "2", "3"})
HIGH_IMPORTANCE = frozenset({"4", "5"})


class Criteria(NamedTuple):
    """What makes an outcome eligible: older than `age_days`, importance 1-3, not current phase."""

    today: dt.date
    age_days: int
    current_phase: int | None
    phase_since: dt.date | None = None
    """The current milestone's start: an outcome of the same number dated on or before it
    belongs to an earlier milestone's phase (docs/decisions.md#reused-phase-numbers)."""

    def eligible(self, record: Record) -> bool:
        day = usable_day(record["date"])
        return self.eligible_cells(day, record["importance"], record["phase"])

    def eligible_cells(self, day: dt.date | None, importance: str, phase: str) -> bool:
        """`eligible` of a record from its cells, its date read by `usable_day`."""
        # A date or importance that does not read cleanly never lets a record go.
        if day is None:
            return False
        old = (self.today - day).days > self.age_days
        return old and importance in _ARCHIVABLE_IMPORTANCE and not self.current_cells(phase, day)

    def current(self, record: Record) -> bool:
        return self.current_cells(record["phase"], record.day)

    def current_cells(self, phase: str, day: dt.date | None) -> bool:
        """`current` of a record from its Phase cell and its date (None when it does not parse)."""
        if self.current_phase is None or not (phase.isascii() and phase.isdigit()):
            return False
        since = self.phase_since
        earlier = since is not None and day is not None and day <= since
        return int(phase) == self.current_phase and not earlier


def usable_day(date: str) -> dt.date | None:
    """The day of a Date cell when it is a valid date in the column's form, else None: only such
    a date lets a record be pruned."""
    if check_value(OUTCOME, "date", date) is not None:
        return None
    try:
        return dt.date.fromisoformat(date)
    except ValueError:
        return None


class Report(NamedTuple):
    """The spec's Step 8 numbers, describing the files after the command."""

    archived: tuple[str, ...]
    remaining: int
    high_importance: int
    current_phase: int
    archive_total: int

    def text(self, archive_shown: str) -> str:
        if not self.archived:
            return NO_ELIGIBLE
        return "\n".join(
            [
                f"Pruned {count_of(len(self.archived), 'record')} → {archive_shown}",
                f"Remaining: {count_of(self.remaining, 'active record')}",
                f"Preserved: {self.high_importance} high-importance (4-5), "
                f"{self.current_phase} current-phase",
                f"Archive total: {count_of(self.archive_total, 'record')}",
            ]
        )

    def to_json(self) -> dict[str, object]:
        return {
            "archived": list(self.archived),
            "archived_count": len(self.archived),
            "remaining_count": self.remaining,
            "high_importance_count": self.high_importance,
            "current_phase_count": self.current_phase,
            "archive_total": self.archive_total,
        }


class Snapshot:
    """OUTCOMES.md and ARCHIVE.md as read (None when missing), parsed once."""

    # No __slots__: cached_property stores its values in the instance's __dict__.
    def __init__(
        self,
        outcomes_path: Path,
        outcomes: Document | None,
        archive_path: Path,
        archive: Document | None,
    ) -> None:
        self.outcomes_path = outcomes_path
        self.outcomes = outcomes
        self.archive_path = archive_path
        self.archive = archive

    @classmethod
    def of(cls, memory: reading.Memory, texts: Mapping[Path, str | None]) -> "Snapshot":
        outcomes, archive = memory.path(OUTCOME), memory.archive
        return cls(outcomes, _parsed(texts[outcomes]), archive, _parsed(texts[archive]))

    @cached_property
    def outcomes_table(self) -> Table | None:
        if self.outcomes is None:
            return None
        return reading.require_table(self.outcomes_path, self.outcomes, OUTCOME)

    @cached_property
    def archived(self) -> list[Record]:
        if self.archive is None or records_table(self.archive, OUTCOME, archived=True) is None:
            return []
        return reading.records_of(self.archive_path, self.archive, OUTCOME, archived=True)


def _parsed(text: str | None) -> Document | None:
    return None if text is None else parse(text)


class Plan(NamedTuple):
    """The outcomes that move and the ones that stay, with the rows as they are written."""

    criteria: Criteria
    candidates: tuple[Record, ...]
    kept: tuple[Record, ...]
    archived_before: int
    header: tuple[str, ...]
    rows: tuple[str, ...]

    @property
    def candidate_ids(self) -> list[str]:
        return [record.id for record in self.candidates]

    @property
    def total(self) -> int:
        return len(self.candidates) + len(self.kept)

    def over(self, threshold: int | None) -> bool:
        """Whether the live count exceeds `threshold` (None: no threshold applies)."""
        return threshold is None or self.total > threshold

    def report(self, *, applied: bool) -> Report:
        """The numbers after pruning the candidates (`applied`) or after leaving all in place."""
        remaining = self.kept if applied else (*self.candidates, *self.kept)
        return Report(
            archived=tuple(record.id for record in self.candidates) if applied else (),
            remaining=len(remaining),
            high_importance=sum(1 for r in remaining if r["importance"] in HIGH_IMPORTANCE),
            current_phase=sum(1 for r in remaining if self.criteria.current(r)),
            archive_total=self.archived_before + (len(self.candidates) if applied else 0),
        )

    def listing(self) -> str:
        """The rows that move, under their table header: printed when they could not be moved."""
        return "\n".join([*self.header, *self.rows])


def plan(snapshot: Snapshot, criteria: Criteria) -> Plan:
    table = snapshot.outcomes_table
    document = snapshot.outcomes
    records = [] if table is None or document is None else _records(document, table)
    eligible = [criteria.eligible(record) for record in records]
    candidates = tuple(record for record, going in zip(records, eligible, strict=True) if going)
    return Plan(
        criteria=criteria,
        candidates=candidates,
        kept=tuple(record for record, going in zip(records, eligible, strict=True) if not going),
        archived_before=len(snapshot.archived),
        header=_header(document, table),
        rows=tuple(document.text(r.line - 1) for r in candidates) if document else (),
    )


def _records(document: Document, table: Table) -> list[Record]:
    return list(read_records(document, table, OUTCOME))


def _header(document: Document | None, table: Table | None) -> tuple[str, ...]:
    if document is None or table is None:
        return ()
    return document.text(table.header), document.text(table.delimiter)


def preview(memory: reading.Memory, criteria: Criteria) -> Plan:
    """The plan for the files as they are now, read without the lock (nothing is written)."""
    paths = (memory.path(OUTCOME), memory.archive)
    texts = {path: reading.read_text(path) for path in paths}
    reading.require_no_conflict_markers_in(texts)  # a dry run says what the real run would
    return plan(Snapshot.of(memory, texts), criteria)


class PruneFailed(WriteError):
    """Prune did not happen: both files are as they were (or the journal will put them back).
    `listing` holds the rows that were to be archived, for whoever has to handle them."""

    def __init__(self, cause: LegionMemoryError, plan: Plan) -> None:
        super().__init__(
            f"prune failed: {cause.message}",
            where=cause.where,
            hint=cause.hint or "retry once the cause is fixed",
        )
        self.ids = tuple(record.id for record in plan.candidates)
        self.listing = plan.listing()


def prune(
    memory: reading.Memory, criteria: Criteria, *, default_branch: str, threshold: int | None = None
) -> Plan:
    """Move every eligible outcome into ARCHIVE.md (created when missing), all or nothing.

    The files are re-read and planned under the lock; with a `threshold`, nothing moves unless
    the live count exceeds it (`Plan.over`). `default_branch` fills the Branch cell of rows from
    a table without a Branch column. Returns the plan it carried out; PruneFailed when a write or
    a check fails, with both files as they were.
    """
    if not memory.path(OUTCOME).is_file():
        return preview(memory, criteria)  # nothing to move, and no memory directory to create
    plans: list[Plan] = []

    def mutate(texts: Mapping[Path, str | None]) -> dict[Path, str]:
        snapshot = Snapshot.of(memory, texts)
        plans.append(plan(snapshot, criteria))
        if not plans[-1].over(threshold):
            return {}
        return moved(snapshot, plans[-1], default_branch)

    try:
        writing.transact(memory, [memory.archive, memory.path(OUTCOME)], mutate)
    except (WriteError, RollbackError, IntegrityError) as failure:
        if not plans:
            raise
        raise PruneFailed(failure, plans[-1]) from failure
    return plans[-1]


def archive_shown(memory: reading.Memory) -> str:
    """ARCHIVE.md as the report names it: relative for a project's memory, else in full."""
    if memory.directory.parts[-2:] == reading.MEMORY_DIR.parts:
        return (reading.MEMORY_DIR / ARCHIVE_FILENAME).as_posix()
    return str(memory.archive)


def auto_prune(
    memory: reading.Memory,
    settings: Settings,
    today: dt.date,
    current_phase: int | None,
    *,
    default_branch: str = "main",
    phase_since: dt.date | None = None,
) -> str | None:
    """Prune after a store when `memory.auto_prune` is on and the count exceeds the threshold.

    Returns the text to show on stderr (the report, or a warning), None when it did not run. It
    never raises: a failed prune changes nothing and must never fail the store that called it.
    """
    if not (settings.enabled and settings.auto_prune):
        return None
    criteria = Criteria(today, settings.prune_age_days, current_phase, phase_since)
    try:
        done = prune(
            memory, criteria, default_branch=default_branch, threshold=settings.prune_threshold
        )
    except (LegionMemoryError, OSError) as error:
        detail = error.line() if isinstance(error, LegionMemoryError) else str(error)
        return f"Warning: auto-prune failed, nothing was archived: {detail}"
    if not done.over(settings.prune_threshold):
        return None
    warning = [NO_PHASE_WARNING] if current_phase is None else []
    return "\n".join([*warning, done.report(applied=True).text(archive_shown(memory))])

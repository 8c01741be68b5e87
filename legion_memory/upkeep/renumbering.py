"""PURE planning of ID repairs: duplicate IDs renumbered, and `Source` references that follow.

A kind's rows are read ARCHIVE first, then the live file, each in file order: the first holder of
an ID keeps it. A later row with the same ID is removed when it is an identical copy of an earlier
one (a pruned row resurrected by a line merge, a row a union merge kept twice), and otherwise gets
the next free number of its kind (live and archive together).

When an outcome changes its ID, a pattern citing the old ID in `Source` is made to follow it when
it belongs with the renumbered row rather than with the one that kept the ID: its Branch is the
renumbered row's and not the other's; or else it arrived together with it (it was renumbered too,
or the merge driver logged it as brought in from the same side); or no row has the old ID any
more. Otherwise it is left alone.
"""

import re
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import NamedTuple

from legion_memory.errors import IntegrityError
from legion_memory.gitops.merge_log import Arrival
from legion_memory.gitops.row_merge import edit_cell, set_cell
from legion_memory.markdown.document import Document, parse, row_cells, strip_ending
from legion_memory.schema.kinds import KINDS, OUTCOME, PATTERN, Kind
from legion_memory.schema.records import column_key, format_id, id_number, records_table
from legion_memory.storage.reading import Memory

_OUTCOME_REF = re.compile(rf"\b{OUTCOME.prefix}-\d{{3,}}\b")
Texts = Mapping[Path, str | None]


def memory_files(memory: Memory) -> list[Path]:
    return [memory.path(kind) for kind in KINDS.values()] + [memory.archive]


class Occurrence:
    """One row of a kind's table, live or archived."""

    # A slotted class, not a NamedTuple: `index` and `[key]` would shadow the tuple's own.
    __slots__ = ("cells", "columns", "index", "path", "positions", "raw")

    def __init__(
        self,
        path: Path,
        index: int,
        raw: str,
        columns: tuple[str, ...],
        cells: tuple[str, ...],
        positions: Mapping[str, int] | None = None,
    ) -> None:
        self.path = path
        self.index = index
        self.raw = raw
        self.columns = columns
        self.cells = cells
        # Shared by every row of a table: a read looks one cell up, building nothing.
        self.positions = column_positions(columns) if positions is None else positions

    def __getitem__(self, key: str) -> str:
        position = self.positions.get(key)
        if position is None:
            return ""
        if position < len(self.cells):
            return self.cells[position]
        # A short (ragged) row: an earlier column of the same key may still hold a cell.
        return dict(zip(self.columns, self.cells, strict=False)).get(key, "")

    @property
    def where(self) -> str:
        return f"{self.path}:{self.index + 1}"

    def body(self) -> tuple[str, ...]:
        """The row's values apart from the ones a repair may change (ID, Source)."""
        changeable = {"id", "source"}
        return tuple(
            v for k, v in zip(self.columns, self.cells, strict=False) if k not in changeable
        )


def occurrences(memory: Memory, texts: Texts, kind: Kind) -> list[Occurrence]:
    found: list[Occurrence] = []
    for path, archived in ((memory.archive, True), (memory.path(kind), False)):
        text = texts.get(path)
        if text:
            found += _rows(path, parse(text), kind, archived)
    return found


def _rows(path: Path, document: Document, kind: Kind, archived: bool) -> Iterator[Occurrence]:
    table = records_table(document, kind, archived=archived)
    if table is None:
        return
    columns = tuple(column_key(name) for name in table.columns)
    positions = column_positions(columns)
    for index in table.rows:
        cells = tuple(row_cells(document, index))
        yield Occurrence(path, index, document.lines[index], columns, cells, positions)


def column_positions(columns: tuple[str, ...]) -> dict[str, int]:
    """Each column key's cell position; a repeated key is its last column's, as a row's values
    keep the last of repeated columns."""
    return {key: position for position, key in enumerate(columns)}


class Move(NamedTuple):
    """An outcome whose ID changed, with the Branch of its row and of the row that kept the ID
    (None when no row holds the old ID any more)."""

    old: str
    new: str
    branch: str
    kept_branch: str | None


class Plan:
    __slots__ = ("edits", "findings", "repairs")

    def __init__(self) -> None:
        self.edits: dict[Path, dict[int, str | None]] = {}
        self.findings: list[tuple[str, str]] = []
        self.repairs: list[str] = []

    def line(self, row: Occurrence) -> str:
        """The row's line as this plan leaves it so far."""
        return self.edits.get(row.path, {}).get(row.index) or row.raw

    def edit(self, row: Occurrence, raw: str | None, finding: str, repair: str) -> None:
        self.edits.setdefault(row.path, {})[row.index] = raw
        self.findings.append((row.where, finding))
        self.repairs.append(f"{row.where}: {repair}")

    def texts(self, current: Texts) -> dict[Path, str]:
        """The changed files' new text: edited lines replaced, removed lines dropped."""
        changed = {}
        for path, edits in self.edits.items():
            lines = parse(current[path] or "").lines
            kept = [edits.get(i, line) for i, line in enumerate(lines)]
            text = "".join(line for line in kept if line is not None)
            changed[path] = (
                ("\ufeff" + text) if (current[path] or "").startswith("\ufeff") else text
            )
        return changed


def duplicates(memory: Memory, texts: Texts) -> Plan:
    plan = Plan()
    moves: dict[str, list[Move]] = {}
    renumbered: set[tuple[Path, int]] = set()
    for kind in KINDS.values():
        rows = occurrences(memory, texts, kind)
        highest = max((id_number(row["id"], kind.prefix) for row in rows), default=0)
        seen: dict[str, list[Occurrence]] = {}
        for row in rows:
            earlier = list(seen.get(row["id"], []))
            seen.setdefault(row["id"], []).append(row)
            if not row["id"] or not earlier:
                continue
            if any(other.cells == row.cells for other in earlier):
                finding = f"identical copy of {row['id']} (first at {earlier[0].where})"
                plan.edit(row, None, finding, f"removed an identical copy of {row['id']}")
                continue
            highest += 1
            new = format_id(kind.prefix, highest)
            raw = set_cell(row.raw, row.columns.index("id"), row["id"], new)
            finding = f"duplicate ID {row['id']} (first at {earlier[0].where})"
            plan.edit(row, raw, finding, f"renumbered duplicate {row['id']} to {new}")
            renumbered.add((row.path, row.index))
            if kind is OUTCOME:
                moves.setdefault(row["id"], []).append(
                    Move(row["id"], new, row["branch"], earlier[0]["branch"])
                )
    follow(plan, memory, texts, moves, lambda row: (row.path, row.index) in renumbered)
    return plan


def follow(
    plan: Plan,
    memory: Memory,
    texts: Texts,
    moves: Mapping[str, list[Move]],
    came_along: Callable[[Occurrence], bool],
) -> None:
    """Point patterns' `Source` at the new ID of the outcome they belong with."""
    if not moves:
        return
    for row in occurrences(memory, texts, PATTERN):
        if "source" not in row.columns:
            continue
        along = came_along(row)

        def retarget(text: str, row: Occurrence = row, along: bool = along) -> str:
            return _OUTCOME_REF.sub(lambda m: _target(m.group(0), row, moves, along), text)

        old_source = row["source"]
        new_source = retarget(old_source)
        if new_source != old_source:
            raw = edit_cell(plan.line(row), row.columns.index("source"), retarget)
            finding = f"{row['id']} Source {old_source} should read {new_source} (renumbered)"
            plan.edit(row, raw, finding, f"{row['id']} Source {old_source} -> {new_source}")


def _target(cited: str, pattern: Occurrence, moves: Mapping[str, list[Move]], along: bool) -> str:
    candidates = moves.get(cited)
    if not candidates:
        return cited
    holders = [(candidates[0].kept_branch, cited)] + [(m.branch, m.new) for m in candidates]
    same_branch = [new for branch, new in holders if branch == pattern["branch"]]
    if len(same_branch) == 1:
        return same_branch[0]
    if len(candidates) == 1 and (along or candidates[0].kept_branch is None):
        return candidates[0].new  # it came with the renumbered row, or no row has the old ID
    return cited


def bodies(memory: Memory, texts: Texts) -> dict[str, set[tuple[str, ...]]]:
    return {
        kind.name: {row.body() for row in occurrences(memory, texts, kind)}
        for kind in KINDS.values()
    }


def verify_nothing_lost(memory: Memory, before: Texts, changed: Mapping[Path, str]) -> None:
    """Every record still there (ID and Source aside) after a repair, or nothing is written."""
    after = {**before, **changed}
    if bodies(memory, before) != bodies(memory, after):
        raise IntegrityError(
            "the repair would lose or alter a record; nothing was written (this is a bug)",
            where=str(memory.directory),
            hint="please report it with the memory files attached",
        )


def merged_moves(memory: Memory, texts: Texts, log: list[Arrival]) -> Plan:
    """Source fixes for outcomes the merge driver renumbered (per its log, see `mergelog`).

    Only log entries whose row is in the files with exactly that text count.
    """
    plan = Plan()
    outcomes = occurrences(memory, texts, OUTCOME)
    by_text = {strip_ending(row.raw): row for row in outcomes}
    by_id = {row["id"]: row for row in reversed(outcomes)}
    moves: dict[str, list[Move]] = {}
    for entry in log:
        row = by_text.get(entry.row)
        if row is None or not entry.renumbered_from or row["id"] != entry.id:
            continue
        kept = by_id.get(entry.renumbered_from)
        move = Move(
            entry.renumbered_from, entry.id, row["branch"], kept["branch"] if kept else None
        )
        if move not in moves.get(move.old, []):
            moves.setdefault(move.old, []).append(move)
    arrived = {entry.row for entry in log if entry.file.upper() == PATTERN.filename.upper()}
    follow(plan, memory, texts, moves, lambda row: strip_ending(row.raw) in arrived)
    return plan

"""PURE planning of ID repairs: duplicate IDs renumbered, and `Source` references that follow.

Of the rows of a kind holding one ID, an archived row keeps it, else the first in the merge
driver's order (date, branch, content); the others get the next free numbers of their kind (live
and archive together) in that order. A row that is the same record as the holder (by identity:
a pruned row resurrected by a line merge, a row a union merge kept twice) is left to
`twin_repair`, which removes it.

When an outcome changes its ID, a pattern citing the old ID in `Source` is made to follow it when
it belongs with the renumbered row rather than with the one that kept the ID: its Branch is the
renumbered row's and not the other's; or else it arrived together with it (it was renumbered too,
or the merge driver logged it as brought in from the same side); or no row has the old ID any
more. Otherwise it is left alone.
"""

from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import NamedTuple

from legion_memory.errors import IntegrityError
from legion_memory.gitops.merge_log import Arrival
from legion_memory.gitops.row_merge import edit_cell, set_cell
from legion_memory.markdown.document import Document, parse, row_cells, strip_ending
from legion_memory.schema.identity import identity_of_cells, kind_of_prefix, order_key
from legion_memory.schema.kinds import ARCHIVE_FILENAME, KINDS, OUTCOME, PATTERN, Kind
from legion_memory.schema.records import column_key, format_id, id_number, records_table
from legion_memory.schema.source_links import OUTCOME_ID
from legion_memory.storage.reading import Memory

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
    side: str = ""
    kept_side: str = ""


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


Sides = Callable[[], Mapping[str, str]]


def _no_sides() -> Mapping[str, str]:
    return {}


Held = Callable[[], frozenset[str]]


def _nothing_held() -> frozenset[str]:
    return frozenset()


def duplicates(
    memory: Memory, texts: Texts, sides: Sides = _no_sides, held: Held = _nothing_held
) -> Plan:
    """Rows holding one ID: the row the upstream of the rebase or pick just done held as it is
    keeps the ID (others may cite it there), else an archived row, else the first in the merge
    driver's order (date, branch, content); the others are renumbered in that order
    (docs/decisions.md#merge-renumbering). `sides`: which side of the merge that made HEAD
    brought each row (by its text), read only when an outcome moves; `held`: the upstream's
    row lines, read only when an ID is held twice."""
    plan = Plan()
    moves: dict[str, list[Move]] = {}
    renumbered: set[tuple[Path, int]] = set()
    for kind in KINDS.values():
        rows = occurrences(memory, texts, kind)
        highest = max((id_number(row["id"], kind.prefix) for row in rows), default=0)
        for holder, others in _holders(rows, memory.archive, kind, held):
            for row in others:
                if _same_record(row, holder) or any(
                    _same_record(row, other) for other in others[: others.index(row)]
                ):
                    continue  # the same record twice: the check of records held twice repairs it
                highest += 1
                new = format_id(kind.prefix, highest)
                raw = set_cell(row.raw, row.columns.index("id"), row["id"], new)
                finding = f"duplicate ID {row['id']} (first at {holder.where})"
                plan.edit(row, raw, finding, f"renumbered duplicate {row['id']} to {new}")
                renumbered.add((row.path, row.index))
                if kind is OUTCOME:
                    moves.setdefault(row["id"], []).append(_move(row, holder, new, sides))
    known = sides() if moves else {}
    follow(
        plan,
        memory,
        texts,
        moves,
        lambda row: (row.path, row.index) in renumbered,
        lambda row: known.get(strip_ending(row.raw).strip(), ""),
    )
    return plan


def _move(row: Occurrence, holder: Occurrence, new: str, sides: Sides) -> Move:
    known = sides()
    side, kept = (known.get(strip_ending(r.raw).strip(), "") for r in (row, holder))
    return Move(row["id"], new, row["branch"], holder["branch"], side, kept)


def _same_record(row: Occurrence, other: Occurrence) -> bool:
    kind = kind_of_prefix(row["id"])
    if kind is None:
        return row.cells == other.cells
    return identity_of_cells(kind, row.columns, row.cells) == identity_of_cells(
        kind, other.columns, other.cells
    )


def _holders(
    rows: list[Occurrence], archive: Path, kind: Kind, held: Held
) -> Iterator[tuple[Occurrence, list[Occurrence]]]:
    """Each ID held more than once: the row that keeps it, and the others in renumbering order."""
    by_id: dict[str, list[Occurrence]] = {}
    for row in rows:
        if row["id"]:
            by_id.setdefault(row["id"], []).append(row)
    for group in by_id.values():
        if len(group) < 2:
            continue
        ordered = sorted(group, key=lambda row: _rank(row, archive, kind, held()))
        yield ordered[0], ordered[1:]


def _rank(
    row: Occurrence, archive: Path, kind: Kind, upstream: frozenset[str]
) -> tuple[bool, bool, tuple[str, ...], str]:
    values = dict(zip(row.columns, row.cells, strict=False))
    line = strip_ending(row.raw)
    return line.strip() not in upstream, row.path != archive, order_key(kind, values), line


def follow(
    plan: Plan,
    memory: Memory,
    texts: Texts,
    moves: Mapping[str, list[Move]],
    came_along: Callable[[Occurrence], bool],
    side_of: Callable[[Occurrence], str] = lambda row: "",
) -> None:
    """Point patterns' `Source` at the new ID of the outcome they belong with."""
    if not moves:
        return
    for row in occurrences(memory, texts, PATTERN):
        if "source" not in row.columns:
            continue
        along, side = came_along(row), side_of(row)

        def retarget(
            text: str, row: Occurrence = row, along: bool = along, side: str = side
        ) -> str:
            return OUTCOME_ID.sub(lambda m: _target(m.group(0), row, moves, along, side), text)

        rewrite_source(plan, row, retarget, "renumbered")


def rewrite_source(
    plan: Plan, row: Occurrence, retarget: Callable[[str], str], because: str
) -> None:
    """Plan the pattern's `Source` as `retarget` reads it, when that changes it."""
    old_source = row["source"]
    new_source = retarget(old_source)
    if new_source != old_source:
        raw = edit_cell(plan.line(row), row.columns.index("source"), retarget)
        finding = f"{row['id']} Source {old_source} should read {new_source} ({because})"
        plan.edit(row, raw, finding, f"{row['id']} Source {old_source} -> {new_source}")


def _target(
    cited: str, pattern: Occurrence, moves: Mapping[str, list[Move]], along: bool, side: str
) -> str:
    candidates = moves.get(cited)
    if not candidates:
        return cited
    if side:  # the merge brought the pattern from one side: it cites that side's outcome
        by_side = [(candidates[0].kept_side, cited)] + [(m.side, m.new) for m in candidates]
        same_side = [new for holder_side, new in by_side if holder_side == side]
        if len(same_side) == 1:
            return same_side[0]
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
    """Source fixes for outcomes the merge driver renumbered (per its log, see `merge_log`).

    A pattern the merge brought in from one side follows the renumberings of that side's
    outcomes; a record kept once under the other side's ID is followed from either side. Only log
    entries whose row is in the files with exactly that text count.
    """
    plan = Plan()
    moves = _logged_moves(occurrences(memory, texts, OUTCOME), log)
    citing = {PATTERN.filename.upper(), ARCHIVE_FILENAME.upper()}  # archived patterns cite too
    sides = {e.row: e.side for e in log if e.file.upper() in citing}
    for row in occurrences(memory, texts, PATTERN):
        side_moves = moves.get(sides.get(strip_ending(row.raw), ""), {})
        if "source" not in row.columns or not side_moves:
            continue

        def retarget(text: str, side_moves: dict[str, str] = side_moves) -> str:
            return OUTCOME_ID.sub(lambda m: side_moves.get(m.group(0), m.group(0)), text)

        rewrite_source(plan, row, retarget, "renumbered")
    return plan


def _logged_moves(outcomes: list[Occurrence], log: list[Arrival]) -> dict[str, dict[str, str]]:
    """Per side, the outcome IDs the merge changed: old ID -> new ID."""
    present = {strip_ending(row.raw) for row in outcomes}
    held = {row["id"] for row in outcomes}
    moves: dict[str, dict[str, str]] = {"ours": {}, "theirs": {}}
    files = {OUTCOME.filename.upper(), ARCHIVE_FILENAME.upper()}  # archived outcomes move too
    for entry in log:
        is_outcome = entry.id.startswith(OUTCOME.prefix + "-")
        if entry.file.upper() not in files or not entry.renumbered_from or not is_outcome:
            continue
        if entry.side in moves and (entry.row in present or (not entry.row and entry.id in held)):
            moves[entry.side][entry.renumbered_from] = entry.id
    return moves

"""PURE: the IDs a merge gives the records new on either side of one table.

A new record keeps its ID unless another row of the result, or another record in the other memory
files, holds it; a record the other files hold under one ID (forgotten or restored on one side)
takes that one. Colliding records are numbered in an order both clones compute alike whichever
way they merge (date, branch, content), and in a pick ours's rows keep theirs
(docs/decisions.md#merge-renumbering).
"""

from collections.abc import Callable

from legion_memory.gitops.record_versions import number_of, values_of
from legion_memory.gitops.row_merge import Block, Incoming, Ledger, Row, set_cell, split_id
from legion_memory.markdown.document import strip_ending
from legion_memory.named_tuple import NamedTuple
from legion_memory.schema.identity import identity, kind_of_prefix, order_key


class NewRecord(NamedTuple):
    """A record new relative to base, from one side, as that side wrote it."""

    row: Row
    block: Block
    side: str


class NewRecordIds:
    """`used`: the IDs base's records hold or keep from reuse in the result; `shown`: the IDs
    rows of the result hold; `fit`: a side's row laid out in the result's columns."""

    def __init__(
        self,
        ledger: Ledger,
        columns: tuple[str, ...],
        fit: Callable[[Row, str], str],
        used: set[str],
        shown: set[str],
    ) -> None:
        self.ledger, self.columns, self.fit = ledger, columns, fit
        self.used, self.shown = used, shown

    def placed(self, new: list[NewRecord]) -> list[str]:
        """The new records' rows under their final IDs, in ID order (a pick's ours's first)."""
        placed: list[tuple[tuple[str, int], str]] = []
        first = (lambda item: item.side != "ours") if self.ledger.keep_ours else (lambda _: False)
        for item in sorted(new, key=lambda item: (first(item), _ordering(item))):
            placed.append(self.place(item))
        return [raw for _, raw in sorted(placed)]

    def taken_elsewhere(self, item: NewRecord) -> bool:
        """Whether another record holds the row's ID in the other memory files."""
        holders = self.ledger.reserved.get(item.row.id)
        if holders is None:
            return False
        kind = kind_of_prefix(item.row.id)
        mine = identity(kind, values_of(item.row)) if kind else None
        return not holders or any(other != mine for other in holders)

    def collides(self, item: NewRecord, final: str) -> bool:
        if "id" not in self.columns:
            return False
        if self.kept(item):  # a removed record keeps its ID only where ours's files hold it so
            return final in self.shown or (final in self.used and self.taken_elsewhere(item))
        return final in self.used or self.taken_elsewhere(item)

    def kept(self, item: NewRecord) -> bool:
        """Whether the row keeps its ID whatever the other files hold: ours's in a pick (what
        they collide with there arrived by this very replay, which must yield)."""
        return self.ledger.keep_ours and item.side == "ours"

    def held_elsewhere(self, item: NewRecord) -> str | None:
        """The one ID the other memory files hold this very record under, when no other row
        has it: a record forgotten or restored on one side keeps the ID it has there."""
        kind = kind_of_prefix(item.row.id)
        if kind is None or "id" not in self.columns:
            return None
        mine = identity(kind, values_of(item.row))
        ids = [key for key, holders in self.ledger.reserved.items() if holders == {mine}]
        return ids[0] if len(ids) == 1 and ids[0] not in self.used else None

    def place(self, item: NewRecord) -> tuple[tuple[str, int], str]:
        raw = self.fit(item.row, item.side)
        final, was = item.row.id, ""
        held = None if self.kept(item) else self.held_elsewhere(item)
        if held is not None and held != final:
            raw = set_cell(raw, self.columns.index("id"), final, held)
            final, was = held, item.row.id
        elif self.collides(item, final):
            renumbered = self.ledger.renumber(final)
            if renumbered:
                raw = set_cell(raw, self.columns.index("id"), final, renumbered)
                final, was = renumbered, item.row.id
        self.used.add(final)
        self.shown.add(final)
        if item.side == "ours":
            self.ledger.ours_added += 1
        self.ledger.incoming.append(
            Incoming(final, strip_ending(raw), self.columns, was, item.side)
        )
        return split_id(final) or (final, 0), raw


def _ordering(item: NewRecord) -> tuple[tuple[str, ...], tuple[str, int], str]:
    kind = kind_of_prefix(item.row.id)
    key = order_key(kind, values_of(item.row)) if kind else ()
    return key, number_of(item.row), item.row.content

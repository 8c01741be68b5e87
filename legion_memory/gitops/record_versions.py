"""PURE comparisons of two versions of one record's row in a merge: what each holds of its own,
which copy to keep when both sides added the record, and its ID after the merge."""

from collections import defaultdict

from legion_memory.gitops.row_merge import Row, split_id
from legion_memory.schema import identity
from legion_memory.schema.kinds import REFERENCE_KEYS


def own_values(row: Row) -> dict[str, str]:
    """The body without the cells citing other records: a Source a renumbering rewrote is no
    change of the record's own, so it never keeps alive a row the other side removed."""
    return {key: value for key, value in body_of(row).items() if key not in REFERENCE_KEYS}


def values_of(row: Row) -> dict[str, str]:
    return dict(row.values)


def body_of(row: Row) -> dict[str, str]:
    """The row's values apart from its ID, compared without surrounding spaces."""
    return {key: " ".join(value.split()) for key, value in row.values if key != "id"}


def same_origin(row: Row, other: Row) -> bool:
    """`identity.same_origin` of two rows under one ID: one that differs in Date or Branch is
    another record that took the ID, not that record edited (a layout lacking a column reads
    it empty)."""
    return identity.same_origin(defaultdict(str, row.values), defaultdict(str, other.values))


def merged_id(base: str, ours: str, theirs: str) -> str:
    """A record's ID after the merge: the side that changed it wins; when both did, the lower
    one, on every clone."""
    if theirs in (ours, base):
        return ours
    if ours == base:
        return theirs
    return min(ours, theirs, key=lambda record_id: split_id(record_id) or (record_id, 0))


def number_of(row: Row) -> tuple[str, int]:
    return split_id(row.id) or (row.id, 0)


def same_record(mine: Row, other: Row, free: Row | None) -> Row | None:
    """The copy to keep of a record both sides added, None when they really differ: the one
    whose ID no other record holds, else the lower ID. Copies that differ only in the IDs their
    Source cites (each side's numbering of one outcome) are one record: the reference is made to
    follow after the merge (docs/decisions.md#references-by-identity)."""
    if body_of(mine) == body_of(other):
        return free or min(mine, other, key=number_of)
    if own_values(mine) == own_values(other):
        return free or min(mine, other, key=lambda row: (number_of(row), row.content))
    settled = [row for row in (mine, other) if values_of(row).get("resolved", "") == "true"]
    if len(settled) == 1 and body_of(mine).keys() == body_of(other).keys():
        return settled[0]  # an error one side resolved: the update wins over the stale copy
    return None

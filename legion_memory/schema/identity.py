"""A record's identity: what makes two rows the same record whatever ID each carries.

IDs change when a merge renumbers, so they cannot say which rows are one record. The identity is
the record's content instead (docs/decisions.md#record-identity): every cell but the ID and the
cells that cite another record (a pattern's `Source`, rewritten when its outcome is renumbered);
for an error fix, whose Fix and Resolved are updated in place, its signature, date and branch.
Columns a layout lacks read empty, and cells compare without surrounding spaces, so a row written
with or without padding, CRLF or LF, is the same record.
"""

from collections.abc import Mapping, Sequence

from legion_memory.schema.kinds import ERROR_FIX, KINDS, Kind

REFERENCE_KEYS = frozenset({"source"})
"""Cells that cite another record by ID: a renumbering rewrites them, they are not identity."""

_UPDATED_IN_PLACE: Mapping[str, tuple[str, ...]] = {
    ERROR_FIX.name: ("date", "branch", "error_signature"),
}

Identity = tuple[str, ...]


def identity_keys(kind: Kind) -> tuple[str, ...]:
    """The columns whose values make up a record's identity."""
    if kind.name in _UPDATED_IN_PLACE:
        return _UPDATED_IN_PLACE[kind.name]
    return tuple(key for key in kind.keys if key != "id" and key not in REFERENCE_KEYS)


def identity(kind: Kind, values: Mapping[str, str]) -> Identity:
    """The record's identity from its values (missing columns read empty)."""
    return (kind.prefix, *(clean(values.get(key, "")) for key in identity_keys(kind)))


def identity_of_cells(kind: Kind, columns: Sequence[str], cells: Sequence[str]) -> Identity:
    return identity(kind, dict(zip(columns, cells, strict=False)))


def order_key(kind: Kind, values: Mapping[str, str]) -> tuple[str, ...]:
    """How colliding new records are ordered, the same on every clone whichever way it merges:
    date, then branch, then the rest of the identity (docs/decisions.md#merge-renumbering)."""
    when = clean(values.get("date", ""))
    return (when, clean(values.get("branch", "")), *identity(kind, values))


def kind_of_prefix(record_id: str) -> Kind | None:
    prefix = record_id.split("-", 1)[0]
    return next((kind for kind in KINDS.values() if kind.prefix == prefix), None)


def clean(value: str) -> str:
    return " ".join(value.split())

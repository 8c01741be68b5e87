"""A record's identity: what makes two rows the same record whatever ID each carries.

IDs change when a merge renumbers, so they cannot say which rows are one record. The identity is
the record's content instead (docs/decisions.md#record-identity): every cell but the ID and the
cells that cite another record (a pattern's `Source`, rewritten when its outcome is renumbered);
for an error fix, whose Fix and Resolved are updated in place, its signature, date and branch.
Columns a layout lacks read empty, and cells compare without surrounding spaces, so a row written
with or without padding, CRLF or LF, is the same record.
"""

from collections.abc import Mapping, Sequence

from legion_memory.schema.kinds import KINDS, REFERENCE_KEYS, Kind, identity_keys

TYPE_CHECKING = False  # not typing's: docs/decisions.md#hot-paths-without-typing
if TYPE_CHECKING:
    from typing import Protocol

    class Cells(Protocol):
        """A row read by column key, a column it lacks reading empty."""

        def __getitem__(self, key: str, /) -> str: ...


Identity = tuple[str, ...]
ORIGIN_KEYS = ("date", "branch")
"""Where and when a record was stored: the tool never rewrites either cell, so a row under a
record's ID that differs in one is another record that took the ID, not that record edited."""


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


def history_text(raw: str, columns: Sequence[str]) -> str:
    """The row from the pipe closing its ID to the pipe before the first cell citing a record,
    exactly as written: a literal every copy of the record carries whatever its ID and however
    its references are numbered (what `git log -S` looks for). Empty when there is none."""
    text = raw.rstrip("\r\n").strip()
    pipes = [at for at, char in enumerate(text) if char == "|" and text[at - 1 : at] != "\\"]
    bounds = pipes if text.startswith("|") else [-1, *pipes]
    if not text.endswith("|") or text.endswith("\\|"):
        bounds.append(len(text))
    if "id" not in columns:
        return ""
    first = columns.index("id") + 1
    cited = [at for at, key in enumerate(columns) if key in REFERENCE_KEYS and at >= first]
    last = min(cited[0] if cited else len(columns), len(bounds) - 1)
    if last <= first or first >= len(bounds):
        return ""
    return text[max(bounds[first], 0) : bounds[last] + 1]


def same_origin(row: "Cells", other: "Cells") -> bool:
    """Whether two rows were stored on the same date on the same branch, as far as both tell
    (`ORIGIN_KEYS`; a layout without Branch tells nothing of it)."""
    cells = [(clean(row[key]), clean(other[key])) for key in ORIGIN_KEYS]
    return all(mine == theirs for mine, theirs in cells if mine and theirs)

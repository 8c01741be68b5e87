"""PURE merge of ARCHIVE.md as what it is: a preamble, then one archive table per kind.

Each version is read as its preamble (merged like any prose) and, per kind, the rows of every
table under that kind's heading (a heading a line merge doubled counts once; a row under another
kind's heading goes to its own kind's table). Each kind's rows then merge by record identity
(`record_merge`), and the file is written back the way `forget` and `restore` write it: a section
exists while it has rows (`## Archived Records` always), in base's order, new ones in kind order
(docs/decisions.md#archive-merge). A version that holds anything else after its first archive
heading is not in this shape, and the file merges line by line instead.
"""

from collections.abc import Callable, Sequence

from legion_memory.gitops.record_merge import merge_rows
from legion_memory.gitops.row_merge import Block, Ledger, Row
from legion_memory.markdown.cells import line_cells
from legion_memory.markdown.document import strip_ending
from legion_memory.schema.identity import kind_of_prefix
from legion_memory.schema.kinds import KINDS, OUTCOME, Kind, archive_section_lines

Item = str | Block
ProseMerge = Callable[[list[Item], list[Item], list[Item]], list[str]]
_BY_HEADING = {kind.archive_section.casefold(): kind for kind in KINDS.values()}


class Archive:
    """One version: the preamble's items, then each kind's archive table (None: no section)."""

    def __init__(self, preamble: list[Item], tables: dict[str, Block], order: list[str]) -> None:
        self.preamble = preamble
        self.tables = tables
        self.order = order


def _heading(item: Item) -> Kind | None:
    if not isinstance(item, str):
        return None
    text = strip_ending(item).strip()
    return _BY_HEADING.get(text[3:].strip().casefold()) if text.startswith("## ") else None


def read_archive(items: Sequence[Item]) -> Archive | None:
    """The version as an archive, None when it is not one in the shape the tool writes."""
    start = next((i for i, item in enumerate(items) if _heading(item)), None)
    if start is None:
        return Archive(list(items), {}, [])
    rows: dict[str, list[Row]] = {}
    heads: dict[str, Block] = {}
    order: list[str] = []
    for item in items[start:]:
        if isinstance(item, Block):
            kind = _BY_HEADING.get(item.key[0])
            if kind is None:
                return None
            heads.setdefault(kind.name, item)
            if kind.name not in order:
                order.append(kind.name)
            for row in item.rows:
                owner = kind_of_prefix(row.id) or kind
                rows.setdefault(owner.name, []).append(_refiled(row, item, owner, kind))
        elif strip_ending(item).strip() and _heading(item) is None:
            return None  # prose after the first section: not the tool's layout
    order += [name for name in rows if name not in order]
    tables = {name: _table(KINDS[name], heads.get(name), rows.get(name, [])) for name in order}
    return Archive(list(items[:start]), tables, order)


def _refiled(row: Row, block: Block, owner: Kind, under: Kind) -> Row:
    """A row read with its own kind's columns when it sits under another kind's heading."""
    if owner is under:
        return row
    return Row(row.key, row.id, row.raw, tuple(zip(owner.keys, line_cells(row.raw), strict=False)))


def _table(kind: Kind, head: Block | None, rows: list[Row]) -> Block:
    if head is None:
        lines = archive_section_lines(kind)[2:]
        return Block(
            (kind.archive_section.casefold(), 0),
            (lines[0] + "\n", lines[1] + "\n"),
            kind.keys,
            tuple(rows),
        )
    return Block(head.key, head.head, head.columns, tuple(rows))


def section_order(base: Archive, ours: Archive, theirs: Archive) -> list[str]:
    names = list(base.order)
    names += [
        kind.name
        for kind in KINDS.values()
        if kind.name not in names and (kind.name in ours.tables or kind.name in theirs.tables)
    ]
    return names


def render_section(kind: Kind, merged: list[str], first: bool, ending: str) -> list[str]:
    """A kind's merged table under its heading; nothing for an emptied section but Records."""
    if len(merged) <= 2 and kind is not OUTCOME:  # the header and delimiter only
        return []
    lead = [] if first else [ending]
    return [*lead, f"## {kind.archive_section}{ending}", ending, *merged]


def merge_archive(ledger: Ledger, versions: list[Archive], merge_prose: ProseMerge) -> list[str]:
    base, ours, theirs = versions
    out = merge_prose(base.preamble, ours.preamble, theirs.preamble)
    first = True
    for name in section_order(base, ours, theirs):
        kind = KINDS[name]
        merged = merge_rows(
            ledger, base.tables.get(name), ours.tables.get(name), theirs.tables.get(name)
        )
        section = render_section(kind, merged, first, ledger.ending)
        first = first and not section
        out += section
    return out

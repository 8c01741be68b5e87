"""PURE 3-way merge of a memory file: table rows by ID, every other line like diff3.

A version of a file is read as a sequence of items: each line outside tables, and each table as a
whole, known by its heading (and its rank under that heading). The three sequences are aligned the
way diff3 aligns lines; where a table lines up in all three versions its rows are merged by ID
(`rowmerge.py`):

- rows added on either side are kept, ours first, then theirs, each in its own order;
- a row added identically on both sides appears once; a new row of theirs whose ID is taken (by a
  different new row of ours, or by a row ours archived) gets the next free number, reported;
- a row removed on one side and untouched on the other stays removed (prune moved it to ARCHIVE);
- a row changed on one side only takes that change (an ERRORS fix recorded in place);
- a row changed differently on both sides, or changed on one side and removed on the other, is a
  conflict: standard markers around just that row.

Lines outside tables merge like diff3 with one difference: where both sides inserted different
text at the same place (two `/legion:learn` entries appended at the end), both are kept, ours
first, instead of a conflict. Different edits of the same existing lines are a conflict, with
markers around just those lines. Untouched lines come out byte-identical.
"""

from collections.abc import Collection, Iterable, Mapping, Sequence

from legion_memory.gitops.record_merge import merge_rows
from legion_memory.gitops.row_merge import (
    NO_QUESTIONS,
    SPLICE,
    Block,
    HistoryQuestions,
    Incoming,
    Ledger,
    NotStable,
    StableBlock,
    closed,
    table_row,
)
from legion_memory.markdown.document import BOM, Document, Table, parse, strip_ending
from legion_memory.named_tuple import NamedTuple
from legion_memory.schema.identity import Identity
from legion_memory.schema.records import column_key
from legion_memory.wording import count_of

Item = str | Block
Reserved = Mapping[str, Collection[Identity]] | Iterable[str]
TYPE_CHECKING = False  # not typing's: docs/decisions.md#hot-paths-without-typing
if TYPE_CHECKING:
    from typing import TypeVar

    from legion_memory.gitops.row_merge import Row, StableRun

    _T = TypeVar("_T")


class MergeResult(NamedTuple):
    text: str
    conflicts: tuple[str, ...]
    incoming: tuple[Incoming, ...]
    ours_added: int
    identical: int

    again: tuple[tuple[str, str], ...] = ()
    rekeyed: tuple[tuple[str, str, str], ...] = ()

    @property
    def renumbered(self) -> list[tuple[str, str]]:
        return [(row.renumbered_from, row.id) for row in self.incoming if row.renumbered_from]

    @property
    def from_theirs(self) -> int:
        return sum(1 for row in self.incoming if row.side == "theirs")


def merge(
    base: str,
    ours: str,
    theirs: str,
    *,
    marker_size: int = 7,
    reserved: Reserved = (),
    archive: bool = False,
    pick: bool = False,
    questions: HistoryQuestions = NO_QUESTIONS,
) -> MergeResult:
    """Merge three versions of a memory file. `reserved`: IDs taken in the other memory files,
    each with the identities holding it (`companions`; a bare ID: taken by some other record);
    `archive`: the file is ARCHIVE.md, merged per kind table (`archive_merge`); `pick`: theirs is
    one commit replayed onto ours (rebase, cherry-pick), whose colliding rows alone renumber;
    `questions`: what the merge may ask of the history and the other files (`HistoryQuestions`),
    none by default."""
    ledger = _ledger(marker_size, reserved, pick, questions)
    pieces = _merged(ledger, [parse(text) for text in (base, ours, theirs)], archive)
    return _result(ledger, "".join(pieces))


def merge_around(
    base: str,
    ours: str,
    theirs: str,
    stable: "StableRun",
    *,
    marker_size: int = 7,
    reserved: Reserved = (),
    pick: bool = False,
    questions: HistoryQuestions = NO_QUESTIONS,
) -> tuple[MergeResult, int]:
    """`merge` of three versions of a file that all held the stable run of rows `stable`, given
    without it: the result without it, and where in the text it goes back. NotStable when the
    merge of the whole files could treat those rows otherwise (docs/decisions.md#stable-rows)."""
    ledger = _ledger(marker_size, reserved, pick, questions)
    ledger.stable = stable
    pieces = _merged(ledger, [parse(text) for text in (base, ours, theirs)], False)
    at = next((i for i, piece in enumerate(pieces) if piece is SPLICE), None)
    if at is None:
        raise NotStable("the table of the stable rows was not merged by rows")
    before = "".join(pieces[:at])
    return _result(ledger, before + "".join(pieces[at + 1 :])), len(before)


def _ledger(
    marker_size: int, reserved: Reserved, pick: bool, questions: HistoryQuestions
) -> Ledger:
    return Ledger(
        marker_size=marker_size, reserved=_taken(reserved), keep_ours=pick, questions=questions
    )


def _merged(ledger: Ledger, documents: list[Document], archive: bool) -> list[str]:
    """The merged text in pieces: the BOM, if any, then the lines."""
    stable = ledger.stable
    versions = [items_of(d, stable.header if stable else None) for d in documents]
    ledger.ending = _ending(documents[1:], stable)
    # Renumbered IDs go past every ID of all three versions: the same numbers whichever side
    # is ours (docs/decisions.md#merge-renumbering).
    ledger.see(row.id for items in versions for row in _rows(items))
    ledger.see(ledger.reserved)
    for prefix, number in (stable.highest if stable else {}).items():
        ledger.highest[prefix] = max(ledger.highest.get(prefix, 0), number)
    merger = _Merge(ledger)
    if archive:
        from legion_memory.gitops.archive_merge import merge_archive, read_archive

        archives = [read_archive(items) for items in versions]
        if all(archives):
            lines = merge_archive(ledger, [a for a in archives if a], merger.items)
        else:
            lines = merger.items(*versions)
    else:
        lines = merger.items(*versions)
    bom = _pick(*(document.bom for document in documents))
    return [BOM if bom else "", *closed(lines[:-1], ledger.ending), *lines[-1:]]


def _ending(documents: list[Document], stable: "StableRun | None") -> str:
    """The dominant line ending of the first side that has lines: new lines copy it."""
    document = next((d for d in documents if d.lines), None)
    if document is None:
        return "\n"
    if stable is None:
        return document.dominant_ending()
    crlf = sum(1 for line in document.lines if line.endswith("\r\n")) + stable.crlf
    lf = sum(1 for line in document.lines if line.endswith("\n")) - crlf + stable.crlf + stable.lf
    return "\r\n" if crlf > lf else "\n"


def _result(ledger: Ledger, text: str) -> MergeResult:
    return MergeResult(
        text=text,
        conflicts=tuple(ledger.conflicts),
        incoming=tuple(ledger.incoming),
        ours_added=ledger.ours_added,
        identical=ledger.identical,
        again=tuple(ledger.again),
        rekeyed=tuple(ledger.rekeyed),
    )


def _taken(
    reserved: Mapping[str, Collection[Identity]] | Iterable[str],
) -> dict[str, frozenset[Identity]]:
    if isinstance(reserved, Mapping):
        return {key: frozenset(value) for key, value in reserved.items()}
    return {key: frozenset() for key in reserved}


def _pick(base: "_T", ours: "_T", theirs: "_T") -> "_T":
    """The 3-way choice for one value: the side that changed it (ours when both did)."""
    return theirs if ours == base else ours


def items_of(document: Document, stable_header: int | None = None) -> list[Item]:
    """The document as lines outside tables and one `Block` per table (a `StableBlock` for the
    table whose header is line `stable_header`)."""
    items: list[Item] = []
    position = 0
    ranks: dict[str, int] = {}
    for table in document.tables:
        items.extend(document.lines[position : table.header])
        heading = table.heading.casefold()
        ranks[heading] = ranks.get(heading, -1) + 1
        block = _block(document, table, (heading, ranks[heading]))
        items.append(StableBlock(*block) if table.header == stable_header else block)
        position = table.end
    items.extend(document.lines[position:])
    return items


def _block(document: Document, table: Table, key: tuple[str, int]) -> Block:
    columns = tuple(column_key(name) for name in table.columns)
    id_index = columns.index("id") if "id" in columns else None
    seen: dict[str, int] = {}
    rows = [table_row(document.lines[index], columns, id_index, seen) for index in table.rows]
    head = tuple(document.lines[table.header : table.header + 2])
    return Block(key, head, columns, tuple(rows))


def _rows(items: Iterable[Item]) -> "list[Row]":
    return [row for item in items if isinstance(item, Block) for row in item.rows]


def _key(item: Item) -> object:
    return item.key if isinstance(item, Block) else strip_ending(item)


def _lines(items: Sequence[Item]) -> list[str]:
    return [line for item in items for line in ([item] if isinstance(item, str) else item.lines())]


def _matches(base: list[object], other: list[object]) -> list[tuple[int, int, int]]:
    if base == other:  # what SequenceMatcher finds, without importing difflib: one whole match
        return [(0, 0, len(base))] if base else []
    from difflib import SequenceMatcher

    matcher = SequenceMatcher(None, base, other, autojunk=False)
    return [(m.a, m.b, m.size) for m in matcher.get_matching_blocks() if m.size]


def _sync_regions(
    base: list[object], ours: list[object], theirs: list[object]
) -> list[tuple[int, int, int, int]]:
    """Stretches of base matched by both sides at once: (base start, base end, ours, theirs)."""
    with_ours, with_theirs = _matches(base, ours), _matches(base, theirs)
    regions = []
    i = j = 0
    while i < len(with_ours) and j < len(with_theirs):
        o_base, o_at, o_len = with_ours[i]
        t_base, t_at, t_len = with_theirs[j]
        start, end = max(o_base, t_base), min(o_base + o_len, t_base + t_len)
        if start < end:
            regions.append((start, end, o_at + start - o_base, t_at + start - t_base))
        if o_base + o_len < t_base + t_len:
            i += 1
        else:
            j += 1
    regions.append((len(base), len(base), len(ours), len(theirs)))
    return regions


class _Merge:
    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger

    def items(self, base: list[Item], ours: list[Item], theirs: list[Item]) -> list[str]:
        keys = [[_key(item) for item in items] for items in (base, ours, theirs)]
        out: list[str] = []
        at_base = at_ours = at_theirs = 0
        for start, end, ours_at, theirs_at in _sync_regions(*keys):
            out += self.hunk(
                base[at_base:start], ours[at_ours:ours_at], theirs[at_theirs:theirs_at]
            )
            for step in range(end - start):
                trio = base[start + step], ours[ours_at + step], theirs[theirs_at + step]
                out += self.stable(*trio)
            at_base, at_ours, at_theirs = end, ours_at + end - start, theirs_at + end - start
        return out

    def stable(self, base: Item, ours: Item, theirs: Item) -> list[str]:
        if isinstance(base, Block) and isinstance(ours, Block) and isinstance(theirs, Block):
            return merge_rows(self.ledger, base, ours, theirs)
        return [str(_pick(base, ours, theirs))]

    def hunk(self, base: list[Item], ours: list[Item], theirs: list[Item]) -> list[str]:
        """A stretch where the sides differ from base: one side's, both (insertions), or markers."""
        base_lines, our_lines, their_lines = _lines(base), _lines(ours), _lines(theirs)
        if their_lines in (our_lines, base_lines):
            return our_lines
        if our_lines == base_lines:
            return self.arrive(theirs)
        if not base:
            return self.union(ours, theirs)
        near = next((line.strip() for line in base_lines if line.strip()), "")[:60]
        what = f"lines changed differently on both sides near '{near}'"
        return self.ledger.markers(what, our_lines, their_lines)

    def arrive(self, theirs: Sequence[Item]) -> list[str]:
        """Theirs's version of a stretch; rows of a table it adds still get their IDs checked."""
        out: list[str] = []
        for item in theirs:
            out += merge_rows(self.ledger, None, None, item) if isinstance(item, Block) else [item]
        return out

    def union(self, ours: list[Item], theirs: list[Item]) -> list[str]:
        """Both sides inserted at the same place: keep both, ours first.

        Only a table both sides added (same heading) is shared: its rows merge by ID, so two
        prunes that each create `## Archived Errors` give one section. Prose both sides happen to
        share (a blank line) is not a reason to interleave two different inserted blocks.
        """
        from difflib import SequenceMatcher

        matcher = SequenceMatcher(None, [_key(i) for i in ours], [_key(i) for i in theirs])
        out: list[str] = []
        o_done = t_done = 0
        for tag, o_start, o_end, t_start, t_end in matcher.get_opcodes():
            shared = list(zip(ours[o_start:o_end], theirs[t_start:t_end], strict=False))
            if tag != "equal" or not any(isinstance(mine, Block) for mine, _ in shared):
                continue
            out += _lines(ours[o_done:o_start]) + self.arrive(theirs[t_done:t_start])
            for mine, other in shared:
                if isinstance(mine, Block) and isinstance(other, Block):
                    out += merge_rows(self.ledger, None, mine, other)
                else:
                    out.append(str(mine))
            o_done, t_done = o_end, t_end
        return out + _lines(ours[o_done:]) + self.arrive(theirs[t_done:])


def describe(result: MergeResult, path: str) -> list[str]:
    """What the merge did, one line each, for stderr."""
    lines = [
        f"legion-memory: merged {path}: {count_of(result.ours_added, 'new row')} from ours, "
        f"{result.from_theirs} from theirs, {result.identical} identical on both sides"
    ]
    lines += [
        f"legion-memory: {path}: {row.side} {row.renumbered_from} renumbered to {row.id}"
        for row in result.incoming
        if row.renumbered_from
    ]
    lines += [
        f"legion-memory: {path}: {dropped} is {kept} arriving again, kept once as {kept}"
        for dropped, kept in result.again
    ]
    lines += [f"legion-memory: {path}: conflict: {what}" for what in result.conflicts]
    return lines

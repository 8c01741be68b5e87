"""Records an integration just done dropped although one of its sides still held them.

No command deletes a record: forget and prune move it to ARCHIVE.md, and doctor's repairs keep one
copy of a record held twice. Yet a rebase or a pick can replay a repair commit onto a state it was
not made for (it removed the archived copy of a record that, there, has no live one), and each
file's merge can be right on its own while together they keep neither copy; and a stopped merge
may be concluded by taking one side's whole file. So after a rebase, a pick or a concluded merge
every record both sides hold, or either side added since their base, must be in the result; one
that is not is put back as ours held it, or, held live on one side and archived on the other, as
the side with the later state holds it (docs/decisions.md#nothing-lost).
"""

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import NamedTuple

from legion_memory.gitops.integration_versions import (
    Sides,
    integration_just_done,
    left_out_by_rebase,
    merge_just_concluded,
)
from legion_memory.gitops.record_history import most_moved
from legion_memory.gitops.repository import files_of_commits
from legion_memory.gitops.row_merge import fit, set_cell
from legion_memory.markdown.document import Document, parse, render, strip_ending
from legion_memory.schema.identity import history_text, identity_of_cells, same_origin
from legion_memory.schema.kinds import KINDS, Kind
from legion_memory.schema.records import column_key, format_id, id_number, records_table
from legion_memory.storage import reading, writing
from legion_memory.storage.reading import Memory
from legion_memory.upkeep.finding import Finding
from legion_memory.upkeep.forgetting import insert_line, with_section
from legion_memory.upkeep.renumbering import Occurrence, Texts, memory_files, occurrences
from legion_memory.upkeep.replayed_changes import Key


class Dropped(NamedTuple):
    """A record missing from the result, as the side that still held it wrote it."""

    kind: Kind
    row: Occurrence
    side: str
    archived: bool


LaterSide = Callable[[str], str | None]
"""(a record's `history_text`) -> the side whose state of it (live or archived) is the later,
by name; None when the history does not say."""

LeftOut = Callable[[Occurrence], bool]
"""(a row only ours holds) -> whether the integration left out on purpose the commits that
stored it (a rebase's `drop`)."""


def dropped(
    memory: Memory,
    now: Texts,
    versions: Mapping[str, Texts],
    ours: str,
    theirs: str,
    later: LaterSide = lambda _: None,
    left_out: LeftOut = lambda _: False,
) -> list[Dropped]:
    """PURE: the records `now` lacks that both sides hold or one side added since `versions`'s
    "base"; each once, as ours holds it when both do, unless one side holds it archived and
    the other live and `later` says theirs's state is the later one. A record ours alone
    added that `left_out` says the integration left out on purpose is not one; nor is one
    side's edit of a base record in place (`_edited`): which version stays was the conflict
    the user settled."""
    held = {name: _rows(memory, texts) for name, texts in versions.items()}
    present = _rows(memory, now)
    edited = _edited(held)

    def holder(key: Key) -> str:
        if key not in held[ours] or key not in held[theirs]:
            return ours if key in held[ours] else theirs
        mine, other = held[ours][key][1], held[theirs][key][1]
        if (mine.path == memory.archive) == (other.path == memory.archive):
            return ours
        return theirs if later(history_text(mine.raw, mine.columns)) == theirs else ours

    found: list[Dropped] = []
    for key in dict.fromkeys([*held[ours], *held[theirs]]):
        both = key in held[ours] and key in held[theirs]
        if key in present or not (both or key not in held["base"]):
            continue
        side = holder(key)
        kind, row = held[side][key]
        if not both and (key in edited or (side == ours and left_out(row))):
            continue
        found.append(Dropped(kind, row, side, row.path == memory.archive))
    return found


def _edited(held: Mapping[str, Mapping[Key, tuple[Kind, Occurrence]]]) -> set[Key]:
    """The records a side holds under an ID the base gave another record of the kind, stored
    on the same date on the same branch, which that side no longer holds, live or archived: the
    side edited the base's record in place (a hand edit), and its version is no record of its
    own (docs/decisions.md#record-identity)."""
    base = held["base"]
    at_base = {(kind.name, row["id"]): (key, row) for key, (kind, row) in base.items()}
    edits = set()
    for side in held.keys() - {"base"}:
        rows = held[side]
        for key, (kind, row) in rows.items():
            was = at_base.get((kind.name, row["id"]))
            if key not in base and was and was[0] not in rows and same_origin(was[1], row):
                edits.add(key)
    return edits


def _rows(memory: Memory, texts: Texts) -> dict[Key, tuple[Kind, Occurrence]]:
    rows: dict[Key, tuple[Kind, Occurrence]] = {}
    for kind in KINDS.values():
        for row in occurrences(memory, texts, kind):
            key = (kind.name, identity_of_cells(kind, row.columns, row.cells))
            rows.setdefault(key, (kind, row))
    return rows


def put_back(memory: Memory, now: Texts, lost: list[Dropped]) -> tuple[dict[Path, str], list[str]]:
    """PURE: the changed files' texts with each dropped record back in the table it was in on
    its side (under its ID unless another row holds that now), and what was done."""
    texts: dict[Path, str | None] = dict(now)
    changed: dict[Path, str] = {}
    done: list[str] = []
    for item in lost:
        path = _home(memory, item)
        put = _with_row(parse(texts.get(path) or ""), item, _taken(memory, texts, item.kind))
        if put is None:
            continue
        text, record_id = put
        texts[path] = changed[path] = text
        state = "archived" if item.archived else "live"
        done.append(f"{path}: put back {record_id} ({state}, as {item.side} holds it)")
    return changed, done


def _taken(memory: Memory, texts: Texts, kind: Kind) -> set[str]:
    return {row["id"] for row in occurrences(memory, texts, kind)}


def _with_row(document: Document, item: Dropped, taken: set[str]) -> tuple[str, str] | None:
    table = records_table(document, item.kind, archived=item.archived)
    if table is None and item.archived:
        document = parse(render(document._replace(lines=with_section(document, item.kind))))
        table = records_table(document, item.kind, archived=True)
    target = tuple(column_key(name) for name in table.columns) if table else ()
    if table is None or "id" not in target:
        return None
    raw = fit(strip_ending(item.row.raw), item.row.columns, target)
    record_id = item.row["id"]
    if record_id in taken:
        highest = max((id_number(other, item.kind.prefix) for other in taken), default=0)
        new_id = format_id(item.kind.prefix, highest + 1)
        raw, record_id = set_cell(raw, target.index("id"), record_id, new_id), new_id
    lines = insert_line(document, table.rows.stop, raw)
    return render(document._replace(lines=lines)), record_id


def find_lost(memory: Memory) -> list[Finding]:
    return [
        Finding(
            str(_home(memory, item)), f"{item.row['id']} was dropped although {item.side} holds it"
        )
        for item in _lost(memory, _sides_held(memory), _current(memory))
    ]


def repair_lost(memory: Memory) -> list[str]:
    held = _sides_held(memory)
    done: list[str] = []

    def mutate(current: Mapping[Path, str | None]) -> Mapping[Path, str]:
        changed, repairs = put_back(memory, current, _lost(memory, held, current))
        done.extend(repairs)
        return changed

    if held is not None and _lost(memory, held, _current(memory)):
        writing.transact(memory, memory_files(memory), mutate)
    return done


def _home(memory: Memory, item: Dropped) -> Path:
    return memory.archive if item.archived else memory.path(item.kind)


def _current(memory: Memory) -> Texts:
    return {path: reading.read_text(path) for path in memory_files(memory)}


class _Held(NamedTuple):
    versions: Mapping[str, Texts]
    ours: str
    theirs: str
    later: LaterSide
    left_out: LeftOut


def _sides_held(memory: Memory) -> _Held | None:
    """The memory files of the base and both sides of the integration just done, from git."""
    sides = integration_just_done(memory.directory) or merge_just_concluded(memory.directory)
    if sides is None:
        return None
    paths = {path.name: path for path in memory_files(memory)}
    revs = (sides.base, sides.ours, sides.theirs)
    found = files_of_commits(memory.directory, memory.directory, revs, list(paths), keep_empty=True)
    if len(found) != len(revs):
        return None
    versions = {
        name: {paths[file]: text for file, text in files.items()}
        for name, files in zip(("base", sides.ours_name, sides.theirs_name), found, strict=True)
    }
    return _Held(
        versions,
        sides.ours_name,
        sides.theirs_name,
        _later_side(memory, sides),
        lambda row: left_out_by_rebase(
            memory.directory, sides, row.path, history_text(row.raw, row.columns)
        ),
    )


def _later_side(memory: Memory, sides: Sides) -> LaterSide:
    """A record one side holds live and the other archived: the side with the later state by
    their archive moves since they parted (docs/decisions.md#archive-moves). A branch rebased
    over an upstream that restored a record its old base had archived holds it archived only
    because the base did; the upstream's restore is the later word."""

    def later(text: str) -> str | None:
        revs = {sides.ours: sides.ours_name, sides.theirs: sides.theirs_name}
        found = most_moved(memory.directory, sides.base, list(revs), memory.archive, text)
        return revs[next(iter(found))] if found and len(found) == 1 else None

    return later


def _lost(memory: Memory, held: _Held | None, now: Texts) -> list[Dropped]:
    if held is None:
        return []
    return dropped(memory, now, held.versions, held.ours, held.theirs, held.later, held.left_out)

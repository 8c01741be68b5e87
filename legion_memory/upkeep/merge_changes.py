"""What a merge commit changed beyond its parents, set back after a rebase that lost it.

A rebase replays a branch's commits and drops its merges (or, with `--rebase-merges`, merges
their parents again), and with them whatever a merge commit changed itself: an error's fix
updated or a record forgotten in a `merge --no-commit`, or an update that a `rebase -i` folded
into a merge. Git documents that loss for any file. A record such a merge changed, that the
branch's tip still holds in the merge's version, and that the rebase and its upstream both hold
as a parent of the merge did (the upstream never changed it), is set to the merge's version: a
merge of the upstream and the branch would keep the branch's version
(docs/decisions.md#merge-changes).
"""

import functools
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

from legion_memory.errors import LegionMemoryError
from legion_memory.gitops.integration_versions import (
    BranchMerge,
    branch_merges,
    integration_just_done,
)
from legion_memory.gitops.record_history import parting
from legion_memory.gitops.repository import files_of_commits
from legion_memory.gitops.row_merge import edit_cell, fit
from legion_memory.markdown.cells import cell_at
from legion_memory.markdown.document import parse, render, strip_ending
from legion_memory.schema.kinds import KINDS
from legion_memory.storage import reading, writing
from legion_memory.storage.reading import Memory
from legion_memory.upkeep.finding import Finding
from legion_memory.upkeep.forgetting import forget, restore
from legion_memory.upkeep.renumbering import Texts, memory_files, occurrences
from legion_memory.upkeep.replayed_changes import Key, State, states


class Lost(NamedTuple):
    """A record the rebase left as it was before a merge of the branch changed it."""

    key: Key
    id: str
    """Its ID now."""
    archived_now: bool
    made: State
    """The record as the merge made it."""
    subject: str
    """The merge commit's subject."""


Content = tuple[bool, tuple[str, ...]] | None
"""A record's state, IDs aside: archived or not, and its cells but ID and Source."""


class SideRecords(NamedTuple):
    """The records of the rebase's sides: the branch's tip before it, its upstream, and where
    they parted."""

    before: Mapping[Key, State]
    onto: Mapping[Key, State]
    base: Mapping[Key, State]


class Merged(NamedTuple):
    """A merge commit's records, its parents' records, and theirs where the parents parted."""

    merge: BranchMerge
    made: dict[Key, State]
    parents: tuple[dict[Key, State], ...]
    parted: Mapping[Key, State] = {}


def lost_changes(
    merges: Sequence[Merged], sides: SideRecords, now: Mapping[Key, State]
) -> list[Lost]:
    """PURE: the records that `merges` (newest first) changed beyond every parent holding them
    (none: stored in the merge itself, a dropped record `lost_records` puts back), that the
    branch's tip before the rebase holds as the merge made them, that the rebase's result
    (`now`) holds as a parent did, and that the upstream did not change since the sides parted
    (or holds as a parent did): changed in its cells, or moved to or from the archive (not
    both)."""
    found: dict[Key, Lost] = {}
    for merged in merges:
        for key, made in merged.made.items():
            held = {_content(parent[key]) for parent in merged.parents if key in parent}
            current = now.get(key)
            if (
                key in found
                or current is None
                or (current.archived != made.archived and current.body != made.body)
                or not held
                or not _made_itself(merged, key, held)
                or _content(sides.before.get(key)) != _content(made)
                or _content(current) not in held
                or _changed_upstream(sides, key, held)
            ):
                continue
            found[key] = Lost(key, current.id, current.archived, made, merged.merge.subject)
    return list(found.values())


def _made_itself(merged: Merged, key: Key, held: set[Content]) -> bool:
    """Whether the merge's version of a record is its own: no parent holding it holds it so, or
    it is the version where the parents parted though a parent changed it since (the merge
    undid that change, which a merge of the two would have kept: a restore made before
    committing a `merge --no-commit` of a branch older than the forget)."""
    made = _content(merged.made[key])
    parted = _content(merged.parted.get(key))
    return made not in held or (made == parted and any(other != parted for other in held))


def _content(state: State | None) -> Content:
    return None if state is None else (state.archived, state.body)


def _changed_upstream(sides: SideRecords, key: Key, held: set[Content]) -> bool:
    """Whether the upstream holds the record otherwise than where the sides parted and than a
    parent of the merge did: a change of its own, which the rebase's result stands for."""
    if key not in sides.onto:
        return False
    upstream = _content(sides.onto[key])
    return upstream not in held and upstream != _content(sides.base.get(key))


def restored_texts(
    memory: Memory, texts: Texts, lost: Sequence[Lost]
) -> tuple[dict[Path, str], list[Lost]]:
    """PURE: the changed files' texts, each lost record's row given the merge's cells (its ID
    and Source as they are now: a renumbering since is no loss), and the records whose rows
    that changed (laid out in the current columns, a version may differ only in others)."""
    changed: dict[Path, str] = {}
    done: list[Lost] = []
    for item in (item for item in lost if item.archived_now == item.made.archived):
        current = {**texts, **changed}
        for row in occurrences(memory, current, KINDS[item.key[0]]):
            if row["id"] != item.id or (row.path == memory.archive) != item.made.archived:
                continue
            line = _with_kept_cells(row.raw, row.columns, item.made)
            if line != row.raw:
                document = parse(current[row.path] or "")
                lines = [*document.lines[: row.index], line, *document.lines[row.index + 1 :]]
                changed[row.path] = render(document._replace(lines=lines))
                done.append(item)
            break
    return changed, done


def _with_kept_cells(raw: str, columns: tuple[str, ...], made: State) -> str:
    """The merge's row laid out in the current row's columns, with the current ID and Source."""
    ending = raw[len(strip_ending(raw)) :]
    line = fit(strip_ending(made.raw), made.columns, columns) + ending
    for index, key in enumerate(columns):
        if key in ("id", "source"):
            kept = _cell(raw, index)
            line = edit_cell(line, index, functools.partial(_padded, value=kept))
    return line


def _padded(text: str, value: str) -> str:
    """`value` in place of a cell's text, its padding kept."""
    if not text.strip():
        return f" {value} " if value else text
    return text.replace(text.strip(), value, 1)


def _cell(raw: str, index: int) -> str:
    """Cell `index` of a row line as written (escaped), '' when the row is shorter."""
    try:
        return cell_at(strip_ending(raw), index)
    except IndexError:
        return ""


def find_merge_changes(memory: Memory) -> list[Finding]:
    versions = _versions(memory)
    lost = _lost(memory, versions, _current(memory)) if versions else []
    return [Finding(_where(memory, i), f"{i.id} {_LOST_BY} (--fix: {_undone(i)})") for i in lost]


def repair_merge_changes(memory: Memory) -> list[str]:
    """Each record's row given the merge's cells (one transaction), then each record the merge
    archived or restored moved again as `forget` and `restore` move it."""
    versions = _versions(memory)
    if versions is None:
        return []  # the usual case: no rebase, or no merge on the branch
    lost = _lost(memory, versions, _current(memory))
    done: list[str] = []

    def mutate(current: Mapping[Path, str | None]) -> Mapping[Path, str]:
        changed, made = restored_texts(memory, current, _lost(memory, versions, current))
        done.extend(f"{_where(memory, item)}: {item.id} {_undone(item)}" for item in made)
        return changed

    if any(item.archived_now == item.made.archived for item in lost):
        writing.transact(memory, memory_files(memory), mutate)
    for item in (item for item in lost if item.archived_now != item.made.archived):
        try:
            (forget if item.made.archived else restore)(memory, item.id)
        except LegionMemoryError:
            continue  # left as found; its finding remains
        done.append(f"{_where(memory, item)}: {item.id} {_undone(item)}")
    return done


_LOST_BY = "is as it was before a merge of the branch changed it, which the rebase dropped"


def _undone(item: Lost) -> str:
    """What setting the record back does, and why."""
    merge = f'the merge "{item.subject}"'
    if item.archived_now == item.made.archived:
        return f"set to the version {merge} made, which the rebase dropped"
    moved = "archived" if item.made.archived else "restored"
    return f"{moved} again, as {merge} left it, which the rebase dropped"


class _Versions(NamedTuple):
    merges: list[Merged]
    sides: SideRecords


def _versions(memory: Memory) -> _Versions | None:
    """The records of the branch's tip before the rebase, of its upstream, and of each merge of
    the branch the upstream does not hold and its parents (one `git cat-file --batch`); None
    after anything but a rebase of a branch with merges, or when git cannot say."""
    sides = integration_just_done(memory.directory)
    merges = branch_merges(memory.directory, sides) if sides is not None else None
    if sides is None or not merges:
        return None
    ends = (sides.ours, sides.theirs, sides.base)
    parted = [parting(memory.directory, m.parents) or m.commit for m in merges]
    pairs = zip(merges, parted, strict=True)
    revs = (*ends, *(rev for m, at in pairs for rev in (m.commit, *m.parents, at)))
    named = all(map(_FULL_NAME.fullmatch, revs))
    records = (_records_named if named else _records_of_commits)(memory, revs)
    if records is None:
        return None
    read = iter(records)
    read_sides = SideRecords(next(read), next(read), next(read))
    merged = [
        Merged(m, next(read), tuple(next(read) for _ in m.parents), next(read)) for m in merges
    ]
    return _Versions(merged, read_sides)


_FULL_NAME = re.compile("[0-9a-f]{40}(?:[0-9a-f]{24})?")


@functools.lru_cache(maxsize=1)
def _records_named(memory: Memory, revs: tuple[str, ...]) -> tuple[dict[Key, State], ...] | None:
    """`_records_of_commits`, kept for the run: a commit's full name always names the same
    files, and a doctor run asks three times (find, repair, what is left), each read and parse
    costing some 20 ms a merge of the branch."""
    return _records_of_commits(memory, revs)


def _records_of_commits(
    memory: Memory, revs: tuple[str, ...]
) -> tuple[dict[Key, State], ...] | None:
    """Every record of each revision's memory files, in one `git cat-file --batch`."""
    paths = {path.name: path for path in memory_files(memory)}
    found = files_of_commits(memory.directory, memory.directory, revs, list(paths), keep_empty=True)
    if len(found) != len(revs):
        return None
    return tuple(states(memory, {paths[n]: t for n, t in files.items()}) for files in found)


def _lost(memory: Memory, versions: _Versions, texts: Texts) -> list[Lost]:
    """The records found that a move sets back, or whose rows the merge's cells change."""
    found = lost_changes(versions.merges, versions.sides, states(memory, texts))
    moved = [item for item in found if item.archived_now != item.made.archived]
    return [*restored_texts(memory, texts, found)[1], *moved] if found else []


def _current(memory: Memory) -> Texts:
    return {path: reading.read_text(path) for path in memory_files(memory)}


def _where(memory: Memory, item: Lost) -> str:
    return str(memory.archive if item.archived_now else memory.path(KINDS[item.key[0]]))

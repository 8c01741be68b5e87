"""Records a merge took whole from the side whose archive state is the earlier one.

When one side's memory files ended exactly as the merge base had them (it forgot a record and
restored it again, say), git takes the other side's files whole without calling the merge driver,
so the driver never weighs the two sides' histories. The post-merge hook notices that case (and
a side reaching a commit this clone noted as standing for others, whose moves its own diff may
lack: a fold, a line a rebase flattened) and asks doctor to: for each record the parents hold,
live on one and archived on another, the side that moved it in or out of ARCHIVE.md more often
since they parted holds its later state (docs/decisions.md#archive-moves), and the merge result
is set to that state. An octopus merge's
parents are all weighed: by its first two alone, a later forget its third branch made was undone.
A series of patches `git am` applied is weighed the same way, its sides HEAD before the series
and the commit its last patch was mailed from (`gitops.applied_patch`), and so is a rebase, its
sides what it was replayed onto and the tip it started from.
"""

import os
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

from legion_memory.errors import LegionMemoryError
from legion_memory.gitops.applied_patch import sides_of_applied_patch
from legion_memory.gitops.hook_env import RECHECK_ENV, REPLAYED_AS_ENV
from legion_memory.gitops.rebase_state import (
    dropped_as_upstream,
    rebase_onto,
    rebase_started_from,
)
from legion_memory.gitops.record_history import commits_since_changing, most_moved, parting
from legion_memory.gitops.repository import files_of_commits
from legion_memory.schema.identity import Identity, history_text, identity_of_cells
from legion_memory.schema.kinds import KINDS
from legion_memory.storage import reading
from legion_memory.storage.reading import Memory
from legion_memory.upkeep.finding import Finding
from legion_memory.upkeep.forgetting import forget, restore
from legion_memory.upkeep.renumbering import Texts, memory_files, occurrences

_PARENTS = ("HEAD^1", "HEAD^2")  # a merge at HEAD; the hook names its sides (a squash's too)


class Undone(NamedTuple):
    """A record the merge left archived (or live) though its later state is the other one."""

    record_id: str
    where: Path
    archived: bool


def find_undone(memory: Memory) -> list[Finding]:
    return [Finding(str(item.where), _message(item)) for item in _undone(memory)]


def repair_undone(memory: Memory) -> list[str]:
    done = []
    for item in _undone(memory):
        try:
            (restore if item.archived else forget)(memory, item.record_id)
        except LegionMemoryError:
            continue  # left as found; its finding remains
        state = "live" if item.archived else "archived"
        done.append(f"{item.where}: {item.record_id} made {state} again, its later state")
    return done


def _message(item: Undone) -> str:
    now, then = ("archived", "live") if item.archived else ("live", "archived")
    return f"{item.record_id} is {now} by a merge of its earlier state (--fix makes it {then})"


class _Held(NamedTuple):
    record_id: str
    where: Path
    archived: bool
    text: str


def _undone(memory: Memory) -> list[Undone]:
    paths = {path.name: path for path in memory_files(memory)}
    merged = tuple(os.environ.get(RECHECK_ENV, "").split())
    # A patch `git am` applied as text replays the branch's move whole, with no merge to weigh
    # it: its sides are ours and the commit it was mailed from (seed 8065 of `--merges-kinds`).
    named = merged or tuple(sides_of_applied_patch(memory.directory, list(paths)))
    rebase = () if named else _rebase_sides(memory.directory)
    named = named or rebase
    if not named:
        return []
    parents = named if len(named) >= 2 else _PARENTS
    base = parting(memory.directory, list(parents))
    # Only a merge takes files whole (a patch or a rebase replays moves as text), and an octopus
    # merge does so against each step's base, which is not the base of all its parents: only
    # a two-sided merge's base is read, to tell a whole take from the merge commit's own change.
    two_sided = bool(merged) and len(parents) == 2
    revs = [*parents, *([base] if two_sided else [])] if base else []
    found = files_of_commits(memory.directory, memory.directory, revs, list(paths), keep_empty=True)
    if base is None or len(found) != len(revs):
        return []
    at_parents = found[: len(parents)]
    sides = [_states(memory, {paths[n]: text for n, text in files.items()}) for files in at_parents]
    now = _states(memory, {path: reading.read_text(path) for path in paths.values()})
    whole = _TakenWhole(memory, found[-1], dict(zip(parents, at_parents, strict=True)))
    undone = _left_earlier(
        memory, base, dict(zip(parents, sides, strict=True)), now, whole if two_sided else None
    )
    if rebase:
        undone += _left_by_a_dropped_move(memory, base, rebase, sides, now)
    return undone


def _left_earlier(
    memory: Memory,
    base: str,
    sides: Mapping[str, Mapping[tuple[str, Identity], _Held]],
    now: Mapping[tuple[str, Identity], _Held],
    taken_whole: "_TakenWhole | None",
) -> list[Undone]:
    """Records the result holds in the earlier of the states the sides hold them in."""
    undone = []
    for key, held_by in _disagreeing(sides).items():
        later = _later(memory, base, held_by)
        held = now.get(key)
        if later is None or held is None or held.archived == later:
            continue
        later_sides = [side for side, copy in held_by.items() if copy.archived == later]
        if taken_whole is None or taken_whole(key[0], later_sides):
            undone.append(Undone(held.record_id, held.where, held.archived))
    return undone


class _TakenWhole(NamedTuple):
    """Whether git can have taken a record's state whole from a side that holds the earlier one:
    it does so with a file only when the other side, the one with the later state, ended it as
    the merge base had it. Where neither of the record's files did (its kind's and ARCHIVE.md),
    the driver merged both and weighed the record itself, and a state it did not choose is the
    merge commit's own change (a restore made before committing a `merge --no-commit`), which
    stands."""

    memory: Memory
    at_base: Mapping[str, str | None]
    by_side: Mapping[str, Mapping[str, str | None]]

    def __call__(self, kind: str, later_sides: list[str]) -> bool:
        names = [self.memory.path(KINDS[kind]).name, self.memory.archive.name]
        return any(
            self.by_side[side].get(name) == self.at_base.get(name)
            for side in later_sides
            for name in names
        )


def _rebase_sides(directory: Path) -> tuple[str, ...]:
    """After a rebase (its post-rewrite hook names what it wrote): what it was replayed onto and
    the tip it started from. Git drops a replayed commit whose diff the upstream already holds,
    and a restore's diff is the same each time it restores a record from the same neighbours: a
    branch's last restore went missing when the upstream held a copy of its first one (seed 8216
    of `--merges-kinds`). Weighed as a merge of the two is, the later state stands."""
    if not os.environ.get(REPLAYED_AS_ENV, "").strip():
        return ()
    onto, started = rebase_onto(directory), rebase_started_from(directory)
    return (onto, started) if onto and started else ()


def _states(memory: Memory, texts: Texts) -> dict[tuple[str, Identity], _Held]:
    held: dict[tuple[str, Identity], _Held] = {}
    for kind in KINDS.values():
        for row in occurrences(memory, texts, kind):
            key = (kind.name, identity_of_cells(kind, row.columns, row.cells))
            text = history_text(row.raw, row.columns)
            held.setdefault(key, _Held(row["id"], row.path, row.path == memory.archive, text))
    return held


def _disagreeing(
    sides: Mapping[str, Mapping[tuple[str, Identity], _Held]],
) -> dict[tuple[str, Identity], dict[str, _Held]]:
    """Each record the sides hold in different states, with the sides holding it."""
    held_by: dict[tuple[str, Identity], dict[str, _Held]] = {}
    for side, states in sides.items():
        for key, held in states.items():
            held_by.setdefault(key, {})[side] = held
    return {
        key: held
        for key, held in held_by.items()
        if len({copy.archived for copy in held.values()}) > 1
    }


def _later(memory: Memory, base: str, held_by: Mapping[str, _Held]) -> bool | None:
    """Whether the record's later state is archived: the state of the sides that moved it most
    (an octopus merge's every branch is weighed, the last one's later forget among them). None
    when those sides disagree, or git cannot say."""
    text = next((held.text for held in held_by.values() if held.text), "")
    if not text:
        return None
    later = most_moved(memory.directory, base, list(held_by), memory.archive, text)
    states = {held_by[side].archived for side in later or ()}
    return states.pop() if len(states) == 1 else None


def _left_by_a_dropped_move(
    memory: Memory,
    base: str,
    rebase: tuple[str, ...],
    sides: list[dict[tuple[str, Identity], _Held]],
    now: Mapping[tuple[str, Identity], _Held],
) -> list[Undone]:
    """Records the rebase left in the state neither side holds, because git dropped the branch's
    last move of it as previously applied: its diff was an upstream move's, made among the same
    neighbours, while the branch's earlier moves were replayed (a forget, then that restore
    dropped: seed 12001 of the collaboration simulation's `--stacked-kinds`). The state both
    sides hold stands. Git is asked only when such a record is there."""
    onto, started = rebase
    dropped: set[str] | None = None
    undone = []
    for key, held in now.items():
        copies = [side.get(key) for side in sides]
        states = {copy.archived if copy else None for copy in copies}
        if states != {not held.archived} or not copies[-1] or not copies[-1].text:
            continue
        if dropped is None:
            dropped = dropped_as_upstream(memory.directory, onto, started)
        moves = commits_since_changing(
            memory.directory, base, started, memory.archive, copies[-1].text
        )
        if moves and moves[0] in dropped:
            undone.append(Undone(held.record_id, held.where, held.archived))
    return undone

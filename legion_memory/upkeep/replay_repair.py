"""doctor's check of a rebase or pick just done: records it left archived or live only by
replaying changes its upstream had already made and since undone, set back to how the upstream
holds them (docs/decisions.md#replays-upstream-holds). What git is asked, and when, is here;
which records are stale, from the versions read, is `replayed_changes`.
"""

from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from legion_memory.errors import LegionMemoryError
from legion_memory.gitops.applied_patch import replay_of_patches
from legion_memory.gitops.commit_copies import copies_in_history, upstream_commits
from legion_memory.gitops.record_history import (
    any_changed,
    commits_changing,
    copy_keys,
    tip_holding,
)
from legion_memory.gitops.repository import (
    Replay,
    files_of_commits,
    replay_of_picks,
    replay_of_rebase,
)
from legion_memory.storage import reading
from legion_memory.storage.reading import Memory
from legion_memory.upkeep.finding import Finding
from legion_memory.upkeep.forgetting import forget, kind_for, restore
from legion_memory.upkeep.renumbering import memory_files
from legion_memory.upkeep.replayed_changes import (
    Change,
    Key,
    Stale,
    State,
    Step,
    replayed_changes,
    stale_records,
    states,
    suspects,
)


def find_replayed(memory: Memory) -> list[Finding]:
    return [Finding(_where(memory, s), _replayed_message(s)) for s in _stale_replays(memory)]


def repair_replayed(memory: Memory) -> list[str]:
    """Set each record back to how the upstream holds it (docs/decisions.md#replays-upstream-holds):
    archived again by a replayed forget, restored; live again by a replayed restore, forgotten."""
    done = []
    for stale in _stale_replays(memory):
        where = _where(memory, stale)
        try:
            (restore if stale.now.archived else forget)(memory, stale.now.id)
        except LegionMemoryError:
            continue  # left as found; its finding remains
        state = "live" if stale.now.archived else "archived"
        done.append(f"{where}: {stale.now.id} made {state} again, as the upstream holds it")
    return done


class Replayed(NamedTuple):
    """The records as the replay left them, as the upstream's tip holds them, and the changes
    the replayed commits made to them."""

    now: dict[Key, State]
    onto: dict[Key, State]
    changes: dict[Key, list[tuple[str, Change]]]


def _stale_replays(memory: Memory) -> list[Stale]:
    """Records a rebase or pick just done left archived or live only by replaying changes its
    upstream had already made and since undone; nothing outside the hooks that name them."""
    rebase = replay_of_rebase(memory.directory)
    replay = rebase or replay_of_picks(memory.directory) or replay_of_patches(memory.directory)
    # A record changes between live and archived only by a commit that changes ARCHIVE.md.
    if replay is None or not any_changed(memory.directory, replay.picked, memory.archive):
        return []
    # A rebase onto what the branch held already brings nothing: its tip before is the truth.
    before = tip_holding(memory.directory, replay.onto) if rebase else None
    revs = [before or replay.onto, *(rev for pick in replay.picked for rev in (f"{pick}^", pick))]
    found = _versions(memory, revs)
    if found is None:
        return []
    now, onto = states(memory, _current(memory)), found[0]
    replayed = replayed_changes(list(zip(replay.picked, found[1::2], found[2::2], strict=True)))
    suspected = suspects(now, onto, replayed)
    if before:  # every change replayed is one the branch made and its tip holds the outcome of
        return [Stale(now[key], onto[key]) for key in suspected]
    if not suspected:
        return []  # the usual case: the upstream's history is not read at all
    texts = sorted({v[key].text() for v in (now, *found) for key in suspected if key in v} - {""})
    return _weighed(memory, replay, texts, Replayed(now, onto, replayed))


def _weighed(memory: Memory, replay: Replay, texts: list[str], replayed: Replayed) -> list[Stale]:
    """The suspects weighed against the changes the upstream made since the sides parted and
    the copies of the replayed commits in the history the sides share, read for the rows
    `texts` only."""
    upstream = _steps(memory, upstream_commits(memory.directory, replay, memory.directory), texts)
    copy_of = copy_keys(memory.directory, [*replay.picked, *(step[0] for step in upstream or ())])
    if upstream is None or copy_of is None:
        return []
    keys = {copy_of[pick] for pick in replay.picked if pick in copy_of}
    copies = copies_in_history(memory.directory, replay.onto, keys, memory.directory)
    shared = _steps(memory, list(copies), texts)
    if shared is None:
        return []
    now, onto, changes = replayed
    return stale_records(now, onto, changes, upstream, {**copy_of, **copies}, shared)


def _steps(memory: Memory, commits: Sequence[str], texts: list[str]) -> list[Step] | None:
    """Of `commits`, those that changed how often one of `texts` occurs, each with its versions
    before and after; None when git cannot read them."""
    changing = commits_changing(memory.directory, commits, texts, memory.directory)
    made = _versions(memory, [rev for commit in changing for rev in (f"{commit}^", commit)])
    return None if made is None else list(zip(changing, made[0::2], made[1::2], strict=True))


def _versions(memory: Memory, revs: list[str]) -> list[dict[Key, State]] | None:
    """Every record of the memory files at each revision (one `git cat-file --batch`); None
    when git cannot read them all."""
    paths = {path.name: path for path in memory_files(memory)}
    found = files_of_commits(memory.directory, memory.directory, revs, list(paths), keep_empty=True)
    if len(found) != len(revs):
        return None
    return [states(memory, {paths[name]: text for name, text in files.items()}) for files in found]


def _current(memory: Memory) -> dict[Path, str | None]:
    return {path: reading.read_text(path) for path in memory_files(memory)}


def _where(memory: Memory, stale: Stale) -> str:
    return str(memory.archive if stale.now.archived else memory.path(kind_for(stale.now.id)))


def _replayed_message(stale: Stale) -> str:
    now, then = ("archived", "live") if stale.now.archived else ("live", "archived")
    return (
        f"{stale.now.id} is {now} only by a replayed change the upstream had already made "
        f"and undone (--fix makes it {then}, as the upstream holds it)"
    )

"""What one file's merge may ask of the history, and the side being merged in: the commits a
`git merge` names, the commit a pick or rebase step replays, or a stash being applied. Each
question is asked only where the history can answer it (docs/decisions.md#archive-moves,
#later-version, #stores-replayed, #replays-upstream-holds, #dropped-copies)."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from pathlib import Path

from legion_memory.gitops.archived_versions import ArchivedAs, archived_in, stored_anew
from legion_memory.gitops.companions import companion_names, theirs_commits
from legion_memory.gitops.record_history import (
    KeptLater,
    LaterVersion,
    VersionSeen,
    kept_later_in_merge,
    later_version,
    version_seen_in_merge,
)
from legion_memory.gitops.repository import (
    commit_being_picked,
    commit_being_replayed,
    ours_rev,
    run_git,
)
from legion_memory.gitops.row_merge import HistoryQuestions
from legion_memory.named_tuple import NamedTuple
from legion_memory.schema.kinds import ARCHIVE_FILENAME


class Theirs(NamedTuple):
    """What theirs is, read once per file merged: the commits a `git merge` names (`GITHEAD_*`),
    else the commit a pick is applying (one of a sequence, a lone pick's, or the one a patch
    `git am` applies was mailed from), else the one a rebase is replaying; or a stash being
    applied, which is weighed as a pick of no commit."""

    named: list[str]
    picked: str | None
    replayed: str | None
    stash: str | None = None

    def one(self) -> list[str]:
        """The commit merged or picked, whose versions the driver may read (not a rebase's:
        its replayed commit is weighed only for moves, later versions and copies)."""
        return self.named or ([self.picked] if self.picked else [])

    def weighed(self) -> list[str]:
        """The commit whose history the driver weighs: merged, picked, or a rebase's replayed
        one (its moves, later versions and copies)."""
        return self.one() or ([self.replayed] if self.replayed else [])


@functools.cache
def theirs_in(theirs: str, shown: str) -> Theirs:
    here = Path.cwd()
    named = theirs_commits(os.environ)
    picked = None if named else commit_being_picked(here)
    if picked:
        return Theirs([], picked, None)
    from legion_memory.gitops.applied_stash import stash_being_applied

    # Asked before the merge's or rebase's own state: an autostash is applied at its end, by a
    # `git stash apply` that inherits it (`GITHEAD_*`, `rebase-merge/`).
    stash = stash_being_applied(here, shown, Path(theirs))
    if stash:
        return Theirs([], None, None, stash)
    if named:
        return Theirs(named, None, None)
    replayed = commit_being_replayed(here)
    if replayed is None:
        from legion_memory.gitops.applied_patch import commit_being_mailed
        from legion_memory.gitops.lone_pick import commit_picked_alone

        picked = commit_picked_alone(here, shown, Path(theirs))
        picked = picked or commit_being_mailed(here, shown, Path(theirs))
    return Theirs([], picked, replayed)


def history_questions(path: Path, companions: list[str], theirs: Theirs) -> HistoryQuestions:
    """What the merge of this file may ask of the history: each question only in the merges
    where the history can answer it (a file whose versions share a stable run is never
    ARCHIVE.md, so `live_as` is None there)."""
    seen = _version_seen(path, theirs)
    picked_archive = theirs.picked and path.name.upper() == ARCHIVE_FILENAME.upper()
    live_as, copy_dropped = _picked_archive(path, theirs) if picked_archive else (None, None)
    kept_later, changed_later = _kept_later(path, theirs)
    return HistoryQuestions(
        kept_later=kept_later,
        changed_later=changed_later,
        later_version=_in_series(later_version(seen), path, theirs) if seen else None,
        version_seen=seen,
        archived_as=_archived_as(path, companions, theirs.one()),
        live_as=live_as,
        replayed_seen=_replayed_seen(path, theirs),
        stored_anew=_stored_anew(path, theirs),
        copy_dropped=copy_dropped,
    )


def _in_series(later: LaterVersion, path: Path, theirs: Theirs) -> LaterVersion:
    """`later`, and in a replay of one commit of a series what the series says too."""
    replayed = theirs.picked or theirs.replayed
    if not replayed:
        return later
    from legion_memory.gitops.merge_own_changes import later_in_replay

    return later_in_replay(later, Path.cwd(), path, ours_rev(os.environ), replayed)


def _kept_later(path: Path, theirs: Theirs) -> tuple[KeptLater | None, KeptLater | None]:
    """In a `git merge` (git names the one commit merged), a pick or a rebase step, the history
    decides whether a record one side removed and the other kept was restored since
    (docs/decisions.md#archive-moves); and whether one the other side kept and changed was."""
    commits = theirs.weighed()
    if len(commits) != 1:
        return None, None
    archive = path.parent / ARCHIVE_FILENAME
    kept_later = kept_later_in_merge(Path.cwd(), archive, commits[0], ours_rev(os.environ))
    if theirs.named:
        return kept_later, None

    # A pick brings its commit's changes only: a record the picked commit left as its parent
    # had it stays as ours holds it, whatever the picked branch did with it before. A rebase
    # step's commit that changed a record brings that change, and the branch it replays
    # restored the record (inside a merge the rebase dropped, say) after the upstream's forget.
    def ours_only(text: str, side: str) -> bool:
        return side == "ours" and kept_later(text, side)

    return ours_only, (kept_later if theirs.replayed and not theirs.picked else None)


def _archived_as(path: Path, companions: list[str], commits: list[str]) -> ArchivedAs | None:
    """For a live file: each side's ARCHIVE.md, ours's among its companions from the work tree,
    theirs's from the commit git names (docs/decisions.md#archived-version)."""
    if path.name.upper() == ARCHIVE_FILENAME.upper():
        return None
    archive = (path.parent / ARCHIVE_FILENAME).as_posix()

    def theirs() -> str:
        shown = run_git(["show", f"{commits[0]}:{archive}"], Path.cwd()) if commits else None
        return shown if shown and len(commits) == 1 else ""

    return archived_in(companions[0] if companions else "", theirs)


def _stored_anew(path: Path, theirs: Theirs) -> Callable[[str], bool] | None:
    """For a live file in a pick or a rebase step: whether the commit replayed stored a row
    anew, its parent's ARCHIVE.md not holding it (docs/decisions.md#stores-replayed)."""
    replayed = theirs.picked or theirs.replayed
    if replayed is None or path.name.upper() == ARCHIVE_FILENAME.upper():
        return None
    archive = (path.parent / ARCHIVE_FILENAME).as_posix()
    return stored_anew(lambda: run_git(["show", f"{replayed}^:{archive}"], Path.cwd()))


def _picked_archive(path: Path, theirs: Theirs) -> tuple[ArchivedAs, Callable[[str], bool]]:
    """For ARCHIVE.md in a pick (after which no hook may run: the last pick of a sequence
    repairs, and one can end in skipped picks): whether a side holds a record live, restored
    after the forget the other side's archived row is (docs/decisions.md#archive-moves), and
    whether the pick dropped only a copy of a record (docs/decisions.md#dropped-copies). In a
    merge the hooks weigh such a record, seeing what git took whole."""
    from legion_memory.gitops import picked_archive

    names, picked = companion_names(path.name), theirs.picked or ""
    return (
        picked_archive.live_in_pick(path, names, picked),
        picked_archive.copy_dropped_in_pick(path, names, picked),
    )


def _replayed_seen(path: Path, theirs: Theirs) -> Callable[[], bool] | None:
    """In a rebase or a pick: whether ours holds a copy of the commit replayed
    (docs/decisions.md#replays-upstream-holds). A merge names its own commit."""
    replayed = theirs.picked or theirs.replayed
    if replayed is None:
        return None
    from legion_memory.gitops.replayed_copies import replay_held

    return replay_held(Path.cwd(), path.parent, replayed, ours_rev(os.environ))


def _version_seen(path: Path, theirs: Theirs) -> VersionSeen | None:
    """In a `git merge` (theirs: the commit git names), a pick or a rebase (theirs: the commit
    it is replaying), whether a side's history wrote or replaced a version of a record: which
    of two versions is the later, and whether a side removing a record had the other's change
    (docs/decisions.md#later-version)."""
    commits = theirs.weighed()
    if len(commits) != 1:
        return None
    return version_seen_in_merge(Path.cwd(), path, commits[0], ours_rev(os.environ))

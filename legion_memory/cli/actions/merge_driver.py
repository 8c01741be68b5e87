"""The git merge driver as a plain function: no typer here, so a lean entry point can call it.

Git calls `legion-memory git merge-driver %O %A %B %L %P` once per memory file per merge, rebase
step or cherry-pick, from the top of the working tree. The result goes to `%A`; exit 0 when clean,
1 when conflict markers were left.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable
from pathlib import Path

from legion_memory.cli.context import Context
from legion_memory.errors import LegionMemoryError
from legion_memory.gitops import merge_log
from legion_memory.gitops.archived_versions import ArchivedAs, archived_in, stored_anew
from legion_memory.gitops.companions import companion_names, taken_ids, theirs_commits
from legion_memory.gitops.file_merge import MergeResult, describe, merge, merge_around
from legion_memory.gitops.hook_env import MAIL_AHEAD_ENV
from legion_memory.gitops.merge_safety import refusal, unmergeable, whole_conflict
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
    find_git_dir,
    ours_rev,
    run_git,
)
from legion_memory.gitops.row_merge import HistoryQuestions, Incoming
from legion_memory.gitops.stable_rows import Source, split_versions
from legion_memory.named_tuple import NamedTuple
from legion_memory.schema.kinds import ARCHIVE_FILENAME, PATTERN
from legion_memory.storage import files, reading, versions


def merge_driver(
    context: Context, base: str, ours: str, theirs: str, marker_size: int, path: str
) -> int:
    """The hot-command action: git's arguments only, the Context is not needed."""
    return run_merge_driver(base, ours, theirs, marker_size, path)


def run_merge_driver(base: str, ours: str, theirs: str, marker_size: int, path: str) -> int:
    shown = path or ours
    _name_replayed_merge()
    if Path(shown).name.upper() not in _CITING:
        done = _merged_around_stable_rows(
            [Path(base), Path(ours), Path(theirs)], marker_size, shown
        )
        if done is not None:
            return done
    texts = [files.read_version(Path(name)) for name in (base, ours, theirs)]
    texts[0] = _virtual_base(texts[0])
    refused = refusal(texts)
    if refused:
        return _fail_safe(texts, Path(ours), marker_size, f"{shown}: {refused}")
    try:
        archive = Path(shown).name.upper() == ARCHIVE_FILENAME.upper()
        incoming = _theirs(theirs, shown)
        companions = _ours_companions(Path(shown))
        result = merge(
            *texts,
            marker_size=marker_size,
            reserved=taken_ids(Path(shown), companions, os.environ, _logged()),
            archive=archive,
            pick=not incoming.named,
            questions=_questions(Path(shown), companions, incoming),
        )
    except Exception as exc:  # whatever goes wrong, git must see both sides
        return _fail_safe(texts, Path(ours), marker_size, f"{shown}: the merge failed ({exc})")
    text = result.text
    if not result.conflicts and Path(shown).name.upper() in _CITING:
        text = _references_followed(Path(shown), texts, text, incoming.picked)
    files.write_version(Path(ours), text)
    return _reported(result, shown, theirs, followed=text != result.text)


def _name_replayed_merge() -> None:
    """A rebase that keeps merges replays a merge in-process and names its other branch to no
    driver: named as `git merge` names it (`GITHEAD_<sha>`), the step is weighed by the history,
    as the merge it replays was (docs/decisions.md#replayed-merges)."""
    if theirs_commits(os.environ):
        return
    from legion_memory.gitops.replayed_merge import merge_being_replayed

    merged = merge_being_replayed(Path.cwd())
    if merged:
        os.environ[f"GITHEAD_{merged}"] = merged


_CITING = {PATTERN.filename.upper(), ARCHIVE_FILENAME.upper()}
_SOURCE = Source(versions.shared_start, versions.read_range, versions.line_chunks)


def _reported(result: MergeResult, shown: str, theirs: str, followed: bool = False) -> int:
    """Say what the merge did, log its arrivals; the exit code git expects."""
    for line in describe(result, shown):
        print(line, file=sys.stderr)
    if followed:
        print(f"legion-memory: {shown}: Source references follow their outcomes", file=sys.stderr)
    if not os.environ.get(MAIL_AHEAD_ENV):  # a merge foreseen, which git has not made
        _log(Path(shown).name, result.incoming, result.rekeyed)
        if result.rekeyed or any(row.renumbered_from for row in result.incoming):
            _note_applied_sides(shown, theirs)
    return 1 if result.conflicts else 0


def _note_applied_sides(shown: str, theirs: str) -> None:
    """A renumbering while a stash is applied, or in a pick that commits nothing: HEAD and the
    stash or commit picked noted for doctor, since git names them to nothing afterwards and runs
    no hook (docs/decisions.md#stash-apply-references)."""
    here = Path.cwd()
    incoming = _theirs(theirs, shown)
    applied = incoming.stash
    if applied is None and incoming.picked:
        from legion_memory.gitops.uncommitted_pick import uncommitted_pick_side

        applied = uncommitted_pick_side(here, shown, Path(theirs))
    onto = (run_git(["rev-parse", "-q", "--verify", "HEAD"], here) or "").strip() if applied else ""
    git_dir = find_git_dir(here)
    if applied and onto and git_dir is not None and git_dir.is_dir():
        from legion_memory.gitops.applied_stash import note_sides

        try:
            note_sides(git_dir, onto, applied)
        except OSError as exc:
            print(f"legion-memory: could not note the merge's sides: {exc}", file=sys.stderr)


def _merged_around_stable_rows(paths: list[Path], marker_size: int, shown: str) -> int | None:
    """The merge of a file whose versions share a stable run of rows, merged without it and
    written with it copied back as bytes (docs/decisions.md#stable-rows); None when the whole
    files must be merged instead (no run, a side to refuse, rows the run would interact with)."""
    try:
        split = split_versions(paths, _SOURCE)
        if split is None or refusal(split.texts):
            return None
        incoming = _theirs(str(paths[2]), shown)
        companions = _ours_companions(Path(shown))
        result, at = merge_around(
            *split.texts,
            split.run,
            marker_size=marker_size,
            reserved=taken_ids(Path(shown), companions, os.environ, _logged()),
            pick=not incoming.named,
            questions=_questions(Path(shown), companions, incoming),
        )
    except Exception:  # the whole files' merge then answers, its failure included
        return None
    stable: versions.Copied = (paths[1], split.start, split.end)
    versions.write_pieces(paths[1], [result.text[:at], stable, result.text[at:]])
    return _reported(result, shown, str(paths[2]))


class _Theirs(NamedTuple):
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
def _theirs(theirs: str, shown: str) -> _Theirs:
    here = Path.cwd()
    named = theirs_commits(os.environ)
    picked = None if named else commit_being_picked(here)
    if picked:
        return _Theirs([], picked, None)
    from legion_memory.gitops.applied_stash import stash_being_applied

    # Asked before the merge's or rebase's own state: an autostash is applied at its end, by a
    # `git stash apply` that inherits it (`GITHEAD_*`, `rebase-merge/`).
    stash = stash_being_applied(here, shown, Path(theirs))
    if stash:
        return _Theirs([], None, None, stash)
    if named:
        return _Theirs(named, None, None)
    replayed = commit_being_replayed(here)
    if replayed is None:
        from legion_memory.gitops.applied_patch import commit_being_mailed
        from legion_memory.gitops.lone_pick import commit_picked_alone

        picked = commit_picked_alone(here, shown, Path(theirs))
        picked = picked or commit_being_mailed(here, shown, Path(theirs))
    return _Theirs([], picked, replayed)


def _questions(path: Path, companions: list[str], theirs: _Theirs) -> HistoryQuestions:
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


def _in_series(later: LaterVersion, path: Path, theirs: _Theirs) -> LaterVersion:
    """`later`, and in a replay of one commit of a series what the series says too."""
    replayed = theirs.picked or theirs.replayed
    if not replayed:
        return later
    from legion_memory.gitops.merge_own_changes import later_in_replay

    return later_in_replay(later, Path.cwd(), path, ours_rev(os.environ), replayed)


def _kept_later(path: Path, theirs: _Theirs) -> tuple[KeptLater | None, KeptLater | None]:
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


def _stored_anew(path: Path, theirs: _Theirs) -> Callable[[str], bool] | None:
    """For a live file in a pick or a rebase step: whether the commit replayed stored a row
    anew, its parent's ARCHIVE.md not holding it (docs/decisions.md#stores-replayed)."""
    replayed = theirs.picked or theirs.replayed
    if replayed is None or path.name.upper() == ARCHIVE_FILENAME.upper():
        return None
    archive = (path.parent / ARCHIVE_FILENAME).as_posix()
    return stored_anew(lambda: run_git(["show", f"{replayed}^:{archive}"], Path.cwd()))


def _picked_archive(path: Path, theirs: _Theirs) -> tuple[ArchivedAs, Callable[[str], bool]]:
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


def _replayed_seen(path: Path, theirs: _Theirs) -> Callable[[], bool] | None:
    """In a rebase or a pick: whether ours holds a copy of the commit replayed
    (docs/decisions.md#replays-upstream-holds). A merge names its own commit."""
    replayed = theirs.picked or theirs.replayed
    if replayed is None:
        return None
    from legion_memory.gitops.replayed_copies import replay_held

    return replay_held(Path.cwd(), path.parent, replayed, ours_rev(os.environ))


def _version_seen(path: Path, theirs: _Theirs) -> VersionSeen | None:
    """In a `git merge` (theirs: the commit git names), a pick or a rebase (theirs: the commit
    it is replaying), whether a side's history wrote or replaced a version of a record: which
    of two versions is the later, and whether a side removing a record had the other's change
    (docs/decisions.md#later-version)."""
    commits = theirs.weighed()
    if len(commits) != 1:
        return None
    return version_seen_in_merge(Path.cwd(), path, commits[0], ours_rev(os.environ))


def _references_followed(path: Path, versions: list[str], text: str, picked: str | None) -> str:
    """The merged text with each pattern citing, by its ID after this merge or pick, the outcome
    it meant on its side, when the merge of the outcome files can be predicted
    (docs/decisions.md#references-in-the-merge); else as merged (the hook repairs it)."""
    from legion_memory.gitops.merge_prediction import predict
    from legion_memory.storage.reading import Memory
    from legion_memory.upkeep.source_references import resolved_references, source_versions

    try:
        prediction = predict(path, versions, os.environ, _logged(), picked)
        if prediction is None:
            return text
        memory = Memory(path.parent)
        merged = {**prediction.merged, path.name: text}
        now = source_versions(memory, [merged])[0]
        sides = source_versions(memory, [prediction.ours, prediction.theirs])
        plan = resolved_references(memory, now, sides)
        return plan.texts(now).get(memory.directory / path.name, text)
    except Exception:  # the hook's repair still follows: a merge must never fail on this
        return text


def _virtual_base(base: str) -> str:
    """Base as the union of each conflict's sides when it holds markers: git's merge of several
    merge bases leaves its conflicts there, and both sides descend from both bases
    (docs/decisions.md#merge-fails-safe). Ours or theirs holding markers is still refused."""
    if "<" * 7 not in base or unmergeable(base) is None:
        return base
    from legion_memory.upkeep.conflict_markers import resolve_conflicts

    return resolve_conflicts(base)


def _fail_safe(texts: list[str], ours: Path, marker_size: int, why: str) -> int:
    """Both sides whole between markers, exit 1: a conflict, never a silent "ours only"."""
    files.write_version(ours, whole_conflict(texts[1], texts[2], marker_size))
    print(
        f"legion-memory: cannot merge {why}; both sides are left between conflict markers "
        "(fix the file, then `git add` it)",
        file=sys.stderr,
    )
    return 1


def _ours_companions(path: Path) -> list[str]:
    """Ours's other memory files, from the work tree (git writes merge results only at the end)."""
    texts = []
    for name in companion_names(path.name):
        try:
            text = reading.read_text(path.parent / name)
        except (LegionMemoryError, OSError):
            continue
        if text:
            texts.append(text)
    return texts


def _logged() -> list[merge_log.Arrival]:
    """This integration's entries of the clone's merge log: what files merged before this one
    renumbered (a sequence of picks that ended with a skip leaves its own behind)."""
    git_dir = find_git_dir(Path.cwd())
    if git_dir is None:
        return []
    try:
        text = reading.read_text(merge_log.log_path(git_dir))
        return merge_log.of_integration(merge_log.read_log(text), git_dir)
    except (LegionMemoryError, OSError):
        return []


def _log(
    filename: str, incoming: tuple[Incoming, ...], rekeyed: tuple[tuple[str, str, str], ...]
) -> None:
    git_dir = find_git_dir(Path.cwd())
    entries = merge_log.arrivals(filename, incoming, rekeyed)
    if entries and git_dir is not None and git_dir.is_dir():
        try:
            lines = [entry.to_line() for entry in merge_log.stamped(entries, git_dir)]
            files.append_lines(merge_log.log_path(git_dir), lines)
        except OSError as exc:
            print(f"legion-memory: could not write the merge log: {exc}", file=sys.stderr)

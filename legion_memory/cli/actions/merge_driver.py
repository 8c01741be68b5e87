"""The git merge driver as a plain function: no typer here, so a lean entry point can call it.

Git calls `legion-memory git merge-driver %O %A %B %L %P` once per memory file per merge, rebase
step or cherry-pick, from the top of the working tree. The result goes to `%A`; exit 0 when clean,
1 when conflict markers were left.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from legion_memory.cli.context import Context
from legion_memory.errors import LegionMemoryError
from legion_memory.gitops import merge_log
from legion_memory.gitops.companions import companion_names, taken_ids, theirs_commits
from legion_memory.gitops.file_merge import MergeResult, describe, merge, merge_around
from legion_memory.gitops.hook_env import MAIL_AHEAD_ENV
from legion_memory.gitops.merge_questions import history_questions, theirs_in
from legion_memory.gitops.merge_safety import refusal, unmergeable, whole_conflict
from legion_memory.gitops.repository import (
    find_git_dir,
    run_git,
)
from legion_memory.gitops.row_merge import Incoming
from legion_memory.gitops.stable_rows import Source, split_versions
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
        incoming = theirs_in(theirs, shown)
        companions = _ours_companions(Path(shown))
        result = merge(
            *texts,
            marker_size=marker_size,
            reserved=taken_ids(Path(shown), companions, os.environ, _logged()),
            archive=archive,
            pick=not incoming.named,
            questions=history_questions(Path(shown), companions, incoming),
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
    incoming = theirs_in(theirs, shown)
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
        incoming = theirs_in(str(paths[2]), shown)
        companions = _ours_companions(Path(shown))
        result, at = merge_around(
            *split.texts,
            split.run,
            marker_size=marker_size,
            reserved=taken_ids(Path(shown), companions, os.environ, _logged()),
            pick=not incoming.named,
            questions=history_questions(Path(shown), companions, incoming),
        )
    except Exception:  # the whole files' merge then answers, its failure included
        return None
    stable: versions.Copied = (paths[1], split.start, split.end)
    versions.write_pieces(paths[1], [result.text[:at], stable, result.text[at:]])
    return _reported(result, shown, str(paths[2]))


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

"""`doctor`: independent checks of the memory files, each able to repair what it finds.

`CHECKS` is what doctor runs, in order (a repair may leave work for the checks after it: a
conflict resolved by union can leave two rows with one ID). Adding a check is one more entry.
Every repair reads and writes through `store.transact` (under the memory lock, atomically) and
first verifies that no record would be lost.
"""

import functools
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import NamedTuple

from legion_memory.errors import RollbackError
from legion_memory.gitops.applied_patch import files_of_applied_patch
from legion_memory.gitops.applied_stash import APPLIED_STASH_NAME
from legion_memory.gitops.hook_env import (
    APPLIED_ENV,
    BOTH_SIDES_ENV,
    CONCLUDED_ENV,
    PICKED_ENV,
    REPLAYED_AS_ENV,
    REVERTED_ENV,
)
from legion_memory.gitops.merge_log import Arrival, log_path, read_log
from legion_memory.gitops.octopus_replay import unreplayed_octopus
from legion_memory.gitops.repository import (
    files_of_commits,
    find_git_dir,
    integration_sources,
    merge_sides,
    replay_of_picks,
    replay_of_rebase,
)
from legion_memory.markdown.document import parse
from legion_memory.schema.record_twins import archive_layout
from legion_memory.storage import files, leftovers, reading, writing
from legion_memory.storage.reading import Memory
from legion_memory.upkeep import clean_scan
from legion_memory.upkeep.archive_repair import repair_archive_layout
from legion_memory.upkeep.conflict_markers import (
    find_conflicts,
    find_leftover_markers,
    repair_conflicts,
)
from legion_memory.upkeep.finding import Finding
from legion_memory.upkeep.later_state import later_states
from legion_memory.upkeep.lost_records import find_lost, repair_lost
from legion_memory.upkeep.merge_changes import find_merge_changes, repair_merge_changes
from legion_memory.upkeep.renumbering import (
    Plan,
    Texts,
    duplicates,
    memory_files,
    merged_moves,
    verify_nothing_lost,
)
from legion_memory.upkeep.replay_repair import find_replayed, repair_replayed
from legion_memory.upkeep.source_references import resolved_references, source_versions
from legion_memory.upkeep.twin_repair import twin_plan, verify_identities_kept
from legion_memory.upkeep.undone_moves import find_undone, repair_undone


class Check(NamedTuple):
    """`find` reports without changing anything; `repair` fixes what it can, says what it did."""

    name: str
    find: Callable[[Memory], list[Finding]]
    repair: Callable[[Memory], list[str]]


class Checkup(NamedTuple):
    found: tuple[Finding, ...]
    repaired: tuple[str, ...]
    remaining: tuple[Finding, ...]


def doctor(
    memory: Memory, *, fix: bool = False, checks: tuple[Check, ...] | None = None
) -> Checkup:
    """Run every check; with `fix`, repair in order, then check again for what is left."""
    if checks is None and clean_scan.memory_is_clean(str(memory.directory)):
        return Checkup((), (), ())  # docs/decisions.md#clean-memory-scan
    if checks is None:
        # At a rebase stopped where git could not replay an octopus merge, the merges the
        # finding names need a clean work tree, and the rebase's hook repairs what its steps
        # left once it ends: a repair now would only make git refuse those merges.
        checks = (UNREPLAYED_OCTOPUS,) if unreplayed_octopus(memory.directory) else CHECKS
    found: list[Finding] = []
    repaired: list[str] = []
    for check in checks:
        found += check.find(memory)
        if fix:
            repaired += check.repair(memory)
    remaining = [f for check in checks for f in check.find(memory)] if fix else found
    return Checkup(tuple(found), tuple(repaired), tuple(remaining))


def find_unreplayed_octopus(memory: Memory) -> list[Finding]:
    """A rebase stopped at a merge of several branches git's octopus strategy gave up on: left
    to the user, who merges them one at a time (docs/decisions.md#octopus-merges)."""
    refs = unreplayed_octopus(memory.directory)
    if not refs:
        return []
    merges = [f"git merge --no-ff --no-edit {ref}" for ref in refs]
    steps = " && ".join([*merges, "git rebase --continue"])
    told = f"{_OCTOPUS_GAVE_UP}; merge them one at a time: {steps} {_REST_AFTER}"
    return [Finding("git rebase", told)]


_OCTOPUS_GAVE_UP = (
    "git's octopus strategy could not replay a merge of several branches that changed memory, "
    "and `git rebase --continue` would drop it"
)
_REST_AFTER = "(the rebase's hook repairs the rest once it ends)"


# Duplicate IDs, and references that must follow a renumbered outcome ----------------------------


def find_duplicates(memory: Memory) -> list[Finding]:
    return _findings(duplicates(memory, _current(memory), _sides(memory), _upstream(memory)))


def repair_duplicates(memory: Memory) -> list[str]:
    """Renumber duplicate IDs; when that moved a record and git names the versions the
    integration at hand took its sides from, references then follow what they meant there
    (docs/decisions.md#repair-renumbering-follows-meaning): the branch heuristics alone cannot
    place a pattern whose Branch is neither outcome's."""
    sides, upstream = _sides(memory), _upstream(memory)
    done = _apply(memory, lambda current: duplicates(memory, current, sides, upstream))
    if not done:
        return done
    sources = _sources_of(memory)
    if sources:
        done += _apply(memory, lambda current: resolved_references(memory, current, sources))
    return done


def _sides(memory: Memory) -> Callable[[], Mapping[str, str]]:
    """Which parent of the merge at HEAD brought each row: asked of git once, when needed."""
    found: list[Mapping[str, str]] = []

    def sides() -> Mapping[str, str]:
        if not found:
            names = [path.name for path in memory_files(memory)]
            found.append(merge_sides(memory.directory, memory.directory, names))
        return found[0]

    return sides


def _upstream(memory: Memory) -> Callable[[], frozenset[str]]:
    """The row lines the upstream of the rebase or pick the hook names held (none outside such
    a hook): a record there keeps its ID over one the replay brought under it
    (docs/decisions.md#merge-renumbering). Asked of git once, when needed."""
    return functools.cache(lambda: _upstream_rows(memory))


def _upstream_rows(memory: Memory) -> frozenset[str]:
    replay = replay_of_rebase(memory.directory) or replay_of_picks(memory.directory)
    if replay is None:
        return frozenset()
    names = [path.name for path in memory_files(memory)]
    found = files_of_commits(memory.directory, memory.directory, [replay.onto], names)
    texts = (text or "" for files in found for text in files.values())
    lines = (line.strip() for text in texts for line in text.splitlines())
    return frozenset(line for line in lines if line.startswith("|"))


def find_merged_references(memory: Memory) -> list[Finding]:
    log = _merge_log(memory)
    return _findings(
        _reference_plan(memory, log, _integration_sources(memory, log))(_current(memory))
    )


def repair_merged_references(memory: Memory) -> list[str]:
    """Make references follow what the merge moved, then drop the merge driver's log: it
    describes merges already repaired."""
    log = _merge_log(memory)
    sources = _integration_sources(memory, log)
    done = _apply(memory, _reference_plan(memory, log, sources)) if log or sources else []
    git_dir = find_git_dir(memory.directory)
    if git_dir is not None:
        files.discard(log_path(git_dir))
        files.discard(git_dir / APPLIED_STASH_NAME)  # the stash's sides go with its log
    return done


def _integration_sources(memory: Memory, log: list[Arrival]) -> list[Texts]:
    """The versions the integration took its sides from: the one that wrote the log, or a merge
    whose parents both changed memory (git may have taken a file whole from each: the driver
    renumbered nothing, but a side's references may cite by the other side's old numbers), or
    a pick, a rebase or a patch `git am` applied (git may have taken PATTERNS.md whole, or
    applied it as text: a pattern without the outcome it cites, one a `drop` left out), or a
    revert (undoing a merge gives its renumbered records their old numbers back), or a stopped
    merge or squash concluded (its resolution may have taken one side's whole file: a record
    put back under another number). None otherwise."""
    named = (BOTH_SIDES_ENV, PICKED_ENV, REVERTED_ENV, APPLIED_ENV, REPLAYED_AS_ENV, CONCLUDED_ENV)
    return _sources_of(memory) if log or any(_hook_names(name) for name in named) else []


def _hook_names(name: str) -> bool:
    return bool(os.environ.get(name, "").strip())


def _sides_named(name: str) -> list[str]:
    return os.environ.get(name, "").split()


def _sources_of(memory: Memory) -> list[Texts]:
    """The sides' memory files: a patch `git am` applies (no commit names its side), else the
    commits the integration at hand took its sides from."""
    names = [path.name for path in memory_files(memory)]
    committed = _hook_names(APPLIED_ENV)
    found = files_of_applied_patch(memory.directory, memory.directory, names, committed=committed)
    if not found:
        # A revert's sides say what its patterns meant, and nothing else: what it undid is the
        # user's to undo, never a record dropped (docs/decisions.md#reverts).
        revs = _sides_named(REVERTED_ENV) or integration_sources(memory.directory)
        found = files_of_commits(memory.directory, memory.directory, revs, names)
    return source_versions(memory, found)


def _reference_plan(
    memory: Memory, log: list[Arrival], sources: list[Texts]
) -> Callable[[Mapping[Path, str | None]], Plan]:
    """By what each pattern meant in the versions merged when git names them
    (docs/decisions.md#references-by-identity), else by the merge driver's log."""
    if sources:
        return lambda current: resolved_references(memory, current, sources)
    return lambda current: merged_moves(memory, current, log)


def _merge_log(memory: Memory) -> list[Arrival]:
    git_dir = find_git_dir(memory.directory)
    return list(read_log(reading.read_text(log_path(git_dir)))) if git_dir else []


def _findings(plan: Plan) -> list[Finding]:
    return [Finding(where, message) for where, message in plan.findings]


def _current(memory: Memory) -> dict[Path, str | None]:
    return {path: reading.read_text(path) for path in memory_files(memory)}


Verifier = Callable[[Memory, Mapping[Path, str | None], Mapping[Path, str]], None]


def _apply(
    memory: Memory,
    planner: Callable[[Mapping[Path, str | None]], Plan],
    verify: Verifier = verify_nothing_lost,
) -> list[str]:
    repairs: list[str] = []

    def mutate(current: Mapping[Path, str | None]) -> Mapping[Path, str]:
        plan = planner(current)
        changed = plan.texts(current)
        verify(memory, current, changed)
        repairs.extend(plan.repairs)
        return changed

    if not planner(_current(memory)).edits:
        return []  # nothing to do: no lock taken, nothing written
    writing.transact(memory, memory_files(memory), mutate, resolving_conflicts=True)
    return repairs


# One record held twice: under two IDs, or live and archived ----------------------------------


def find_twins(memory: Memory) -> list[Finding]:
    current = _current(memory)
    return _findings(twin_plan(memory, current, *later_states(memory, current)))


def repair_twins(memory: Memory) -> list[str]:
    states = later_states(memory, _current(memory))
    return _apply(memory, lambda now: twin_plan(memory, now, *states), verify_identities_kept)


def find_archive_layout(memory: Memory) -> list[Finding]:
    text = reading.read_text(memory.archive)
    if not text:
        return []
    found = archive_layout(parse(text))
    return [Finding(f"{memory.archive}:{m.line}", m.message) for m in found]


# What a killed process leaves: a journal, temporary files ----------------------------------------


def find_journal(memory: Memory) -> list[Finding]:
    where = str(memory.journal_path)
    try:
        restores = leftovers.leftover_journal(memory)
    except RollbackError as error:
        return [Finding(error.where or where, f"{error.message} ({error.hint})")]
    if restores is None:
        return []
    if not restores:
        message = "interrupted change that had changed no file (--fix removes its journal)"
    else:
        message = f"interrupted change left half done (--fix restores {', '.join(restores)})"
    return [Finding(where, message)]


def repair_journal(memory: Memory) -> list[str]:
    """Roll back what a killed process left half done; one that cannot be is left to a person
    (its finding says why)."""
    try:
        if leftovers.leftover_journal(memory) is None:
            return []
        restored = leftovers.recover(memory)
    except RollbackError:
        return []
    done = f"restored {', '.join(restored)}" if restored else "no file had changed"
    return [f"{memory.journal_path}: rolled back an interrupted change ({done})"]


def find_temp_files(memory: Memory) -> list[Finding]:
    message = "temporary file left by an interrupted write (--fix deletes it)"
    return [Finding(str(path), message) for path in leftovers.stray_temp_files(memory)]


def repair_temp_files(memory: Memory) -> list[str]:
    removed = leftovers.remove_stray_temp_files(memory)
    return [f"{path}: deleted a temporary file left by an interrupted write" for path in removed]


# Not among CHECKS: `doctor` runs it alone, and only where a rebase stopped at such a merge.
UNREPLAYED_OCTOPUS = Check(
    "a merge a rebase could not replay", find_unreplayed_octopus, lambda memory: []
)

# A leftover journal goes first: rolling it back may undo what the other checks would find.
CHECKS: tuple[Check, ...] = (
    Check("leftover journal", find_journal, repair_journal),
    Check("stray temporary files", find_temp_files, repair_temp_files),
    Check("conflict markers", find_conflicts, repair_conflicts),
    Check("leftover conflict markers", find_leftover_markers, lambda memory: []),
    Check("archive sections", find_archive_layout, repair_archive_layout),
    Check("records an integration dropped", find_lost, repair_lost),
    Check("records held twice", find_twins, repair_twins),
    Check("duplicate IDs", find_duplicates, repair_duplicates),
    Check("merged references", find_merged_references, repair_merged_references),
    Check("replayed changes", find_replayed, repair_replayed),
    Check("changes of a merge a rebase dropped", find_merge_changes, repair_merge_changes),
    Check("states a merge took unweighed", find_undone, repair_undone),
)

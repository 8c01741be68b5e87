"""What the other memory files of a `git merge` will merge into, computed while git merges one.

Git merges each file on its own, PATTERNS.md before OUTCOMES.md and ARCHIVE.md last, so the driver
of a file whose rows cite outcomes cannot see their renumbering. In a `git merge` or `git pull` it
can compute it: git names theirs (`GITHEAD_<sha>`), ours is HEAD and base their one merge base, and
the driver's own three versions must be exactly those commits' (else nothing is predicted). The
outcome files are then merged here as git will merge them: a file changed on one side only is that
side's, otherwise the same row merge with the same reserved IDs
(docs/decisions.md#references-in-the-merge).

A pick (`git cherry-pick`, a step of a sequence of picks, a patch `git am` applies from a commit
the repository holds) names its commit C too: its base is C's one parent. Only a pick that leaves
the outcome rows as ours holds them is predicted (C changes no row of OUTCOMES.md and no outcome
row of ARCHIVE.md), since the pick's own merge weighs history the prediction does not ask.
"""

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

from legion_memory.gitops.companions import companion_names, taken_ids, theirs_commits
from legion_memory.gitops.file_merge import MergeResult, merge
from legion_memory.gitops.merge_log import Arrival, arrivals
from legion_memory.gitops.record_history import kept_later_in_merge, later_version_in_merge
from legion_memory.gitops.repository import files_of_commits, ours_rev, run_git
from legion_memory.gitops.row_merge import HistoryQuestions
from legion_memory.schema.kinds import ARCHIVE_FILENAME, KINDS, OUTCOME

NAMES = tuple([kind.filename for kind in KINDS.values()] + [ARCHIVE_FILENAME])
Files = dict[str, str | None]


class Prediction(NamedTuple):
    """Ours and theirs's memory files, and OUTCOMES.md and ARCHIVE.md as the merge leaves them."""

    ours: Files
    theirs: Files
    merged: Files


def predict(
    path: Path,
    versions: Sequence[str],
    env: Mapping[str, str],
    log: list[Arrival],
    picked: str | None = None,
) -> Prediction | None:
    """The prediction for the merge of `path` (its three versions given), None when git names no
    single theirs, the base is not one commit, a version is not that commit's, or an outcome
    file would conflict. `picked`: the commit a pick is applying, when git names none."""
    commits = _commits(path, versions, env) if not picked else _pick_commits(path, versions, picked)
    if commits is None:
        return None
    base, ours, theirs = files_of_commits(Path.cwd(), path.parent, commits, NAMES) or [{}, {}, {}]
    if not (base or ours or theirs):
        return None
    if picked:
        return _pick_prediction(base, ours, theirs)
    outcomes = _merged(path.parent / OUTCOME.filename, base, ours, theirs, env, log)
    if outcomes is None:
        return None
    merged: Files = {OUTCOME.filename: outcomes.text}
    log = [*log, *arrivals(OUTCOME.filename, outcomes.incoming, outcomes.rekeyed)]
    archive = _merged(path.parent / ARCHIVE_FILENAME, base, ours, theirs, env, log)
    if archive is None:
        return None
    merged[ARCHIVE_FILENAME] = archive.text
    return Prediction(ours, theirs, merged)


def _commits(path: Path, versions: Sequence[str], env: Mapping[str, str]) -> list[str] | None:
    named = theirs_commits(env)
    if len(named) != 1:
        return None
    cwd = Path.cwd()
    ours = run_git(["rev-parse", ours_rev(env)], cwd)
    bases = (run_git(["merge-base", "--all", ours_rev(env), named[0]], cwd) or "").split()
    if ours is None or len(bases) != 1:
        return None
    commits = [bases[0], ours, named[0]]
    return commits if _versions_held(path, versions, commits) else None


def _pick_commits(path: Path, versions: Sequence[str], picked: str) -> list[str] | None:
    """C's one parent, HEAD and C, when the three versions are exactly theirs."""
    cwd = Path.cwd()
    line = (run_git(["rev-list", "--parents", "-n", "1", picked], cwd) or "").split()
    ours = run_git(["rev-parse", "HEAD"], cwd)
    if len(line) != 2 or ours is None:
        return None
    commits = [line[1], ours, line[0]]
    return commits if _versions_held(path, versions, commits) else None


def _versions_held(path: Path, versions: Sequence[str], commits: Sequence[str]) -> bool:
    for commit, text in zip(commits, versions, strict=True):
        held = run_git(["show", f"{commit}:{path.as_posix()}"], Path.cwd())
        if held is None or held != text.strip():
            return False
    return True


_OUTCOME_ROW = re.compile(rf"^\|\s*{OUTCOME.prefix}-\d+\s*\|.*$", re.MULTILINE)


def _pick_prediction(base: Files, ours: Files, theirs: Files) -> Prediction | None:
    """Ours's outcome files, when the pick changes no outcome row: git keeps OUTCOMES.md as ours
    holds it, and ARCHIVE.md's outcome rows too."""
    if theirs.get(OUTCOME.filename) != base.get(OUTCOME.filename):
        return None
    rows = [_OUTCOME_ROW.findall(files.get(ARCHIVE_FILENAME) or "") for files in (base, theirs)]
    if rows[0] != rows[1]:
        return None
    merged = {name: ours.get(name) for name in (OUTCOME.filename, ARCHIVE_FILENAME)}
    return Prediction(ours, theirs, merged)


def _merged(
    path: Path, base: Files, ours: Files, theirs: Files, env: Mapping[str, str], log: list[Arrival]
) -> MergeResult | None:
    """The file as git leaves it: one side's when only it changed, else the driver's result."""
    name = path.name
    texts = [files.get(name) or "" for files in (base, ours, theirs)]
    if texts[2] in (texts[0], texts[1]) or texts[1] == texts[0]:
        text = texts[1] if texts[2] in (texts[0], texts[1]) else texts[2]
        return MergeResult(text, (), (), 0, 0)
    companions = [ours.get(other) or "" for other in companion_names(name)]
    reserved = taken_ids(path, [t for t in companions if t], env, log)
    named = theirs_commits(env)
    into = ours_rev(env)
    later = kept_later_in_merge(Path.cwd(), path.parent / ARCHIVE_FILENAME, named[0], into)
    version = later_version_in_merge(Path.cwd(), path, named[0], into)
    questions = HistoryQuestions(kept_later=later, later_version=version)
    result = merge(*texts, reserved=reserved, archive=name == ARCHIVE_FILENAME, questions=questions)
    return None if result.conflicts else result

"""Carrying one integration through git to its end, as a user would: a conflict resolved the
documented way (`doctor --fix`, then continue), a pick git stops at although the branch holds its
change already skipped, and what each came to counted."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from bench.collab_clone import Clone
from bench.collab_model import Model, join

# The files git leaves in `.git` while an integration waits for the user.
STOPPED = ("rebase-merge", "rebase-apply", "CHERRY_PICK_HEAD", "MERGE_HEAD")


@dataclass
class Tally:
    """What a run's integrations came to: how many of each kind, the conflicts git stopped at
    (every one spurious), and the violations: integrations stuck, and steps the check failed."""

    integrations: Counter[str] = field(default_factory=Counter)
    conflicts: Counter[str] = field(default_factory=Counter)
    violations: Counter[str] = field(default_factory=Counter)


def run_integration(
    tally: Tally, clone: Clone, kind: str, args: list[str], incoming: list[Model]
) -> bool:
    """One integration; a conflict is resolved the documented way (`doctor --fix`)."""
    branch = clone.branch
    tally.integrations[kind] += 1
    if clone.git(*args).returncode:
        stopped = (clone.path / ".git" / "sequencer").exists()
        if stopped and not in_progress(clone):
            tally.violations["stuck integration"] += 1  # picks stopped, none in progress
            return False
        if not in_progress(clone):
            tally.conflicts[f"{kind} refused by git"] += 1  # an octopus merge changed nothing
            return False
        if not resolve(tally, clone, kind):
            return False
    clone.models[branch] = join(clone.models[branch], *incoming)
    return True


def in_progress(clone: Clone) -> bool:
    git_dir = clone.path / ".git"
    return any((git_dir / name).exists() for name in (*STOPPED, "MERGE_MSG"))


def resolve(tally: Tally, clone: Clone, kind: str) -> bool:
    """Until git has finished: skip a pick the branch holds already, else repair and continue."""
    git_dir = clone.path / ".git"
    counted = False
    for _ in range(50):
        command = _stopped_command(clone)
        if command and already_there(clone):
            # git stops a pick or patch whose change the branch already holds (the record
            # arrived before under another ID); a user skips it. Not a conflict.
            tally.integrations[f"{command} already applied"] += 1
            skipped = clone.git(command, "--skip")
            if skipped.returncode and not in_progress(clone):
                return False  # the next pick stopping too (empty again) is the loop's
            if not in_progress(clone):
                return True
            continue
        if _squash_left_empty(clone):
            # git stops a squash whose commits together change nothing the upstream lacks ("you
            # asked to amend the most recent commit, but doing so would make it empty") and
            # says to remove the commit: `git reset HEAD^`. A user does. Not a conflict.
            tally.integrations[f"{kind} emptied"] += 1
            clone.must("reset", "-q", "HEAD^")
            if not continue_stopped(clone) and not in_progress(clone):
                return True
            continue
        if not counted:  # every record changes on one side only: always spurious
            tally.conflicts[kind] += 1
            counted = True
        if not _follow(tally, clone, clone.repair()):
            clone.must("add", "-A")
        step = continue_stopped(clone)
        if step is None:
            return True
        if step == 0 and not any((git_dir / name).exists() for name in STOPPED):
            return True
    tally.violations["stuck integration"] += 1
    return False


# What doctor says when a rebase stopped at a merge git's octopus strategy gave up on: the
# merges to make, one branch at a time, then `git rebase --continue` (which the loop runs).
_ONE_AT_A_TIME = "merge them one at a time: "


def _follow(tally: Tally, clone: Clone, told: str) -> bool:
    """Make the merges doctor named, as a user would; False when it named none."""
    said = next((line for line in told.splitlines() if _ONE_AT_A_TIME in line), "")
    if not said:
        return False
    tally.integrations["octopus replayed one branch at a time"] += 1
    for step in said.split(_ONE_AT_A_TIME, 1)[1].split(" && ")[:-1]:
        clone.must(*step.split()[1:])
    return True


def _stopped_command(clone: Clone) -> str:
    """The command of a stopped pick or patch application, "" for anything else. An
    interactive rebase stops at a pick that is empty now as a cherry-pick does (naming it
    CHERRY_PICK_HEAD), and says to skip it with `rebase --skip`."""
    git_dir = clone.path / ".git"
    if (git_dir / "CHERRY_PICK_HEAD").exists():
        return "rebase" if (git_dir / "rebase-merge").exists() else "cherry-pick"
    return "am" if (git_dir / "rebase-apply" / "applying").exists() else ""


def _squash_left_empty(clone: Clone) -> bool:
    """An interactive rebase stopped at a squash (it amends HEAD) whose result, staged, is HEAD's
    parent as it is: the squashed commits change nothing, and git will not amend HEAD to that."""
    git_dir = clone.path / ".git"
    amending = (git_dir / "rebase-merge" / "amend").exists()
    return amending and already_there(clone, "HEAD^")


def continue_stopped(clone: Clone) -> int | None:
    """Continue the rebase, patch, pick or merge git stopped at: git's exit status, or None when
    none was stopped."""
    git_dir = clone.path / ".git"
    if (git_dir / "rebase-apply" / "applying").exists():
        return clone.git("am", "--continue").returncode
    if (git_dir / "rebase-merge").exists() or (git_dir / "rebase-apply").exists():
        return clone.git("-c", "core.editor=true", "rebase", "--continue").returncode
    if (git_dir / "CHERRY_PICK_HEAD").exists():
        return clone.git("-c", "core.editor=true", "cherry-pick", "--continue").returncode
    if (git_dir / "MERGE_HEAD").exists():
        return clone.git("commit", "-q", "--no-edit").returncode
    return None


def already_there(clone: Clone, commit: str = "HEAD") -> bool:
    """The stopped pick changes nothing: no file unmerged, the index as `commit` has it."""
    unmerged = clone.must("diff", "--name-only", "--diff-filter=U")
    return not unmerged and clone.git("diff", "--cached", "--quiet", commit).returncode == 0

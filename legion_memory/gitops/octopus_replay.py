"""A rebase that keeps merges (`rebase --rebase-merges`, `pull --rebase=merges`) stopped at a
merge of several branches it could not replay.

Git replays such a merge with its own octopus strategy whatever `pull.octopus` names, and that
strategy gives up when two of the branches changed one memory file: the rebase stops with
nothing changed, and `git rebase --continue` then drops the merge (the rebase's hook puts back
the records the branch held, but the history no longer merges the branches). Merged one branch
at a time, each merge goes through the driver (docs/decisions.md#octopus-merges), and the rebase
continues from those merges. `doctor` says so.
"""

import os
from pathlib import Path

from legion_memory.gitops.branch import find_git_dir, run_git
from legion_memory.gitops.hook_env import REWRITTEN_ENV
from legion_memory.gitops.replayed_merge import labels_being_merged


def unreplayed_octopus(start: Path) -> list[str]:
    """The branches (as the rebase names them, `refs/rewritten/<label>`) of the merge the rebase
    in progress stopped at, that HEAD does not hold yet; [] when it stopped at no merge of
    several branches, git holds a merge under way (MERGE_HEAD: a conflict to resolve), or the
    rebase has ended (its post-rewrite hook runs while git still keeps its state)."""
    git_dir = find_git_dir(start)
    ended = os.environ.get(REWRITTEN_ENV, "").strip()
    if git_dir is None or ended or (git_dir / "MERGE_HEAD").exists():
        return []
    labels = labels_being_merged(git_dir)
    if len(labels) < 2:
        return []
    refs = [f"refs/rewritten/{label}" for label in labels]
    return [ref for ref in refs if not _held(ref, start)]


def _held(ref: str, start: Path) -> bool:
    """Whether HEAD holds the commit (merged already), or git cannot name it."""
    commit = run_git(["rev-parse", "-q", "--verify", f"{ref}^{{commit}}"], start)
    if commit is None:
        return True
    return run_git(["merge-base", "--is-ancestor", commit.strip(), "HEAD"], start) is not None

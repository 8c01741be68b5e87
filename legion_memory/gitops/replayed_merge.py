"""The merge a rebase that keeps merges (`rebase --rebase-merges`, `pull --rebase=merges`) is
replaying: `merge [-C <commit>] <label>` in its list of commands done.

`git merge` names the commit it merges to the merge driver (`GITHEAD_<sha>`); the rebase merges
in-process and names none, so the driver would weigh the step as a 3-way merge with no history
(docs/decisions.md#replayed-merges).
"""

from pathlib import Path

from legion_memory.gitops.branch import find_git_dir, read_stripped, run_git

_MERGE_COMMANDS = ("merge", "m")
_MESSAGE_OPTIONS = ("-C", "-c")


def _merged_labels(line: str) -> list[str]:
    """`merge [-C <commit>] <label>... [# <subject>]`: the labels; [] for another command."""
    words = line.split("#", 1)[0].split()
    if not words or words[0] not in _MERGE_COMMANDS:
        return []
    words = words[1:]
    if words and words[0] in _MESSAGE_OPTIONS:
        words = words[2:]
    return words


def labels_being_merged(git_dir: Path) -> list[str]:
    """The labels of the merge the rebase in progress is replaying now, its last command done;
    [] when it is replaying no merge, or no rebase is in progress."""
    done = read_stripped(git_dir / "rebase-merge" / "done")
    return _merged_labels(done.splitlines()[-1]) if done else []


def merge_being_replayed(start: Path) -> str | None:
    """The commit the rebase in progress is merging now, as git resolves the merge's label
    (`refs/rewritten/<label>`, else a revision); None outside a replayed merge of one branch."""
    git_dir = find_git_dir(start)
    labels = labels_being_merged(git_dir) if git_dir is not None else []
    if len(labels) != 1:
        return None
    for name in (f"refs/rewritten/{labels[0]}", labels[0]):
        found = run_git(["rev-parse", "-q", "--verify", f"{name}^{{commit}}"], start)
        if found:
            return found.strip()
    return None

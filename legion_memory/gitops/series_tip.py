"""The last commit of the series a replayed commit belongs to: what the branch the replay takes
its commits from made of them in the end (docs/decisions.md#later-version).

A rebase step replays one commit of the branch it started from (`orig-head` in git's state of
the rebase); one pick of several replays one of the commits git's `sequencer/todo` lists, the
last of them its end; a patch of a `git am` series was mailed from one commit of a branch, the
series' last mail from its end. A lone pick has no series.
"""

from pathlib import Path

from legion_memory.gitops.applied_patch import last_mailed
from legion_memory.gitops.branch import find_git_dir, read_stripped, run_git
from legion_memory.gitops.rebase_state import rebase_started_from


def series_tip(start: Path, replayed: str) -> str | None:
    """The end of the series `replayed` is replayed from, when it descends from `replayed`
    and is another commit; None when there is no such series."""
    git_dir = find_git_dir(start)
    if git_dir is None:
        return None
    named = last_mailed(git_dir) or _last_picked(git_dir) or _rebased_from(start, git_dir)
    tip = run_git(["rev-parse", "-q", "--verify", f"{named}^{{commit}}"], start) if named else None
    tip = tip.strip() if tip else None
    if not tip or tip.startswith(replayed) or replayed.startswith(tip):
        return None
    descends = run_git(["merge-base", "--is-ancestor", replayed, tip], start) is not None
    return tip if descends else None


def _last_picked(git_dir: Path) -> str | None:
    picks = [
        line.split() for line in (read_stripped(git_dir / "sequencer" / "todo") or "").splitlines()
    ]
    last = [words[1] for words in picks if len(words) > 1 and words[0] in ("p", "pick")][-1:]
    return last[0] if last else None


def _rebased_from(start: Path, git_dir: Path) -> str | None:
    """The branch's tip before a rebase in progress (never ORIG_HEAD outside one)."""
    in_progress = any((git_dir / state).is_dir() for state in ("rebase-merge", "rebase-apply"))
    return rebase_started_from(start) if in_progress else None

"""The commit a `git cherry-pick` of one commit is applying, for its merge driver.

Git names it to no driver: no `GITHEAD_*` variable, and a single pick keeps no `sequencer/todo`
(git writes `CHERRY_PICK_HEAD` only after the merge). But the pick's own command line holds it
(`running_git`, docs/decisions.md#lone-pick).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from legion_memory.gitops.running_git import commit_applied, git_command

# cherry-pick's options whose value may be the next argument (`-m 1`, `--strategy ort`).
_VALUED = frozenset({"-m", "--mainline", "-X", "--strategy-option", "--strategy"})


def commit_picked_alone(start: Path, path: str, theirs: Path) -> str | None:
    """The full hash of the one commit a running `git cherry-pick` names, when its version of
    `path` (relative to the top of the working tree) is the bytes of `theirs`; else None."""
    return commit_applied(start, path, theirs, _lone_pick)


def commit_picked_uncommitted(start: Path, path: str, theirs: Path) -> str | None:
    """As `commit_picked_alone`, for a pick that commits nothing (`--no-commit`, `-n`): no hook
    runs after it, so the driver notes its sides for the commit the user makes of it."""
    return commit_applied(start, path, theirs, _uncommitted_pick)


def _uncommitted_pick(argv: list[str]) -> str | None:
    words = git_command(argv, "cherry-pick")
    if words is None or not any(map(_commits_nothing, words)):
        return None
    return _lone_pick(argv)


def _commits_nothing(word: str) -> bool:
    """`--no-commit`, or `-n` alone or among other one-letter options (`-nx`)."""
    letters = word[1:]
    return word == "--no-commit" or (word[:1] == "-" and letters.isalpha() and "n" in letters)


def _lone_pick(argv: list[str]) -> str | None:
    """The revision a `git cherry-pick REV` command line names; None for any other command,
    several revisions, a range or a sequence's `--continue`."""
    words = git_command(argv, "cherry-pick")
    if words is None:
        return None
    revisions = list(_revisions(words))
    if len(revisions) != 1 or ".." in revisions[0] or revisions[0].startswith("^"):
        return None
    return "@{-1}" if revisions[0] == "-" else revisions[0]


def _revisions(words: Iterator[str]) -> Iterator[str]:
    for word in words:
        if word in _VALUED:
            next(words, None)
        elif word == "-" or not word.startswith("-"):
            yield word
        elif word in ("--continue", "--skip", "--abort", "--quit", "--stdin"):
            return

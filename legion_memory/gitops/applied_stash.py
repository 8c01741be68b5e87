"""The stash a running `git stash apply` or `pop` is applying, and the sides it leaves for doctor.

Applying a stash merges it into HEAD with the merge driver, which names it to no one and after
which no hook runs: git takes PATTERNS.md whole from the stash, so a pattern there still cites
the stash's outcome by the ID the OUTCOMES.md merge just gave another record. An autostash
(`pull --autostash`, `rebase --autostash`) is applied the same way, by `git stash apply <hash>`.
When the driver renumbers in such a merge it notes HEAD and the stash in the git directory, the
two versions the work tree was made from, so that `doctor --fix` (run by the next commit's
post-commit hook, or by hand) makes references follow what they meant there
(docs/decisions.md#stash-apply-references). A pick that commits nothing (`cherry-pick -n`) is
noted the same way: no hook runs after it either.
"""

from __future__ import annotations

from pathlib import Path

from legion_memory.gitops.branch import read_stripped
from legion_memory.gitops.running_git import commit_applied, git_command

APPLIED_STASH_NAME = "legion-memory-applied-stash"


# `git stash apply` merges in its own process and starts the driver through `sh -c`.
_DEPTH = 2


def stash_being_applied(start: Path, path: str, theirs: Path) -> str | None:
    """The full hash of the stash a running `git stash apply|pop` applies, when its version of
    `path` is the bytes of `theirs`; else None."""
    return commit_applied(start, path, theirs, _stash_applied, _DEPTH)


def _stash_applied(argv: list[str]) -> str | None:
    """The stash a `git stash apply|pop [STASH]` command line names (`stash@{0}` by default, a
    number n for `stash@{n}`); None for any other command."""
    words = git_command(argv, "stash")
    if words is None or next(words, None) not in ("apply", "pop"):
        return None
    named = [word for word in words if not word.startswith("-")]
    if len(named) > 1:
        return None
    stash = named[0] if named else "0"
    return f"stash@{{{stash}}}" if stash.isdigit() else stash


def note_sides(git_dir: Path, onto: str, stash: str) -> None:
    """Keep HEAD and the stash applied onto it as the sides of the work tree's last merge."""
    (git_dir / APPLIED_STASH_NAME).write_text(f"{onto} {stash}\n", encoding="utf-8")


def noted_sides(git_dir: Path) -> list[str]:
    """HEAD and the stash of the last stash applied with a renumbering not yet repaired."""
    sides = (read_stripped(git_dir / APPLIED_STASH_NAME) or "").split()
    return sides if len(sides) == 2 else []

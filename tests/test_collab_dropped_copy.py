"""Real-git reproductions of a pick of a commit that dropped an archived copy of a record the
branch held twice (live and archived: a repair of `doctor --fix` keeps the live one), onto a
branch that holds the record archived only: the pick's change is "one copy less", and the
record stays archived there, never in no file at all (docs/decisions.md#dropped-copies)."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.gitrepos import (
    add_outcome,
    add_pattern,
    commit,
    commit_without_hooks,
    init_memory,
    memory_of,
    run_git,
    text_of,
)
from support.processes import git

from legion_memory.upkeep.forgetting import forget, restore

pytestmark = pytest.mark.slow


def _held_twice_then_dropped(repo: Path) -> tuple[str, str]:
    """main: an outcome, a pattern citing it (and an archived one), then forgets another
    record and the pattern; `side`, from before that, forgets and restores the pattern, then
    holds it twice (archived, and its live row put back, as a merge may leave it) and drops the
    archived copy. main checked out. The pattern's ID and the dropping commit."""
    init_memory(repo, driver=True)
    cited = add_outcome(repo, "main record", "main")
    pattern = add_pattern(repo, "main pattern", cited, "main")
    # An archived pattern both keep: the archive's section of patterns stays on every side.
    forget(memory_of(repo), add_pattern(repo, "old pattern", cited, "main"))
    commit(repo, "outcome and pattern")
    git(repo, "branch", "side")
    # Another record archived too: main's ARCHIVE.md is not the pick's base's, so git asks the
    # driver to merge it rather than take the picked commit's whole.
    forget(memory_of(repo), add_outcome(repo, "main's other record", "main"))
    forget(memory_of(repo), pattern)
    commit(repo, "forget the pattern")
    git(repo, "checkout", "-q", "side")
    # The side moved the pattern more often than main since they parted.
    forget(memory_of(repo), pattern)
    commit(repo, "forget the pattern")
    restore(memory_of(repo), pattern)
    commit(repo, "restore the pattern")
    forget(memory_of(repo), pattern)
    git(repo, "checkout", "HEAD", "--", ".planning/memory/PATTERNS.md")
    commit_without_hooks(repo, "held twice")
    git(repo, "checkout", "HEAD~1", "--", ".planning/memory/ARCHIVE.md")
    commit_without_hooks(repo, "drop the archived copy")
    dropping = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "checkout", "-q", "main")
    return pattern, dropping


def _copies(repo: Path, pattern: str) -> tuple[int, int]:
    """How many rows of the pattern PATTERNS.md and ARCHIVE.md hold."""
    return tuple(  # type: ignore[return-value]
        sum(line.startswith(f"| {pattern} ") for line in text_of(repo, name).splitlines())
        for name in ("PATTERNS.md", "ARCHIVE.md")
    )


@pytest.mark.parametrize("no_commit", [False, True])
def test_a_picked_drop_of_an_archived_copy_keeps_the_only_copy(repo: Path, no_commit: bool) -> None:
    pattern, dropping = _held_twice_then_dropped(repo)
    archived, head = text_of(repo, "ARCHIVE.md"), git(repo, "rev-parse", "HEAD")
    picked = run_git(repo, "cherry-pick", *(["-n"] if no_commit else []), dropping)
    # The pick changes nothing, as git says: a pick left empty stops, to be skipped.
    if no_commit:
        assert picked.returncode == 0, picked.stderr
        assert run_git(repo, "diff", "--cached", "--quiet").returncode == 0
    else:
        assert picked.returncode == 1
        assert "The previous cherry-pick is now empty" in picked.stderr
        git(repo, "cherry-pick", "--skip")
    assert git(repo, "rev-parse", "HEAD") == head
    assert _copies(repo, pattern) == (0, 1)
    assert text_of(repo, "ARCHIVE.md") == archived
    assert git(repo, "status", "--porcelain") == ""


def test_a_picked_drop_onto_a_branch_holding_both_copies_drops_the_archived_one(
    repo: Path,
) -> None:
    pattern, dropping = _held_twice_then_dropped(repo)
    git(repo, "checkout", "-q", "-b", "twice", "side~1")
    picked = run_git(repo, "cherry-pick", dropping)
    assert picked.returncode == 0, picked.stderr
    assert _copies(repo, pattern) == (1, 0)

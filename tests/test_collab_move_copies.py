"""Real-git reproductions of commits that look like copies of each other by what a pick or a
rebase keeps (author, author date, message) yet are different moves of a record: a forget and the
restore after it, or two restores, made within one second with one subject; and of copies of
moves a squash folded away, told by the commits its message names
(docs/decisions.md#archive-moves)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from support.gitrepos import (
    add_outcome,
    archived_outcomes,
    assert_healthy,
    commit,
    init_memory,
    memory_of,
    rows,
    run_git,
    text_of,
)
from support.processes import git

from legion_memory.storage.reading import Memory
from legion_memory.upkeep.forgetting import forget, restore

pytestmark = pytest.mark.slow

ONE_SECOND = "2026-03-02T10:00:00+00:00"


def _commit_in_one_second(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message, "--date", ONE_SECOND)


def test_merging_a_restore_that_looks_like_a_copy_of_its_own_forget_keeps_the_restore(
    repo: Path,
) -> None:
    """The branch forgot and restored alpha in one second, both commits "change alpha"; main
    picked the forget. Merging the branch, main's pick is a copy of the branch's forget, and the
    restore, though it has the same author, date and message, is a move main never made: the
    branch's restore is the later state."""
    init_memory(repo, driver=True)
    add_outcome(repo, "alpha", "main")
    commit(repo, "store alpha")
    stored = {name: text_of(repo, name) for name in ("OUTCOMES.md", "ARCHIVE.md")}
    git(repo, "checkout", "-q", "-b", "feature")
    forget(memory_of(repo), "O-001")
    _commit_in_one_second(repo, "change alpha")
    restore(memory_of(repo), "O-001")
    _commit_in_one_second(repo, "change alpha")
    git(repo, "checkout", "-q", "main")
    (repo / "notes.txt").write_text("main moved on\n", encoding="utf-8")
    commit(repo, "notes")
    assert run_git(repo, "cherry-pick", "feature~1").returncode == 0
    assert archived_outcomes(repo) != []

    merged = run_git(repo, "merge", "--no-ff", "--no-edit", "feature")

    # The branch's files end as base had them, so git takes main's whole; the hook weighs alpha.
    assert merged.returncode == 0, merged.stderr
    assert "O-001 made live again, its later state" in merged.stderr
    assert git(repo, "log", "-2", "--format=%s").splitlines() == [
        "Repair .planning/memory after post-merge (legion-memory doctor --fix)",
        "Merge branch 'feature'",
    ]
    assert {name: text_of(repo, name) for name in stored} == stored
    assert rows(repo) == [("O-001", "main", "alpha")]
    assert_healthy(repo)


@pytest.mark.parametrize(
    "moves",
    [
        pytest.param((forget,), id="a forget"),
        pytest.param((forget, restore, forget), id="two moves alike (seed 4041)"),
    ],
)
def test_merging_a_forget_into_copies_of_its_moves_and_of_a_restore_after_them_keeps_the_restore(
    repo: Path, moves: tuple[Callable[[Memory, str], object], ...]
) -> None:
    """The branch stored alpha and moved it (the last move a forget); a branch of it restored
    alpha, all in one second with one subject. Main holds copies of every commit (picked, as a
    rebase would), so the record is new on both sides: live on main, archived on the branch.
    Main's copies of the branch's moves are those moves; its copy of the restore is a move the
    branch never made, though it looks like the branch's own restore when there is one, which
    main's copy of that restore already matched (seed 4041 of the collaboration simulation)."""
    init_memory(repo, driver=True)
    git(repo, "checkout", "-q", "-b", "feature")
    add_outcome(repo, "alpha", "feature")
    commit(repo, "store alpha")
    for move in moves:
        move(memory_of(repo), "O-001")
        _commit_in_one_second(repo, "change alpha")
    git(repo, "checkout", "-q", "-b", "restorer")
    restore(memory_of(repo), "O-001")
    _commit_in_one_second(repo, "change alpha")
    git(repo, "checkout", "-q", "main")
    (repo / "notes.txt").write_text("main moved on\n", encoding="utf-8")
    commit(repo, "notes")
    assert run_git(repo, "cherry-pick", "main..restorer").returncode == 0
    restored = {name: text_of(repo, name) for name in ("OUTCOMES.md", "ARCHIVE.md")}
    assert archived_outcomes(repo) == []

    merged = run_git(repo, "merge", "--no-ff", "--no-edit", "feature")

    assert merged.returncode == 0, merged.stderr
    assert "removed the archived copy of O-001, restored since it was archived" in merged.stderr
    assert {name: text_of(repo, name) for name in restored} == restored
    assert rows(repo) == [("O-001", "feature", "alpha")]
    assert_healthy(repo)


def test_merging_a_picked_forget_into_a_squash_of_that_forget_and_its_restore_keeps_the_restore(
    repo: Path,
) -> None:
    """feature forgot alpha, restored it and stored beta; main squash-merged feature with git's
    own message, which names those commits, though the squash's diff moves nothing in
    ARCHIVE.md. picker picked the forget alone. Merging picker, its forget is a copy of one of
    the squashed moves, and the restore after it is main's later word: alpha stays live (seed
    4052 of the collaboration simulation)."""
    init_memory(repo, driver=True)
    add_outcome(repo, "alpha", "main")
    commit(repo, "store alpha")
    stored_archive = text_of(repo, "ARCHIVE.md")
    git(repo, "checkout", "-q", "-b", "feature")
    forget(memory_of(repo), "O-001")
    commit(repo, "forget alpha")
    restore(memory_of(repo), "O-001")
    commit(repo, "restore alpha")
    add_outcome(repo, "beta", "feature")
    commit(repo, "store beta")
    git(repo, "checkout", "-q", "-b", "picker", "main")
    (repo / "notes.txt").write_text("picker moved on\n", encoding="utf-8")
    commit(repo, "notes")
    assert run_git(repo, "cherry-pick", "feature~2").returncode == 0
    assert archived_outcomes(repo) != []
    git(repo, "checkout", "-q", "main")
    assert run_git(repo, "merge", "-q", "--squash", "feature").returncode == 0
    git(repo, "commit", "-q", "--no-edit")
    squashed = text_of(repo, "OUTCOMES.md")

    merged = run_git(repo, "merge", "--no-edit", "picker")

    assert merged.returncode == 0, merged.stderr
    assert rows(repo) == [("O-001", "main", "alpha"), ("O-002", "feature", "beta")]
    # The driver keeps alpha live, git takes picker's ARCHIVE.md whole (main's is base's), and
    # the hook's repair weighs the two copies the same way.
    assert "removed the archived copy of O-001, restored since it was archived" in merged.stderr
    assert git(repo, "log", "-2", "--format=%s").splitlines() == [
        "Repair .planning/memory after post-merge (legion-memory doctor --fix)",
        "Merge branch 'picker'",
    ]
    assert text_of(repo, "OUTCOMES.md") == squashed
    assert text_of(repo, "ARCHIVE.md") == stored_archive
    assert_healthy(repo)


def test_merging_a_later_forget_into_copies_picked_again_of_the_moves_before_it_archives(
    repo: Path,
) -> None:
    """feature stored alpha, forgot and restored it; main picked those three commits, then the
    forget and the restore once more; feature then forgot alpha again. Main's moves outnumber
    the branch's, but each is a copy of a move the branch made before its new forget: merging
    the branch, alpha is archived, as the branch last left it (seed 5041 of the collaboration
    simulation's --stash-kinds)."""
    init_memory(repo, driver=True)
    git(repo, "checkout", "-q", "-b", "feature")
    add_outcome(repo, "alpha", "feature")
    commit(repo, "store alpha")
    forget(memory_of(repo), "O-001")
    commit(repo, "forget alpha")
    restore(memory_of(repo), "O-001")
    commit(repo, "restore alpha")
    git(repo, "checkout", "-q", "main")
    (repo / "notes.txt").write_text("main moved on\n", encoding="utf-8")
    commit(repo, "notes")
    assert run_git(repo, "cherry-pick", "main..feature").returncode == 0
    assert run_git(repo, "cherry-pick", "feature~2..feature").returncode == 0
    assert rows(repo) == [("O-001", "feature", "alpha")]
    git(repo, "checkout", "-q", "feature")
    forget(memory_of(repo), "O-001")
    commit(repo, "forget alpha again")
    forgotten = {name: text_of(repo, name) for name in ("OUTCOMES.md", "ARCHIVE.md")}
    git(repo, "checkout", "-q", "main")

    merged = run_git(repo, "merge", "--no-edit", "feature")

    assert merged.returncode == 0, merged.stderr
    assert {name: text_of(repo, name) for name in forgotten} == forgotten
    assert rows(repo) == []
    assert_healthy(repo)

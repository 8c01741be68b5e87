"""Real-git reproductions of a forget or a restore made inside a merge commit itself (`merge
--no-commit`, then the move, then the commit): a move of the side that holds the merge, weighed
with its other moves (docs/decisions.md#archive-moves)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from support.gitrepos import (
    add_error,
    add_outcome,
    archived_outcomes,
    assert_healthy,
    commit,
    fix_error,
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

ARCHIVED_ALPHA = (
    "| O-001 | 2026-03-02 | feature | 1 | 01-01 | coder | workflow | success | 2 | git | alpha |"
)
ARCHIVED_MAIN_ALPHA = ARCHIVED_ALPHA.replace("| feature |", "| main |")
REPAIRED_AFTER_MERGE = "Repair .planning/memory after post-merge (legion-memory doctor --fix)"


def _feature_stores_and_forgets_alpha(repo: Path) -> None:
    """`other` parts from main first (it never holds alpha); feature stores and forgets alpha;
    main moves on and picks both commits (copies: their author, date and message)."""
    init_memory(repo, driver=True)
    git(repo, "branch", "other")
    git(repo, "checkout", "-q", "-b", "feature")
    add_outcome(repo, "alpha", "feature")
    commit(repo, "store alpha")
    forget(memory_of(repo), "O-001")
    commit(repo, "forget alpha")
    git(repo, "checkout", "-q", "other")
    (repo / "other.txt").write_text("other\n", encoding="utf-8")
    commit(repo, "other work")
    git(repo, "checkout", "-q", "main")
    (repo / "notes.txt").write_text("main moved on\n", encoding="utf-8")
    commit(repo, "notes")
    picked = run_git(repo, "cherry-pick", "main..feature")
    assert picked.returncode == 0, picked.stderr


def _merge_restoring_alpha(repo: Path, branch: str) -> None:
    """main merges `branch` with `--no-commit`, restores alpha, then commits the merge."""
    merged = run_git(repo, "merge", "-q", "--no-commit", "--no-ff", branch)
    assert merged.returncode == 0, merged.stderr
    restore(memory_of(repo), "O-001")
    git(repo, "add", "-A")
    committed = run_git(repo, "commit", "-q", "--no-edit")
    assert committed.returncode == 0, committed.stderr
    assert rows(repo) == [("O-001", "feature", "alpha")]


def test_a_restore_inside_a_merge_commit_outweighs_the_forget_it_undid(repo: Path) -> None:
    """main holds copies of feature's store and forget, then restores alpha in its merge of
    `other`, which never held alpha: neither parent of that merge holds alpha live, the merge
    does. Merging feature, which still holds the forget, brings alpha archived too. Weighed by
    moves git's pickaxe lists, which looks at no merge's own change, main had one move (its copy
    of the forget) to feature's one (that forget) and archiving won (seed 16020 of the
    simulation's `--merge-change-kinds`, step 270). main's restore is a move too, one feature
    never saw: alpha stays live."""
    _feature_stores_and_forgets_alpha(repo)
    _merge_restoring_alpha(repo, "other")
    restored = {name: text_of(repo, name) for name in ("OUTCOMES.md", "ARCHIVE.md")}

    merged = run_git(repo, "merge", "--no-edit", "feature")

    assert merged.returncode == 0, merged.stderr
    assert rows(repo) == [("O-001", "feature", "alpha")]
    assert archived_outcomes(repo) == []
    assert {name: text_of(repo, name) for name in restored} == restored
    assert_healthy(repo)


def test_a_forget_after_the_merge_that_restored_the_record_is_the_later_state(
    repo: Path,
) -> None:
    """The same, then feature forgets alpha again after main's merge reached it: feature's
    new forget is newer than any move main made, the restore inside the merge included."""
    _feature_stores_and_forgets_alpha(repo)
    _merge_restoring_alpha(repo, "other")
    git(repo, "checkout", "-q", "feature")
    assert run_git(repo, "merge", "-q", "--no-edit", "main").returncode == 0
    forget(memory_of(repo), "O-001")
    commit(repo, "forget alpha again")
    git(repo, "checkout", "-q", "main")

    merged = run_git(repo, "merge", "--no-edit", "feature")

    assert merged.returncode == 0, merged.stderr
    assert rows(repo) == []
    assert archived_outcomes(repo) == [ARCHIVED_ALPHA]
    assert_healthy(repo)


def test_a_merge_s_own_forget_outlives_a_rebase_that_flattened_the_merge(repo: Path) -> None:
    """main forgets alpha, restores it inside its merge of feature, and forgets it again inside
    its merge of a2, a branch started after the restore. A rebase onto a commit main already
    holds flattens both merges, and the moves made inside them go with them; the line left
    ends with alpha archived by its first forget. Merging a2 (which main's old line holds whole)
    then took a2's archive and alpha came back live, doctor calling it healthy. The rebase notes
    that its new tip stands for the line it replaced, so the forget made inside the dropped
    merge is still main's: alpha stays archived (seed 16060 of the simulation's
    `--merge-change-kinds`, step 261, a `merge --squash` after `pull --rebase`)."""
    init_memory(repo, driver=True)
    start = git(repo, "rev-parse", "HEAD").strip()
    add_outcome(repo, "alpha", "main")
    commit(repo, "store alpha")
    forget(memory_of(repo), "O-001")
    commit(repo, "forget alpha")
    _merged_with_a_move(repo, ("feature", "beta"), "gamma", restore)
    _merged_with_a_move(repo, ("a2", "delta"), "epsilon", forget)
    rebased = run_git(repo, "rebase", start)
    assert rebased.returncode == 0, rebased.stderr
    assert git(repo, "rev-list", "--merges", f"{start}..main") == ""
    assert archived_outcomes(repo) == [ARCHIVED_MAIN_ALPHA]

    merged = run_git(repo, "merge", "--no-edit", "a2")

    assert merged.returncode == 0, merged.stderr
    assert archived_outcomes(repo) == [ARCHIVED_MAIN_ALPHA]
    assert sorted(summary for _, _, summary in rows(repo)) == ["beta", "delta", "epsilon", "gamma"]
    assert git(repo, "log", "-1", "--format=%s") == f"{REPAIRED_AFTER_MERGE}\n"
    assert_healthy(repo)


def _merged_with_a_move(
    repo: Path,
    branch: tuple[str, str],
    on_main: str | None,
    move: Callable[[Memory, str], object],
    record: str = "O-001",
) -> None:
    """A branch started from main stores an outcome, main stores `on_main` (when given), then
    merges the branch with `--no-commit`, forgets or restores `record` (`move`) and commits the
    merge."""
    name, stored = branch
    git(repo, "checkout", "-q", "-b", name)
    add_outcome(repo, stored, name)
    commit(repo, f"store {stored}")
    git(repo, "checkout", "-q", "main")
    if on_main is not None:
        add_outcome(repo, on_main, "main")
        commit(repo, f"store {on_main}")
    merged = run_git(repo, "merge", "-q", "--no-commit", "--no-ff", name)
    assert merged.returncode == 0, merged.stderr
    move(memory_of(repo), record)
    commit(repo, f"merge {name}, {record} moved")


def test_a_forget_inside_a_merge_that_undid_a_parent_s_restore_is_a_move(repo: Path) -> None:
    """main forgets alpha, then restores it; a1, started before the restore, holds it archived
    as where the two parted. main merges a1 and forgets alpha inside the merge: the merge holds
    alpha as a1 does, and as where the parents parted, yet it undid main's restore itself, which
    a plain merge would have kept. a2, started before the restore too, holds a copy of main's
    restore. Merging a2: main's restore is a move both sides hold, and weighed without the
    merge's own forget the copy won, alpha back live (seed 16091 of the simulation's
    `--merge-change-kinds`, step 142). main forgot after the restore: alpha stays archived."""
    init_memory(repo, driver=True)
    add_outcome(repo, "alpha", "main")
    add_outcome(repo, "gamma", "main")
    commit(repo, "store alpha and gamma")
    forget(memory_of(repo), "O-001")
    commit(repo, "forget alpha")
    git(repo, "branch", "a2")
    git(repo, "checkout", "-q", "-b", "a1")
    add_outcome(repo, "beta", "a1")
    commit(repo, "store beta")
    git(repo, "checkout", "-q", "main")
    restore(memory_of(repo), "O-001")
    commit(repo, "restore alpha")
    git(repo, "checkout", "-q", "a2")
    add_outcome(repo, "delta", "a2")
    commit(repo, "store delta")
    assert run_git(repo, "cherry-pick", "main").returncode == 0
    git(repo, "checkout", "-q", "main")
    forget(memory_of(repo), "O-002")  # main's archive is not as where a2 parted
    commit(repo, "forget gamma")
    merged = run_git(repo, "merge", "-q", "--no-commit", "--no-ff", "a1")
    assert merged.returncode == 0, merged.stderr
    forget(memory_of(repo), "O-001")
    commit(repo, "merge a1, forgetting alpha")

    merged = run_git(repo, "merge", "--no-edit", "a2")

    assert merged.returncode == 0, merged.stderr
    assert rows(repo) == [("O-003", "a1", "beta"), ("O-004", "a2", "delta")]
    gamma = ARCHIVED_MAIN_ALPHA.replace("O-001", "O-002").replace("alpha", "gamma")
    assert archived_outcomes(repo) == [ARCHIVED_MAIN_ALPHA, gamma]
    assert git(repo, "log", "-1", "--format=%s") == f"{REPAIRED_AFTER_MERGE}\n"
    assert_healthy(repo)


def test_a_fix_after_a_restore_inside_a_merge_replays_onto_the_line_that_dropped_the_merge(
    repo: Path,
) -> None:
    """main forgets an error, restores it inside its merge of `side` (which holds it archived),
    then fixes it. A rebase onto the commit before the forget keeps main's first commits and
    side's as they are, drops the merge and replays the fix onto a line where the error is
    archived: "row E-001 removed on ours, changed on theirs", a conflict though main alone ever
    changed the error (seed 16091 of the simulation's `--merge-change-kinds`, step 334, a
    `pull --rebase` flattening main's merges onto an upstream main already held). main's
    restore inside the merge came after its forget: the fix replays, and the error ends live,
    fixed, as main had it."""
    init_memory(repo, driver=True)
    error = add_error(repo, "disk full", "main")
    commit(repo, "store the error")
    start = git(repo, "rev-parse", "HEAD").strip()
    forget(memory_of(repo), error)
    commit(repo, "forget the error")
    _merged_with_a_move(repo, ("side", "beta"), None, restore, error)
    fix_error(repo, error, "fix3")

    rebased = run_git(repo, "rebase", start)

    assert rebased.returncode == 0, rebased.stderr
    assert rows(repo, "errors") == [("E-001", "main", "fix3")]
    assert not [line for line in text_of(repo, "ARCHIVE.md").splitlines() if "| E-" in line]
    assert git(repo, "status", "--porcelain") == ""
    assert_healthy(repo)

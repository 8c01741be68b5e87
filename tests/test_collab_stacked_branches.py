"""Real-git reproductions of `git rebase --update-refs` (or `rebase.updateRefs`): rebasing the top
of a stack of branches moves every branch of the stack with it. Each branch the rebase moved
gets the repair its own rebase would have given it (docs/decisions.md#stacked-branches)."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.gitrepos import (
    add_outcome,
    assert_healthy,
    commit,
    feature_outcome_and_pattern,
    feature_pattern_and_main_outcome,
    rows,
    run_git,
    sources,
)
from support.processes import git, git_version

from legion_memory.gitops.hook_env import REBASE_ONTO_ENV
from legion_memory.gitops.rebase_state import rebase_onto

pytestmark = pytest.mark.slow


def _stack_on_feature(repo: Path) -> None:
    """feature: an outcome and a pattern citing it; `top`, started from feature, an outcome of
    its own; main an outcome of its own, so the stack's are renumbered when it is rebased."""
    feature_pattern_and_main_outcome(repo)
    git(repo, "checkout", "-q", "-b", "top", "feature")
    add_outcome(repo, "top record", "top")
    commit(repo, "top outcome")


def _subjects(repo: Path, rev: str) -> list[str]:
    return git(repo, "log", "--format=%s", rev).splitlines()


def test_a_branch_the_rebase_moved_along_the_stack_gets_its_own_repair(repo: Path) -> None:
    """Before, only the branch checked out got the repair commit: feature's tip kept the pattern
    citing O-001, which is main's record there, and `doctor` on feature could not see it."""
    if git_version() < (2, 38):
        pytest.skip("git rebase --update-refs needs git 2.38")
    _stack_on_feature(repo)

    rebased = run_git(repo, "rebase", "--update-refs", "main")

    assert rebased.returncode == 0, rebased.stdout + rebased.stderr
    assert "legion-memory: repaired refs/heads/feature, which the rebase moved too" in (
        rebased.stderr
    )
    repair = "Repair .planning/memory after post-rewrite (legion-memory doctor --fix)"
    assert _subjects(repo, "feature")[:4] == [
        repair,
        "branch pattern",
        "branch outcome",
        "main outcome",
    ]
    assert _subjects(repo, "top")[:5] == [
        repair,
        "top outcome",
        "branch pattern",
        "branch outcome",
        "main outcome",
    ]
    assert git(repo, "status", "--porcelain") == ""
    assert sources(repo) == {"branch pattern": "O-002"}
    assert_healthy(repo)
    git(repo, "checkout", "-q", "feature")
    assert rows(repo) == [("O-001", "main", "main record"), ("O-002", "feature", "branch record")]
    assert sources(repo) == {"branch pattern": "O-002"}
    assert_healthy(repo)
    assert git(repo, "worktree", "list", "--porcelain").count("worktree ") == 1


def test_a_branch_of_the_stack_that_needs_no_repair_is_moved_as_git_moves_it(repo: Path) -> None:
    """main stored nothing, so the rebase renumbers nothing: feature goes where git puts it, with
    no commit of ours, and the rebase says nothing of it."""
    if git_version() < (2, 38):
        pytest.skip("git rebase --update-refs needs git 2.38")
    feature_outcome_and_pattern(repo)
    git(repo, "checkout", "-q", "-b", "top")
    add_outcome(repo, "top record", "top")
    commit(repo, "top outcome")
    git(repo, "checkout", "-q", "main")
    (repo / "notes.txt").write_text("main's notes\n", encoding="utf-8")
    commit(repo, "main's notes")
    git(repo, "checkout", "-q", "top")

    rebased = run_git(repo, "-c", "rebase.updateRefs=true", "rebase", "main")

    assert rebased.returncode == 0, rebased.stdout + rebased.stderr
    assert "legion-memory: repaired" not in rebased.stderr
    assert _subjects(repo, "top")[:4] == [
        "top outcome",
        "branch pattern",
        "branch outcome",
        "main's notes",
    ]
    assert git(repo, "rev-parse", "top~1") == git(repo, "rev-parse", "feature")
    assert rows(repo) == [("O-001", "feature", "branch record"), ("O-002", "top", "top record")]
    assert git(repo, "worktree", "list", "--porcelain").count("worktree ") == 1
    assert_healthy(repo)


def test_the_repair_of_a_moved_branch_is_told_what_the_rebase_was_replayed_onto(
    repo: Path,
) -> None:
    """The scratch worktree a moved branch is repaired in holds no rebase state, and the parent
    of the first commit written is no stand-in: git lists a first commit it dropped as already
    upstream as rewritten to the tip it replayed onto, whose parent lies before it (seed 12212
    of the simulation's `--stacked-kinds`: main's forget there was missed, and the moved branch
    kept the record live). The hook names it; a rebase's own state still comes first."""
    (repo / "code.txt").write_text("one\n", encoding="utf-8")
    commit(repo, "code one")
    main = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "worktree", "add", "-q", "--detach", str(repo.parent / "scratch"), "HEAD~1")
    scratch = repo.parent / "scratch"
    assert rebase_onto(scratch, {}) is None
    assert rebase_onto(scratch, {REBASE_ONTO_ENV: f"{main}\n"}) == main

    git(repo, "checkout", "-q", "-b", "side", "HEAD~1")
    (repo / "code.txt").write_text("two\n", encoding="utf-8")
    commit(repo, "code two")
    assert run_git(repo, "rebase", "main").returncode != 0
    assert rebase_onto(repo, {REBASE_ONTO_ENV: "0" * 40}) == main

"""Real-git reproductions in a linked worktree (`git worktree add`): git runs the hooks there
with `GIT_DIR` set to the worktree's own git directory and no `GIT_WORK_TREE`, which tells git
that the working directory is the top of the work tree. The repairs must read the same history
there as in the main worktree."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.gitrepos import (
    add_outcome,
    add_pattern,
    assert_healthy,
    commit,
    init_memory,
    rows,
    run_git,
    sources,
)
from support.processes import git

from legion_memory.cli.entry import pin_the_work_tree


def _feature_in_a_worktree_and_main_s_own_record(repo: Path, tmp_path: Path) -> Path:
    """feature, checked out in a linked worktree: an outcome and a pattern citing it; main,
    meanwhile, an outcome of its own (so the branch's is renumbered where they meet)."""
    init_memory(repo, driver=True)
    worktree = tmp_path / "feature-worktree"
    git(repo, "worktree", "add", "-q", "-b", "feature", str(worktree))
    cited = add_outcome(worktree, "branch record", "feature")
    commit(worktree, "branch outcome")
    add_pattern(worktree, "branch pattern", cited, "feature")
    commit(worktree, "branch pattern")
    add_outcome(repo, "main record", "main", date="2026-03-01")
    commit(repo, "main outcome")
    return worktree


@pytest.mark.parametrize(
    ("integration", "repair"),
    [
        (["rebase", "-q", "main"], "post-rewrite"),
        (["merge", "-q", "--no-edit", "main"], "post-merge"),
    ],
)
def test_a_worktree_s_integration_makes_its_pattern_follow_the_renumbered_outcome(
    repo: Path, tmp_path: Path, integration: list[str], repair: str
) -> None:
    worktree = _feature_in_a_worktree_and_main_s_own_record(repo, tmp_path)

    done = run_git(worktree, *integration)

    assert done.returncode == 0, done.stderr
    assert rows(worktree) == [
        ("O-001", "main", "main record"),
        ("O-002", "feature", "branch record"),
    ]
    assert sources(worktree) == {"branch pattern": "O-002"}
    assert git(worktree, "log", "-1", "--format=%s") == (
        f"Repair .planning/memory after {repair} (legion-memory doctor --fix)\n"
    )
    assert_healthy(worktree)


def test_git_dir_alone_names_the_working_directory_as_the_top_for_every_git_started() -> None:
    """As git reads them: a relative `GIT_DIR` from the working directory, which is the top of
    the work tree when no `GIT_WORK_TREE` says otherwise."""
    env = {"GIT_DIR": ".git", "HOME": "/home/dev"}
    pin_the_work_tree(env, "/work/project")
    assert env == {
        "GIT_DIR": "/work/project/.git",
        "GIT_WORK_TREE": "/work/project",
        "HOME": "/home/dev",
    }
    env = {"GIT_DIR": "/repos/p/.git/worktrees/wt", "GIT_WORK_TREE": "/elsewhere"}
    pin_the_work_tree(env, "/work/project")
    assert env == {"GIT_DIR": "/repos/p/.git/worktrees/wt", "GIT_WORK_TREE": "/elsewhere"}


def test_without_git_dir_nothing_is_named() -> None:
    env = {"HOME": "/home/dev"}
    pin_the_work_tree(env, "/work/project")
    assert env == {"HOME": "/home/dev"}

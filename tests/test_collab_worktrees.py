"""Legion's worktree isolation mode, in real git: each plan of a wave runs in a worktree of its
own, its agent stores to memory there, and the wave executor merges each plan's branch into the
main working tree with `--no-ff`, in plan order (the wave-executor skill, section 1.5); and
integrations made inside a linked worktree, whose hooks git runs with `GIT_DIR` set."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.gitrepos import (
    add_error,
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

PLANS = ("02-01", "02-02", "02-03")


def _worktree(repo: Path, plan: str) -> tuple[Path, str]:
    # Excluded, so that `git add -A` on main does not commit a worktree as an embedded repository.
    (repo / ".git" / "info" / "exclude").write_text(".legion-worktrees/\n", encoding="utf-8")
    tree, branch = repo / ".legion-worktrees" / plan, f"legion-wt-{plan}"
    git(repo, "worktree", "add", "-q", str(tree), "-b", branch, "HEAD")
    return tree, branch


def _plan_stores(tree: Path, plan: str, branch: str) -> None:
    """What an agent stores after its plan: its outcome, a pattern citing it, an error fix."""
    cited = add_outcome(tree, f"plan {plan} built its widget", branch)
    add_pattern(tree, f"widget pattern of {plan}", cited, branch)
    add_error(tree, f"widget of {plan} crashed on load", branch)


def test_a_wave_of_worktrees_merged_in_plan_order_keeps_every_record_and_its_source(
    repo: Path,
) -> None:
    init_memory(repo, driver=True)
    add_outcome(repo, "phase 1 outcome", "main")
    commit(repo, "phase 1")
    trees = {plan: _worktree(repo, plan) for plan in PLANS}
    for plan, (tree, branch) in trees.items():  # every agent stores O-002, P-001 and E-001
        _plan_stores(tree, plan, branch)
    for plan, (tree, branch) in trees.items():
        commit(tree, f"legion: plan {plan} execution")
        merged = run_git(repo, "merge", branch, "--no-ff", "-m", f"legion: merge plan {plan}")
        assert merged.returncode == 0, merged.stdout + merged.stderr

    assert rows(repo) == [
        ("O-001", "main", "phase 1 outcome"),
        ("O-002", "legion-wt-02-01", "plan 02-01 built its widget"),
        ("O-003", "legion-wt-02-02", "plan 02-02 built its widget"),
        ("O-004", "legion-wt-02-03", "plan 02-03 built its widget"),
    ]
    assert sources(repo) == {
        "widget pattern of 02-01": "O-002",
        "widget pattern of 02-02": "O-003",
        "widget pattern of 02-03": "O-004",
    }
    assert [(record_id, branch) for record_id, branch, _ in rows(repo, "errors")] == [
        ("E-001", "legion-wt-02-01"),
        ("E-002", "legion-wt-02-02"),
        ("E-003", "legion-wt-02-03"),
    ]
    for tree, branch in trees.values():  # the executor's cleanup
        git(repo, "worktree", "remove", "--force", str(tree))
        git(repo, "branch", "-q", "-D", branch)
    assert_healthy(repo)


def test_a_plan_whose_merge_is_aborted_leaves_main_s_memory_as_it_was(repo: Path) -> None:
    """A plan's code conflicts: the executor runs `git merge --abort` and reports it; the
    memory the plan stored must not have reached main, nor main's own been changed."""
    init_memory(repo, driver=True)
    (repo / "widget.js").write_text("main\n", encoding="utf-8")
    commit(repo, "code")
    tree, branch = _worktree(repo, "02-01")
    _plan_stores(tree, "02-01", branch)
    (tree / "widget.js").write_text("plan\n", encoding="utf-8")
    commit(tree, "legion: plan 02-01 execution")
    add_outcome(repo, "main went on", "main")
    (repo / "widget.js").write_text("main changed\n", encoding="utf-8")
    commit(repo, "main")
    before = {path.name: path.read_bytes() for path in (repo / ".planning/memory").iterdir()}

    merged = run_git(repo, "merge", branch, "--no-ff", "-m", "legion: merge plan 02-01")
    assert merged.returncode == 1
    assert "CONFLICT (content): Merge conflict in widget.js" in merged.stdout
    assert run_git(repo, "merge", "--abort").returncode == 0

    after = {path.name: path.read_bytes() for path in (repo / ".planning/memory").iterdir()}
    assert after == before
    git(repo, "worktree", "remove", "--force", str(tree))
    assert_healthy(repo)


# Integrations made inside a linked worktree: git runs the hooks there with `GIT_DIR` set to the
# worktree's own git directory and no `GIT_WORK_TREE`, which tells git that the working directory
# is the top of the work tree (docs/decisions.md#linked-worktrees).


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

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
    init_memory,
    rows,
    run_git,
    sources,
    text_of,
)
from support.processes import git, git_version, run_process

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


def _stored(repo: Path, summary: str, branch: str) -> None:
    """An outcome stored on the branch checked out, in a commit of its own named after it."""
    add_outcome(repo, summary, branch)
    commit(repo, summary)


def _lower_branch_holding_copies_of_main(repo: Path) -> None:
    """`lower`, started from main's record: one commit holding both of main's later outcomes (a
    rebase drops it as already upstream, and lists it rewritten to main's tip), then a copy of
    main's forget of the record (its author, date and message) made beside an outcome of its own,
    so that it is replayed. `top` on it, an outcome of its own. main meanwhile restores the
    record, stores another, and forgets it again: its tip is that forget."""
    init_memory(repo, driver=True)
    _stored(repo, "kept record", "main")
    git(repo, "branch", "lower")
    main_commits = {}
    for summary in ("main record", "main record two"):
        _stored(repo, summary, "main")
        main_commits[summary] = git(repo, "rev-parse", "HEAD").strip()
    run_process("forget", "O-001", cwd=repo, check=True)
    commit(repo, "forget")
    forget = git(repo, "rev-parse", "HEAD").strip()
    run_process("restore", "O-001", cwd=repo, check=True)
    commit(repo, "restore")
    git(repo, "checkout", "-q", "lower")
    for picked in main_commits.values():
        git(repo, "cherry-pick", "-n", picked)
    commit(repo, "main's records")
    git(repo, "cherry-pick", "-n", forget)
    add_outcome(repo, "lower record", "lower")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-C", forget)
    git(repo, "checkout", "-q", "-b", "top")
    _stored(repo, "top record", "top")
    git(repo, "checkout", "-q", "main")
    add_outcome(repo, "main later", "main")
    run_process("forget", "O-001", cwd=repo, check=True)
    commit(repo, "main later, forget again")
    git(repo, "checkout", "-q", "top")


def _archived(repo: Path) -> list[str]:
    return [line.split("|")[1].strip() for line in text_of(repo, "ARCHIVE.md").splitlines()
            if line.startswith("| O-")]  # fmt: skip


def test_a_moved_branch_whose_first_commit_was_dropped_keeps_main_s_forget(repo: Path) -> None:
    """Seed 12212 of the simulation's `--stacked-kinds`, end to end: `lower`'s first commit is
    dropped as already upstream, so the first commit its repair is told of was "rewritten" to
    main's tip, whose parent still held the record live. Taken for what the rebase was replayed
    onto, it made `lower`'s copy of main's old forget look like a change main had since undone,
    and the repair restored the record main's tip had just forgotten."""
    if git_version() < (2, 38):
        pytest.skip("git rebase --update-refs needs git 2.38")
    _lower_branch_holding_copies_of_main(repo)

    rebased = run_git(repo, "rebase", "--update-refs", "main")

    assert rebased.returncode == 0, rebased.stdout + rebased.stderr
    assert "main's records -- patch contents already upstream" in rebased.stdout + rebased.stderr
    assert "made live again" not in rebased.stderr
    assert _subjects(repo, "top")[:3] == ["top record", "forget", "main later, forget again"]
    assert git(repo, "rev-parse", "top~1") == git(repo, "rev-parse", "lower")
    assert rows(repo) == [
        ("O-002", "main", "main record"),
        ("O-003", "main", "main record two"),
        ("O-005", "lower", "lower record"),
        ("O-004", "main", "main later"),
        ("O-006", "top", "top record"),
    ]
    assert _archived(repo) == ["O-001"]
    assert_healthy(repo)
    git(repo, "checkout", "-q", "lower")
    assert rows(repo) == [
        ("O-002", "main", "main record"),
        ("O-003", "main", "main record two"),
        ("O-004", "main", "main later"),
        ("O-005", "lower", "lower record"),
    ]
    assert _archived(repo) == ["O-001"]
    assert_healthy(repo)
    assert git(repo, "worktree", "list", "--porcelain").count("worktree ") == 1


def _lower_branch_with_a_record_made_in_a_merge(repo: Path) -> None:
    """`lower`: an outcome, a merge of `side` (an outcome of its own) in which one more outcome
    was stored before committing, then a later outcome; `top` on it, an outcome of its own; main
    an outcome of its own. A rebase that does not keep merges replays none of the merge's own
    change."""
    init_memory(repo, driver=True)
    git(repo, "checkout", "-q", "-b", "side")
    _stored(repo, "side record", "side")
    git(repo, "checkout", "-q", "-b", "lower", "main")
    _stored(repo, "lower record", "lower")
    assert run_git(repo, "merge", "--no-commit", "side").returncode == 0
    add_outcome(repo, "made in the merge", "lower")
    commit(repo, "merge side")
    _stored(repo, "lower later", "lower")
    git(repo, "checkout", "-q", "-b", "top")
    _stored(repo, "top record", "top")
    git(repo, "checkout", "-q", "main")
    _stored(repo, "main record", "main")
    git(repo, "checkout", "-q", "top")


def test_a_moved_branch_keeps_a_record_made_in_a_merge_the_rebase_flattened(repo: Path) -> None:
    """Seed 12504 of the simulation's `--stacked-kinds` (steady clock): git replays no merge
    commit's own change, and the branch checked out got its record put back from its tip before
    the rebase, but the run for a branch moved along the stack had no tip before to read (its
    scratch worktree holds no rebase state and no ORIG_HEAD), and `lower` lost the record."""
    if git_version() < (2, 38):
        pytest.skip("git rebase --update-refs needs git 2.38")
    _lower_branch_with_a_record_made_in_a_merge(repo)

    rebased = run_git(repo, "rebase", "--update-refs", "main")

    assert rebased.returncode == 0, rebased.stdout + rebased.stderr
    assert "legion-memory: repaired refs/heads/lower, which the rebase moved too" in rebased.stderr
    assert rows(repo) == [
        ("O-002", "lower", "lower record"),
        ("O-003", "side", "side record"),
        ("O-004", "lower", "lower later"),
        ("O-001", "main", "main record"),
        ("O-005", "top", "top record"),
        ("O-006", "lower", "made in the merge"),
    ]
    assert_healthy(repo)
    git(repo, "checkout", "-q", "lower")
    assert rows(repo) == [
        ("O-002", "lower", "lower record"),
        ("O-003", "side", "side record"),
        ("O-001", "main", "main record"),
        ("O-004", "lower", "lower later"),
        ("O-005", "lower", "made in the merge"),
    ]
    assert_healthy(repo)
    assert git(repo, "worktree", "list", "--porcelain").count("worktree ") == 1

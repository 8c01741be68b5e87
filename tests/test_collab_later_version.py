"""Real-git reproductions of one error fix held in two versions, neither of them base's, after its
commits were picked: the side whose history replaced the other's version holds the later one,
and the merge takes it without a conflict, whichever way it runs
(docs/decisions.md#later-version)."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.gitrepos import (
    add_outcome,
    assert_healthy,
    commit,
    init_memory,
    rows,
    run_git,
    text_of,
)
from support.processes import git, run_process

pytestmark = pytest.mark.slow

SIGNATURE = "EADDRINUSE :3000"


def _store_error(repo: Path, fix: str) -> None:
    store = ["--today", "2026-03-02", "store", "error", "--signature", SIGNATURE, "--fix", fix]
    run_process(*store, "--agent", "coder", "--unresolved", cwd=repo, check=True)
    commit(repo, f"error fix: {fix}")


def _feature_storing_the_error(repo: Path, *fixes: str) -> None:
    """feature stores the error with each fix in turn; main moves on meanwhile, so that a pick
    makes new commits (both sides then add the record since their base)."""
    init_memory(repo, driver=True)
    git(repo, "checkout", "-q", "-b", "feature")
    for fix in fixes:
        _store_error(repo, fix)
    git(repo, "checkout", "-q", "main")
    add_outcome(repo, "main's own work", "main")
    commit(repo, "main's own work")
    assert run_git(repo, "cherry-pick", "main..feature").returncode == 0


def _picked_then_updated_again_on_main(repo: Path) -> None:
    """main picks feature's store and update of the fix, then updates the fix once more."""
    _feature_storing_the_error(repo, "retry the server", "free port 3000 first")
    _store_error(repo, "kill the stale dev server, then free port 3000")


@pytest.mark.parametrize("into", ["main", "feature"])
def test_a_fix_updated_again_after_its_commits_were_picked_merges_to_the_later_version(
    repo: Path, into: str
) -> None:
    _picked_then_updated_again_on_main(repo)
    other = "feature" if into == "main" else "main"
    git(repo, "checkout", "-q", into)
    done = run_git(repo, "merge", "--no-edit", other)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "conflict" not in done.stderr
    assert rows(repo, "errors") == [
        ("E-001", "feature", "kill the stale dev server, then free port 3000")
    ]
    assert text_of(repo, "ERRORS.md").count(SIGNATURE) == 1
    assert_healthy(repo)


def test_a_rebase_keeping_merges_replays_that_merge_to_the_later_version(repo: Path) -> None:
    """`rebase --rebase-merges` replays main's merge of feature as a merge of its own, naming
    the branch to no merge driver (no `GITHEAD_<sha>`): weighed as the merge it replays, it
    takes the later fix again, where a 3-way merge saw two changes (seed 8107 of the
    simulation's `--merges-kinds`)."""
    _picked_then_updated_again_on_main(repo)
    fork = git(repo, "merge-base", "main", "feature").strip()
    assert run_git(repo, "merge", "--no-edit", "feature").returncode == 0
    git(repo, "checkout", "-q", "-b", "upstream", fork)
    add_outcome(repo, "upstream's work", "upstream", date="2026-03-01")
    commit(repo, "upstream's work")
    git(repo, "checkout", "-q", "main")

    done = run_git(repo, "rebase", "--rebase-merges", "upstream")

    assert done.returncode == 0, done.stdout + done.stderr
    assert "conflict" not in done.stderr
    assert git(repo, "log", "-1", "--format=%p").count(" ") == 1  # still a merge
    assert rows(repo, "errors") == [
        ("E-001", "feature", "kill the stale dev server, then free port 3000")
    ]
    assert rows(repo) == [
        ("O-001", "upstream", "upstream's work"),
        ("O-002", "main", "main's own work"),
    ]
    assert_healthy(repo)


def test_two_fixes_neither_side_saw_still_conflict(repo: Path) -> None:
    """The history decides only when one side replaced the other's version: two updates made
    apart (each side's own, from one picked store) are two people changing one record."""
    _feature_storing_the_error(repo, "retry the server")
    _store_error(repo, "free port 3000 first")
    git(repo, "checkout", "-q", "feature")
    _store_error(repo, "restart the machine")
    done = run_git(repo, "merge", "--no-edit", "main")
    assert done.returncode == 1
    assert "conflict: record E-001 recorded differently on both sides" in done.stderr


def _main_picked_the_update_and_forgot_the_fix(repo: Path, *updates: str) -> None:
    """main stores the fix; feature updates it; main picks that update, updates the fix with
    each of `updates`, then forgets it."""
    init_memory(repo, driver=True)
    _store_error(repo, "retry the server")
    git(repo, "checkout", "-q", "-b", "feature")
    _store_error(repo, "free port 3000 first")
    git(repo, "checkout", "-q", "main")
    add_outcome(repo, "main's own work", "main")
    commit(repo, "main's own work")
    assert run_git(repo, "cherry-pick", "feature").returncode == 0
    for fix in updates:
        _store_error(repo, fix)
    run_process("forget", "E-001", cwd=repo, check=True)
    commit(repo, "forget the fix")


@pytest.mark.parametrize(
    ("into", "how"),
    [("main", "merge"), ("feature", "merge"), ("main", "merge --squash")],
)
@pytest.mark.parametrize(
    ("updated_again", "archived_fix"),
    [(False, "free port 3000 first"), (True, "kill the stale dev server first")],
    ids=["archived as picked", "updated again, then archived"],
)
def test_a_fix_archived_after_picking_the_other_side_s_update_stays_archived(
    repo: Path, into: str, how: str, updated_again: bool, archived_fix: str
) -> None:
    """One side updated the fix, the other archived it after picking that very update (not two
    people changing one record, but a stale live copy: docs/decisions.md#archived-version), or
    after updating it again: it saw the other's version and changed the record since
    (docs/decisions.md#later-version; seed 5182 of the simulation's --stash-kinds)."""
    _main_picked_the_update_and_forgot_the_fix(repo, *([archived_fix] if updated_again else []))
    archived = text_of(repo, "ARCHIVE.md")
    other = "feature" if into == "main" else "main"
    git(repo, "checkout", "-q", into)

    done = run_git(repo, *how.split(), *(["--no-edit"] if how == "merge" else []), other)

    assert done.returncode == 0, done.stdout + done.stderr
    assert "conflict" not in done.stderr
    assert rows(repo, "errors") == []  # a squash then brings nothing to commit
    assert text_of(repo, "ARCHIVE.md") == archived
    assert archived.count(f"| {archived_fix} |") == 1
    assert SIGNATURE not in text_of(repo, "ERRORS.md")
    assert_healthy(repo)


@pytest.mark.parametrize(
    "pick",
    [
        ["cherry-pick", "feature"],
        ["-c", "core.quotepath=false", "cherry-pick", "-x", "-"],
        ["-c", "alias.pick=cherry-pick", "pick", "feature"],
        ["-c", "alias.pick=!git cherry-pick", "pick", "feature"],
    ],
    ids=["cherry-pick feature", "git -c ... cherry-pick -x -", "an alias", "a shell alias"],
)
def test_picking_an_update_again_alone_keeps_the_later_version(repo: Path, pick: list[str]) -> None:
    """A pick of one commit, whose merge git names to no driver, is weighed by the commit its
    command line names (docs/decisions.md#lone-pick): main replaced feature's update since it
    picked it, so picking it once more changes nothing, where it used to be a conflict."""
    _picked_then_updated_again_on_main(repo)
    before = text_of(repo, "ERRORS.md")

    done = run_git(repo, *pick)

    said = done.stdout + done.stderr
    assert done.returncode == 1
    assert "CONFLICT" not in said and "recorded differently" not in said
    assert "The previous cherry-pick is now empty" in said
    run_git(repo, "cherry-pick", "--skip")
    assert text_of(repo, "ERRORS.md") == before
    assert rows(repo, "errors") == [
        ("E-001", "feature", "kill the stale dev server, then free port 3000")
    ]
    assert_healthy(repo)


def test_a_fix_restored_after_a_copy_of_the_forget_that_archived_its_version_stays_live(
    repo: Path,
) -> None:
    """feature updates the fix and forgets it; main picks both commits, restores the fix, then
    stores work of its own and forgets part of it (so that ARCHIVE.md changed on both sides and
    no memory file of main's ends as base had it: the hook leaves the merge's result alone).
    Merging feature, its archive holds the fix in the very version main holds live, but main's
    live copy is no stale one: main made feature's forget too (a copy) and a restore since, the
    later state (seed 4048 of the collaboration simulation, there through `merge --squash`)."""
    init_memory(repo, driver=True)
    _store_error(repo, "retry the server")
    git(repo, "checkout", "-q", "-b", "feature")
    _store_error(repo, "free port 3000 first")
    run_process("forget", "E-001", cwd=repo, check=True)
    commit(repo, "forget the fix")
    git(repo, "checkout", "-q", "main")
    add_outcome(repo, "main's own work", "main")
    commit(repo, "main's own work")
    assert run_git(repo, "cherry-pick", "main..feature").returncode == 0
    run_process("restore", "E-001", cwd=repo, check=True)
    commit(repo, "restore the fix")
    add_outcome(repo, "main's abandoned work", "main")
    run_process("forget", "O-002", cwd=repo, check=True)
    commit(repo, "main's abandoned work")
    errors, archived = text_of(repo, "ERRORS.md"), text_of(repo, "ARCHIVE.md")

    done = run_git(repo, "merge", "--no-edit", "feature")

    assert done.returncode == 0, done.stdout + done.stderr
    assert "conflict" not in done.stderr
    assert rows(repo, "errors") == [("E-001", "main", "free port 3000 first")]
    # The driver keeps the live copy, ARCHIVE.md's merge brings feature's archived one beside
    # it, and the hook's repair weighs the two the same way.
    assert "removed the archived copy of E-001, restored since it was archived" in done.stderr
    assert git(repo, "log", "-2", "--format=%s").splitlines() == [
        "Repair .planning/memory after post-merge (legion-memory doctor --fix)",
        "Merge branch 'feature'",
    ]
    assert text_of(repo, "ERRORS.md") == errors
    assert text_of(repo, "ARCHIVE.md") == archived
    assert_healthy(repo)


def _main_forgot_the_fix_feature_starts_at_its_store(repo: Path) -> None:
    """main stores the fix and forgets it; feature starts at the store (each test then gives it
    that forget: main's own commit, or a copy of it by another committer)."""
    init_memory(repo, driver=True)
    _store_error(repo, "retry")
    run_process("forget", "E-001", cwd=repo, check=True)
    commit(repo, "forget the fix")
    git(repo, "checkout", "-q", "-b", "feature", "HEAD~1")


def _restored_and_updated_on_main(repo: Path) -> None:
    """main restores the fix and updates it."""
    git(repo, "checkout", "-q", "main")
    run_process("restore", "E-001", cwd=repo, check=True)
    commit(repo, "restore the fix")
    _store_error(repo, "free port 3000 first")
    assert rows(repo, "errors") == [("E-001", "main", "free port 3000 first")]


def test_picking_again_a_forget_main_undid_and_updated_since_leaves_the_fix_live(
    repo: Path,
) -> None:
    """Picking again a commit ours holds itself is a change ours has seen: no conflict
    (docs/decisions.md#replays-upstream-holds). Git takes ARCHIVE.md whole from the pick (main's
    ended as the pick's parent had it), so the post-commit hook repairs: the live copy holds a
    later version than the archived one, and main moved the record more often (the forget, then
    the restore), so the live copy is the later state and stays (docs/decisions.md#archive-moves;
    seed 5011 of the collaboration simulation, there through a copy of the forget in a sequence
    of picks). It used to be a conflict, and its documented repair archived the fix again."""
    _main_forgot_the_fix_feature_starts_at_its_store(repo)
    git(repo, "reset", "-q", "--hard", "main")
    _restored_and_updated_on_main(repo)

    picked = run_git(repo, "cherry-pick", "feature")

    assert picked.returncode == 0, picked.stderr
    assert "conflict" not in picked.stderr
    assert (
        "repaired .planning/memory/ARCHIVE.md:15: removed the archived copy of E-001, "
        "restored since it was archived\n" in picked.stderr
    )
    assert git(repo, "log", "--format=%s", "-3") == (
        "Repair .planning/memory after post-commit (legion-memory doctor --fix)\n"
        "forget the fix\nerror fix: free port 3000 first\n"
    )
    assert rows(repo, "errors") == [("E-001", "main", "free port 3000 first")]
    assert SIGNATURE not in text_of(repo, "ARCHIVE.md")
    assert_healthy(repo)


def test_a_merge_without_the_driver_of_a_copy_of_that_forget_is_repaired_to_the_live_fix(
    repo: Path,
) -> None:
    """feature holds a copy of main's forget (picked by another committer); main restored and
    updated the fix since. Merged without the driver (a clone where it is not configured), git
    leaves markers in ERRORS.md and takes feature's ARCHIVE.md whole; `doctor --fix` keeps the
    fix live with its update: the copy is a move main has seen, its restore one more."""
    _main_forgot_the_fix_feature_starts_at_its_store(repo)
    assert run_git(repo, "-c", "user.name=Other", "cherry-pick", "main").returncode == 0
    _restored_and_updated_on_main(repo)
    git(repo, "config", "--remove-section", "merge.legion-memory")

    merged = run_git(repo, "merge", "--no-edit", "feature")
    assert merged.returncode == 1
    assert "CONFLICT (content): Merge conflict in .planning/memory/ERRORS.md" in merged.stdout
    fixed = run_process("doctor", "--fix", cwd=repo)

    assert "removed the archived copy of E-001, restored since it was archived" in fixed.stdout
    assert rows(repo, "errors") == [("E-001", "main", "free port 3000 first")]
    assert SIGNATURE not in text_of(repo, "ARCHIVE.md")

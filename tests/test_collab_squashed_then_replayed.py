"""Real-git reproductions of a branch squashed into main (`merge --squash`), then replayed onto
main commit by commit: rebased by its owner, picked, or mailed and applied with `git am -3`.
An error fix the branch changed twice arrives first in its older version, which main's history
never held (the squash went from the first fix to the last in one commit); the branch's own
later commits replaced it by the version main holds, so main's is the later one and the replay
changes nothing (docs/decisions.md#later-version)."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.gitrepos import (
    add_error,
    add_outcome,
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

from bench.collab_integrations import SQUASH_TODO
from legion_memory.upkeep.forgetting import forget, restore

pytestmark = pytest.mark.slow

FIXED = [("E-001", "main", "fix2")]


def _branch_fixed_twice_and_squashed_into_main(repo: Path) -> None:
    init_memory(repo, driver=True)
    error = add_error(repo, "disk full", "main")
    commit(repo, "store the error")
    git(repo, "checkout", "-q", "-b", "feature")
    fix_error(repo, error, "fix1")
    fix_error(repo, error, "fix2")
    git(repo, "checkout", "-q", "main")
    (repo / "notes.txt").write_text("main's notes\n", encoding="utf-8")
    commit(repo, "main's notes")
    assert run_git(repo, "merge", "--squash", "feature").returncode == 0
    git(repo, "commit", "-q", "-m", "squash feature")
    assert rows(repo, "errors") == FIXED


def _rebase_feature(repo: Path, tmp_path: Path) -> None:
    git(repo, "checkout", "-q", "feature")
    rebased = run_git(repo, "rebase", "main")
    assert rebased.returncode == 0, rebased.stdout + rebased.stderr


def _pick_feature(repo: Path, tmp_path: Path) -> None:
    picked = run_git(repo, "cherry-pick", "main..feature")
    # Git stops at a pick that changes nothing, as for any file, and the user skips it.
    while "is now empty" in picked.stderr:
        assert git(repo, "diff", "--name-only", "--diff-filter=U") == ""
        picked = run_git(repo, "cherry-pick", "--skip")
    assert picked.returncode == 0, picked.stdout + picked.stderr


def _mail_feature(repo: Path, tmp_path: Path) -> None:
    git(repo, "format-patch", "-q", "main..feature", "-o", str(tmp_path / "mail"))
    applied = run_git(repo, "am", "-3", *sorted(str(p) for p in (tmp_path / "mail").iterdir()))
    assert applied.returncode == 0, applied.stdout + applied.stderr


@pytest.mark.parametrize("replay", [_rebase_feature, _pick_feature, _mail_feature])
def test_a_squashed_branch_replayed_onto_main_keeps_main_s_later_fix_without_a_conflict(
    repo: Path, tmp_path: Path, replay: object
) -> None:
    """Before: each replay stopped at the branch's first fix, "row E-001 changed differently
    on both sides" (seed 9023 of the collaboration simulation's `--uncommitted-kinds`)."""
    _branch_fixed_twice_and_squashed_into_main(repo)
    squashed = git(repo, "rev-parse", "main")

    assert callable(replay)
    replay(repo, tmp_path)

    assert rows(repo, "errors") == FIXED
    assert git(repo, "status", "--porcelain") == ""
    assert git(repo, "rev-parse", "HEAD") == squashed  # every replayed commit was empty
    assert_healthy(repo)


def test_a_squash_naming_commits_both_sides_hold_counts_none_of_their_moves(repo: Path) -> None:
    """feature stores beta and forgets alpha, folds the two into one commit F with `rebase -i`
    (noted as a fold; it keeps the store's message), and stores delta. main, moved on, picks
    F, squash-merges feature (a squash naming F), merges it too and forgets gamma; feature then
    restores alpha. Rebasing feature onto main replays the restore. F is history both sides
    hold since they parted: its move is no move of main's since. Counted as one (the squash
    named it), main had moved alpha twice to feature's once, and the replayed restore left
    alpha archived (seed 12002 of the collaboration simulation's `--stacked-kinds`)."""
    init_memory(repo, driver=True)
    for summary in ("alpha", "gamma"):
        add_outcome(repo, summary, "main")
    commit(repo, "store alpha and gamma")
    git(repo, "checkout", "-q", "-b", "feature")
    add_outcome(repo, "beta", "feature")
    commit(repo, "store beta")
    forget(memory_of(repo), "O-001")
    commit(repo, "forget alpha")
    folded = run_git(
        repo,
        *("-c", f"sequence.editor={SQUASH_TODO}", "-c", "core.editor=true"),
        *("rebase", "-q", "-i", "main"),
    )
    assert folded.returncode == 0, folded.stderr
    add_outcome(repo, "delta", "feature")
    commit(repo, "store delta")
    git(repo, "checkout", "-q", "main")
    (repo / "notes.txt").write_text("main's notes\n", encoding="utf-8")
    commit(repo, "main's notes")
    assert run_git(repo, "cherry-pick", "feature~1").returncode == 0
    assert run_git(repo, "merge", "--squash", "feature").returncode == 0
    git(repo, "commit", "-q", "--no-edit")
    assert run_git(repo, "merge", "--no-edit", "feature").returncode == 0
    forget(memory_of(repo), "O-002")
    commit(repo, "forget gamma")
    git(repo, "checkout", "-q", "feature")
    restore(memory_of(repo), "O-001")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--date", "2030-01-01T00:00:00", "-m", "restore alpha")

    rebased = run_git(repo, "rebase", "main")

    assert rebased.returncode == 0, rebased.stdout + rebased.stderr
    assert sorted(rows(repo)) == [
        ("O-001", "main", "alpha"),
        ("O-003", "feature", "beta"),
        ("O-004", "feature", "delta"),
    ]
    archived = [
        line for line in text_of(repo, "ARCHIVE.md").splitlines() if line.startswith("| O-")
    ]
    assert [line.split("|")[-2].strip() for line in archived] == ["gamma"]
    assert_healthy(repo)

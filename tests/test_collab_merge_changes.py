"""Real-git reproductions of a rebase that flattens merges: git replays the branch's commits
and drops every merge, with whatever the merge commit itself changed. A record the merge
changed, and nothing since, is set back to the branch's version unless the upstream changed
it too (docs/decisions.md#merge-changes)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from support.gitrepos import (
    add_error,
    add_outcome,
    assert_healthy,
    commit,
    init_memory,
    memory_of,
    outcome_row,
    rows,
    run_git,
    text_of,
)
from support.processes import git

from legion_memory.schema.kinds import ERROR_FIX
from legion_memory.storage import writing
from legion_memory.upkeep.forgetting import forget, restore

pytestmark = pytest.mark.slow

ERROR_COLUMNS = ("id", "date", "branch", "error_signature", "fix", "agent", "resolved", "tags")
OUTCOMES_HEADER = (
    "| ID | Date | Branch | Phase | Plan | Agent | Task Type | Outcome | Importance | Tags "
    "| Summary |\n"
    "|----|------|--------|-------|------|-------|-----------|---------|------------|------"
    "|---------|\n"
)
ALPHA = outcome_row(2, "alpha", "main", date="2026-03-02")
REPAIRED = "Repair .planning/memory after post-rewrite (legion-memory doctor --fix)"


def _table_lines(text: str) -> str:
    """The lines of its tables, headers included."""
    return "".join(line for line in text.splitlines(keepends=True) if line.startswith("|"))


def _subjects(repo: Path) -> list[str]:
    return git(repo, "log", "--format=%s").splitlines()


def _fix(repo: Path, error: str, fix: str) -> None:
    writing.update(memory_of(repo), ERROR_FIX, error, {"fix": fix, "resolved": "true"})


def _merge_side_fixing(repo: Path, error: str, fix: str) -> None:
    """main merges `side` (one outcome) and updates the error's fix in the merge commit
    itself, as `merge --no-commit` then a change, or a `rebase -i` folding into a merge, do."""
    _merge_side_changing(repo, lambda: _fix(repo, error, fix), "merge side, fixing the error")


def _merge_side_changing(repo: Path, change: Callable[[], object], message: str) -> None:
    """main merges `side` with `--no-commit`, makes `change`, and commits the merge."""
    merged = run_git(repo, "merge", "-q", "--no-ff", "--no-commit", "side")
    assert merged.returncode == 0, merged.stderr
    change()
    commit(repo, message)


def _upstream_and_side_from_here(repo: Path) -> None:
    """`upstream` at main's tip, and `side` from there storing one outcome; main checked out."""
    git(repo, "branch", "upstream")
    git(repo, "checkout", "-q", "-b", "side")
    add_outcome(repo, "side record", "side")
    commit(repo, "side outcome")
    git(repo, "checkout", "-q", "main")


def _rebased_onto_upstream_saying(repo: Path, line: str) -> None:
    rebased = run_git(repo, "rebase", "upstream")
    assert rebased.returncode == 0, rebased.stderr
    assert line in rebased.stderr


def _error_side_and_upstream(repo: Path, fixed_first: str = "") -> str:
    """main stores an error (fix `retry`); `upstream`, from main, stores an outcome; main fixes
    the error to `fixed_first` when given; `side`, from main, stores an outcome. main checked
    out."""
    init_memory(repo, driver=True)
    error = add_error(repo, "disk full", "main")
    commit(repo, "store the error")
    git(repo, "checkout", "-q", "-b", "upstream")
    add_outcome(repo, "upstream record", "upstream")
    commit(repo, "upstream outcome")
    git(repo, "checkout", "-q", "main")
    if fixed_first:
        _fix(repo, error, fixed_first)
        commit(repo, fixed_first)
    git(repo, "checkout", "-q", "-b", "side")
    add_outcome(repo, "side record", "side")
    commit(repo, "side outcome")
    git(repo, "checkout", "-q", "main")
    return error


def test_a_fix_made_in_a_merge_commit_survives_a_rebase_that_drops_the_merge(
    repo: Path,
) -> None:
    """Seed 9302 of the simulation's --uncommitted-kinds, step 259: the rebase replayed the
    side's outcome alone, and the error was back at `retry`."""
    error = _error_side_and_upstream(repo)
    _merge_side_fixing(repo, error, "fix1")

    rebased = run_git(repo, "rebase", "upstream")

    assert rebased.returncode == 0, rebased.stderr
    assert (
        'E-001 set to the version the merge "merge side, fixing the error" made, '
        "which the rebase dropped" in rebased.stderr
    )
    assert rows(repo, "errors") == [("E-001", "main", "fix1")]
    assert rows(repo) == [
        ("O-001", "upstream", "upstream record"),
        ("O-002", "side", "side record"),
    ]
    assert _subjects(repo)[:4] == [REPAIRED, "side outcome", "upstream outcome", "store the error"]
    assert_healthy(repo)


def test_a_fix_the_branch_changed_before_its_merge_changed_it_again_survives_too(
    repo: Path,
) -> None:
    """The branch fixed the error (fix1), then started `side`, and its merge of side made fix2;
    the upstream still holds `retry`, as where they parted, which neither parent of the merge
    holds (seed 14007 of the simulation's --merge-change-kinds, step 205)."""
    error = _error_side_and_upstream(repo, fixed_first="fix1")
    _merge_side_fixing(repo, error, "fix2")

    rebased = run_git(repo, "rebase", "upstream")

    assert rebased.returncode == 0, rebased.stderr
    assert "which the rebase dropped" in rebased.stderr
    assert rows(repo, "errors") == [("E-001", "main", "fix2")]
    assert _subjects(repo)[:4] == [REPAIRED, "side outcome", "fix1", "upstream outcome"]
    assert_healthy(repo)


def test_a_record_the_upstream_changed_too_is_left_as_the_upstream_holds_it(repo: Path) -> None:
    """Both changed the fix: the upstream in a commit, the branch in its merge. Which is right
    is a person's to judge; the rebase's result, the upstream's, stands."""
    error = _error_side_and_upstream(repo)
    git(repo, "checkout", "-q", "upstream")
    _fix(repo, error, "fix2")
    commit(repo, "upstream fix")
    git(repo, "checkout", "-q", "main")
    _merge_side_fixing(repo, error, "fix1")

    rebased = run_git(repo, "rebase", "upstream")

    assert rebased.returncode == 0, rebased.stderr
    assert "which the rebase dropped" not in rebased.stderr
    assert rows(repo, "errors") == [("E-001", "main", "fix2")]
    assert _subjects(repo)[:2] == ["side outcome", "upstream fix"]
    assert_healthy(repo)


def test_a_merge_made_again_by_a_rebase_that_keeps_merges_gets_its_change_back(
    repo: Path,
) -> None:
    """`--rebase-merges` merges the merge's parents again, as git documents, without what the
    merge commit changed itself."""
    error = _error_side_and_upstream(repo)
    _merge_side_fixing(repo, error, "fix1")

    rebased = run_git(repo, "rebase", "--rebase-merges", "upstream")

    assert rebased.returncode == 0, rebased.stderr
    assert "which the rebase dropped" in rebased.stderr
    assert rows(repo, "errors") == [("E-001", "main", "fix1")]
    assert _subjects(repo)[:2] == [REPAIRED, "merge side, fixing the error"]
    assert_healthy(repo)


def test_a_merge_left_out_of_a_rebase_that_keeps_merges_takes_its_change_with_it(
    repo: Path,
) -> None:
    """The merge's line deleted from `--rebase-merges`' todo list: dropped on purpose."""
    error = _error_side_and_upstream(repo)
    _merge_side_fixing(repo, error, "fix1")
    drop = "sequence.editor=sed -i -e '/^merge /d'"

    rebased = run_git(repo, "-c", drop, "rebase", "-i", "--rebase-merges", "upstream")

    assert rebased.returncode == 0, rebased.stderr
    assert "which the rebase dropped" not in rebased.stderr
    assert "put back" not in rebased.stderr
    assert rows(repo, "errors") == [("E-001", "main", "retry")]
    assert rows(repo) == [("O-001", "upstream", "upstream record")]
    assert _subjects(repo)[:2] == ["upstream outcome", "store the error"]
    assert_healthy(repo)


def test_a_record_forgotten_in_a_merge_commit_stays_archived_after_a_rebase_that_drops_it(
    repo: Path,
) -> None:
    """The merge forgot alpha itself: replayed without it, alpha was live again."""
    _error_side_and_upstream(repo)
    add_outcome(repo, "alpha", "main")
    commit(repo, "store alpha")
    _merge_side_changing(
        repo, lambda: forget(memory_of(repo), "O-001"), "merge side, forgetting alpha"
    )

    _rebased_onto_upstream_saying(
        repo,
        'O-002 archived again, as the merge "merge side, forgetting alpha" left it, '
        "which the rebase dropped",
    )
    assert rows(repo) == [
        ("O-001", "upstream", "upstream record"),
        ("O-003", "side", "side record"),
    ]
    assert _table_lines(text_of(repo, "ARCHIVE.md")) == OUTCOMES_HEADER + ALPHA
    assert _subjects(repo)[:3] == [REPAIRED, "side outcome", "store alpha"]
    assert_healthy(repo)


@pytest.mark.parametrize(
    ("fix", "resolved", "subjects"),
    [
        # Set back: git drops that commit, which changes nothing once the merge is gone.
        ("retry", "false", ["side outcome", "upstream outcome", "store the error"]),
        # Fixed again: replayed onto `retry`, the step's base is the merge's fix1, so by base
        # alone both sides changed it; the branch's merge itself replaced `retry`, so the
        # branch saw it, and fix3 is the later version.
        ("fix3", "true", ["fix again", "side outcome", "upstream outcome"]),
    ],
)
def test_a_record_changed_again_after_the_merge_keeps_the_branch_s_last_version(
    repo: Path, fix: str, resolved: str, subjects: list[str]
) -> None:
    """A commit after the merge changed the fix again: the branch's last word, which the
    rebase replays, is not the merge's version."""
    error = _error_side_and_upstream(repo)
    _merge_side_fixing(repo, error, "fix1")
    writing.update(memory_of(repo), ERROR_FIX, error, {"fix": fix, "resolved": resolved})
    commit(repo, "fix again")

    rebased = run_git(repo, "rebase", "upstream")

    assert rebased.returncode == 0, rebased.stderr
    assert "which the rebase dropped" not in rebased.stderr
    assert rows(repo, "errors") == [("E-001", "main", fix)]
    assert _subjects(repo)[:3] == subjects
    assert_healthy(repo)


def test_a_fix_changed_after_merging_a_branch_older_than_the_error_keeps_its_last_version(
    repo: Path,
) -> None:
    """`side` parted before the error was stored, so the merge's parents are main (`retry`) and
    a branch that holds no version of it; the merge made fix1 and a later commit fix2. Replayed
    onto `retry`, that commit's base is fix1: the merge replaced `retry` itself, so fix2 is the
    later version (seed 15007 of the simulation's --merge-change-kinds, step 205, a `pull
    --rebase` that stopped, and `doctor --fix` kept `retry`)."""
    init_memory(repo, driver=True)
    _upstream_and_side_from_here(repo)
    error = add_error(repo, "disk full", "main")
    commit(repo, "store the error")
    _merge_side_fixing(repo, error, "fix1")
    _fix(repo, error, "fix2")
    commit(repo, "fix again")

    rebased = run_git(repo, "rebase", "upstream")

    assert rebased.returncode == 0, rebased.stderr
    assert "conflict" not in rebased.stderr
    assert rows(repo, "errors") == [("E-001", "main", "fix2")]
    assert rows(repo) == [("O-001", "side", "side record")]
    assert _subjects(repo)[:4] == ["fix again", "side outcome", "store the error", "memory"]
    assert_healthy(repo)


def test_only_a_merge_that_replaced_the_version_itself_is_said_to_have_replaced_it(
    repo: Path,
) -> None:
    """A merge that brings a branch's fix replaced nothing itself: the branch's commit did."""
    from legion_memory.gitops.merge_own_changes import replaced_by_own_merge
    from legion_memory.schema.identity import history_text

    error = _error_side_and_upstream(repo)
    start = git(repo, "rev-parse", "HEAD").strip()
    path = memory_of(repo).path(ERROR_FIX)
    retry = history_text(path.read_text(encoding="utf-8").splitlines()[-1], ERROR_COLUMNS)
    git(repo, "checkout", "-q", "-b", "fixer", "side")
    _fix(repo, error, "fix2")
    commit(repo, "fixer's fix")
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--no-ff", "--no-edit", "fixer")
    plain = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "reset", "-q", "--hard", start)
    _merge_side_fixing(repo, error, "fix1")
    own = git(repo, "rev-parse", "HEAD").strip()

    assert retry == "| 2026-03-02 | main | disk full | retry | coder | false | git |"
    assert not replaced_by_own_merge(repo, start, plain, path, retry)
    assert replaced_by_own_merge(repo, start, own, path, retry)


def test_a_record_restored_in_a_merge_commit_stays_live_after_a_rebase_that_drops_it(
    repo: Path,
) -> None:
    """main forgot alpha after `side` started, and restored it in its merge of side: the merge
    holds alpha as side does, and as where the two parted, yet the merge undid main's forget
    itself, which a merge of the two would have kept. Replayed without the merge, alpha was
    archived again (seed 16004 of the simulation's --merge-change-kinds, wall clock, step 148,
    a `pull --rebase` after the merge of step 134)."""
    init_memory(repo, driver=True)
    add_outcome(repo, "alpha", "main")
    commit(repo, "store alpha")
    _upstream_and_side_from_here(repo)
    forget(memory_of(repo), "O-001")
    commit(repo, "forget alpha")
    _merge_side_changing(
        repo, lambda: restore(memory_of(repo), "O-001"), "merge side, restoring alpha"
    )

    _rebased_onto_upstream_saying(
        repo,
        'O-001 restored again, as the merge "merge side, restoring alpha" left it, '
        "which the rebase dropped",
    )
    assert rows(repo) == [("O-001", "main", "alpha"), ("O-002", "side", "side record")]
    assert _table_lines(text_of(repo, "ARCHIVE.md")) == OUTCOMES_HEADER
    assert _subjects(repo)[:4] == [REPAIRED, "side outcome", "forget alpha", "store alpha"]
    assert_healthy(repo)


@pytest.mark.parametrize("main_ahead", [False, True], ids=["onto-the-side", "main-s-own-reused"])
def test_a_fix_made_in_a_merge_survives_a_rebase_with_nothing_to_replay(
    repo: Path, main_ahead: bool
) -> None:
    """main merged `side` with `--no-ff --no-commit` and fixed the error in the merge, and the
    upstream holds every other commit of main's: `side` itself, or main's own outcome, which
    stands on the upstream so that git reuses it, and side's after it. The rebase has nothing
    to replay: git writes no commit and runs no post-rewrite hook of its own, and the fix went
    with the merge (seed 16064 of the simulation's --merge-change-kinds, step 202: `git pull
    --rebase`, "returning to refs/heads/main")."""
    init_memory(repo, driver=True)
    error = add_error(repo, "disk full", "main")
    commit(repo, "store the error")
    if main_ahead:
        add_outcome(repo, "main record", "main")
        commit(repo, "main outcome")
    _upstream_and_side_from_here(repo)
    _merge_side_fixing(repo, error, "fix1")
    if main_ahead:
        git(repo, "branch", "-f", "upstream", "main~2")
    else:
        git(repo, "branch", "-f", "upstream", "side")

    _rebased_onto_upstream_saying(
        repo,
        'E-001 set to the version the merge "merge side, fixing the error" made, '
        "which the rebase dropped",
    )
    assert rows(repo, "errors") == [("E-001", "main", "fix1")]
    held = [("O-001", "main", "main record")] if main_ahead else []
    assert rows(repo) == [*held, (f"O-00{len(held) + 1}", "side", "side record")]
    ours = ["main outcome"] if main_ahead else []
    assert _subjects(repo)[: 3 + len(ours)] == [
        REPAIRED,
        "side outcome",
        *ours,
        "store the error",
    ]
    assert git(repo, "status", "--porcelain") == ""
    assert_healthy(repo)

"""Octopus merges of memory, by real git: through the strategy `git install` names, each branch
merged by the driver in turn; and by git's own octopus strategy, which never calls a driver."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.gitrepos import (
    add_error,
    add_outcome,
    add_pattern,
    assert_healthy,
    commit,
    fix_error,
    init_memory,
    memory_of,
    rows,
    run_git,
    sources,
    text_of,
)
from support.processes import CLI, git, read_bytes_of, run_process

from legion_memory.schema.kinds import ERROR_FIX, new_record
from legion_memory.schema.records import Record
from legion_memory.storage import writing
from legion_memory.upkeep.forgetting import forget, restore

GITS_OWN = ("-s", "octopus")
"""Git's octopus strategy, as in a clone where the strategy's program is not on PATH."""


def _storing_branches(repo: Path, *branches: str) -> None:
    """Branches off main, each storing an outcome named after it; main checked out."""
    init_memory(repo, driver=True)
    for branch in branches:
        git(repo, "checkout", "-q", "-b", branch, "main")
        add_outcome(repo, branch, branch)
        commit(repo, branch)
    git(repo, "checkout", "-q", "main")


def _alpha_on_main(repo: Path) -> None:
    init_memory(repo, driver=True)
    add_outcome(repo, "alpha", "main")
    commit(repo, "store alpha")


def _forgotten_and_restored(repo: Path, forgot: str = "forget alpha") -> None:
    """On the branch checked out: alpha (O-001) forgotten, then restored, a commit each."""
    forget(memory_of(repo), "O-001")
    commit(repo, forgot)
    restore(memory_of(repo), "O-001")
    commit(repo, "restore alpha")


def _parents(repo: Path) -> list[str]:
    return git(repo, "log", "-1", "--format=%P").split()


def _tip(repo: Path, rev: str) -> str:
    return git(repo, "rev-parse", rev).strip()


def test_install_names_the_strategy_for_octopus_merges_and_uninstall_removes_it(
    cli: CLI, repo: Path
) -> None:
    assert "set git config pull.octopus legion-memory" in cli("git", "install", cwd=repo).stdout
    assert git(repo, "config", "--get", "pull.octopus") == "legion-memory\n"
    assert (
        "removed git config pull.octopus" in cli("git", "install", "--uninstall", cwd=repo).stdout
    )
    assert run_git(repo, "config", "--get", "pull.octopus").returncode == 1


def test_install_keeps_an_octopus_strategy_of_the_clone_s_own(cli: CLI, repo: Path) -> None:
    git(repo, "config", "pull.octopus", "resolve")
    assert "pull.octopus" not in cli("git", "install", cwd=repo).stdout
    cli("git", "install", "--uninstall", cwd=repo)
    assert git(repo, "config", "--get", "pull.octopus") == "resolve\n"


def test_install_leaves_git_s_octopus_where_the_strategy_is_not_on_path(
    cli: CLI, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Naming a strategy git cannot start would make every octopus merge fail."""
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    assert "pull.octopus" not in cli("git", "install", cwd=repo).stdout
    assert run_git(repo, "config", "--get", "pull.octopus").returncode == 1


def test_an_octopus_merge_of_storing_branches_merges_each_through_the_driver(repo: Path) -> None:
    _storing_branches(repo, "one", "two")
    add_outcome(repo, "main", "main")
    commit(repo, "main")
    before = _tip(repo, "HEAD")
    done = run_git(repo, "merge", "--no-edit", "one", "two")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Merge made by the 'legion-memory' strategy." in done.stdout
    assert _parents(repo) == [before, _tip(repo, "one"), _tip(repo, "two")]
    # Each side stored O-001: main keeps it, the branches' arrive renumbered in merge order.
    assert rows(repo) == [
        ("O-001", "main", "main"),
        ("O-002", "one", "one"),
        ("O-003", "two", "two"),
    ]
    assert git(repo, "status", "--porcelain") == ""
    assert_healthy(repo)


def test_an_octopus_merge_that_fast_forwards_to_its_first_branch_merges_the_next(
    repo: Path,
) -> None:
    _storing_branches(repo, "one", "two")
    done = run_git(repo, "merge", "--no-edit", "one", "two")
    assert done.returncode == 0, done.stdout + done.stderr
    assert _parents(repo) == [_tip(repo, "one"), _tip(repo, "two")]
    assert rows(repo) == [("O-001", "one", "one"), ("O-002", "two", "two")]
    assert git(repo, "status", "--porcelain") == ""
    assert_healthy(repo)


def test_patterns_of_an_octopus_merge_cite_the_outcomes_they_meant(repo: Path) -> None:
    init_memory(repo, driver=True)
    for branch in ("one", "two", "three"):
        git(repo, "checkout", "-q", "-b", branch, "main")
        outcome = add_outcome(repo, f"{branch} outcome", branch)
        add_pattern(repo, f"{branch} pattern", outcome, branch)
        commit(repo, branch)
    git(repo, "checkout", "-q", "main")
    add_outcome(repo, "main outcome", "main")
    commit(repo, "main")
    done = run_git(repo, "merge", "--no-edit", "one", "two", "three")
    assert done.returncode == 0, done.stdout + done.stderr
    cited = {summary: record for record, _, summary in rows(repo)}
    assert sources(repo) == {
        f"{branch} pattern": cited[f"{branch} outcome"] for branch in ("one", "two", "three")
    }
    assert git(repo, "status", "--porcelain") == ""
    assert_healthy(repo)


def _fix_conflict(repo: Path) -> None:
    """Branches `one` and `two` give one error fix two different fixes; `three` stores."""
    init_memory(repo, driver=True)
    writing.append(memory_of(repo), _error())
    commit(repo, "error")
    for branch, fix in (("one", "restart the runner"), ("two", "pin the version")):
        git(repo, "checkout", "-q", "-b", branch, "main")
        writing.update(memory_of(repo), ERROR_FIX, "E-001", {"fix": fix})
        commit(repo, branch)
    git(repo, "checkout", "-q", "-b", "three", "main")
    add_outcome(repo, "three", "three")
    commit(repo, "three")
    git(repo, "checkout", "-q", "main")
    add_outcome(repo, "main", "main")
    commit(repo, "main")


def _error() -> Record:
    values = {"date": "2026-03-02", "branch": "main", "error_signature": "runner hangs",
              "fix": "retry", "agent": "coder", "resolved": "false", "tags": "ci"}  # fmt: skip
    return new_record(ERROR_FIX, values)


def test_a_conflict_before_the_last_branch_changes_nothing_and_says_merge_one_at_a_time(
    repo: Path,
) -> None:
    _fix_conflict(repo)
    before = read_bytes_of(repo)
    done = run_git(repo, "merge", "--no-edit", "one", "two", "three")
    assert done.returncode == 2
    assert (
        "legion-memory: the octopus merge stopped at a conflict with two, before its last "
        "branch, and changed nothing: merge one branch at a time (git merge one; git merge "
        "two; git merge three)\n"
    ) in done.stderr
    assert "Merge with strategy legion-memory failed." in done.stderr
    assert (git(repo, "status", "--porcelain"), read_bytes_of(repo)) == ("", before)


def test_a_conflict_in_the_last_branch_is_left_to_resolve_as_git_s_octopus_leaves_it(
    repo: Path,
) -> None:
    _fix_conflict(repo)
    done = run_git(repo, "merge", "--no-edit", "three", "one", "two")
    assert done.returncode == 1
    assert "Automatic merge failed; fix conflicts and then commit the result." in done.stdout
    outcomes = [summary for _, _, summary in rows(repo)]
    assert outcomes == ["main", "three"]
    errors = text_of(repo, "ERRORS.md")
    assert "restart the runner" in errors and "pin the version" in errors
    assert errors.count("<<<<<<<") == 1
    merging = (repo / ".git" / "MERGE_HEAD").read_text(encoding="utf-8").split()
    assert merging == [_tip(repo, branch) for branch in ("three", "one", "two")]


def test_git_s_own_octopus_refuses_storing_branches_cleanly_and_one_at_a_time_works(
    repo: Path,
) -> None:
    """Git's octopus strategy never calls a merge driver: it stops, changing nothing."""
    _storing_branches(repo, "one", "two")
    add_outcome(repo, "main", "main")
    commit(repo, "main")
    before = text_of(repo, "OUTCOMES.md")
    done = run_git(repo, "merge", *GITS_OWN, "--no-edit", "one", "two")
    assert done.returncode != 0
    assert "Merge with strategy octopus failed." in done.stderr
    assert (git(repo, "status", "--porcelain"), text_of(repo, "OUTCOMES.md")) == ("", before)
    for branch in ("one", "two"):
        assert run_git(repo, "merge", "--no-edit", branch).returncode == 0
    assert sorted(summary for _, _, summary in rows(repo)) == ["main", "one", "two"]
    assert len({record_id for record_id, _, _ in rows(repo)}) == 3
    assert_healthy(repo)


def test_markers_git_s_own_octopus_leaves_say_to_merge_one_branch_at_a_time(repo: Path) -> None:
    """When main fast-forwards to the first branch, git's octopus strategy merges the second
    as text and stops with markers; doctor and validate (the pre-commit check) say why, and --fix
    keeps both sides."""
    _storing_branches(repo, "one", "two")
    assert run_git(repo, "merge", *GITS_OWN, "--no-edit", "one", "two").returncode != 0
    found = run_process("doctor", cwd=repo)
    assert found.stdout.splitlines()[0] == (
        ".planning/memory/OUTCOMES.md:10: git conflict markers (--fix keeps both sides; git's "
        "octopus merge never calls the merge driver: merge one branch at a time)"
    )
    checked = run_process("validate", cwd=repo)
    assert checked.code == 1
    assert checked.stdout.splitlines()[0] == (
        ".planning/memory/OUTCOMES.md:10: error: git conflict marker (run `legion-memory doctor "
        "--fix`; git's octopus merge never calls the merge driver: merge one branch at a time)"
    )
    assert run_process("doctor", "--fix", "--quiet", cwd=repo).code == 0
    git(repo, "commit", "-q", "-a", "--no-edit")
    assert sorted(summary for _, _, summary in rows(repo)) == ["one", "two"]
    assert_healthy(repo)


def test_a_commit_concluding_git_s_own_octopus_with_markers_is_repaired_by_the_hook(
    repo: Path,
) -> None:
    """A user who commits the stopped octopus merge as it is (no pre-commit check installed)
    gets the markers resolved by the post-commit hook, committed as a commit of its own."""
    _storing_branches(repo, "one", "two")
    assert run_git(repo, "merge", *GITS_OWN, "--no-edit", "one", "two").returncode != 0
    git(repo, "add", "-A")
    done = run_git(repo, "commit", "-q", "--no-edit")
    assert done.returncode == 0
    assert "committed the repair of .planning/memory as its own commit" in done.stderr
    subjects = git(repo, "log", "--format=%s", "-2").splitlines()
    assert subjects[0].startswith("Repair .planning/memory after post-commit")
    # The merge commit: main had fast-forwarded to `one`, so its parents are `one` and `two`.
    parents = git(repo, "log", "-1", "--format=%P", "HEAD~1").split()
    assert parents == [_tip(repo, branch) for branch in ("one", "two")]
    assert sorted(summary for _, _, summary in rows(repo)) == ["one", "two"]
    assert len({record_id for record_id, _, _ in rows(repo)}) == 2
    assert_healthy(repo)


def test_an_octopus_merge_fast_forwarding_to_a_branch_that_picked_a_forget_keeps_the_restore(
    repo: Path,
) -> None:
    """`two` forgets and restores alpha (and stores and forgets gamma), `one` picks that forget;
    main, behind both, merges one and two: git fast-forwards to `one`, so the merge's parents
    are the two branches, and two's restore is the later state."""
    _alpha_on_main(repo)
    git(repo, "checkout", "-q", "-b", "two")
    _forgotten_and_restored(repo)
    gamma = add_outcome(repo, "gamma", "two")
    forget(memory_of(repo), gamma)
    commit(repo, "store and forget gamma")
    git(repo, "checkout", "-q", "-b", "one", "main")
    add_outcome(repo, "beta", "one")
    commit(repo, "store beta")
    assert run_git(repo, "cherry-pick", "two~2").returncode == 0
    git(repo, "checkout", "-q", "main")
    done = run_git(repo, "merge", "--no-edit", "one", "two")
    assert done.returncode == 0, done.stdout + done.stderr
    assert _parents(repo) == [_tip(repo, branch) for branch in ("one", "two")]
    assert rows(repo) == [("O-001", "main", "alpha"), ("O-002", "one", "beta")]
    archived = [line for line in text_of(repo, "ARCHIVE.md").splitlines() if "| O-" in line]
    assert [line.rstrip(" |").split(" | ")[-1] for line in archived] == ["gamma"]
    assert git(repo, "status", "--porcelain") == ""
    assert_healthy(repo)


def test_a_later_branch_whose_files_ended_as_base_is_weighed_in_its_own_step(
    repo: Path,
) -> None:
    """`one` forgets alpha; `two` forgets and restores it, so its memory files end as base had
    them and git's second step takes the first step's whole. No hook sees that step's sides:
    the strategy has doctor weigh them, and two's restore (two moves to one's one) wins."""
    _alpha_on_main(repo)
    git(repo, "checkout", "-q", "-b", "one")
    forget(memory_of(repo), "O-001")
    commit(repo, "forget alpha")
    git(repo, "checkout", "-q", "-b", "two", "main")
    _forgotten_and_restored(repo, "forget alpha too")
    git(repo, "checkout", "-q", "main")
    add_outcome(repo, "beta", "main")
    commit(repo, "store beta")
    done = run_git(repo, "merge", "--no-edit", "one", "two")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "O-001 made live again, its later state" in done.stdout + done.stderr
    assert len(_parents(repo)) == 3
    assert rows(repo) == [("O-001", "main", "alpha"), ("O-002", "main", "beta")]
    assert "| O-" not in text_of(repo, "ARCHIVE.md")
    assert git(repo, "status", "--porcelain") == ""
    assert_healthy(repo)


def test_an_octopus_merge_keeps_a_forget_its_third_branch_made_after_the_others_moves(
    repo: Path,
) -> None:
    """`one` forgets, restores and forgets alpha again; main merged it at the restore; `picker`
    picked the first forget. Merging picker and one into main: the first step restores alpha
    (main's restore is later than picker's copy of the forget), the second archives it again
    (one's second forget is later still). The post-merge hook weighs the merge's every parent:
    weighed by main and picker alone, alpha was made live again (seed 4015)."""
    _alpha_on_main(repo)
    git(repo, "checkout", "-q", "-b", "one")
    _forgotten_and_restored(repo)
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--ff-only", "one")
    add_outcome(repo, "beta", "main")
    commit(repo, "store beta")
    git(repo, "checkout", "-q", "one")
    forget(memory_of(repo), "O-001")
    commit(repo, "forget alpha again")
    git(repo, "checkout", "-q", "-b", "picker", "main~3")
    add_outcome(repo, "gamma", "picker")
    commit(repo, "store gamma")
    assert run_git(repo, "cherry-pick", "one~2").returncode == 0
    git(repo, "checkout", "-q", "main")
    sides = [_tip(repo, branch) for branch in ("main", "picker", "one")]

    done = run_git(repo, "merge", "--no-edit", "picker", "one")

    assert done.returncode == 0, done.stdout + done.stderr
    assert rows(repo) == [("O-002", "main", "beta"), ("O-003", "picker", "gamma")]
    archived = [line for line in text_of(repo, "ARCHIVE.md").splitlines() if "| O-" in line]
    assert archived == [
        "| O-001 | 2026-03-02 | main | 1 | 01-01 | coder | workflow | success | 2 | git | alpha |"
    ]
    assert _parents(repo) == sides  # no repair commit on top
    assert git(repo, "status", "--porcelain") == ""
    assert_healthy(repo)


def test_a_stale_fix_arriving_in_a_later_step_leaves_the_archived_error_as_main_fixed_it(
    repo: Path,
) -> None:
    """`old` stores an error and fixes it (fix3); main picks both, fixes it again (fix4) and
    forgets it; `two` left main before the forget. Merging two and old into main: the second
    step brings old's fix3 back live, and old's outcomes end as base had them, so the strategy
    has doctor weigh the step. The sides it weighs are the ones the strategy names: main's
    history replaced fix3, so the archived row keeps fix4 (seed 9015 of the collaboration
    simulation's `--uncommitted-kinds`, where it took the stale fix)."""
    init_memory(repo, driver=True)
    git(repo, "checkout", "-q", "-b", "old")
    error = add_error(repo, "disk full", "old")
    commit(repo, "store the error")
    fix_error(repo, error, "fix3")
    add_outcome(repo, "gone", "old")
    commit(repo, "store gone")
    forget(memory_of(repo), "O-001")
    commit(repo, "forget gone")
    git(repo, "checkout", "-q", "main")
    add_outcome(repo, "alpha", "main")
    commit(repo, "store alpha")
    assert run_git(repo, "cherry-pick", "old~3", "old~2").returncode == 0
    fix_error(repo, error, "fix4")
    git(repo, "checkout", "-q", "-b", "two")
    add_outcome(repo, "beta", "two")
    commit(repo, "store beta")
    git(repo, "checkout", "-q", "main")
    forget(memory_of(repo), error)
    commit(repo, "forget the error")

    done = run_git(repo, "merge", "--no-edit", "two", "old")

    assert done.returncode == 0, done.stdout + done.stderr
    assert len(_parents(repo)) == 3
    assert "disk full" not in text_of(repo, "ERRORS.md")
    archived = [line for line in text_of(repo, "ARCHIVE.md").splitlines() if "| E-" in line]
    assert archived == ["| E-001 | 2026-03-02 | old | disk full | fix4 | coder | true | git |"]
    assert git(repo, "status", "--porcelain") == ""
    assert_healthy(repo)

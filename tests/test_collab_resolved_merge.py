"""Real-git reproductions of a stopped merge concluded by taking one side's whole memory file
(`git checkout --ours` / `--theirs`, a client's "use mine" / "use theirs"): the records only the
other side added come back, the row the two sides really changed differently stays as chosen
(docs/decisions.md#nothing-lost)."""

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
    text_of,
)
from support.processes import git

pytestmark = pytest.mark.slow

OUTCOMES = ".planning/memory/OUTCOMES.md"
REPAIR = "Repair .planning/memory after post-commit (legion-memory doctor --fix)"


def _edit_first_outcome(repo: Path, words: str) -> None:
    path = repo / OUTCOMES
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("| shared |", f"| shared {words} |"), encoding="utf-8")


def _merge_stopped_on_one_row(repo: Path, *how: str, main_date: str = "2026-03-03") -> None:
    """Both sides store an outcome of their own and edit the shared one differently by hand,
    main a pattern citing its outcome too: the driver merges the new rows and stops on the
    shared one, the one real conflict. `how`: options of the merge (`--squash`); `main_date`:
    the date of main's outcome (before feature's, main's keeps its number in the merge)."""
    init_memory(repo, driver=True)
    add_outcome(repo, "shared", "main", date="2026-03-01")
    commit(repo, "shared")
    git(repo, "checkout", "-q", "-b", "feature")
    add_outcome(repo, "feature one", "feature")
    _edit_first_outcome(repo, "as feature says")
    commit(repo, "feature")
    git(repo, "checkout", "-q", "main")
    cited = add_outcome(repo, "main one", "main", date=main_date)
    add_pattern(repo, "cites main one", cited, "main")
    _edit_first_outcome(repo, "as main says")
    commit(repo, "main")
    merged = run_git(repo, "merge", "--no-edit", *how, "feature")
    assert merged.returncode == 1
    assert "conflict: row O-001 changed differently on both sides" in merged.stderr


def _conclude_with(repo: Path, side: str) -> str:
    """Take `side`'s whole OUTCOMES.md, add the memory directory (as the hooks' hints say) and
    commit the merge; what the hooks said."""
    git(repo, "checkout", f"--{side}", OUTCOMES)
    git(repo, "add", ".planning/memory")
    concluded = run_git(repo, "commit", "--no-edit")
    assert concluded.returncode == 0, concluded.stderr
    return concluded.stderr


def _repairs(holder: str, *, followed: bool = False) -> str:
    """What the hooks say of the repair: the outcome only `holder` added put back as O-003,
    main's pattern following main's outcome there when `followed`."""
    follows = "repaired .planning/memory/PATTERNS.md:10: P-001 Source O-002 -> O-003\n"
    return (
        f"repaired {OUTCOMES}: put back O-003 (live, as {holder} holds it)\n"
        + (follows if followed else "")
        + "legion-memory: committed the repair of .planning/memory as its own commit\n"
    )


def _assert_theirs_taken_and_main_s_outcome_back(repo: Path) -> None:
    """feature's version of the shared row and its outcome under O-002, main's outcome back as
    O-003 with main's pattern citing it."""
    assert rows(repo) == [
        ("O-001", "main", "shared as feature says"),
        ("O-002", "feature", "feature one"),
        ("O-003", "main", "main one"),
    ]
    assert sources(repo) == {"cites main one": "O-003"}
    assert_healthy(repo)


def test_taking_theirs_whole_puts_back_the_record_only_ours_added(repo: Path) -> None:
    _merge_stopped_on_one_row(repo)

    said = _conclude_with(repo, "theirs")

    assert said == _repairs("ours", followed=True)
    assert git(repo, "log", "-2", "--format=%s").splitlines() == [REPAIR, "Merge branch 'feature'"]
    _assert_theirs_taken_and_main_s_outcome_back(repo)


def test_taking_ours_whole_puts_back_the_record_only_theirs_added(repo: Path) -> None:
    _merge_stopped_on_one_row(repo)

    said = _conclude_with(repo, "ours")

    assert said == _repairs("theirs")
    assert rows(repo) == [
        ("O-001", "main", "shared as main says"),
        ("O-002", "main", "main one"),
        ("O-003", "feature", "feature one"),
    ]
    assert sources(repo) == {"cites main one": "O-002"}
    assert_healthy(repo)


def test_a_squash_resolved_by_taking_theirs_whole_puts_back_the_record_only_ours_added(
    repo: Path,
) -> None:
    """`merge --squash` stopped the same way (its post-merge hook runs anyway: it kept both
    versions of the shared row and had main's pattern follow main's renumbered outcome, beside
    the conflict) and concluded by a plain `git commit` of git's own squash message: the hook
    knows it by that message and names its sides, main before it and the newest commit the
    message lists."""
    _merge_stopped_on_one_row(repo, "--squash")

    said = _conclude_with(repo, "theirs")

    assert said == _repairs("ours")
    subjects = git(repo, "log", "-2", "--format=%s").splitlines()
    assert subjects == [REPAIR, "Squashed commit of the following:"]
    _assert_theirs_taken_and_main_s_outcome_back(repo)


def test_a_squash_resolved_by_taking_theirs_whole_has_main_s_pattern_follow_its_record(
    repo: Path,
) -> None:
    """main's outcome sorts first, so the squash's merge keeps its number (O-002) and gives
    feature's the next; taking feature's whole file puts feature's outcome under O-002. main's
    outcome is put back as O-003, and main's pattern, which still cites O-002, follows it: the
    squash's sides say what it meant."""
    _merge_stopped_on_one_row(repo, "--squash", main_date="2026-03-01")

    said = _conclude_with(repo, "theirs")

    assert said == _repairs("ours", followed=True)
    _assert_theirs_taken_and_main_s_outcome_back(repo)


def test_a_merge_that_keeps_ours_by_strategy_brings_nothing_back(repo: Path) -> None:
    """`merge -s ours` keeps ours's whole tree on purpose: the branch's records are not brought
    in (committed at once, it runs the post-merge hook, which weighs no dropped record)."""
    _merge_stopped_on_one_row(repo)
    git(repo, "merge", "--abort")
    before = text_of(repo, "OUTCOMES.md")

    merged = run_git(repo, "merge", "-s", "ours", "--no-edit", "feature")

    assert merged.returncode == 0, merged.stderr
    assert merged.stderr == ""
    assert git(repo, "log", "-1", "--format=%s").strip() == "Merge branch 'feature'"
    assert text_of(repo, "OUTCOMES.md") == before
    assert_healthy(repo)


def test_a_rebase_resolved_by_taking_the_upstream_s_file_keeps_only_the_branch_s_new_record(
    repo: Path,
) -> None:
    """The same two sides, feature rebased onto main instead: the replay stops on the shared
    row, and taking the upstream's whole file (`--ours` in a rebase) drops feature's new record.
    It is put back; feature's edit of the shared row, which the user chose against, is not put
    back beside it as a record of its own."""
    _merge_stopped_on_one_row(repo)
    git(repo, "merge", "--abort")
    git(repo, "checkout", "-q", "feature")
    assert run_git(repo, "rebase", "main").returncode == 1
    git(repo, "checkout", "--ours", OUTCOMES)
    git(repo, "add", OUTCOMES)

    continued = run_git(repo, "-c", "core.editor=true", "rebase", "--continue")

    assert continued.returncode == 0, continued.stderr
    assert (
        f"repaired {OUTCOMES}: put back O-003 (live, as the branch before the rebase holds it)\n"
        in continued.stderr
    )
    assert rows(repo) == [
        ("O-001", "main", "shared as main says"),
        ("O-002", "main", "main one"),
        ("O-003", "feature", "feature one"),
    ]
    assert sources(repo) == {"cites main one": "O-002"}
    assert_healthy(repo)

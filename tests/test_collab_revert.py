"""Real-git reproductions of `git revert` undoing an integration that renumbered records."""

from __future__ import annotations

from pathlib import Path

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

REPAIR = "Repair .planning/memory after post-commit (legion-memory doctor --fix)"


def _merged_then_cited(repo: Path, notes: str = "") -> str:
    """main's outcome renumbered by a merge of feature's (feature sorts first), then a pattern
    citing each outcome by its merged number; returns the merge commit. With `notes`, feature
    adds a file `notes.txt` and main's pattern commit changes it to `notes`."""
    init_memory(repo, driver=True)
    git(repo, "checkout", "-q", "-b", "feature")
    add_outcome(repo, "feature one", "feature")
    if notes:
        (repo / "notes.txt").write_text("feature\n", encoding="utf-8")
    commit(repo, "feature store")
    git(repo, "checkout", "-q", "main")
    add_outcome(repo, "main one", "main")
    commit(repo, "main store")
    git(repo, "merge", "-q", "--no-edit", "feature")
    merge = git(repo, "rev-parse", "HEAD").strip()
    assert rows(repo) == [("O-001", "feature", "feature one"), ("O-002", "main", "main one")]
    add_pattern(repo, "cites main", "O-002", "main")
    add_pattern(repo, "cites feature", "O-001", "main")
    if notes:
        (repo / "notes.txt").write_text(notes, encoding="utf-8")
    commit(repo, "patterns")
    return merge


def _assert_merge_undone(repo: Path) -> None:
    """main's outcome under its number from before the merge, the pattern citing it following
    it, and the one citing feature's outcome, which the revert removed, describing it."""
    assert rows(repo) == [("O-001", "main", "main one")]
    assert sources(repo) == {
        "cites main": "O-001",
        "cites feature": 'outcome "feature one" (feature, 2026-03-02)',
    }
    assert_healthy(repo)


def test_reverting_a_merge_leaves_each_pattern_citing_what_it_meant(repo: Path) -> None:
    """The revert takes main's outcome back to the number it had before the merge (O-001, which
    feature's outcome held until now): the pattern citing it follows, and the pattern citing
    feature's outcome, which the revert removed, describes it instead of citing main's."""
    merge = _merged_then_cited(repo)
    git(repo, "revert", "-m", "1", "--no-edit", merge)
    _assert_merge_undone(repo)


def test_reverting_the_revert_cites_the_merged_numbers_again(repo: Path) -> None:
    """The revert's references are repaired in a commit of their own; reverting the revert
    brings feature's outcome back under the merge's numbers, and both patterns cite their
    outcomes by them again (the description becomes an ID once its outcome is here)."""
    merge = _merged_then_cited(repo)
    git(repo, "revert", "-m", "1", "--no-edit", merge)
    subjects = git(repo, "log", "--format=%s", "-3").splitlines()
    assert subjects == [REPAIR, "Revert \"Merge branch 'feature'\"", "patterns"]
    git(repo, "revert", "--no-edit", "HEAD^")
    assert rows(repo) == [("O-001", "feature", "feature one"), ("O-002", "main", "main one")]
    assert sources(repo) == {"cites main": "O-002", "cites feature": "O-001"}
    assert_healthy(repo)


def test_a_revert_concluded_after_it_stopped_is_repaired_as_one_made_at_once(repo: Path) -> None:
    """A revert that stopped at another file's conflict is concluded by `git revert --continue`,
    whose commit git logs as a plain one: its message says it is a revert, and the references
    follow all the same."""
    merge = _merged_then_cited(repo, notes="main\n")
    assert run_git(repo, "revert", "-m", "1", "--no-edit", merge).returncode == 1
    (repo / "notes.txt").unlink()
    git(repo, "rm", "-q", "notes.txt")
    git(repo, "-c", "core.editor=true", "revert", "--continue")
    assert git(repo, "log", "-g", "-2", "--format=%gs").splitlines() == [
        REPAIR,
        "commit: Revert \"Merge branch 'feature'\"",
    ]
    _assert_merge_undone(repo)


def test_a_sequence_of_reverts_is_repaired_by_its_last(repo: Path) -> None:
    """Reverting the patterns' commit and the merge in one command: the last revert's hook
    follows the references by the branch before the first; the sequence notes no picks."""
    merge = _merged_then_cited(repo)
    add_pattern(repo, "cites main again", "O-002", "main")
    commit(repo, "another pattern")
    git(repo, "revert", "--no-edit", "HEAD", merge, "-m", "1")
    subjects = git(repo, "log", "--format=%s", "-3").splitlines()
    assert subjects[0] == REPAIR
    assert rows(repo) == [("O-001", "main", "main one")]
    assert sources(repo) == {
        "cites main": "O-001",
        "cites feature": 'outcome "feature one" (feature, 2026-03-02)',
    }
    assert not (repo / ".git" / "legion-memory-pick-sequence").exists()
    assert_healthy(repo)


def test_reverting_a_source_edited_by_hand_keeps_what_the_revert_wrote(repo: Path) -> None:
    """A commit pointed a pattern at another outcome by hand; reverting it points the pattern
    back. Before the revert the pattern meant the second outcome, in the commit it returned to
    the first: the two disagree, and the revert's Source stands."""
    init_memory(repo, driver=True)
    first = add_outcome(repo, "first", "main")
    second = add_outcome(repo, "second", "main")
    add_pattern(repo, "learned", first, "main")
    commit(repo, "store")
    text = text_of(repo, "PATTERNS.md")
    (repo / ".planning" / "memory" / "PATTERNS.md").write_text(
        text.replace(f"| {first} |", f"| {second} |"), encoding="utf-8"
    )
    commit(repo, "the pattern came from the second outcome")
    assert sources(repo) == {"learned": second}
    git(repo, "revert", "--no-edit", "HEAD")
    assert git(repo, "log", "--format=%s", "-1").strip() == (
        'Revert "the pattern came from the second outcome"'
    )
    assert sources(repo) == {"learned": first}
    assert text_of(repo, "PATTERNS.md") == text
    assert_healthy(repo)

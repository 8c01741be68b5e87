"""The merge driver in real repositories: `git merge`, `git rebase` and `git cherry-pick`."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.gitrepos import (
    add_error,
    add_outcome,
    add_pattern,
    commit,
    init_memory,
    memory_of,
    outcome_row,
    rows,
    run_git,
    sources,
    text_of,
)
from support.processes import git, run_process

from legion_memory.schema.kinds import ERROR_FIX, OUTCOME, archive_template
from legion_memory.storage import reading, writing


def _base(repo: Path, *, driver: bool = True) -> None:
    init_memory(repo, driver=driver)
    for summary in ("one", "two", "three"):
        add_outcome(repo, summary, "main", date="2026-01-05")
    commit(repo, "three outcomes")


def _branches(repo: Path, on_main: str, on_feature: str) -> None:
    """One new outcome on `feature`, then one on `main` (both get the same next ID)."""
    git(repo, "checkout", "-q", "-b", "feature")
    add_outcome(repo, on_feature, "feature")
    commit(repo, "feature outcome")
    git(repo, "checkout", "-q", "main")
    add_outcome(repo, on_main, "main")
    commit(repo, "main outcome")


# Colliding new records are numbered by date, then branch: `feature` sorts before `main`.
MERGED = [
    ("O-001", "main", "one"),
    ("O-002", "main", "two"),
    ("O-003", "main", "three"),
    ("O-004", "feature", "on feature"),
    ("O-005", "main", "on main"),
]


def test_two_branches_appending_merge_cleanly_with_unique_ids(repo: Path) -> None:
    _base(repo)
    _branches(repo, "on main", "on feature")
    done = run_git(repo, "merge", "--no-edit", "feature")
    assert done.returncode == 0, done.stderr
    assert rows(repo) == MERGED
    assert (
        "legion-memory: .planning/memory/OUTCOMES.md: ours O-004 renumbered to O-005" in done.stderr
    )
    assert git(repo, "status", "--porcelain") == ""


def test_without_the_driver_doctor_fix_after_the_conflict_gives_the_same_records(
    repo: Path,
) -> None:
    _base(repo, driver=False)
    _branches(repo, "on main", "on feature")
    done = run_git(repo, "merge", "--no-edit", "feature")
    assert done.returncode == 1
    assert "<<<<<<< HEAD" in text_of(repo, "OUTCOMES.md")
    fixed = run_process("doctor", "--fix", cwd=repo)
    assert fixed.code == 0, fixed.stderr
    # The driver's numbering (by date, then branch); rows stay where the union put them.
    assert sorted(rows(repo)) == MERGED
    assert fixed.stdout.splitlines() == [
        "repaired .planning/memory/OUTCOMES.md: resolved conflict markers, both sides kept",
        "repaired .planning/memory/OUTCOMES.md:13: renumbered duplicate O-004 to O-005",
        "memory repaired",
    ]


def test_a_union_merge_then_doctor_fix_gives_the_same_records(repo: Path) -> None:
    (repo / ".gitattributes").write_text(".planning/memory/*.md merge=union\n", encoding="utf-8")
    _base(repo, driver=False)
    _branches(repo, "on main", "on feature")
    assert run_git(repo, "merge", "--no-edit", "feature").returncode == 0
    assert [r[0] for r in rows(repo)] == ["O-001", "O-002", "O-003", "O-004", "O-004"]
    assert run_process("doctor", "--fix", cwd=repo).code == 0
    assert sorted(rows(repo)) == MERGED


def test_the_same_row_added_on_both_branches_appears_once(repo: Path) -> None:
    _base(repo)
    git(repo, "checkout", "-q", "-b", "feature")
    add_outcome(repo, "same", "main")
    commit(repo, "same on feature")
    git(repo, "checkout", "-q", "main")
    add_outcome(repo, "same", "main")
    add_outcome(repo, "only main", "main")
    commit(repo, "same on main")
    assert run_git(repo, "merge", "--no-edit", "feature").returncode == 0
    assert [r[0] for r in rows(repo)] == ["O-001", "O-002", "O-003", "O-004", "O-005"]
    assert rows(repo)[3:] == [("O-004", "main", "same"), ("O-005", "main", "only main")]


def _prune_first_two(repo: Path) -> None:
    """Move O-001 and O-002 to ARCHIVE.md, as prune does."""
    live, archive = memory_of(repo).path(OUTCOME), memory_of(repo).archive
    lines = live.read_text(encoding="utf-8").splitlines(keepends=True)
    moved = [line for line in lines if line.replace(" ", "").startswith(("|O-001|", "|O-002|"))]
    assert len(moved) == 2
    live.write_text("".join(line for line in lines if line not in moved), encoding="utf-8")
    archive.write_text(archive.read_text(encoding="utf-8") + "".join(moved), encoding="utf-8")


def test_one_side_prunes_while_the_other_appends_nothing_is_resurrected(repo: Path) -> None:
    _base(repo)
    git(repo, "checkout", "-q", "-b", "feature")
    add_outcome(repo, "feature work", "feature")
    commit(repo, "append")
    git(repo, "checkout", "-q", "main")
    _prune_first_two(repo)
    commit(repo, "prune")
    assert run_git(repo, "merge", "--no-edit", "feature").returncode == 0
    assert rows(repo) == [("O-003", "main", "three"), ("O-004", "feature", "feature work")]
    archived = reading.load_archived(memory_of(repo), OUTCOME)
    assert [record.id for record in archived] == ["O-001", "O-002"]
    assert run_process("doctor", cwd=repo).stdout == "memory is healthy\n"


def test_an_errors_row_resolved_on_one_side_while_the_other_appends(repo: Path) -> None:
    init_memory(repo, driver=True)
    add_error(repo, "timeout talking to the registry", "main")
    commit(repo, "one error")
    git(repo, "checkout", "-q", "-b", "feature")
    add_error(repo, "disk full", "feature")
    commit(repo, "another error")
    git(repo, "checkout", "-q", "main")
    writing.update(
        memory_of(repo), ERROR_FIX, "E-001", {"fix": "raise timeout", "resolved": "true"}
    )
    commit(repo, "resolved")
    assert run_git(repo, "merge", "--no-edit", "feature").returncode == 0
    records = reading.load_records(memory_of(repo), ERROR_FIX)
    assert [(r.id, r["fix"], r["resolved"]) for r in records] == [
        ("E-001", "raise timeout", "true"),
        ("E-002", "retry", "false"),
    ]


def test_the_same_row_edited_differently_on_both_sides_conflicts_around_that_row(
    repo: Path,
) -> None:
    init_memory(repo, driver=True)
    add_error(repo, "timeout", "main")
    add_error(repo, "disk full", "main")
    commit(repo, "two errors")
    git(repo, "checkout", "-q", "-b", "feature")
    writing.update(memory_of(repo), ERROR_FIX, "E-001", {"fix": "retry twice"})
    commit(repo, "feature fix")
    git(repo, "checkout", "-q", "main")
    writing.update(memory_of(repo), ERROR_FIX, "E-001", {"fix": "raise the limit"})
    commit(repo, "main fix")
    done = run_git(repo, "merge", "--no-edit", "feature")
    assert done.returncode == 1
    assert "conflict: row E-001 changed differently on both sides" in done.stderr
    row = "| E-001 | 2026-03-02 | main | timeout | {} | coder | false | git |\n"
    assert text_of(repo, "ERRORS.md") == (
        ERROR_FIX.template()
        + "<<<<<<< ours\n"
        + row.format("raise the limit")
        + "=======\n"
        + row.format("retry twice")
        + ">>>>>>> theirs\n"
        + "| E-002 | 2026-03-02 | main | disk full | retry | coder | false | git |\n"
    )


def test_each_branchs_pattern_keeps_citing_its_own_branchs_outcome(repo: Path) -> None:
    _base(repo)
    git(repo, "checkout", "-q", "-b", "feature")
    cited = add_outcome(repo, "feature outcome", "feature")
    add_pattern(repo, "feature pattern", cited, "feature")
    commit(repo, "feature")
    git(repo, "checkout", "-q", "main")
    cited = add_outcome(repo, "main outcome", "main")
    add_pattern(repo, "main pattern", cited, "main")
    commit(repo, "main")
    done = run_git(repo, "merge", "--no-edit", "feature")
    assert done.returncode == 0, done.stderr
    # The driver of PATTERNS.md wrote the followed Source itself: no repair commit follows.
    followed = (
        "legion-memory: .planning/memory/PATTERNS.md: Source references follow their outcomes"
    )
    assert followed in done.stderr.splitlines()
    assert git(repo, "log", "-1", "--format=%s") == "Merge branch 'feature'\n"
    assert rows(repo)[3:] == [
        ("O-004", "feature", "feature outcome"),
        ("O-005", "main", "main outcome"),
    ]
    assert sources(repo) == {"main pattern": "O-005", "feature pattern": "O-004"}
    assert run_process("doctor", cwd=repo).stdout == "memory is healthy\n"


def test_each_branchs_pattern_follows_after_a_conflicted_merge_and_doctor_fix(repo: Path) -> None:
    _base(repo, driver=False)
    for branch in ("feature", "main"):
        git(repo, "checkout", "-q", *(["-b", branch] if branch == "feature" else [branch]))
        cited = add_outcome(repo, f"{branch} outcome", branch)
        add_pattern(repo, f"{branch} pattern", cited, branch)
        commit(repo, branch)
    assert run_git(repo, "merge", "--no-edit", "feature").returncode == 1
    assert run_process("doctor", "--fix", cwd=repo).code == 0
    assert sorted(rows(repo))[3:] == [
        ("O-004", "feature", "feature outcome"),
        ("O-005", "main", "main outcome"),
    ]
    assert sources(repo) == {"main pattern": "O-005", "feature pattern": "O-004"}


def test_rebase_of_two_new_outcomes_onto_one_new_outcome(repo: Path) -> None:
    _base(repo)
    git(repo, "checkout", "-q", "-b", "feature")
    for summary in ("first feature", "second feature"):
        add_outcome(repo, summary, "feature")
        commit(repo, summary)
    git(repo, "checkout", "-q", "main")
    add_outcome(repo, "main work", "main")
    commit(repo, "main work")
    git(repo, "checkout", "-q", "feature")
    done = run_git(repo, "rebase", "main")
    assert done.returncode == 0, done.stderr
    # A pick replays feature's commits onto main: main's outcome keeps its ID, theirs move on
    # (the second step finds the first feature outcome, old to it, first in the file).
    assert sorted(rows(repo)[3:]) == [
        ("O-004", "main", "main work"),
        ("O-005", "feature", "first feature"),
        ("O-006", "feature", "second feature"),
    ]
    assert git(repo, "status", "--porcelain") == ""


def test_cherry_pick_of_an_outcome_onto_a_branch_with_its_own(repo: Path) -> None:
    _base(repo)
    _branches(repo, "on main", "on feature")
    done = run_git(repo, "cherry-pick", "feature")
    assert done.returncode == 0, done.stderr
    # The picked commit's outcome moves on; main's keeps the ID it already had.
    assert rows(repo) == [
        *MERGED[:3],
        ("O-004", "main", "on main"),
        ("O-005", "feature", "on feature"),
    ]


def test_the_driver_on_its_own_exits_1_on_a_conflict_and_writes_the_result(
    tmp_path: Path,
) -> None:
    base = OUTCOME.template() + outcome_row(1, "one")
    files = {
        "base": base,
        "ours": base.replace("one", "mine"),
        "theirs": base.replace("one", "yours"),
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    done = run_process(
        "git", "merge-driver", "base", "ours", "theirs", "7", "OUTCOMES.md", cwd=tmp_path
    )
    assert (done.code, done.stdout) == (1, "")
    assert done.stderr.splitlines()[-1] == (
        "legion-memory: OUTCOMES.md: conflict: row O-001 changed differently on both sides"
    )
    assert (tmp_path / "ours").read_text(encoding="utf-8") == OUTCOME.template() + (
        "<<<<<<< ours\n"
        + outcome_row(1, "mine")
        + "=======\n"
        + outcome_row(1, "yours")
        + ">>>>>>> theirs\n"
    )
    assert (tmp_path / "base").read_text(encoding="utf-8") == base


def test_after_a_rebase_a_pattern_follows_its_renumbered_outcome(repo: Path) -> None:
    _base(repo)
    git(repo, "checkout", "-q", "-b", "feature")
    cited = add_outcome(repo, "feature outcome", "feature")
    commit(repo, "outcome")
    add_pattern(repo, "feature pattern", cited, "feature")
    commit(repo, "pattern citing it")
    git(repo, "checkout", "-q", "main")
    add_outcome(repo, "main outcome", "main")
    commit(repo, "main")
    git(repo, "checkout", "-q", "feature")
    done = run_git(repo, "rebase", "main")
    assert done.returncode == 0, done.stderr
    # main's outcome keeps O-004; the replayed outcome moves to O-005, and the pattern follows.
    assert sources(repo) == {"feature pattern": "O-005"}
    assert rows(repo)[3:] == [
        ("O-004", "main", "main outcome"),
        ("O-005", "feature", "feature outcome"),
    ]
    assert git(repo, "status", "--porcelain") == ""


def test_the_driver_renumbers_past_ids_ours_archived(tmp_path: Path) -> None:
    memory = tmp_path / ".planning" / "memory"
    memory.mkdir(parents=True)
    base = OUTCOME.template() + outcome_row(1, "one")
    (memory / "ARCHIVE.md").write_text(archive_template() + outcome_row(2, "ours, archived"))
    files = {"base": base, "ours": base, "theirs": base + outcome_row(2, "theirs", "feature")}
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    done = run_process(
        "git",
        "merge-driver",
        "base",
        "ours",
        "theirs",
        "7",
        ".planning/memory/OUTCOMES.md",
        cwd=tmp_path,
    )
    assert done.code == 0
    assert (tmp_path / "ours").read_text() == base + outcome_row(3, "theirs", "feature")
    assert done.stderr.splitlines()[-1] == (
        "legion-memory: .planning/memory/OUTCOMES.md: theirs O-002 renumbered to O-003"
    )


@pytest.mark.parametrize("foreseen", [False, True])
def test_a_merge_the_am_hook_foresees_is_made_alike_and_logs_nothing(
    tmp_path: Path, foreseen: bool
) -> None:
    """The post-applypatch hook runs the driver on a later mail's versions to learn whether
    `git am -3` will skip it (docs/decisions.md#applied-patch): the same merge, but git has made
    none, so nothing goes to the log later merges and doctor read."""
    git(tmp_path, "init", "-q")
    base = OUTCOME.template() + outcome_row(1, "one")
    files = {
        "base": base,
        "ours": base + outcome_row(2, "ours"),
        "theirs": base + outcome_row(2, "theirs", "feature"),
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    env = {"LEGION_MEMORY_MAIL_AHEAD": "2"} if foreseen else {}

    done = run_process(
        "git", "merge-driver", "base", "ours", "theirs", "7", "OUTCOMES.md", cwd=tmp_path, env=env
    )

    assert done.code == 0
    assert (tmp_path / "ours").read_text() == (
        base + outcome_row(2, "ours") + outcome_row(3, "theirs", "feature")
    )
    assert (tmp_path / ".git" / "legion-memory-merges.jsonl").exists() is not foreseen

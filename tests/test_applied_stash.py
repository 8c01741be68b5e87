"""A stash applied over a store of the same ID (docs/decisions.md#stash-apply-references): the
driver renumbers the stash's outcome, git takes PATTERNS.md whole from the stash, and no hook
runs; the driver notes HEAD and the stash, `doctor` reports the reference, and the next commit's
post-commit hook repairs it. Real git, the installed driver and hooks."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.gitrepos import (
    add_outcome,
    add_pattern,
    assert_healthy,
    commit,
    init_memory,
    memory_of,
    rows,
    run_git,
    sources,
)
from support.processes import git, run_process

from legion_memory.gitops import applied_stash
from legion_memory.upkeep.forgetting import forget

REPORTED = (
    ".planning/memory/PATTERNS.md:10: P-001 Source O-001 should read O-002 "
    "(the outcome it meant has another ID now)\n"
    "1 problem needs repair (run `legion-memory doctor --fix`)\n"
)
REPAIR = "Repair .planning/memory after post-commit (legion-memory doctor --fix)"


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["git", "stash", "pop"], "stash@{0}"),
        (["git", "stash", "apply"], "stash@{0}"),
        (["git", "stash", "apply", "--index", "-q", "stash@{2}"], "stash@{2}"),
        (["git", "stash", "pop", "1"], "stash@{1}"),
        (["/usr/bin/git", "-C", "repo", "stash", "apply", "39909e9e54"], "39909e9e54"),
        (["git", "stash"], None),
        (["git", "stash", "push", "-m", "wip"], None),
        (["git", "stash", "list"], None),
        (["git", "stash", "apply", "one", "two"], None),
        (["git", "cherry-pick", "stash@{0}"], None),
        (["sh", "-c", "git stash pop"], None),
    ],
)
def test_only_a_stash_apply_or_pop_names_the_stash_it_applies(
    argv: list[str], named: str | None
) -> None:
    assert applied_stash._stash_applied(argv) == named


def _uncommitted_outcome_and_its_pattern(repo: Path) -> None:
    cited = add_outcome(repo, "my uncommitted outcome", "main")
    add_pattern(repo, "my pattern", cited, "main")


def _teammate_on(repo: Path, branch: str) -> None:
    """A teammate's outcome, O-001 too, committed on `branch` (created from HEAD if new)."""
    if branch != "main":
        git(repo, "branch", branch)
    git(repo, "checkout", "-q", branch)
    add_outcome(repo, "teammate outcome", branch)
    commit(repo, "teammate")


def _applied_and_committed(repo: Path) -> None:
    """The state a stash applied leaves, as doctor sees it; then the commit that repairs it."""
    assert rows(repo) == [
        ("O-001", rows(repo)[0][1], "teammate outcome"),
        ("O-002", "main", "my uncommitted outcome"),
    ]
    assert sources(repo) == {"my pattern": "O-001"}  # git took PATTERNS.md whole from the stash
    assert (repo / ".git" / applied_stash.APPLIED_STASH_NAME).is_file()
    assert run_process("doctor", cwd=repo).stdout == REPORTED

    committed = run_git(repo, "commit", "-q", "-a", "-m", "my work")
    assert committed.returncode == 0, committed.stderr
    assert git(repo, "log", "--format=%s", "-2") == f"{REPAIR}\nmy work\n"
    assert sources(repo) == {"my pattern": "O-002"}
    assert "| my pattern | ctx | reuse | O-002 |" in git(
        repo, "show", "HEAD:.planning/memory/PATTERNS.md"
    )
    assert not (repo / ".git" / applied_stash.APPLIED_STASH_NAME).exists()
    assert_healthy(repo)


def test_a_stash_popped_over_a_store_of_its_id_is_repaired_by_the_next_commit(
    repo: Path,
) -> None:
    init_memory(repo, driver=True)
    _uncommitted_outcome_and_its_pattern(repo)
    assert run_git(repo, "stash", "-q").returncode == 0
    _teammate_on(repo, "main")
    popped = run_git(repo, "stash", "pop")
    assert popped.returncode == 0, popped.stderr
    assert "theirs O-001 renumbered to O-002" in popped.stderr
    _applied_and_committed(repo)


@pytest.mark.parametrize("integration", ["rebase", "merge"])
def test_an_autostash_applied_over_a_store_of_its_id_is_repaired_by_the_next_commit(
    repo: Path, integration: str
) -> None:
    """`pull --rebase --autostash` and `pull --autostash` apply the stash as these do, with
    `git stash apply <hash>`, while git still holds the rebase's or the merge's state."""
    init_memory(repo, driver=True)
    _teammate_on(repo, "upstream")
    git(repo, "checkout", "-q", "main")
    (repo / "code.txt").write_text("main's own work\n", encoding="utf-8")
    commit(repo, "code")  # so that the merge is not a fast-forward
    _uncommitted_outcome_and_its_pattern(repo)
    extra = ["--no-edit"] if integration == "merge" else []
    done = run_git(repo, integration, "--autostash", *extra, "upstream")
    assert done.returncode == 0, done.stdout + done.stderr
    _applied_and_committed(repo)


def test_a_stash_applied_with_nothing_renumbered_notes_nothing(repo: Path) -> None:
    init_memory(repo, driver=True)
    _uncommitted_outcome_and_its_pattern(repo)
    assert run_git(repo, "stash", "-q").returncode == 0
    (repo / "code.txt").write_text("other work\n", encoding="utf-8")
    commit(repo, "code")
    assert run_git(repo, "stash", "pop").returncode == 0
    assert not (repo / ".git" / applied_stash.APPLIED_STASH_NAME).exists()
    assert sources(repo) == {"my pattern": "O-001"}
    assert run_process("doctor", cwd=repo).stdout == "memory is healthy\n"


def test_a_stash_popped_over_a_forgotten_store_of_its_id_is_repaired_by_the_next_commit(
    repo: Path,
) -> None:
    """The teammate stored O-001 and forgot it: OUTCOMES.md ends as the stash's base had it, so
    git takes the stash's whole, no driver runs and nothing is noted, and O-001 is live (ours)
    and archived (the teammate's) at once. The next commit's hook sees one ID on two rows and
    renumbers the live one; the pattern that commit brought follows it (seed 5039 of the
    collaboration simulation's --stash-kinds)."""
    init_memory(repo, driver=True)
    _uncommitted_outcome_and_its_pattern(repo)
    assert run_git(repo, "stash", "-q").returncode == 0
    add_outcome(repo, "teammate outcome", "main")
    commit(repo, "teammate")
    forget(memory_of(repo), "O-001")
    commit(repo, "teammate forgets")
    archive = (repo / ".planning" / "memory" / "ARCHIVE.md").read_text(encoding="utf-8")
    popped = run_git(repo, "stash", "pop")
    assert popped.returncode == 0, popped.stderr
    assert "legion-memory" not in popped.stderr  # no driver ran
    assert not (repo / ".git" / applied_stash.APPLIED_STASH_NAME).exists()

    committed = run_git(repo, "commit", "-q", "-a", "-m", "my work")

    assert committed.returncode == 0, committed.stderr
    assert git(repo, "log", "--format=%s", "-2") == f"{REPAIR}\nmy work\n"
    assert rows(repo) == [("O-002", "main", "my uncommitted outcome")]
    assert sources(repo) == {"my pattern": "O-002"}
    assert (repo / ".planning" / "memory" / "ARCHIVE.md").read_text(encoding="utf-8") == archive
    assert git(repo, "status", "--porcelain") == ""
    assert_healthy(repo)

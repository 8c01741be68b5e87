"""Real-git reproductions of a record one side forgot while the other had that forget too,
restored the record and changed it since: the change stands, whichever way the sides are
integrated (docs/decisions.md#archive-moves)."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.gitrepos import (
    add_error,
    add_outcome,
    assert_healthy,
    commit,
    init_memory,
    memory_of,
    run_git,
    text_of,
)
from support.processes import git

from legion_memory.schema.kinds import ERROR_FIX
from legion_memory.storage import writing
from legion_memory.upkeep.forgetting import forget, restore

pytestmark = pytest.mark.slow

ERRORS_HEADER = (
    "| ID | Date | Branch | Error Signature | Fix | Agent | Resolved | Tags |\n"
    "|----|------|--------|-----------------|-----|-------|----------|------|\n"
)
FIXED_ERROR = "| E-001 | 2026-03-02 | feature | disk full | fix1 | coder | true | git |\n"
MEMORY_FILES = ("OUTCOMES.md", "ERRORS.md", "ARCHIVE.md")


def _table_lines(text: str) -> str:
    return "".join(line for line in text.splitlines(keepends=True) if line.startswith("|"))


def _restore_and_fix(repo: Path, error: str) -> None:
    restore(memory_of(repo), error)
    commit(repo, "restore the error")
    writing.update(memory_of(repo), ERROR_FIX, error, {"fix": "fix1", "resolved": "true"})
    commit(repo, "fix the error")


@pytest.mark.parametrize("into", ["main", "feature"])
def test_a_branch_s_forget_merged_after_main_picked_it_restored_and_fixed_keeps_the_fix(
    repo: Path, into: str
) -> None:
    """feature forgets an error; main moves on, picks that forget, restores the error and fixes it.
    Merging either way, the error was changed on main and removed on feature, yet main moved it
    once more than feature did, after feature's forget: the fix stays live, archived nowhere."""
    init_memory(repo, driver=True)
    error = add_error(repo, "disk full", "feature")
    commit(repo, "store the error")
    git(repo, "checkout", "-q", "-b", "feature")
    forget(memory_of(repo), error)
    commit(repo, "forget the error")
    git(repo, "checkout", "-q", "main")
    add_outcome(repo, "main's own work", "main")
    commit(repo, "main's own work")
    assert run_git(repo, "cherry-pick", "feature").returncode == 0
    _restore_and_fix(repo, error)
    other = "feature" if into == "main" else "main"
    git(repo, "checkout", "-q", into)

    merged = run_git(repo, "merge", "--no-edit", other)

    assert merged.returncode == 0, merged.stderr + merged.stdout
    assert "conflict" not in merged.stderr.lower()
    assert _table_lines(text_of(repo, "ERRORS.md")) == ERRORS_HEADER + FIXED_ERROR
    assert "disk full" not in text_of(repo, "ARCHIVE.md")
    assert_healthy(repo)


def test_a_forget_and_its_repair_replayed_over_the_upstream_s_restore_and_fix_leave_the_fix(
    repo: Path,
) -> None:
    """feature stores an error, which main picks, then forgets it. Merging feature into an
    integration branch leaves the error live (main's pick) and archived (feature's forget), and
    the post-merge hook's repair drops the live copy; feature takes that merge. main then
    stores another error, picks the forget, restores the error and fixes it. Rebasing feature
    onto main replays the forget (its context differs from main's copy) and the repair: main
    had that very forget and restored the error since, so neither archives the error again or
    drops main's fix (seed 8206 of the simulation's `--merges-kinds`, 400 rounds)."""
    init_memory(repo, driver=True)
    git(repo, "checkout", "-q", "-b", "feature")
    error = add_error(repo, "disk full", "feature")
    commit(repo, "store the error")
    stored = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "checkout", "-q", "main")
    add_outcome(repo, "main's own work", "main")
    commit(repo, "main's own work")
    assert run_git(repo, "cherry-pick", stored).returncode == 0
    git(repo, "checkout", "-q", "feature")
    forget(memory_of(repo), error)
    commit(repo, "forget the error")
    forgotten = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "checkout", "-q", "-b", "integration", "main")
    merged = run_git(repo, "merge", "--no-edit", "feature")
    assert merged.returncode == 0, merged.stderr
    assert git(repo, "log", "-1", "--format=%s").startswith("Repair .planning/memory")
    git(repo, "checkout", "-q", "feature")
    git(repo, "merge", "-q", "--ff-only", "integration")
    git(repo, "checkout", "-q", "main")
    add_error(repo, "network down", "main")
    commit(repo, "store another error")
    assert run_git(repo, "cherry-pick", forgotten).returncode == 0
    _restore_and_fix(repo, error)
    on_main = {name: text_of(repo, name) for name in MEMORY_FILES}
    git(repo, "checkout", "-q", "feature")

    rebased = run_git(repo, "rebase", "main")

    assert rebased.returncode == 0, rebased.stderr + rebased.stdout
    assert "conflict" not in rebased.stderr.lower()
    assert {name: text_of(repo, name) for name in MEMORY_FILES} == on_main
    network = "| E-002 | 2026-03-02 | main | network down | retry | coder | false | git |\n"
    assert _table_lines(text_of(repo, "ERRORS.md")) == ERRORS_HEADER + FIXED_ERROR + network
    assert "disk full" not in text_of(repo, "ARCHIVE.md")
    assert_healthy(repo)

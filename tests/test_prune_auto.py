from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from support.processes import read_bytes_of
from support.prune import TODAY, Disk, golden, project_from, without_lock

from legion_memory.project.root import Settings
from legion_memory.schema.kinds import OUTCOME
from legion_memory.storage import reading, writing
from legion_memory.upkeep.prune import NO_PHASE_WARNING, auto_prune

DAY = dt.date.fromisoformat(TODAY)
REPORT = (
    "Pruned 6 records → .planning/memory/ARCHIVE.md\n"
    "Remaining: 8 active records\n"
    "Preserved: 2 high-importance (4-5), 2 current-phase\n"
    "Archive total: 8 records"
)


@pytest.mark.parametrize(
    "settings",
    [
        Settings(),  # auto_prune is off by default
        Settings(auto_prune=False, prune_threshold=0),
        Settings(auto_prune=True, prune_threshold=14),  # 14 records: not over the threshold
        Settings(enabled=False, auto_prune=True, prune_threshold=0),
    ],
)
def test_auto_prune_does_not_run(repo: Path, settings: Settings) -> None:
    memory = project_from(repo, "mixed")
    before = without_lock(read_bytes_of(repo))
    assert auto_prune(memory, settings, DAY, 7) is None
    assert without_lock(read_bytes_of(repo)) == before


def test_auto_prune_over_the_threshold_prunes_and_reports(repo: Path) -> None:
    memory = project_from(repo, "mixed")
    settings = Settings(auto_prune=True, prune_threshold=13)
    assert auto_prune(memory, settings, DAY, 7, default_branch="main") == REPORT
    assert memory.path(OUTCOME).read_bytes() == golden("mixed", "OUTCOMES.after.md")
    assert memory.archive.read_bytes() == golden("mixed", "ARCHIVE.after.md")


def test_auto_prune_uses_the_configured_age(repo: Path) -> None:
    memory = project_from(repo, "mixed")
    settings = Settings(auto_prune=True, prune_threshold=0, prune_age_days=400)
    assert auto_prune(memory, settings, DAY, 7) == (
        "No records eligible for pruning. All records are either recent, high-importance, "
        "or in the current phase."
    )
    assert memory.path(OUTCOME).read_bytes() == golden("mixed", "OUTCOMES.before.md")


def test_auto_prune_without_a_current_phase_warns_first(repo: Path) -> None:
    memory = project_from(repo, "mixed")
    text = auto_prune(memory, Settings(auto_prune=True, prune_threshold=0), DAY, None)
    assert text == (
        f"{NO_PHASE_WARNING}\n"
        "Pruned 7 records → .planning/memory/ARCHIVE.md\n"
        "Remaining: 7 active records\n"
        "Preserved: 2 high-importance (4-5), 0 current-phase\n"
        "Archive total: 9 records"
    )
    assert [r.id for r in reading.load_archived(memory, OUTCOME)][-5:] == [
        "O-007",
        "O-008",
        "O-011",
        "O-015",
        "O-016",
    ]


def test_auto_prune_failure_is_a_warning_and_changes_nothing(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory = project_from(repo, "mixed")
    before = without_lock(read_bytes_of(repo))
    monkeypatch.setattr(writing, "atomic_write", Disk(fail={2}))
    text = auto_prune(memory, Settings(auto_prune=True, prune_threshold=0), DAY, 7)
    assert text == (
        f"Warning: auto-prune failed, nothing was archived: {memory.archive}: prune failed: "
        "could not write: No space left on device; every file was put back as it was, nothing "
        "changed (retry once the cause is fixed)"
    )
    assert without_lock(read_bytes_of(repo)) == before


def test_auto_prune_on_an_unreadable_file_is_a_warning(repo: Path) -> None:
    memory = project_from(repo, "mixed")
    memory.path(OUTCOME).write_bytes(b"| ID | Date |\n|----|------|\n| O-001 | \xff |\n")
    before = without_lock(read_bytes_of(repo))
    text = auto_prune(memory, Settings(auto_prune=True, prune_threshold=0), DAY, 7)
    assert text == (
        f"Warning: auto-prune failed, nothing was archived: {memory.path(OUTCOME)}:3: "
        "file is not valid UTF-8 (re-save it as UTF-8)"
    )
    assert without_lock(read_bytes_of(repo)) == before

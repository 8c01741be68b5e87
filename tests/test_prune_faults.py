"""Prune with the store's writes failing at every step: both files come back byte-identical."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.processes import CLI, read_bytes_of
from support.prune import TODAY, Disk, listing, project_from, without_lock

from legion_memory.schema.kinds import OUTCOME, new_record
from legion_memory.storage import writing
from legion_memory.upkeep import archive_move

ARCHIVED = ["O-004", "O-006", "O-008", "O-011", "O-015", "O-016"]
JOURNAL = ".legion-memory.journal"
FAILED = "Prune failed; nothing was archived. The records that were to be archived:\n\n"
ROLLED_BACK = "every file was put back as it was, nothing changed (retry once the cause is fixed)"
FULL = "could not write: No space left on device"


def run_prune(
    cli: CLI, repo: Path, disk: Disk, monkeypatch: pytest.MonkeyPatch
) -> tuple[int, str, str]:
    monkeypatch.setattr(writing, "atomic_write", disk)
    result = cli("--today", TODAY, "prune", "--yes", cwd=repo)
    monkeypatch.undo()
    return result.code, result.stdout, result.stderr


@pytest.mark.parametrize(
    ("disk", "calls", "where", "message"),
    [
        (
            Disk(fail={1}),
            [JOURNAL],
            JOURNAL,
            f"{FULL}; nothing was changed (retry once the cause is fixed)",
        ),
        (Disk(fail={2}), [JOURNAL, "ARCHIVE.md"], "ARCHIVE.md", f"{FULL}; {ROLLED_BACK}"),
        (
            Disk(fail={3}),
            [JOURNAL, "ARCHIVE.md", "OUTCOMES.md", "ARCHIVE.md"],
            "OUTCOMES.md",
            f"{FULL}; {ROLLED_BACK}",
        ),
        (
            Disk(damage={2}),
            [JOURNAL, "ARCHIVE.md", "OUTCOMES.md", "ARCHIVE.md", "OUTCOMES.md"],
            "ARCHIVE.md",
            f"the file does not read back as what was just written; {ROLLED_BACK}",
        ),
        (
            Disk(damage={3}),
            [JOURNAL, "ARCHIVE.md", "OUTCOMES.md", "ARCHIVE.md", "OUTCOMES.md"],
            "OUTCOMES.md",
            f"the file does not read back as what was just written; {ROLLED_BACK}",
        ),
    ],
    ids=["journal-write", "archive-write", "outcomes-write", "archive-verify", "outcomes-verify"],
)
def test_a_failure_at_any_step_restores_both_files_and_prints_the_records(
    cli: CLI,
    repo: Path,
    monkeypatch: pytest.MonkeyPatch,
    disk: Disk,
    calls: list[str],
    where: str,
    message: str,
) -> None:
    memory = project_from(repo, "mixed")
    before = without_lock(read_bytes_of(repo))
    code, stdout, stderr = run_prune(cli, repo, disk, monkeypatch)
    assert code == 3
    assert stdout == FAILED + listing("mixed", ARCHIVED) + "\n"
    assert stderr == f"Error: {memory.directory / where}: prune failed: {message}\n"
    # The journal first, then ARCHIVE.md before OUTCOMES.md, then the rollback's own writes.
    assert disk.calls == calls
    assert without_lock(read_bytes_of(repo)) == before


def test_a_failed_prune_that_created_the_archive_removes_it_again(
    cli: CLI, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory = project_from(repo, "legacy")
    before = without_lock(read_bytes_of(repo))
    disk = Disk(fail={3})
    code, stdout, _ = run_prune(cli, repo, disk, monkeypatch)
    assert code == 3
    assert stdout == FAILED + listing("legacy", ["O-001", "O-004"]) + "\n"
    assert disk.calls == [JOURNAL, "ARCHIVE.md", "OUTCOMES.md"]
    assert not memory.archive.exists()
    assert without_lock(read_bytes_of(repo)) == before


def test_json_failure_lists_the_ids_and_rows(
    cli: CLI, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project_from(repo, "mixed")
    monkeypatch.setattr(writing, "atomic_write", Disk(fail={2}))
    result = cli("--today", TODAY, "--json", "prune", "--yes", cwd=repo)
    data = json.loads(result.stdout)
    assert (result.code, data["status"], data["not_archived"]) == (3, "failed", ARCHIVED)
    assert data["rows"] == listing("mixed", ARCHIVED).split("\n")


def test_the_check_before_writing_refuses_a_wrong_move_and_writes_nothing(
    cli: CLI, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory = project_from(repo, "mixed")
    before = without_lock(read_bytes_of(repo))
    disk = Disk()
    monkeypatch.setattr(writing, "atomic_write", disk)
    # A move that loses a row on its way into the archive must never reach the disk.
    real_insert = archive_move._insert_rows
    monkeypatch.setattr(
        archive_move, "_insert_rows", lambda doc, table, rows: real_insert(doc, table, rows[1:])
    )
    result = cli("--today", TODAY, "prune", "--yes", cwd=repo)
    assert result.code == 3
    assert result.stdout == FAILED + listing("mixed", ARCHIVED) + "\n"
    assert result.stderr == (
        f"Error: {memory.archive}: prune failed: the files about to be written do not read back "
        "as the intended move; nothing was written (this is a bug) (please report it with "
        "OUTCOMES.md and ARCHIVE.md attached)\n"
    )
    assert disk.calls == []
    assert without_lock(read_bytes_of(repo)) == before


def test_when_the_rollback_fails_too_the_next_command_finishes_it(
    cli: CLI, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory = project_from(repo, "mixed")
    outcomes_before = memory.path(OUTCOME).read_bytes()
    archive_before = memory.archive.read_bytes()
    # The disk fills up at the OUTCOMES.md write and stays full while rolling back.
    code, stdout, stderr = run_prune(cli, repo, Disk(fail={3, 4, 5}), monkeypatch)
    assert code == 3
    assert stdout == FAILED + listing("mixed", ARCHIVED) + "\n"
    assert stderr == (
        f"Error: {memory.path(OUTCOME)}: prune failed: {FULL}; putting the files back failed too "
        f"({FULL}) ({JOURNAL} is kept and the next command that writes will retry the rollback; "
        "free disk space or fix permissions first)\n"
    )
    assert memory.journal_path.exists()
    assert memory.archive.read_bytes() != archive_before  # half done, until the next command
    values = {
        "date": TODAY,
        "branch": "main",
        "phase": "7",
        "plan": "07-03",
        "agent": "autonomous",
        "task_type": "workflow",
        "outcome": "success",
        "importance": "1",
        "summary": "Stored once the disk had room again",
    }
    stored = writing.append(memory, new_record(OUTCOME, values))
    assert stored.id == "O-017"
    assert not memory.journal_path.exists()
    assert memory.archive.read_bytes() == archive_before
    row = b"| O-017 | 2026-06-30 | main | 7 | 07-03 | autonomous | workflow | success | 1 |  | "
    assert memory.path(OUTCOME).read_bytes() == outcomes_before.replace(
        b"| Imported late from an old log |\n",
        b"| Imported late from an old log |\n" + row + b"Stored once the disk had room again |\n",
    )

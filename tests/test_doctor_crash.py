"""`doctor [--fix]` on what a killed process leaves: a prune's journal, a writer's temp file."""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

import pytest
from support.processes import CLI, read_bytes_of
from support.prune import TODAY, Disk, Killed, project_from, without_lock

from legion_memory.schema.kinds import OUTCOME
from legion_memory.storage import leftovers, reading, writing
from legion_memory.upkeep.doctor import CHECKS
from legion_memory.upkeep.prune import Criteria, prune

CRITERIA = Criteria(dt.date.fromisoformat(TODAY), 90, 7)
JOURNAL = ".planning/memory/.legion-memory.journal"


def killed_prune(memory: reading.Memory, monkeypatch: pytest.MonkeyPatch, write: int) -> None:
    """A prune stopped dead (as by SIGKILL) at its `write`-th file write: 2 is ARCHIVE.md, 3 is
    OUTCOMES.md (the journal is write 1)."""
    with monkeypatch.context() as patched:
        patched.setattr(writing, "atomic_write", Disk(kill={write}))
        with pytest.raises(Killed):
            prune(memory, CRITERIA, default_branch="main")


def killed_append(memory: reading.Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    """`store outcome` killed after writing its temporary file, before renaming it."""
    real_replace = os.replace

    def replace(source: str, target: str) -> None:
        if Path(target) == memory.path(OUTCOME):
            raise Killed(target)
        real_replace(source, target)

    with monkeypatch.context() as patched:
        patched.setattr(os, "replace", replace)
        with pytest.raises(Killed):
            last = reading.load_records(memory, OUTCOME)[-1]  # stored again under another summary
            writing.append(memory, last.replace(values={**last.values, "summary": "retried"}))


def test_the_journal_check_runs_first() -> None:
    assert [check.name for check in CHECKS][:2] == ["leftover journal", "stray temporary files"]


def test_a_half_done_prune_is_reported_then_rolled_back(
    cli: CLI, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory = project_from(repo, "mixed")
    before = without_lock(read_bytes_of(repo))
    killed_prune(memory, monkeypatch, 3)  # ARCHIVE.md holds the moved rows, OUTCOMES.md too
    crashed = read_bytes_of(repo)
    assert crashed[JOURNAL]
    result = cli("doctor", cwd=repo)
    assert result.code == 1
    # Readers see the files as they were before the change (the journal's texts), so the moved
    # rows, which ARCHIVE.md and OUTCOMES.md both hold on disk, are not reported twice.
    assert result.stdout.splitlines() == [
        f"{JOURNAL}: interrupted change left half done (--fix restores ARCHIVE.md)",
        "1 problem needs repair (run `legion-memory doctor --fix`)",
    ]
    assert read_bytes_of(repo) == crashed
    result = cli("doctor", "--fix", cwd=repo)
    assert (result.code, result.stderr) == (0, "")
    assert result.stdout == (
        f"repaired {JOURNAL}: rolled back an interrupted change (restored ARCHIVE.md)\n"
        "memory repaired\n"
    )
    assert without_lock(read_bytes_of(repo)) == before
    assert cli("doctor", cwd=repo).stdout == "memory is healthy\n"


def test_a_journal_whose_change_wrote_nothing_is_removed(
    cli: CLI, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory = project_from(repo, "mixed")
    before = without_lock(read_bytes_of(repo))
    killed_prune(memory, monkeypatch, 2)  # the journal is written, no file replaced yet
    result = cli("--json", "doctor", cwd=repo)
    finding = f"{JOURNAL}: interrupted change that had changed no file (--fix removes its journal)"
    assert (result.code, result.stdout) == (
        1,
        f'{{\n  "found": [\n    "{finding}"\n  ],\n  "repaired": [],\n'
        f'  "remaining": [\n    "{finding}"\n  ]\n}}\n',
    )
    result = cli("doctor", "--fix", cwd=repo)
    assert (result.code, result.stdout) == (
        0,
        f"repaired {JOURNAL}: rolled back an interrupted change (no file had changed)\n"
        "memory repaired\n",
    )
    assert without_lock(read_bytes_of(repo)) == before


def test_a_file_edited_since_the_crash_is_left_to_a_person(
    cli: CLI, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory = project_from(repo, "mixed")
    killed_prune(memory, monkeypatch, 2)
    outcomes = memory.path(OUTCOME)
    outcomes.write_bytes(outcomes.read_bytes() + b"\nEdited after the crash.\n")
    edited = read_bytes_of(repo)
    finding = (
        f"{JOURNAL}: an interrupted change cannot be rolled back: OUTCOMES.md changed since "
        "(compare those files with their previous text in the journal, then delete it)"
    )
    for args in (("doctor",), ("doctor", "--fix")):
        result = cli(*args, cwd=repo)
        assert result.code == 1
        assert result.stdout.splitlines() == [
            finding,
            "1 problem needs repair"
            + ("" if "--fix" in args else " (run `legion-memory doctor --fix`)"),
        ]
        assert without_lock(read_bytes_of(repo)) == without_lock(edited)


def test_a_temporary_file_of_a_killed_writer_is_reported_then_deleted(
    cli: CLI, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory = project_from(repo, "mixed")
    before = without_lock(read_bytes_of(repo))
    killed_append(memory, monkeypatch)
    [stray] = leftovers.stray_temp_files(memory)
    assert stray.name.startswith(".legion-memory-") and stray.name.endswith(".tmp")
    assert b"| O-017 |" in stray.read_bytes()  # the text the killed store was about to rename
    shown = stray.relative_to(repo)
    result = cli("doctor", cwd=repo)
    assert (result.code, result.stdout) == (
        1,
        f"{shown}: temporary file left by an interrupted write (--fix deletes it)\n"
        "1 problem needs repair (run `legion-memory doctor --fix`)\n",
    )
    result = cli("doctor", "--fix", cwd=repo)
    assert (result.code, result.stdout) == (
        0,
        f"repaired {shown}: deleted a temporary file left by an interrupted write\n"
        "memory repaired\n",
    )
    assert without_lock(read_bytes_of(repo)) == before
    assert cli("doctor", "--fix", "--quiet", cwd=repo).stdout == ""


def test_temporary_files_outside_the_memory_directory_are_not_touched(cli: CLI, repo: Path) -> None:
    project_from(repo, "mixed")
    other = repo / ".legion-memory-abc.tmp"
    other.write_text("not ours to judge", encoding="utf-8")
    nearby = repo / ".planning" / "memory" / "notes.tmp"
    nearby.write_text("a user's file", encoding="utf-8")
    before = read_bytes_of(repo)
    assert cli("doctor", "--fix", cwd=repo).stdout == "memory is healthy\n"
    assert read_bytes_of(repo) == before

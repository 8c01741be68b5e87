"""A prune stopped dead at each step (as SIGKILL stops it) and the next command that recovers."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from pathlib import Path

import pytest
from support.processes import CLI, read_bytes_of
from support.prune import TODAY, Disk, Killed, golden, project_from, without_lock

from legion_memory.schema.kinds import OUTCOME
from legion_memory.storage import leftovers, reading, writing
from legion_memory.upkeep.prune import Criteria, prune

JOURNAL = ".legion-memory.journal"
CRITERIA = Criteria(dt.date.fromisoformat(TODAY), 90, 7)


def ids_once_each(memory: reading.Memory) -> Counter[str]:
    """Every record ID across both files (both must parse) with how often it occurs."""
    records = [*reading.load_records(memory, OUTCOME), *reading.load_archived(memory, OUTCOME)]
    return Counter(record.id for record in records)


def killed_prune(memory: reading.Memory, monkeypatch: pytest.MonkeyPatch, at: str) -> None:
    """Run prune and stop it dead at `at`: a write number, or `drop` (the journal's removal)."""
    if at == "drop":
        real_unlink = Path.unlink

        def unlink(path: Path, missing_ok: bool = False) -> None:
            if path.name == JOURNAL:
                raise Killed(JOURNAL)
            real_unlink(path, missing_ok=missing_ok)

        monkeypatch.setattr(Path, "unlink", unlink)
    else:
        monkeypatch.setattr(writing, "atomic_write", Disk(kill={int(at)}))
    with pytest.raises(Killed):
        prune(memory, CRITERIA, default_branch="main")
    monkeypatch.undo()


# What each stopping point leaves on disk, and what rolling it back has to restore.
STOPS = [
    ("1", False, []),  # killed while writing the journal: it never appeared
    ("2", True, []),  # journal written, ARCHIVE.md not yet replaced
    ("3", True, ["ARCHIVE.md"]),  # ARCHIVE.md replaced, OUTCOMES.md not yet
    ("drop", True, ["ARCHIVE.md", "OUTCOMES.md"]),  # both replaced and verified
]


@pytest.mark.parametrize(("at", "journal_left", "restored"), STOPS)
def test_recover_rolls_back_whatever_a_killed_prune_left(
    repo: Path, monkeypatch: pytest.MonkeyPatch, at: str, journal_left: bool, restored: list[str]
) -> None:
    memory = project_from(repo, "mixed")
    expected = ids_once_each(memory)
    before = without_lock(read_bytes_of(repo))
    killed_prune(memory, monkeypatch, at)
    assert memory.journal_path.exists() is journal_left
    assert leftovers.recover(memory) == restored
    assert without_lock(read_bytes_of(repo)) == before
    assert ids_once_each(memory) == expected
    assert set(expected.values()) == {1}
    assert leftovers.recover(memory) == []


@pytest.mark.parametrize(("at", "journal_left", "restored"), STOPS)
def test_the_next_writing_command_recovers_and_prune_then_completes(
    cli: CLI,
    repo: Path,
    monkeypatch: pytest.MonkeyPatch,
    at: str,
    journal_left: bool,
    restored: list[str],
) -> None:
    memory = project_from(repo, "mixed")
    killed_prune(memory, monkeypatch, at)
    result = cli("--today", TODAY, "prune", "--yes", cwd=repo)
    assert result.code == 0
    note = f"Rolled back an interrupted change: restored {', '.join(restored)}\n"
    assert result.stderr == (note if restored else "")
    assert memory.path(OUTCOME).read_bytes() == golden("mixed", "OUTCOMES.after.md")
    assert memory.archive.read_bytes() == golden("mixed", "ARCHIVE.after.md")


def test_any_other_writing_command_recovers_too(
    cli: CLI, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory = project_from(repo, "mixed")
    killed_prune(memory, monkeypatch, "3")
    result = cli("init", cwd=repo)
    assert result.code == 0
    assert not memory.journal_path.exists()
    assert memory.path(OUTCOME).read_bytes() == golden("mixed", "OUTCOMES.before.md")
    assert memory.archive.read_bytes() == golden("mixed", "ARCHIVE.before.md")


def test_a_created_archive_is_removed_when_its_prune_is_rolled_back(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory = project_from(repo, "legacy")
    killed_prune(memory, monkeypatch, "3")
    assert memory.archive.exists()
    assert leftovers.recover(memory) == ["ARCHIVE.md"]
    assert not memory.archive.exists()
    assert memory.path(OUTCOME).read_bytes() == golden("legacy", "OUTCOMES.before.md")


def test_a_file_edited_after_the_crash_is_never_overwritten(
    cli: CLI, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory = project_from(repo, "mixed")
    killed_prune(memory, monkeypatch, "3")
    with memory.path(OUTCOME).open("a", encoding="utf-8") as handle:
        handle.write("Edited by hand after the crash.\n")
    before = without_lock(read_bytes_of(repo))
    result = cli("--today", TODAY, "prune", "--yes", cwd=repo)
    assert (result.code, result.stdout) == (1, "")
    assert result.stderr == (
        f"Error: {memory.journal_path}: an interrupted change cannot be rolled back: OUTCOMES.md "
        "changed since (compare those files with their previous text in the journal, then "
        "delete it)\n"
    )
    assert without_lock(read_bytes_of(repo)) == before


def test_an_unreadable_journal_stops_writers_and_changes_nothing(cli: CLI, repo: Path) -> None:
    memory = project_from(repo, "mixed")
    memory.journal_path.write_text('{"format": "something else"}\n', encoding="utf-8")
    before = without_lock(read_bytes_of(repo))
    result = cli("init", cwd=repo)
    assert result.code == 1
    assert result.stderr == (
        f"Error: {memory.journal_path}: an interrupted change left a journal that cannot be read "
        "(unknown journal format) (inspect the memory files, then delete the journal)\n"
    )
    assert without_lock(read_bytes_of(repo)) == before


def test_dry_run_does_not_recover(cli: CLI, repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    memory = project_from(repo, "mixed")
    killed_prune(memory, monkeypatch, "3")
    before = read_bytes_of(repo)
    result = cli("--today", TODAY, "prune", "--dry-run", cwd=repo)
    assert result.code == 0
    assert read_bytes_of(repo) == before


def test_recover_without_memory_creates_nothing(repo: Path) -> None:
    before = read_bytes_of(repo)
    assert leftovers.recover(reading.Memory.of_project(repo)) == []
    assert read_bytes_of(repo) == before


def test_new_memory_directories_ignore_the_journal(cli: CLI, repo: Path) -> None:
    cli("init", cwd=repo)
    gitignore = repo / ".planning" / "memory" / ".gitignore"
    assert gitignore.read_text(encoding="utf-8") == (
        ".legion-memory.lock\n.legion-memory.journal\n.legion-memory-*.tmp\n"
    )


@pytest.mark.parametrize("at", [stop[0] for stop in STOPS])
def test_readers_see_the_state_before_a_killed_prune(
    cli: CLI, repo: Path, monkeypatch: pytest.MonkeyPatch, at: str
) -> None:
    project_from(repo, "mixed")
    commands = [
        ["--json", "export", "--include-archive"],
        ["--json", "recall", "outcomes", "--limit", "1000"],
        ["--today", TODAY, "prune", "--dry-run"],
    ]
    expected = [cli(*args, cwd=repo) for args in commands]
    killed_prune(reading.Memory.of_project(repo), monkeypatch, at)
    left = read_bytes_of(repo)
    for args, wanted in zip(commands, expected, strict=True):
        assert cli(*args, cwd=repo) == wanted, args
    assert read_bytes_of(repo) == left  # reading rolled nothing back

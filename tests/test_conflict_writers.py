"""Every command that changes memory refuses a file with git conflict markers, dry runs included,
and leaves every byte as it was; `doctor --fix` is the one that resolves them."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.processes import CLI, read_bytes_of

TODAY = ("--today", "2026-03-10")
HINT = "the file has unresolved git conflict markers (run `legion-memory doctor --fix` first)"


def _store(cli: CLI, project: Path, summary: str, date: str = "2025-01-02") -> None:
    result = cli(
        "--root", str(project), "--today", date, "store", "outcome", "--phase", "1", "--plan",
        "01-01", "--agent", "a", "--outcome", "success", "--importance", "1", "--summary", summary,
    )  # fmt: skip
    assert result.code == 0, result.stderr


def _conflicted(path: Path) -> int:
    """Wrap the file's last row in a conflict, as a failed merge leaves it; the marker's line."""
    lines = path.read_text(encoding="utf-8").splitlines()
    last = lines.pop()
    lines += ["<<<<<<< ours", last, "=======", last.replace("second", "theirs"), ">>>>>>> theirs"]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return len(lines) - 4


@pytest.fixture
def project(repo: Path, cli: CLI) -> Path:
    _store(cli, repo, "first old outcome", "2025-01-01")
    _store(cli, repo, "second old outcome")
    _store(cli, repo, "third outcome")
    assert cli("--root", str(repo), *TODAY, "forget", "O-003").code == 0
    return repo


COMMANDS = [
    ("prune", "--yes", "--age-days", "30"),
    ("prune", "--dry-run", "--age-days", "30"),
    ("migrate",),
    ("migrate", "--dry-run"),
    ("forget", "O-001"),
]


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_a_conflict_in_outcomes_stops_the_command(
    cli: CLI, project: Path, command: tuple[str, ...]
) -> None:
    outcomes = project / ".planning" / "memory" / "OUTCOMES.md"
    line = _conflicted(outcomes)
    before = read_bytes_of(project)
    result = cli("--root", str(project), *TODAY, *command)
    assert (result.code, result.stdout) == (1, "")
    assert result.stderr.splitlines()[-1] == f"Error: {outcomes}:{line}: {HINT}"
    assert read_bytes_of(project) == before


@pytest.mark.parametrize("command", [("forget", "O-001"), ("restore", "O-003")], ids=" ".join)
def test_a_conflict_in_the_archive_stops_forget_and_restore(
    cli: CLI, project: Path, command: tuple[str, ...]
) -> None:
    archive = project / ".planning" / "memory" / "ARCHIVE.md"
    text = archive.read_text(encoding="utf-8")
    row = next(line for line in text.splitlines() if line.startswith("| O-003 "))
    archive.write_text(
        text.replace(row, f"<<<<<<< ours\n{row}\n=======\n>>>>>>> theirs"), encoding="utf-8"
    )
    line = archive.read_text(encoding="utf-8").splitlines().index("<<<<<<< ours") + 1
    before = read_bytes_of(project)
    result = cli("--root", str(project), *TODAY, *command)
    assert (result.code, result.stdout, result.stderr) == (
        1,
        "",
        f"Error: {archive}:{line}: {HINT}\n",
    )
    assert read_bytes_of(project) == before


def test_after_doctor_fix_the_same_commands_run(cli: CLI, project: Path) -> None:
    _conflicted(project / ".planning" / "memory" / "OUTCOMES.md")
    assert cli("--root", str(project), *TODAY, "doctor", "--fix").code == 0
    result = cli("--root", str(project), *TODAY, "forget", "O-001")
    assert (result.code, result.stderr) == (0, "")
    assert result.stdout == "archived O-001: OUTCOMES.md -> ARCHIVE.md (Archived Records)\n"

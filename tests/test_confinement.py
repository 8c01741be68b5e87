"""Repository content is untrusted: links that lead out of the project, files that are not regular
files, conflict markers, odd digits and control characters. Nothing is written outside the
project, nothing hangs, and every refusal is one line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.processes import CLI, REPO_ROOT, read_bytes_of

MEMORY = Path(".planning/memory")
STORE = ["store", "outcome", "--phase", "1", "--plan", "01-01", "--agent", "a"]
STORE += ["--outcome", "success", "--summary", "Orders API pagination"]
RECORD = (
    "The record was not stored. Here it is in full, to add by hand:\n"
    "ID: \nDate: 2026-05-01\nBranch: main\nPhase: 1\nPlan: 01-01\nAgent: a\nTask Type: general\n"
    "Outcome: success\nImportance: 2\nTags: \nSummary: Orders API pagination\n"
)
LINK_HINT = (
    "(memory lives inside the project: replace the link with the real directory or file "
    "(memory kept elsewhere is the global tier, --scope global))"
)


def _store(cli: CLI, repo: Path) -> tuple[int, str, str]:
    result = cli("--today", "2026-05-01", "--branch", "main", *STORE, cwd=repo)
    return result.code, result.stdout, result.stderr


def _outside(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    outside.mkdir()
    return outside


@pytest.mark.parametrize("linked", [".planning", ".planning/memory"])
def test_a_memory_directory_linked_out_of_the_project_is_refused(
    cli: CLI, repo: Path, tmp_path: Path, linked: str
) -> None:
    outside = _outside(tmp_path)
    (repo / linked).parent.mkdir(parents=True, exist_ok=True)
    (repo / linked).symlink_to(outside)
    real = (outside / "memory" if linked == ".planning" else outside) / "OUTCOMES.md"
    code, out, err = _store(cli, repo)
    assert (code, out) == (1, "")
    assert err == (
        f"Error: {repo / MEMORY / 'OUTCOMES.md'}: resolves outside the project (to {real}); "
        f"refusing to follow it {LINK_HINT}\n"
    )
    assert read_bytes_of(outside) == {}
    # doctor --fix fails reading back the journal it would roll back: a failed write, exit 3.
    writers = {("--today", "2026-06-30", "prune", "--yes"): 1, ("init",): 1, ("doctor", "--fix"): 3}
    for args, exit_code in writers.items():
        result = cli(*args, cwd=repo)
        assert (result.code, result.stdout) == (exit_code, ""), args
        errors = [line for line in result.stderr.splitlines() if line.startswith("Error: ")]
        assert len(errors) == 1 and "resolves outside the project" in errors[0], args
    assert read_bytes_of(outside) == {}


def test_a_dangling_memory_link_is_refused_without_a_traceback(
    cli: CLI, repo: Path, tmp_path: Path
) -> None:
    (repo / ".planning").mkdir()
    (repo / MEMORY).symlink_to(tmp_path / "nowhere")
    code, out, err = _store(cli, repo)
    assert (code, out) == (1, "")
    assert err.startswith(f"Error: {repo / MEMORY / 'OUTCOMES.md'}: resolves outside the project")
    assert not (tmp_path / "nowhere").exists()


def test_a_link_inside_the_project_is_followed(cli: CLI, repo: Path) -> None:
    (repo / "docs" / "memory").mkdir(parents=True)
    (repo / ".planning").mkdir()
    (repo / MEMORY).symlink_to(repo / "docs" / "memory")
    assert _store(cli, repo)[0] == 0
    assert (repo / "docs" / "memory" / "OUTCOMES.md").is_file()


def test_a_linked_memory_file_is_replaced_by_a_regular_file(
    cli: CLI, repo: Path, tmp_path: Path
) -> None:
    assert cli("init", cwd=repo).code == 0
    kept = repo / "kept.md"
    outcomes = repo / MEMORY / "OUTCOMES.md"
    kept.write_bytes(outcomes.read_bytes())
    outcomes.unlink()
    outcomes.symlink_to(kept)
    before = kept.read_bytes()
    assert _store(cli, repo)[0] == 0
    assert not outcomes.is_symlink()
    assert kept.read_bytes() == before  # the link was replaced, its target left alone


def _run(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """A real process with a deadline: a reader that opened a FIFO or /dev/zero would hang."""
    return subprocess.run(
        [sys.executable, "-m", "legion_memory", *args],
        cwd=repo,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize("special", ["fifo", "device link", "directory"])
def test_readers_skip_a_memory_file_that_is_not_a_regular_file(
    cli: CLI, repo: Path, special: str
) -> None:
    assert cli("init", cwd=repo).code == 0
    outcomes = repo / MEMORY / "OUTCOMES.md"
    outcomes.unlink()
    if special == "fifo":
        os.mkfifo(outcomes)
    elif special == "directory":
        outcomes.mkdir()
    else:
        outcomes.symlink_to("/dev/zero")
    warning = "Warning: OUTCOMES.md could not be parsed. Proceeding without memory.\n"
    for args in (["recall", "outcomes"], ["briefing"]):
        done = _run(repo, *args)
        assert (done.returncode, done.stderr) == (0, warning), args
    done = _run(repo, "validate", str(outcomes))
    assert done.returncode == 1
    what = {"fifo": "a FIFO", "directory": "a directory", "device link": "a character device"}
    if special == "device link":
        assert "resolves outside the project (to /dev/zero)" in done.stdout
    else:
        assert f"is not a regular file but {what[special]}; it is not read" in done.stdout
    done = _run(repo, "--today", "2026-05-01", "--branch", "main", *STORE)
    assert (done.returncode, done.stdout) == (1, "")
    assert len(done.stderr.splitlines()) == 1
    assert "OUTCOMES.md: " in done.stderr


def test_validate_reads_only_memory_files(cli: CLI, repo: Path) -> None:
    result = cli("validate", "/etc/passwd", cwd=repo)
    assert result.code == 1
    assert result.stdout == (
        "/etc/passwd:0: error: not a memory file (no memory kind in its name); not read\n"
        "1 file checked, 1 error, 0 other\n"
    )


CONFLICTED = (
    "| O-001 | 2026-01-05 | main | 1 | 01-01 | a | general | success | 2 | t | first |\n"
    "<<<<<<< HEAD\n"
    "| O-002 | 2026-01-06 | main | 1 | 01-01 | a | general | success | 2 | t | ours |\n"
    "=======\n"
    "| O-002 | 2026-01-06 | main | 1 | 01-01 | a | general | success | 2 | t | theirs |\n"
    "| O-003 | 2026-01-07 | main | 1 | 01-01 | a | general | success | 2 | t | theirs too |\n"
    ">>>>>>> feature\n"
)


def test_writers_refuse_a_file_with_conflict_markers(cli: CLI, repo: Path) -> None:
    assert cli("init", cwd=repo).code == 0
    outcomes = repo / MEMORY / "OUTCOMES.md"
    outcomes.write_text(outcomes.read_text(encoding="utf-8") + CONFLICTED, encoding="utf-8")
    before = read_bytes_of(repo)
    code, out, err = _store(cli, repo)
    assert (code, out) == (1, "")
    assert err.splitlines()[-1] == (
        f"Error: {outcomes}:11: the file has unresolved git conflict markers "
        "(run `legion-memory doctor --fix` first)"
    )
    (repo / "export.json").write_text(
        '{"format": "legion-memory-export", "version": 1, "records": [{"kind": "outcome", '
        '"date": "2026-03-02", "branch": "main", "phase": 1, "plan": "01-01", "agent": "a", '
        '"task_type": "general", "outcome": "success", "importance": 2, "tags": "", '
        '"summary": "imported", "id": "O-009"}]}',
        encoding="utf-8",
    )
    before["export.json"] = (repo / "export.json").read_bytes()
    result = cli("import", "json", "export.json", cwd=repo)
    assert result.code == 1
    assert "unresolved git conflict markers" in result.stderr
    assert read_bytes_of(repo) == before


@pytest.mark.parametrize(
    ("phase", "shown"), [("²", "'²'"), ("١٢", "'١٢'"), ("5" * 5000, "'" + "5" * 5000 + "'")]
)
def test_a_phase_of_other_digits_or_too_many_is_refused(
    cli: CLI, repo: Path, phase: str, shown: str
) -> None:
    args = [*STORE]
    args[args.index("--phase") + 1] = phase
    result = cli("--today", "2026-05-01", "--branch", "main", *args, cwd=repo)
    assert (result.code, result.stdout) == (2, "")
    assert (
        result.stderr
        == f"Error: Phase {shown} must be an integer or N/A (fix the value and retry)\n"
    )
    assert not (repo / ".planning").exists()


def test_an_id_of_other_digits_is_not_a_number(cli: CLI, repo: Path) -> None:
    assert cli("init", cwd=repo).code == 0
    outcomes = repo / MEMORY / "OUTCOMES.md"
    row = "| O-١٢٣ | 2026-01-05 | main | 1 | 01-01 | a | general | success | 2 | t | odd |\n"
    long_row = (
        f"| O-{'9' * 5000} | 2026-01-05 | main | 1 | 01-01 | a | general | success | 2 | t | x |\n"
    )
    outcomes.write_text(outcomes.read_text(encoding="utf-8") + row + long_row, encoding="utf-8")
    assert _store(cli, repo)[0] == 0
    assert "| O-001 |" in outcomes.read_text(encoding="utf-8")
    for args in (["recall", "outcomes"], ["briefing"], ["export"]):
        assert cli(*args, cwd=repo).code == 0, args
    result = cli("validate", cwd=repo)
    assert result.code == 1
    assert "ID 'O-١٢٣' must look like O-001" in result.stdout


def test_control_characters_are_refused_and_reported(cli: CLI, repo: Path) -> None:
    args = [*STORE]
    args[-1] = "colour \x1b[31mred\x1b[0m"
    result = cli("--today", "2026-05-01", "--branch", "main", *args, cwd=repo)
    assert (result.code, result.stdout) == (2, "")
    assert result.stderr == (
        "Error: Summary holds a control character (U+001B) (remove it and retry)\n"
    )
    assert cli("init", cwd=repo).code == 0
    outcomes = repo / MEMORY / "OUTCOMES.md"
    row = (
        "| O-001 | 2026-01-05 | main | 1 | 01-01 | a | general | success | 2 | t | \x1b]0;x\x07 |\n"
    )
    outcomes.write_text(outcomes.read_text(encoding="utf-8") + row, encoding="utf-8")
    result = cli("validate", cwd=repo)
    assert result.code == 1
    assert result.stdout == (
        ".planning/memory/OUTCOMES.md:10: error: Summary holds a control character (U+001B); "
        "remove it\n5 files checked, 1 error, 0 other\n"
    )

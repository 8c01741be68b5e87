"""`validate`: every problem as FILE:LINE: severity: message, exit 1 on errors, files untouched."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import CLI, FIXTURES, SAMPLES, read_bytes_of

VALIDATE = FIXTURES / "validate"


def test_validate_reports_every_problem_with_its_line(cli: CLI, tmp_path: Path) -> None:
    shutil.copyfile(VALIDATE / "OUTCOMES.md", tmp_path / "OUTCOMES.md")
    before = read_bytes_of(tmp_path)
    result = cli("--root", str(tmp_path), "validate", str(tmp_path / "OUTCOMES.md"))
    assert result.code == 1
    assert result.stdout == (
        "OUTCOMES.md:5: warning: GitHub would show this table as plain text (a bad row)\n"
        "OUTCOMES.md:8: error: Date '2026-3-2' must be a date YYYY-MM-DD\n"
        "OUTCOMES.md:8: error: Phase 'five' must be an integer or N/A\n"
        "OUTCOMES.md:8: error: Plan '5-1' must be NN-PP (e.g. 05-01), board or -\n"
        "OUTCOMES.md:8: error: Outcome 'won' must be one of success, partial, failed\n"
        "OUTCOMES.md:8: error: Importance '9' must be an integer from 1 to 5\n"
        "OUTCOMES.md:9: warning: Outcome 'Partial' should be lowercase 'partial'\n"
        "OUTCOMES.md:9: error: duplicate ID O-001 (also on line 7)\n"
        "OUTCOMES.md:10: error: row has 12 cells, header has 11 "
        "(an unescaped | in a value? write it as \\|)\n"
        "OUTCOMES.md:12: note: /legion:learn entry PAT-001 (kept as written)\n"
        "1 file(s) checked, 7 error(s), 3 other\n"
    )
    assert read_bytes_of(tmp_path) == before


def test_validate_json_lists_problems(cli: CLI, tmp_path: Path) -> None:
    shutil.copyfile(VALIDATE / "conflicted-OUTCOMES.md", tmp_path / "OUTCOMES.md")
    result = cli("--root", str(tmp_path), "--json", "validate", str(tmp_path / "OUTCOMES.md"))
    assert result.code == 1
    data = json.loads(result.stdout)
    assert data == {
        "files": 1,
        "problems": [
            {
                "file": "OUTCOMES.md",
                "line": line,
                "severity": "error",
                "message": "git conflict marker (run `legion-memory doctor --fix`)",
            }
            for line in (8, 10, 12)
        ],
    }


def test_validate_without_files_checks_the_memory_directory(cli: CLI, repo: Path) -> None:
    assert cli("init", cwd=repo).code == 0
    result = cli("validate", cwd=repo)
    assert (result.code, result.stdout) == (0, "5 file(s) checked, 0 error(s), 0 other\n")


def test_legacy_three_column_layout_is_reported_not_fatal(cli: CLI, tmp_path: Path) -> None:
    shutil.copyfile(FIXTURES / "tables" / "legacy-3col.md", tmp_path / "OUTCOMES.md")
    result = cli("--root", str(tmp_path), "validate", str(tmp_path / "OUTCOMES.md"))
    assert result.code == 0
    assert result.stdout == (
        "OUTCOMES.md:2: warning: legacy layout: missing column(s) ID, Branch, Phase, Plan, "
        "Task Type, Importance, Tags, Summary (read as empty; `legion-memory migrate` adds them)\n"
        "OUTCOMES.md:4: warning: Outcome 'Success' should be lowercase 'success'\n"
        "OUTCOMES.md:5: warning: Outcome 'Failed' should be lowercase 'failed'\n"
        "1 file(s) checked, 0 error(s), 3 other\n"
    )


@pytest.mark.skipif(not SAMPLES.is_dir(), reason="Legion samples not present")
def test_the_real_legacy_outcomes_sample_is_tolerated(cli: CLI, tmp_path: Path) -> None:
    sample = SAMPLES / "legacy-OUTCOMES.md"
    result = cli("--root", str(tmp_path), "validate", str(sample))
    assert result.code == 0
    assert "legacy layout: missing column(s) ID, Branch" in result.stdout


def test_a_file_that_is_not_utf8_is_an_error_with_its_line(cli: CLI, tmp_path: Path) -> None:
    (tmp_path / "OUTCOMES.md").write_bytes(b"# Memory\n\nbad \xff byte\n")
    result = cli("--root", str(tmp_path), "validate", str(tmp_path / "OUTCOMES.md"))
    assert (result.code, result.stdout.splitlines()[0]) == (
        1,
        "OUTCOMES.md:3: error: file is not valid UTF-8",
    )

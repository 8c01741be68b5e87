from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from support.processes import CLI, read_bytes_of
from support.prune import TODAY, golden, listing, project_from, without_lock

from legion_memory.schema.kinds import OUTCOME, new_record
from legion_memory.schema.records import Record
from legion_memory.storage import reading, writing
from legion_memory.upkeep.prune import NO_ELIGIBLE, NO_PHASE_WARNING, Criteria, prune

REPORT_MIXED = (
    "Pruned 6 records → .planning/memory/ARCHIVE.md\n"
    "Remaining: 8 active records\n"
    "Preserved: 2 high-importance (4-5), 2 current-phase\n"
    "Archive total: 8 records\n"
)
ARCHIVED_MIXED = ["O-004", "O-006", "O-008", "O-011", "O-015", "O-016"]


def files(memory: reading.Memory) -> tuple[bytes, bytes]:
    return memory.path(OUTCOME).read_bytes(), memory.archive.read_bytes()


@pytest.mark.parametrize("name", ["mixed", "legacy", "crlf"])
def test_prune_matches_the_golden_after_files(cli: CLI, repo: Path, name: str) -> None:
    memory = project_from(repo, name)
    result = cli("--today", TODAY, "prune", "--yes", cwd=repo)
    assert (result.code, result.stderr) == (0, "")
    assert files(memory) == (golden(name, "OUTCOMES.after.md"), golden(name, "ARCHIVE.after.md"))
    assert not memory.journal_path.exists()


def test_mixed_report_is_the_specs_step_8_text(cli: CLI, repo: Path) -> None:
    project_from(repo, "mixed")
    result = cli("--today", TODAY, "prune", "--yes", cwd=repo)
    assert result.stdout == REPORT_MIXED


def test_legacy_table_without_branch_reports_and_creates_the_archive(cli: CLI, repo: Path) -> None:
    memory = project_from(repo, "legacy")
    assert not memory.archive.exists()
    result = cli("--today", TODAY, "prune", "--yes", cwd=repo)
    assert result.stdout == (
        "Pruned 2 records → .planning/memory/ARCHIVE.md\n"
        "Remaining: 2 active records\n"
        "Preserved: 1 high-importance (4-5), 1 current-phase\n"
        "Archive total: 2 records\n"
    )
    archive = memory.archive.read_text(encoding="utf-8")
    assert archive.startswith(
        "# Memory — Archived Outcomes\n\n"
        "Pruned records from OUTCOMES.md. Preserved for historical reference.\n"
        "Records archived by memory-manager prune operation. Do not edit manually.\n\n"
        "## Archived Records\n\n"
        "| ID | Date | Branch | Phase | Plan | Agent | Task Type | Outcome | Importance | Tags "
        "| Summary |\n"
    )
    # The row keeps its compact style; the Branch it never had is the repository's default branch.
    assert archive.endswith(
        "|O-004|2025-01-13|main|N/A|-|autonomous|workflow|partial|3|misc|Phase N/A, archived|\n"
    )


def test_second_prune_finds_nothing_and_changes_nothing(cli: CLI, repo: Path) -> None:
    project_from(repo, "mixed")
    cli("--today", TODAY, "prune", "--yes", cwd=repo)
    before = read_bytes_of(repo)
    result = cli("--today", TODAY, "prune", "--yes", cwd=repo)
    assert (result.code, result.stdout) == (0, NO_ELIGIBLE + "\n")
    assert read_bytes_of(repo) == before


def test_dry_run_lists_the_candidates_and_changes_nothing(cli: CLI, repo: Path) -> None:
    project_from(repo, "mixed")
    before = read_bytes_of(repo)
    result = cli("--today", TODAY, "prune", "--dry-run", cwd=repo)
    assert (result.code, result.stderr) == (0, "")
    assert result.stdout == (
        "Would prune 6 records → .planning/memory/ARCHIVE.md (dry run: nothing changed)\n\n"
        + listing("mixed", ARCHIVED_MIXED)
        + "\n\nOUTCOMES.md has 14 records, at or under the prune threshold of 200: "
        "a real run prunes only with --yes.\n"
    )
    assert read_bytes_of(repo) == before


def test_at_or_under_the_threshold_it_prunes_only_with_yes(cli: CLI, repo: Path) -> None:
    project_from(repo, "mixed")
    before = without_lock(read_bytes_of(repo))
    for extra in ([], ["--threshold", "14"]):
        result = cli("--today", TODAY, "prune", *extra, cwd=repo)
        assert (result.code, result.stderr) == (0, "")
        assert result.stdout == (
            f"OUTCOMES.md has 14 records, at or under the prune threshold of "
            f"{extra[1] if extra else 200}: nothing was pruned (6 eligible). Run "
            "`legion-memory prune --yes` to prune anyway, or `--dry-run` to list them.\n"
        )
        assert without_lock(read_bytes_of(repo)) == before


def test_over_the_threshold_it_prunes_without_yes(cli: CLI, repo: Path) -> None:
    memory = project_from(repo, "mixed")
    result = cli("--today", TODAY, "prune", "--threshold", "13", cwd=repo)
    assert (result.code, result.stdout) == (0, REPORT_MIXED)
    assert files(memory) == (
        golden("mixed", "OUTCOMES.after.md"),
        golden("mixed", "ARCHIVE.after.md"),
    )


def test_settings_threshold_and_age_apply_and_options_override_them(cli: CLI, repo: Path) -> None:
    memory = project_from(repo, "mixed")
    settings = {"memory": {"prune_threshold": 10, "prune_age_days": 200}}
    (repo / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    result = cli("--today", TODAY, "--json", "prune", "--dry-run", cwd=repo)
    data = json.loads(result.stdout)
    assert (data["threshold"], data["age_days"]) == (10, 200)
    assert data["candidates"] == ["O-004", "O-006", "O-015", "O-016"]
    result = cli("--today", TODAY, "prune", "--age-days", "90", cwd=repo)
    assert result.stdout == REPORT_MIXED
    assert memory.path(OUTCOME).read_bytes() == golden("mixed", "OUTCOMES.after.md")


def test_json_reports_archived_ids_and_counts(cli: CLI, repo: Path) -> None:
    project_from(repo, "mixed")
    result = cli("--today", TODAY, "--json", "prune", "--yes", cwd=repo)
    assert result.code == 0
    assert json.loads(result.stdout) == {
        "status": "pruned",
        "record_count": 14,
        "threshold": 200,
        "age_days": 90,
        "current_phase": 7,
        "candidates": ARCHIVED_MIXED,
        "archived": ARCHIVED_MIXED,
        "archived_count": 6,
        "remaining_count": 8,
        "high_importance_count": 2,
        "current_phase_count": 2,
        "archive_total": 8,
    }


def test_json_dry_run_counts_describe_the_unchanged_files(cli: CLI, repo: Path) -> None:
    project_from(repo, "mixed")
    result = cli("--today", TODAY, "--json", "prune", "--dry-run", cwd=repo)
    data = json.loads(result.stdout)
    assert (data["status"], data["candidates"], data["archived"]) == ("dry-run", ARCHIVED_MIXED, [])
    assert (data["remaining_count"], data["high_importance_count"]) == (14, 2)
    assert (data["current_phase_count"], data["archive_total"]) == (2, 2)


def test_without_a_current_phase_it_warns_and_continues(cli: CLI, repo: Path) -> None:
    memory = project_from(repo, "mixed")
    (repo / ".planning" / "STATE.md").unlink()
    result = cli("--today", TODAY, "--json", "prune", "--yes", cwd=repo)
    assert result.stderr == NO_PHASE_WARNING + "\n"
    data = json.loads(result.stdout)
    # O-007 was only protected by being in phase 7.
    assert data["archived"] == ["O-004", "O-006", "O-007", "O-008", "O-011", "O-015", "O-016"]
    assert data["current_phase"] is None
    assert b"| O-007 |" in memory.archive.read_bytes()


def test_no_memory_prunes_nothing_and_creates_nothing(cli: CLI, repo: Path) -> None:
    before = read_bytes_of(repo)
    result = cli("--today", TODAY, "prune", "--yes", cwd=repo)
    assert (result.code, result.stdout) == (0, NO_ELIGIBLE + "\n")
    assert read_bytes_of(repo) == before
    assert not (repo / ".planning").exists()


def test_memory_disabled_prunes_nothing(cli: CLI, repo: Path) -> None:
    project_from(repo, "mixed")
    (repo / "settings.json").write_text('{"memory": {"enabled": false}}', encoding="utf-8")
    before = read_bytes_of(repo)
    result = cli("--today", TODAY, "prune", "--yes", cwd=repo)
    assert (result.code, result.stdout) == (0, "")
    assert result.stderr == (
        "Memory is disabled (memory.enabled is false in settings.json); nothing to prune.\n"
    )
    assert read_bytes_of(repo) == before


def test_negative_age_is_a_usage_error_and_changes_nothing(cli: CLI, repo: Path) -> None:
    project_from(repo, "mixed")
    before = read_bytes_of(repo)
    result = cli("prune", "--age-days", "-1", "--yes", cwd=repo)
    assert result.code == 2
    assert result.stderr == ("Error: --age-days -1 is not valid (use a number of 0 or more)\n")
    assert read_bytes_of(repo) == before


def test_a_broken_archive_table_is_refused_and_nothing_changes(cli: CLI, repo: Path) -> None:
    memory = project_from(repo, "mixed")
    broken = memory.archive.read_text(encoding="utf-8").replace(
        "| CI bootstrap |", "| CI | bootstrap |"
    )
    memory.archive.write_text(broken, encoding="utf-8")
    before = without_lock(read_bytes_of(repo))
    result = cli("--today", TODAY, "prune", "--yes", cwd=repo)
    assert (result.code, result.stdout) == (1, "")
    assert result.stderr == (
        f"Error: {memory.archive}:11: row has 12 cells but the header has 11 "
        "(escape pipes inside values as \\| and fix the row by hand)\n"
    )
    assert without_lock(read_bytes_of(repo)) == before


def test_store_after_prune_takes_the_highest_id_of_both_files_plus_one(repo: Path) -> None:
    memory = project_from(repo, "mixed")
    criteria = Criteria(dt.date.fromisoformat(TODAY), 90, 7)
    prune(memory, criteria, default_branch="main")
    # O-016, the highest ID, now lives only in ARCHIVE.md; the live file holds 8 records.
    assert max(r.number for r in reading.load_records(memory, OUTCOME)) == 14
    values = {
        "date": TODAY,
        "branch": "main",
        "phase": "7",
        "plan": "07-03",
        "agent": "engineering-senior-developer",
        "task_type": "backend",
        "outcome": "success",
        "importance": "2",
        "tags": "api",
        "summary": "Stored after a prune",
    }
    stored = writing.append(memory, new_record(OUTCOME, values))
    assert stored.id == "O-017"
    after = golden("mixed", "OUTCOMES.after.md").decode("utf-8")
    assert memory.path(OUTCOME).read_text(encoding="utf-8") == after.replace(
        "| Recent work |\n",
        "| Recent work |\n| O-017 | 2026-06-30 | main | 7 | 07-03 | engineering-senior-developer "
        "| backend | success | 2 | api | Stored after a prune |\n",
    )


def _record(date: str, importance: str = "2", phase: str = "3") -> Record:
    return Record(OUTCOME, {"id": "O-001", "date": date, "importance": importance, "phase": phase})


@pytest.mark.parametrize(
    ("record", "eligible"),
    [
        (_record("2026-03-31"), True),  # 91 days
        (_record("2026-04-01"), False),  # exactly 90 days: not strictly older
        (_record("2027-01-01"), False),  # future
        (_record("2026-02-30"), False),  # not a calendar date
        (_record("20250101"), False),  # not YYYY-MM-DD, even though Python could read it
        (_record(""), False),
        (_record("2025-01-01", importance="3"), True),
        (_record("2025-01-01", importance="4"), False),
        (_record("2025-01-01", importance="5"), False),
        (_record("2025-01-01", importance="1"), True),
        (_record("2025-01-01", importance="0"), False),
        (_record("2025-01-01", importance=""), False),
        (_record("2025-01-01", phase="7"), False),
        (_record("2025-01-01", phase="07"), False),
        (_record("2025-01-01", phase="N/A"), True),
        (_record("2025-01-01", phase=""), True),
    ],
)
def test_eligibility_rules(record: Record, eligible: bool) -> None:
    criteria = Criteria(dt.date.fromisoformat(TODAY), 90, 7)
    assert criteria.eligible(record) is eligible


def test_without_a_current_phase_no_phase_is_protected() -> None:
    criteria = Criteria(dt.date.fromisoformat(TODAY), 90, None)
    assert criteria.eligible(_record("2025-01-01", phase="7"))


def test_an_archive_without_the_outcomes_table_gains_it_at_the_end(cli: CLI, repo: Path) -> None:
    memory = project_from(repo, "mixed")
    patterns_only = (
        "# Memory — Archived Outcomes\n\n"
        "## Archived Patterns\n\n"
        "| ID | Date | Branch | Pattern | Context | Reuse Criteria | Source | Tags |\n"
        "|----|------|--------|---------|---------|----------------|--------|------|\n"
        "| P-001 | 2025-06-03 | main | Small PRs | Early phases | Always | O-001 | process |"
    )
    memory.archive.write_text(patterns_only, encoding="utf-8")
    result = cli("--today", TODAY, "prune", "--yes", cwd=repo)
    assert result.code == 0
    rows = listing("mixed", ARCHIVED_MIXED)
    assert (
        memory.archive.read_text(encoding="utf-8")
        == f"{patterns_only}\n\n## Archived Records\n\n{rows}\n"
    )


def test_an_archive_table_missing_a_column_is_refused(cli: CLI, repo: Path) -> None:
    memory = project_from(repo, "mixed")
    memory.archive.write_text(
        "## Archived Records\n\n| ID | Date | Branch | Phase | Importance | Summary |\n"
        "|----|------|--------|-------|------------|---------|\n",
        encoding="utf-8",
    )
    before = without_lock(read_bytes_of(repo))
    result = cli("--today", TODAY, "prune", "--yes", cwd=repo)
    assert (result.code, result.stdout) == (1, "")
    assert result.stderr == (
        f"Error: {memory.archive}:3: the archive table lacks the columns Plan, Agent, Task "
        "Type, Outcome, Tags; moving rows into it would lose their values (add the column to "
        "ARCHIVE.md's Archived Records table)\n"
    )
    assert without_lock(read_bytes_of(repo)) == before

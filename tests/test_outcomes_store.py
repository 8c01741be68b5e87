"""`store outcome`: the stored row, inference, dry runs, refusals and a failed write."""

from __future__ import annotations

import errno
import json
import os
import shutil
from collections.abc import Sequence
from pathlib import Path

import pytest
from support.processes import CLI, FIXTURES, Result, read_bytes_of, run_process

from legion_memory.schema.kinds import OUTCOME, archive_template

CATALOG = FIXTURES / "catalog" / "CATALOG.md"
OUTCOMES = Path(".planning") / "memory" / "OUTCOMES.md"
PLAN = ["--phase", "5", "--plan", "05-01", "--outcome", "success"]
HEADER = (
    "| ID | Date | Branch | Phase | Plan | Agent | Task Type | Outcome | Importance | Tags "
    "| Summary |\n|---|---|---|---|---|---|---|---|---|---|---|\n"
)
NO_CATALOG = (
    "Note: no CATALOG.md found (--catalog, $LEGION_CATALOG, skills/agent-registry/CATALOG.md, "
    "$CLAUDE_PLUGIN_ROOT); task type falls back to 'general' and cross-division work is not scored"
)


@pytest.fixture(autouse=True)
def no_catalog_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LEGION_CATALOG", raising=False)
    monkeypatch.delenv("CLAUDE_PLUGIN_ROOT", raising=False)


@pytest.fixture
def filled(repo: Path) -> Path:
    """The repo with the hand-computed 14-outcome fixture as its OUTCOMES.md."""
    (repo / OUTCOMES).parent.mkdir(parents=True)
    shutil.copy(FIXTURES / "outcomes" / "OUTCOMES.md", repo / OUTCOMES)
    return repo


def store(
    cli: CLI, repo: Path, *args: str, options: Sequence[str] = (), catalog: bool = True
) -> Result:
    given = ["--root", str(repo), "--today", "2026-03-31", *options]
    if catalog:
        given += ["--catalog", str(CATALOG)]
    return cli(*given, "store", "outcome", *args)


def last_row(repo: Path) -> str:
    return (repo / OUTCOMES).read_text(encoding="utf-8").splitlines()[-1]


def test_first_store_creates_the_file_and_prints_the_row(cli: CLI, repo: Path) -> None:
    result = store(
        cli, repo, *PLAN, "--agent", "engineering-backend-architect", "--tags", "api,orders",
        "--summary", "Orders API | first cut", "--event", "plan-success",
    )  # fmt: skip
    row = (
        "| O-001 | 2026-03-31 | main | 5 | 05-01 | engineering-backend-architect | backend "
        "| success | 3 | api, orders | Orders API \\| first cut |"
    )
    assert (result.code, result.stdout, result.stderr) == (0, HEADER + row + "\n", "")
    assert (repo / OUTCOMES).read_text(encoding="utf-8") == OUTCOME.template() + row + "\n"


def test_json_output_is_the_record_with_its_new_id(cli: CLI, filled: Path) -> None:
    # backend is Engineering work; testing-api-tester is Testing and never did backend before;
    # the review found 3 blockers: 2 + 1 + 1 + 1.
    result = store(
        cli, filled, *PLAN, "--agent", "testing-api-tester", "--task-type", "backend",
        "--summary", "Backend contract review", "--event", "review-pass", "--blockers", "3",
        options=["--json"],
    )  # fmt: skip
    assert result.code == 0
    assert json.loads(result.stdout) == {
        "id": "O-015",
        "date": "2026-03-31",
        "branch": "main",
        "phase": 5,
        "plan": "05-01",
        "agent": "testing-api-tester",
        "task_type": "backend",
        "outcome": "success",
        "importance": 5,
        "tags": "",
        "summary": "Backend contract review",
    }
    assert last_row(filled) == (
        "| O-015 | 2026-03-31 | main | 5 | 05-01 | testing-api-tester | backend | success | 5 |  "
        "| Backend contract review |"
    )


@pytest.mark.parametrize(
    ("agent", "task_type"),
    [
        ("engineering-backend-architect", "backend"),
        ("autonomous", "general"),
        ("testing-api-tester, engineering-security-engineer", "api-testing"),
        ("someone-new, engineering-security-engineer", "security-audit"),
        ("agents-orchestrator", "orchestration"),
    ],
)
def test_task_type_is_inferred_from_the_catalog(
    cli: CLI, repo: Path, agent: str, task_type: str
) -> None:
    result = store(cli, repo, *PLAN, "--agent", agent, "--summary", "s", options=["--json"])
    assert (result.code, result.stderr) == (0, "")
    assert json.loads(result.stdout)["task_type"] == task_type


def test_without_a_catalog_task_type_falls_back_to_general_with_one_notice(
    cli: CLI, repo: Path
) -> None:
    args = [*PLAN, "--agent", "engineering-backend-architect", "--summary", "s"]
    result = store(cli, repo, *args, options=["--json"], catalog=False)
    assert (result.code, result.stderr) == (0, NO_CATALOG + "\n")
    assert (json.loads(result.stdout)["task_type"], json.loads(result.stdout)["importance"]) == (
        "general",
        3,  # success 2 + first general outcome; no cross-division without a catalog
    )
    explicit = [*args, "--task-type", "backend", "--importance", "2"]
    assert store(cli, repo, *explicit, catalog=False).stderr == ""


def test_catalog_from_the_environment_and_the_project(
    cli: CLI, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    args = [*PLAN, "--agent", "lsp-index-engineer", "--summary", "s"]
    monkeypatch.setenv("LEGION_CATALOG", str(CATALOG))
    assert (
        json.loads(store(cli, repo, *args, options=["--json"], catalog=False).stdout)["task_type"]
        == "lsp"
    )
    monkeypatch.delenv("LEGION_CATALOG")
    in_project = repo / "skills" / "agent-registry" / "CATALOG.md"
    in_project.parent.mkdir(parents=True)
    shutil.copy(CATALOG, in_project)
    assert (
        json.loads(store(cli, repo, *args, options=["--json"], catalog=False).stdout)["task_type"]
        == "lsp"
    )


def test_a_task_type_outside_the_catalog_is_stored_with_a_warning(cli: CLI, repo: Path) -> None:
    args = [*PLAN, "--agent", "autonomous", "--summary", "s"]
    result = store(cli, repo, *args, "--task-type", "blockchain")
    assert result.code == 0
    assert (
        result.stderr == "Warning: task type 'blockchain' is not in CATALOG.md; stored as given\n"
    )
    for upstream in ("quality-review", "workflow", "board_decision", "ship", "general"):
        assert store(cli, repo, *args, "--task-type", upstream).stderr == ""


def test_only_the_first_outcome_of_an_agent_and_task_type_gets_the_bonus(
    cli: CLI, repo: Path
) -> None:
    args = [*PLAN, "--agent", "engineering-frontend-developer", "--summary"]
    importances = [
        json.loads(store(cli, repo, *args, summary, options=["--json"]).stdout)["importance"]
        for summary in ("s", "another s")  # the same summary again would be the same outcome
    ]
    assert importances == [3, 2]


def test_archived_outcomes_count_as_history(cli: CLI, repo: Path) -> None:
    memory = repo / OUTCOMES.parent
    memory.mkdir(parents=True)
    archived = (
        "| O-007 | 2025-01-02 | old-branch | 1 | 01-01 | engineering-frontend-developer | frontend "
        "| success | 2 |  | Old work |\n"
    )
    (memory / "ARCHIVE.md").write_text(archive_template() + archived, encoding="utf-8")
    args = [*PLAN, "--agent", "engineering-frontend-developer", "--summary", "s"]
    stored = json.loads(store(cli, repo, *args, options=["--json"]).stdout)
    assert (stored["id"], stored["importance"]) == ("O-008", 2)  # IDs are never reissued either


def test_explicit_importance_and_branch(cli: CLI, repo: Path) -> None:
    args = [*PLAN, "--agent", "testing-api-tester", "--task-type", "backend", "--summary", "s"]
    result = store(cli, repo, *args, "--importance", "1", options=["--branch", "feature/x"])
    assert result.code == 0
    assert last_row(repo) == (
        "| O-001 | 2026-03-31 | feature/x | 5 | 05-01 | testing-api-tester | backend | success "
        "| 1 |  | s |"
    )


def test_dry_run_shows_the_record_and_changes_nothing(cli: CLI, filled: Path) -> None:
    before = read_bytes_of(filled)
    result = store(
        cli, filled, *PLAN, "--agent", "testing-api-tester", "--task-type", "backend",
        "--summary", "s", "--event", "plan-success", "--dry-run",
    )  # fmt: skip
    assert result.code == 0
    assert result.stdout == HEADER + (
        "| O-015 | 2026-03-31 | main | 5 | 05-01 | testing-api-tester | backend | success | 4 "
        "|  | s |\n"
    )
    assert result.stderr == (
        "Importance 4 = base 2 (plan-success) + 1 (first backend outcome for testing-api-tester) "
        "+ 1 (cross-division work)\n"
        "Dry run: nothing was stored (O-015 is the ID it would get now)\n"
    )
    assert read_bytes_of(filled) == before


def test_dry_run_without_memory_creates_nothing(cli: CLI, repo: Path) -> None:
    before = read_bytes_of(repo)
    args = [*PLAN, "--agent", "autonomous", "--summary", "s", "--dry-run"]
    result = store(cli, repo, *args, options=["--json"])
    assert (result.code, json.loads(result.stdout)["id"]) == (0, "O-001")
    assert read_bytes_of(repo) == before
    assert not (repo / ".planning").exists()


GOOD = {
    "--phase": "5",
    "--plan": "05-01",
    "--agent": "autonomous",
    "--outcome": "success",
    "--summary": "Fine",
}


@pytest.mark.parametrize(
    ("changes", "code", "message"),
    [
        ({"--outcome": "great"}, 2, "--outcome 'great' is not valid (use one of success, partial,"
         " failed)"),
        ({"--importance": "0"}, 2, "Importance '0' must be an integer from 1 to 5"
         " (fix the value and retry)"),
        ({"--importance": "6"}, 2, "Importance '6' must be an integer from 1 to 5"
         " (fix the value and retry)"),
        ({"--phase": "x"}, 2, "Phase 'x' must be an integer or N/A (fix the value and retry)"),
        ({"--plan": "5-1"}, 2, "Plan '5-1' must be NN-PP (e.g. 05-01), board or -"
         " (fix the value and retry)"),
        ({"--agent": ""}, 2, "Agent is required (fix the value and retry)"),
        ({"--agent": "a,,b"}, 2, "Agent 'a,,b' must be an agent ID or a comma-separated list of"
         " agent IDs (fix the value and retry)"),
        ({"--summary": "pushed with ghp_abcdefghijklmnopqrstuvwxyz0123456789AB"}, 2,
         "Summary looks like it contains a GitHub token; secrets are never stored in memory"
         " (remove it and describe the change instead (e.g. 'rotated the API key'))"),
        ({"--tags": "aws, AKIAABCDEFGHIJKLMNOP"}, 2, "Tags looks like it contains an AWS access"
         " key; secrets are never stored in memory (remove it and describe the change instead"
         " (e.g. 'rotated the API key'))"),
        ({"--event": "shipped"}, 2, "--event 'shipped' is not valid (use one of plan-failed,"
         " review-escalated, plan-partial, review-multi-cycle, plan-success, review-pass,"
         " trivial)"),
        ({"--event": "plan-failed"}, 2, "event 'plan-failed' contradicts outcome 'success'"
         " (use --outcome failed, or another event)"),
        ({"--event": "trivial", "--importance": "2"}, 2,
         "give --importance or --event, not both (--importance skips events)"),
        ({"--blockers": "-2"}, 2, "--blockers -2 is negative (give the number of blockers)"),
        ({"--summary": None}, 2, "missing --summary (add it, or use --from-summary PATH)"),
        ({"--summary": None, "--agent": None}, 2,
         "missing --agent, --summary (add them, or use --from-summary PATH)"),
        ({"--importance": "high"}, 2, "--importance 'high' is not valid (use a whole number)"),
        ({"--task-type": "two words"}, 2, "Task Type 'two words' must be one word without spaces"
         " or commas (fix the value and retry)"),
    ],
)  # fmt: skip
def test_bad_input_is_one_line_and_changes_no_file(
    cli: CLI, filled: Path, changes: dict[str, str | None], code: int, message: str
) -> None:
    values = {**GOOD, **changes}
    args = [part for flag, value in values.items() if value is not None for part in (flag, value)]
    before = read_bytes_of(filled)
    result = store(cli, filled, *args)
    assert (result.code, result.stdout, result.stderr) == (code, "", f"Error: {message}\n")
    assert read_bytes_of(filled) == before


def test_bad_today_and_missing_catalog_are_usage_errors(cli: CLI, filled: Path) -> None:
    before = read_bytes_of(filled)
    args = [f"{flag}={value}" for flag, value in GOOD.items()]
    result = cli("--root", str(filled), "--today", "2026-13-01", "store", "outcome", *args)
    assert (result.code, result.stderr) == (
        2,
        "Error: --today '2026-13-01' is not a date (use YYYY-MM-DD)\n",
    )
    result = cli("--root", str(filled), "--catalog", "nope.md", "store", "outcome", *args)
    assert (result.code, result.stderr) == (
        2,
        "Error: --catalog 'nope.md' is not a file (give the CATALOG.md path)\n",
    )
    assert read_bytes_of(filled) == before


def test_a_malformed_outcomes_file_is_refused(cli: CLI, filled: Path) -> None:
    with (filled / OUTCOMES).open("a", encoding="utf-8") as handle:
        handle.write("| O-015 | 2026-03-31 | main | a | stray | row |\n")
    before = read_bytes_of(filled)
    result = store(cli, filled, *[f"{flag}={value}" for flag, value in GOOD.items()])
    assert (result.code, result.stdout) == (1, "")
    assert result.stderr == (
        f"Error: {filled / OUTCOMES}:24: row has 6 cells but the header has 11 "
        "(escape pipes inside values as \\| and fix the row by hand)\n"
    )
    assert read_bytes_of(filled) == before


def test_a_failed_write_prints_the_whole_record_and_exits_3(
    cli: CLI, filled: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = (filled / OUTCOMES).read_bytes()

    def disk_full(source: str, target: str) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr("legion_memory.storage.files.os.replace", disk_full)
    args = [
        "--agent",
        "engineering-backend-architect",
        "--summary",
        "Cache | warmed",
        "--tags",
        "x",
    ]
    result = store(cli, filled, *PLAN, *args, "--importance", "4")
    assert result.code == 3
    assert result.stdout == (
        "The record was not stored. Here it is in full, to add by hand:\n"
        "ID: O-015\nDate: 2026-03-31\nBranch: main\nPhase: 5\nPlan: 05-01\n"
        "Agent: engineering-backend-architect\nTask Type: backend\nOutcome: success\n"
        "Importance: 4\nTags: x\nSummary: Cache | warmed\n"
    )
    assert (
        result.stderr == f"Error: {filled / OUTCOMES}: could not write: No space left on device\n"
    )
    assert (filled / OUTCOMES).read_bytes() == before
    assert sorted(p.name for p in (filled / OUTCOMES).parent.iterdir()) == [
        ".legion-memory.lock",
        "OUTCOMES.md",
    ]


def test_disabled_memory_stores_nothing(cli: CLI, repo: Path) -> None:
    (repo / "settings.json").write_text('{"memory": {"enabled": false}}', encoding="utf-8")
    before = read_bytes_of(repo)
    result = store(cli, repo, *[f"{flag}={value}" for flag, value in GOOD.items()])
    assert (result.code, result.stdout) == (0, "")
    assert result.stderr == (
        "Note: memory is disabled (memory.enabled is false in settings.json); nothing was stored\n"
    )
    assert read_bytes_of(repo) == before


def test_a_table_without_a_branch_column_gets_rows_without_one(cli: CLI, repo: Path) -> None:
    (repo / OUTCOMES).parent.mkdir(parents=True)
    legacy = (
        "# Memory — Outcome Log\n\n## Records\n\n"
        "| ID | Date | Phase | Plan | Agent | Task Type | Outcome | Importance | Tags | Summary |\n"
        "|----|------|-------|------|-------|-----------|---------|------------|------|---------|\n"
        "| O-001 | 2026-03-01 | 5 | 05-01 | autonomous | workflow | success | 2 | a | Old |\n"
    )
    (repo / OUTCOMES).write_text(legacy, encoding="utf-8")
    args = [*PLAN, "--agent", "autonomous", "--task-type", "workflow", "--summary", "New"]
    result = store(cli, repo, *args, "--importance", "2", options=["--json"])
    assert result.code == 0
    assert json.loads(result.stdout)["branch"] == ""
    assert result.stderr == (
        "Note: OUTCOMES.md has no Branch column, so that was not stored "
        "(run `legion-memory migrate` to add the missing columns)\n"
    )
    assert (repo / OUTCOMES).read_text(encoding="utf-8") == legacy + (
        "| O-002 | 2026-03-31 | 5 | 05-01 | autonomous | workflow | success | 2 |  | New |\n"
    )


def test_as_a_real_process(repo: Path) -> None:
    args = ["--today", "2026-03-31", "--catalog", str(CATALOG), "store", "outcome", *PLAN]
    args += ["--agent", "engineering-backend-architect", "--summary", "From a process"]
    result = run_process(*args, cwd=repo)
    assert (result.code, result.stderr) == (0, "")
    assert last_row(repo) == (
        "| O-001 | 2026-03-31 | main | 5 | 05-01 | engineering-backend-architect | backend "
        "| success | 3 |  | From a process |"
    )

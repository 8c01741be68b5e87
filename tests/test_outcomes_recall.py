"""`recall outcomes`, `score agents`, `score archetypes` and `briefing` from the command line.

The numbers are the hand-computed ones of `test_scoring.py` (fixture read with today 2026-03-31).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from support.processes import CLI, FIXTURES, Result, git, read_bytes_of

OUTCOMES = Path(".planning") / "memory" / "OUTCOMES.md"
WARNING = "Warning: OUTCOMES.md could not be parsed. Proceeding without memory.\n"


@pytest.fixture
def filled(repo: Path) -> Path:
    (repo / OUTCOMES).parent.mkdir(parents=True)
    shutil.copy(FIXTURES / "outcomes" / "OUTCOMES.md", repo / OUTCOMES)
    return repo


def run(cli: CLI, repo: Path, *args: str) -> Result:
    return cli("--root", str(repo), "--today", "2026-03-31", *args)


def ids(result: Result) -> list[str]:
    return [record["id"] for record in json.loads(result.stdout)["records"]]


def test_recall_json_carries_every_field_and_the_decay(cli: CLI, filled: Path) -> None:
    result = run(cli, filled, "--json", "recall", "outcomes")
    assert (result.code, result.stderr) == (0, "")
    data = json.loads(result.stdout)
    assert data["notes"] == []
    assert data["records"][0] == {
        "id": "O-012",
        "date": "2026-03-30",
        "branch": "main",
        "phase": 5,
        "plan": "05-04",
        "agent": "testing-qa-verification-specialist",
        "task_type": "frontend",
        "outcome": "success",
        "importance": 4,
        "tags": "ui, backend",
        "summary": "Visual QA of the orders page",
        "days_old": 1,
        "recency_weight": 1.0,
        "decay_score": 4.0,
    }
    assert [(r["id"], r["decay_score"]) for r in data["records"]] == [
        ("O-012", 4.0), ("O-014", 3.0), ("O-010", 3.0), ("O-007", 2.1), ("O-011", 2.0),
        ("O-009", 2.0), ("O-004", 2.0), ("O-008", 1.4), ("O-006", 1.4), ("O-005", 1.2),
        ("O-013", 1.0), ("O-003", 0.8), ("O-001", 0.2),
    ]  # fmt: skip


def test_recall_markdown(cli: CLI, filled: Path) -> None:
    result = run(cli, filled, "recall", "outcomes", "--agent", "testing-api-tester", "--limit", "2")
    assert result.stdout == (
        "| ID | Date | Branch | Agent | Task Type | Outcome | Importance | Decay | Summary |\n"
        "|---|---|---|---|---|---|---|---|---|\n"
        "| O-010 | 2026-03-24 | main | testing-api-tester | api-testing | partial | 3 | 3 "
        "| Load tests flaky on CI |\n"
        "| O-008 | 2026-03-23 | main | testing-api-tester, testing-qa-verification-specialist "
        "| api-testing | success | 2 | 1.4 | Review panel passed phase 4 in one cycle |\n"
    )


def test_recall_filters(cli: CLI, filled: Path) -> None:
    def recalled(*args: str) -> list[str]:
        return ids(run(cli, filled, "--json", "recall", "outcomes", *args))

    assert recalled("--tag", "ui", "--agent", "testing-qa-verification-specialist") == ["O-012"]
    assert recalled("--tag", "review", "--tag", "cache") == ["O-011", "O-008"]
    assert recalled("--tag", "review,cache") == ["O-011", "O-008"]
    assert recalled("--task-type", "frontend", "--limit", "2") == ["O-012", "O-009"]


def test_recall_by_branch(cli: CLI, filled: Path) -> None:
    def recalled(*args: str) -> list[str]:
        return ids(run(cli, filled, "--json", *args))

    assert recalled("recall", "outcomes", "--branch", "feature/api") == ["O-011", "O-006"]
    assert recalled("--branch", "feature/api", "recall", "outcomes", "--branch", "current") == [
        "O-011",
        "O-006",
    ]
    everything = recalled("recall", "outcomes")
    on_main = [i for i in everything if i not in ("O-011", "O-006")]
    assert recalled("recall", "outcomes", "--branch", "current") == on_main  # the repo is on main
    assert "O-009" in on_main  # the legacy row belongs to the default branch, main here
    git(filled, "config", "init.defaultBranch", "trunk")
    assert recalled("recall", "outcomes", "--branch", "main") == [
        i for i in on_main if i != "O-009"
    ]
    assert recalled("recall", "outcomes", "--branch", "trunk") == ["O-009"]


def test_too_many_records_note_uses_the_settings_threshold(cli: CLI, filled: Path) -> None:
    (filled / "settings.json").write_text('{"memory": {"prune_threshold": 13}}', encoding="utf-8")
    note = (
        "OUTCOMES.md has 14 records. Run `/legion:learn --prune` to archive old entries, "
        "or enable `memory.auto_prune` in settings.json."
    )
    result = run(cli, filled, "--json", "recall", "outcomes", "--limit", "1")
    assert (result.stderr, json.loads(result.stdout)["notes"]) == (note + "\n", [note])
    result = run(cli, filled, "recall", "outcomes", "--agent", "nobody")
    assert (result.code, result.stdout, result.stderr) == (0, "", note + "\n")
    (filled / "settings.json").write_text('{"memory": {"prune_threshold": 14}}', encoding="utf-8")
    assert run(cli, filled, "recall", "outcomes").stderr == ""


def test_missing_memory_reads_as_empty_and_creates_nothing(cli: CLI, repo: Path) -> None:
    before = read_bytes_of(repo)
    results = [
        run(cli, repo, "--json", "recall", "outcomes"),
        run(cli, repo, "--json", "score", "agents", "--task-type", "backend"),
        run(cli, repo, "--json", "score", "archetypes"),
        run(cli, repo, "--json", "briefing"),
        run(cli, repo, "recall", "outcomes"),
        run(cli, repo, "briefing"),
        run(cli, repo, "score", "archetypes"),
    ]
    assert [(r.code, r.stdout, r.stderr) for r in results] == [
        (0, '{\n  "records": [],\n  "notes": []\n}\n', ""),
        (0, "{}\n", ""),
        (0, "{}\n", ""),
        (0, '{\n  "total_records": 0,\n  "recent_outcomes": [],\n  "top_agents": []\n}\n', ""),
        (0, "", ""),
        (0, "", ""),
        (0, "", ""),
    ]
    assert read_bytes_of(repo) == before
    assert not (repo / ".planning").exists()


def test_a_malformed_file_warns_once_and_reads_as_empty(cli: CLI, filled: Path) -> None:
    with (filled / OUTCOMES).open("a", encoding="utf-8") as handle:
        handle.write("| O-015 | stray |\n")
    before = read_bytes_of(filled)
    result = run(cli, filled, "--json", "recall", "outcomes")
    assert (result.code, result.stderr) == (0, WARNING)
    assert json.loads(result.stdout) == {"records": [], "notes": [WARNING.strip()]}
    for args in (
        ["briefing"],
        ["score", "agents", "--task-type", "backend"],
        ["recall", "outcomes"],
    ):
        assert run(cli, filled, *args) == Result(0, "", WARNING)
    assert read_bytes_of(filled) == before


def test_a_file_that_is_not_utf8_reads_as_empty_with_the_warning(cli: CLI, filled: Path) -> None:
    (filled / OUTCOMES).write_bytes(b"| ID |\n|---|\n| \xff |\n")
    result = run(cli, filled, "recall", "outcomes")
    assert (result.code, result.stdout, result.stderr) == (0, "", WARNING)


def test_the_legacy_three_column_table_is_tolerated(cli: CLI, repo: Path) -> None:
    (repo / OUTCOMES).parent.mkdir(parents=True)
    (repo / OUTCOMES).write_text(
        "# Outcomes\n| Date | Agent | Outcome |\n|------|-------|---------|\n"
        "| 2026-03-01 | engineering-senior-developer | Success |\n",
        encoding="utf-8",
    )
    # No importance to weigh: recall has nothing above 0.2; the briefing still counts it.
    assert run(cli, repo, "recall", "outcomes") == Result(0, "", "")
    assert run(cli, repo, "briefing").stdout.splitlines()[:2] == [
        "## Memory",
        "**Outcomes**: 1 recorded | **Recent** (last 5):",
    ]


def test_disabled_memory_reads_as_empty(cli: CLI, filled: Path) -> None:
    (filled / "settings.json").write_text('{"memory": {"enabled": false}}', encoding="utf-8")
    assert run(cli, filled, "--json", "recall", "outcomes").stdout == (
        '{\n  "records": [],\n  "notes": []\n}\n'
    )
    assert run(cli, filled, "briefing") == Result(0, "", "")
    assert run(cli, filled, "score", "agents", "--task-type", "backend") == Result(0, "", "")


def test_score_agents_prints_the_plain_map(cli: CLI, filled: Path) -> None:
    result = run(cli, filled, "--json", "score", "agents", "--task-type", "backend")
    assert result.stdout == (
        '{\n  "testing-qa-verification-specialist": 4.0375,\n'
        '  "engineering-backend-architect": 2.432\n}\n'
    )
    result = run(cli, filled, "--json", "score", "agents", "--task-type", "api-testing")
    assert json.loads(result.stdout) == {
        "testing-qa-verification-specialist": 2.975,
        "testing-api-tester": 2.216667,
    }
    several = ["--task-type", "frontend", "--task-type", "backend"]
    expected = {
        "testing-qa-verification-specialist": 4.0375,
        "engineering-backend-architect": 2.432,
        "engineering-frontend-developer": 2.4,
    }
    assert json.loads(run(cli, filled, "--json", "score", "agents", *several).stdout) == expected
    comma = ["--task-type", "frontend,backend"]
    assert json.loads(run(cli, filled, "--json", "score", "agents", *comma).stdout) == expected
    assert run(cli, filled, "score", "agents", "--task-type", "frontend").stdout == (
        "| Agent | Score |\n|---|---|\n| engineering-frontend-developer | 2.4 |\n"
    )


def test_score_agents_needs_a_task_type(cli: CLI, filled: Path) -> None:
    result = run(cli, filled, "score", "agents")
    assert result.code == 2
    assert result.stderr == (
        "Error: Missing option '--task-type'. (see `legion-memory score agents --help`)\n"
    )


def test_score_archetypes(cli: CLI, filled: Path) -> None:
    result = run(cli, filled, "--json", "score", "archetypes", "--task-type", "api-testing")
    assert json.loads(result.stdout) == {
        "api-testing": {
            "agents": ["testing-api-tester", "testing-qa-verification-specialist"],
            "successRate": 0.75,
            "totalOutcomes": 4,
            "avgImportance": 2.5,
            "topAgent": "testing-qa-verification-specialist",
        }
    }
    assert run(cli, filled, "score", "archetypes").stdout == (
        "| Task Type | Outcomes | Success Rate | Avg Importance | Top Agent | Agents |\n"
        "|---|---|---|---|---|---|\n"
        "| backend | 5 | 0.8 | 2.8 | engineering-backend-architect "
        "| engineering-backend-architect |\n"
        "| api-testing | 4 | 0.75 | 2.5 | testing-qa-verification-specialist "
        "| testing-api-tester, testing-qa-verification-specialist |\n"
        "| frontend | 4 | 0.75 | 2.5 | engineering-frontend-developer "
        "| engineering-frontend-developer, testing-qa-verification-specialist |\n"
    )


def test_briefing(cli: CLI, filled: Path) -> None:
    result = run(cli, filled, "briefing")
    assert (result.code, result.stderr) == (0, "")
    assert result.stdout.splitlines() == [
        "## Memory",
        "**Outcomes**: 14 recorded | **Recent** (last 5):",
        "| Date | Agent | Outcome | Summary |",
        "|------|-------|---------|---------|",
        "| 2026-03-31 | engineering-frontend-developer | success | Copy fix on the empty state |",
        "| 2026-03-30 | testing-qa-verification-specialist | success "
        "| Visual QA of the orders page |",
        "| 2026-03-29 | engineering-backend-architect | success | Bulk export endpoint |",
        "| 2026-03-28 | engineering-backend-architect | success | Cache for order lookups |",
        "| 2026-03-28 | engineering-frontend-developer | success | Orders page in the new layout |",
        "",
        "**Top Agents** (by experience):",
        "| Agent | Tasks | Success Rate |",
        "|-------|-------|-------------|",
        "| engineering-backend-architect | 5 | 80% |",
        "| engineering-frontend-developer | 4 | 75% |",
        "| testing-qa-verification-specialist | 3 | 100% |",
    ]
    data = json.loads(run(cli, filled, "--json", "briefing").stdout)
    assert (data["total_records"], [r["id"] for r in data["recent_outcomes"]]) == (
        14,
        ["O-013", "O-012", "O-014", "O-011", "O-009"],
    )
    assert data["recent_outcomes"][1]["decay_score"] == 4.0
    assert data["top_agents"][2] == {
        "agent": "testing-qa-verification-specialist",
        "tasks": 3,
        "success_rate": 1.0,
        "avg_importance": 3.0,
    }

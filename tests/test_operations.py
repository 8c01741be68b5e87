"""The library API: one call per operation, plain values whose JSON is what the CLI prints."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from support.processes import CLI

import legion_memory
from legion_memory.errors import InputError
from legion_memory.markdown import document
from legion_memory.storage import reading

TODAY = "2026-03-10"


@pytest.fixture
def project(memory_project: Path) -> Path:
    return memory_project


def _store(target: legion_memory.Project | Path, plan: str, agent: str) -> None:
    legion_memory.store_outcome(
        target, phase="1", plan=plan, agent=agent, outcome="success", summary=f"did {plan}",
        task_type="backend",
    )  # fmt: skip


def test_a_store_parses_outcomes_once_and_says_its_notes_in_order(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = legion_memory.Project.at(project, today=TODAY, branch="main")
    _store(first, "01-01", "backend-dev")
    parsed: list[int] = []

    def counted(text: str) -> document.Document:
        parsed.append(len(text))
        return document.parse(text)

    def counted_lines(lines: list[str]) -> document.Document:
        parsed.append(len("".join(lines)))
        return document.parse_lines(lines)

    monkeypatch.setattr(reading, "parse", counted)
    monkeypatch.setattr(reading, "parse_lines", counted_lines)
    outcomes = (project / ".planning/memory/OUTCOMES.md").read_text(encoding="utf-8")
    second = legion_memory.Project.at(project, today=TODAY, branch="main")
    stored = legion_memory.store_outcome(
        second, phase="1", plan="01-02", agent="backend-dev", outcome="failed", summary="x",
        task_type="backend",
    )  # fmt: skip
    # Importance reads the live table once; the write reuses that parse.
    assert parsed.count(len(outcomes)) == 1
    assert stored.record is not None and stored.record.id == "O-002"
    assert stored.to_json() == {**stored.record.to_json()}
    assert second.notices[0].startswith("Note: no CATALOG.md found")


def test_results_are_the_json_the_cli_prints(cli: CLI, project: Path) -> None:
    for number, agent in enumerate(("backend-dev", "backend-dev", "qa"), start=1):
        _store(
            legion_memory.Project.at(project, today=TODAY, branch="main"), f"01-0{number}", agent
        )
    legion_memory.store_pattern(
        legion_memory.Project.at(project, today=TODAY, branch="main"),
        pattern="Cache", situation="hot path", reuse="reads", source="O-009", tags="perf,perf",
    )  # fmt: skip
    pairs: dict[tuple[str, ...], Callable[[legion_memory.Project], Any]] = {
        ("recall", "outcomes"): legion_memory.recall_outcomes,
        ("recall", "patterns"): legion_memory.recall_patterns,
        ("briefing",): legion_memory.memory_briefing,
        ("validate",): legion_memory.validate,
    }
    for argv, operation in pairs.items():
        shown = cli("--json", "--today", TODAY, *argv, cwd=project)
        project_at = legion_memory.Project.at(project, today=TODAY)
        expected = json.dumps(operation(project_at).to_json(), ensure_ascii=False, indent=2)
        assert (shown.code, shown.stdout) == (0, expected + "\n")
    scores = legion_memory.score_agents(project, task_type=["backend"])
    assert scores.to_json() == {"backend-dev": pytest.approx(scores.scores["backend-dev"])}
    found = legion_memory.search_memory(project, query="cache")
    results: Any = found.to_json()["results"]
    assert [hit["id"] for hit in results] == ["P-001"]


def test_a_pattern_naming_an_unknown_outcome_is_stored_with_a_note(project: Path) -> None:
    at = legion_memory.Project.at(project, today=TODAY, branch="main")
    _store(at, "01-01", "backend-dev")
    stored = legion_memory.store_pattern(
        at, pattern="Cache", situation="hot", reuse="reads", source="O-007"
    )
    note = "Source O-007 is not an outcome in OUTCOMES.md or ARCHIVE.md (stored as given)"
    assert stored.to_json() == {
        "action": "stored",
        "where": ".planning/memory/PATTERNS.md:10",
        "record": stored.record.to_json() if stored.record else None,
        "notes": [note],
    }
    assert at.notices[-1] == note
    moved = legion_memory.forget_record(at, record_id="P-001")
    assert moved.text() == "archived P-001: PATTERNS.md -> ARCHIVE.md (Archived Patterns)"


def test_a_bad_option_fails_before_any_operation(project: Path) -> None:
    with pytest.raises(InputError, match="--today '2026-02-30' is not a date"):
        legion_memory.Project.at(project, today="2026-02-30")
    before = (project / ".planning/memory/OUTCOMES.md").read_bytes()
    with pytest.raises(InputError, match="missing --summary"):
        legion_memory.store_outcome(project, phase="1", plan="01-01", agent="a", outcome="success")
    assert (project / ".planning/memory/OUTCOMES.md").read_bytes() == before

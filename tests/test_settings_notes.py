"""Values settings.json gets wrong are said once on stderr, by every command that reads settings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.processes import CLI, read_bytes_of

TODAY = "2026-03-10"
BAD = {"memory": {"auto_prune": "yes", "prune_threshold": -1, "error_similarity": 2}}


def warnings(repo: Path) -> str:
    path = repo / "settings.json"
    return (
        f"Warning: {path}: memory.auto_prune = 'yes' is invalid; using False\n"
        f"Warning: {path}: memory.prune_threshold = -1 is invalid; using 200\n"
        f"Warning: {path}: memory.error_similarity = 2 is invalid; using 0.6\n"
    )


@pytest.fixture
def project(cli: CLI, repo: Path) -> Path:
    assert cli("init", cwd=repo).code == 0
    (repo / "settings.json").write_text(json.dumps(BAD), encoding="utf-8")
    (repo / ".planning" / "STATE.md").write_text("Phase: 1\n", encoding="utf-8")
    return repo


STORE_OUTCOME = (
    "store", "outcome", "--phase", "1", "--plan", "01-01", "--agent", "a", "--outcome",
    "success", "--summary", "done", "--task-type", "general", "--importance", "2",
)  # fmt: skip


@pytest.mark.parametrize(
    "args",
    [
        STORE_OUTCOME,
        ("recall", "outcomes"),
        ("score", "agents", "--task-type", "general"),
        ("briefing",),
        ("store", "pattern", "--pattern", "p", "--context", "c", "--reuse", "r"),
        ("recall", "patterns"),
        ("score", "preferences"),
        ("search", "anything"),
        ("prune", "--dry-run"),
        ("export",),
    ],
)
def test_each_invalid_value_is_said_once(cli: CLI, project: Path, args: tuple[str, ...]) -> None:
    result = cli("--today", TODAY, *args, cwd=project)
    assert result.code == 0, result.stderr
    assert result.stderr == warnings(project)


def test_the_defaults_replace_the_invalid_values(cli: CLI, project: Path) -> None:
    result = cli("--today", TODAY, *STORE_OUTCOME, cwd=project)
    assert result.stdout == (
        "| ID | Date | Branch | Phase | Plan | Agent | Task Type | Outcome | Importance | Tags "
        "| Summary |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|\n"
        "| O-001 | 2026-03-10 | main | 1 | 01-01 | a | general | success | 2 |  | done |\n"
    )
    # auto_prune fell back to false: nothing was archived, ARCHIVE.md is still the template.
    assert "O-001" not in (project / ".planning/memory/ARCHIVE.md").read_text(encoding="utf-8")


def test_an_unreadable_settings_file_is_said_once(cli: CLI, project: Path) -> None:
    (project / "settings.json").write_text("{not json", encoding="utf-8")
    before = read_bytes_of(project)
    result = cli("--today", TODAY, "recall", "outcomes", cwd=project)
    assert (result.code, result.stdout) == (0, "")
    assert result.stderr == (
        f"Warning: {project / 'settings.json'}: unreadable (Expecting property name enclosed in "
        "double quotes: line 1 column 2 (char 1)); using default memory settings\n"
    )
    assert read_bytes_of(project) == before


def test_valid_settings_say_nothing(cli: CLI, project: Path) -> None:
    (project / "settings.json").write_text('{"memory": {"prune_threshold": 5}}', encoding="utf-8")
    result = cli("--today", TODAY, "recall", "outcomes", cwd=project)
    assert (result.code, result.stdout, result.stderr) == (0, "", "")


def test_commands_that_never_read_settings_say_nothing(cli: CLI, project: Path) -> None:
    result = cli("validate", cwd=project)
    assert (result.code, result.stderr) == (0, "")

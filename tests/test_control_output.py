"""A committed row holding terminal control characters: every command shows them as visible
escapes, never raw, and `--json` keeps the value exactly (the escape is JSON's own)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.processes import git, read_bytes_of, run_process

TODAY = ("--today", "2026-03-10")
RAW = "red \x1b[31malert\x1b[0m \x9b2J\x07 fix"
SHOWN = "red \\u001b[31malert\\u001b[0m \\u009b2J\\u0007 fix"


@pytest.fixture
def committed(repo: Path) -> Path:
    """A project whose OUTCOMES.md row was committed with control characters in its summary,
    as anyone who can get a commit in can write it."""
    run_process(
        *TODAY, "store", "outcome", "--phase", "1", "--plan", "01-01", "--agent", "a",
        "--outcome", "success", "--summary", "red alert placeholder fix", cwd=repo, check=True,
    )  # fmt: skip
    outcomes = repo / ".planning" / "memory" / "OUTCOMES.md"
    text = outcomes.read_text(encoding="utf-8")
    outcomes.write_text(text.replace("red alert placeholder fix", RAW), encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "a row with escapes")
    return repo


def _no_raw_controls(text: str) -> None:
    assert not any((0 <= ord(c) < 32 and c not in "\t\n\r") or 0x7F <= ord(c) <= 0x9F for c in text)


def test_recall_shows_the_escapes_visibly(committed: Path) -> None:
    before = read_bytes_of(committed)
    result = run_process(*TODAY, "recall", "outcomes", cwd=committed)
    assert (result.code, result.stderr) == (0, "")
    assert result.stdout.splitlines()[2] == (
        f"| O-001 | 2026-03-10 | main | a | general | success | 3 | 3 | {SHOWN} |"
    )
    _no_raw_controls(result.stdout)
    assert read_bytes_of(committed) == before


def test_json_output_keeps_the_value_exactly_without_raw_controls(committed: Path) -> None:
    for args in (("recall", "outcomes"), ("export",), ("search", "red fix")):
        result = run_process("--json", *TODAY, *args, cwd=committed)
        assert result.code == 0, result.stderr
        _no_raw_controls(result.stdout)
        assert RAW in _strings(json.loads(result.stdout))


def _strings(value: object) -> list[str]:
    """Every string value inside a JSON document."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list):
        return [text for item in value for text in _strings(item)]
    return []


def test_search_and_export_show_the_escapes(committed: Path) -> None:
    for args in (("search", "red fix"), ("export", "--format", "csv")):
        result = run_process(*TODAY, *args, cwd=committed)
        assert result.code == 0, result.stderr
        assert SHOWN in result.stdout
        _no_raw_controls(result.stdout + result.stderr)


def test_the_agent_context_block_carries_no_raw_control(committed: Path) -> None:
    result = run_process(*TODAY, "context", "--agent", "a", "--task", "red fix", cwd=committed)
    assert (result.code, result.stderr) == (0, "")
    assert result.stdout.startswith('<legion-memory role="a">\n- [outcome] red ')
    _no_raw_controls(result.stdout)


def test_validate_reports_the_row_without_printing_the_escape(committed: Path) -> None:
    result = run_process("validate", cwd=committed)
    assert result.code == 1
    assert result.stdout == (
        ".planning/memory/OUTCOMES.md:10: error: Summary holds a control character (U+001B); "
        "remove it\n1 file checked, 1 error, 0 other\n"
    )

"""`import memory-system`: facts become PATTERNS/PREFERENCES rows, outcome events OUTCOMES rows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.interop import TODAY, added_lines, copy_source, memory_text, seed_memory
from support.processes import CLI, read_bytes_of

NEW_OUTCOMES = [
    "| O-002 | 2026-03-01 | main | 3 | 03-02 | engineering-senior-developer | api-design "
    "| success | 2 | task_complete | Login endpoint with rate limiting |",
    "| O-003 | 2026-03-01 | main | N/A | - | memory-system | general | failed | 5 "
    "| task_complete | Password reset e-mails never sent |",
]
NEW_PATTERNS = [
    "| P-002 | 2026-02-20 | main | API handlers validate input with zod before touching the "
    "database | memory-system pattern fact from pattern-detector | - "
    "| memory-system fact-5e6f7a8b | pattern |",
    "| P-003 | 2026-02-22 | main | Snapshot tests break on locale changes; pin TZ and LANG in CI "
    "| memory-system learning fact from session | - | memory-system fact-c3d4e5f6 | learning |",
]
NEW_PREFERENCES = [
    "| D-002 | 2026-02-14 | main | manual-edit | memory-system preference fact from user | - "
    "| Uses pnpm as package manager | positive | user | preference |",
]
SKIPPED = (
    "Skipped 2:\n"
    "- category 'context' has no memory table: memory-system/facts/fact-9c0d1e2f.json\n"
    "- outcome 'abandoned' is not success, partial or failed: "
    "memory-system/events/2026-03-01.jsonl:6\n"
)


def run_import(cli: CLI, project: Path, *extra: str) -> tuple[int, str, str]:
    result = cli("--today", TODAY, "import", "memory-system", *extra, cwd=project)
    return result.code, result.stdout, result.stderr


def test_facts_and_outcome_events_become_rows(cli: CLI, repo: Path) -> None:
    seeded = seed_memory(repo)
    copy_source(repo, "memory-system")
    code, out, err = run_import(cli, repo, "memory-system")
    assert (code, err) == (0, "")
    assert out.splitlines()[0] == "Imported 5 records from memory-system (memory-system)."
    assert out.endswith("\n\n" + SKIPPED)
    assert added_lines(repo, "OUTCOMES.md", seeded["outcomes"]) == NEW_OUTCOMES
    assert added_lines(repo, "PATTERNS.md", seeded["patterns"]) == NEW_PATTERNS
    assert added_lines(repo, "PREFERENCES.md", seeded["preferences"]) == NEW_PREFERENCES
    assert memory_text(repo, "ERRORS.md") == seeded["errors"]
    ledger = memory_text(repo, "IMPORTED.txt").splitlines()
    assert sorted(line.split(" ", 3)[3] for line in ledger if not line.startswith("#")) == [
        "memory-system/events/2026-03-01.jsonl:3",
        "memory-system/events/2026-03-01.jsonl:5",
        "memory-system/facts/fact-1a2b3c4d.json",
        "memory-system/facts/fact-5e6f7a8b.json",
        "memory-system/facts/fact-c3d4e5f6.json",
    ]


def test_reading_a_fact_again_does_not_import_it_again(cli: CLI, repo: Path) -> None:
    """memory-system bumps access_count and last_accessed on every read: not new knowledge."""
    seed_memory(repo)
    source = copy_source(repo, "memory-system")
    run_import(cli, repo, "memory-system")
    fact_file = source / "facts" / "fact-5e6f7a8b.json"
    fact = json.loads(fact_file.read_text(encoding="utf-8"))
    fact.update(access_count=9, last_accessed="2026-04-30T10:00:00Z", confidence=0.9)
    fact_file.write_text(json.dumps(fact, indent=2), encoding="utf-8")
    before = read_bytes_of(repo)
    code, out, _ = run_import(cli, repo, "memory-system")
    assert code == 0
    assert out == (
        "Nothing new to import from memory-system (memory-system).\n\n"
        "Skipped 7:\n"
        "- category 'context' has no memory table: memory-system/facts/fact-9c0d1e2f.json\n"
        "- outcome 'abandoned' is not success, partial or failed: "
        "memory-system/events/2026-03-01.jsonl:6\n"
        "- already imported: 5\n"
    )
    assert read_bytes_of(repo) == before


def test_an_edited_fact_is_new_knowledge(cli: CLI, repo: Path) -> None:
    seeded = seed_memory(repo)
    source = copy_source(repo, "memory-system")
    run_import(cli, repo, "memory-system")
    fact_file = source / "facts" / "fact-1a2b3c4d.json"
    fact = json.loads(fact_file.read_text(encoding="utf-8"))
    fact["content"] = "Uses pnpm workspaces; never npm"
    fact_file.write_text(json.dumps(fact), encoding="utf-8")
    code, out, _ = run_import(cli, repo, "memory-system")
    assert (code, out.splitlines()[0]) == (
        0,
        "Imported 1 record from memory-system (memory-system).",
    )
    assert added_lines(repo, "PREFERENCES.md", seeded["preferences"])[1] == (
        "| D-003 | 2026-02-14 | main | manual-edit | memory-system preference fact from user | - "
        "| Uses pnpm workspaces; never npm | positive | user | preference |"
    )


def test_one_file_holding_an_array_of_facts(cli: CLI, repo: Path) -> None:
    seeded = seed_memory(repo)
    facts = [
        {"id": "f-1", "category": "learning", "content": "Use ISO dates", "timestamp": None},
        {"id": "f-2", "category": "preference", "content": "Short commits", "source": "user"},
    ]
    (repo / "facts.json").write_text(json.dumps(facts), encoding="utf-8")
    code, _, _ = run_import(cli, repo, "facts.json")
    assert code == 0
    assert added_lines(repo, "PATTERNS.md", seeded["patterns"]) == [
        "| P-002 | 2026-05-01 | main | Use ISO dates | memory-system learning fact from "
        "memory-system | - | memory-system f-1 | learning |"
    ]
    assert memory_text(repo, "IMPORTED.txt").count(" facts.json at [") == 2


def test_dry_run_writes_nothing(cli: CLI, repo: Path) -> None:
    seed_memory(repo)
    copy_source(repo, "memory-system")
    before = read_bytes_of(repo)
    code, out, _ = run_import(cli, repo, "memory-system", "--dry-run")
    assert code == 0
    assert out.startswith(
        "Dry run: would import 5 records from memory-system (memory-system); nothing was written."
    )
    assert "\n".join(NEW_OUTCOMES) in out
    assert read_bytes_of(repo) == before


def test_corrupt_event_line_names_file_line_and_column(cli: CLI, repo: Path) -> None:
    seed_memory(repo)
    copy_source(repo, "memory-system-corrupt")
    before = read_bytes_of(repo)
    code, out, err = run_import(cli, repo, "memory-system-corrupt")
    assert (code, out) == (2, "")
    assert err == (
        "Error: memory-system-corrupt/events/2026-03-02.jsonl:3:98: invalid JSON: "
        "Unterminated string starting at (fix the source file and import again)\n"
    )
    assert read_bytes_of(repo) == before


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("facts/a.json", '{"category": "pattern", "content": "x", "timestamp": true}', "date"),
        ("facts/a.json", '"just text"', "facts/a.json: expected a JSON object, found a string"),
        ("events/e.jsonl", '{"outcome": "success", "phase": "three"}\n', "Phase 'three'"),
        ("events/e.jsonl", "[1, 2]\n", "events/e.jsonl:1: expected a JSON object, found an array"),
    ],
)
def test_a_bad_fact_or_event_stops_the_import(
    cli: CLI, repo: Path, name: str, content: str, message: str
) -> None:
    seed_memory(repo)
    target = repo / "ms" / name
    target.parent.mkdir(parents=True)
    target.write_text(content, encoding="utf-8")
    before = read_bytes_of(repo)
    code, _, err = run_import(cli, repo, "ms")
    assert code == 2
    assert message in err
    assert err.startswith("Error: ms/")
    assert read_bytes_of(repo) == before


def test_a_directory_without_facts_or_events_is_refused(cli: CLI, repo: Path) -> None:
    (repo / "empty").mkdir()
    code, _, err = run_import(cli, repo, "empty")
    assert (code, err) == (
        2,
        "Error: no memory-system files found in 'empty' "
        "(give the directory holding facts/*.json and events/*.jsonl)\n",
    )

"""`export`: every record with its kind and ID, as JSON, JSON Lines or CSV."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.interop import MEMORY, seed_memory
from support.processes import CLI, read_bytes_of

from legion_memory.interop.json_exchange import export_json
from legion_memory.schema.kinds import archive_template

ARCHIVED_ROW = (
    "| O-000 | 2025-01-05 | main | 05 | 01-01 | autonomous | general | success | 1 |  "
    "| Pipes \\| and<br>breaks |\n"
)
OUTCOME = {
    "kind": "outcome",
    "archived": False,
    "id": "O-001",
    "date": "2026-01-05",
    "branch": "main",
    "phase": 1,
    "plan": "01-01",
    "agent": "autonomous",
    "task_type": "general",
    "outcome": "success",
    "importance": 2,
    "tags": "seed",
    "summary": "Seeded outcome",
}
ARCHIVED = {
    **OUTCOME,
    "archived": True,
    "id": "O-000",
    "date": "2025-01-05",
    "phase": "05",
    "importance": 1,
    "tags": "",
    "summary": "Pipes | and\nbreaks",
}
ERROR = {
    "kind": "error",
    "archived": False,
    "id": "E-001",
    "date": "2026-01-05",
    "branch": "main",
    "error_signature": "Seeded error",
    "fix": "Seeded fix",
    "agent": "autonomous",
    "resolved": True,
    "tags": "seed",
}


def project(repo: Path) -> Path:
    seed_memory(repo)
    (repo / MEMORY / "ARCHIVE.md").write_text(archive_template() + ARCHIVED_ROW, encoding="utf-8")
    return repo


def test_json_lists_every_live_record_with_kind_and_id(cli: CLI, repo: Path) -> None:
    project(repo)
    before = read_bytes_of(repo)
    result = cli("export", cwd=repo)
    assert result.code == 0
    data = json.loads(result.stdout)
    assert (data["format"], data["version"]) == ("legion-memory-export", 1)
    assert [(r["kind"], r["id"]) for r in data["records"]] == [
        ("outcome", "O-001"),
        ("pattern", "P-001"),
        ("error", "E-001"),
        ("preference", "D-001"),
    ]
    assert data["records"][0] == OUTCOME
    assert data["records"][2] == ERROR
    assert result.stdout == json.dumps(data, ensure_ascii=False, indent=2) + "\n"
    assert read_bytes_of(repo) == before


def test_archive_and_one_file(cli: CLI, repo: Path) -> None:
    project(repo)
    result = cli("export", "--file", "outcomes", "--include-archive", cwd=repo)
    # A phase written `05` stays text, so that it reads back exactly as it was written.
    assert json.loads(result.stdout)["records"] == [OUTCOME, ARCHIVED]
    result = cli("export", "--file", "outcome", cwd=repo)
    assert json.loads(result.stdout)["records"] == [OUTCOME]


def test_jsonl_is_one_record_per_line(cli: CLI, repo: Path) -> None:
    project(repo)
    result = cli("export", "--format", "jsonl", "--file", "outcomes", "--include-archive", cwd=repo)
    assert result.stdout == (
        json.dumps(OUTCOME, ensure_ascii=False)
        + "\n"
        + json.dumps(ARCHIVED, ensure_ascii=False)
        + "\n"
    )


def test_csv_has_a_header_row_and_quotes_what_needs_it(cli: CLI, repo: Path) -> None:
    project(repo)
    result = cli("export", "--format", "csv", "--file", "outcomes", "--include-archive", cwd=repo)
    assert result.stdout == (
        "kind,archived,id,date,branch,phase,plan,agent,task_type,outcome,importance,tags,summary\n"
        "outcome,false,O-001,2026-01-05,main,1,01-01,autonomous,general,success,2,seed,"
        "Seeded outcome\n"
        "outcome,true,O-000,2025-01-05,main,05,01-01,autonomous,general,success,1,,"
        '"Pipes | and\nbreaks"\n'
    )


def test_csv_of_every_kind_has_the_union_of_their_columns(cli: CLI, repo: Path) -> None:
    project(repo)
    lines = cli("export", "--format", "csv", cwd=repo).stdout.splitlines()
    assert lines[0] == (
        "kind,archived,id,date,branch,phase,plan,agent,task_type,outcome,importance,tags,summary,"
        "pattern,context,reuse_criteria,source,error_signature,fix,resolved,decision_point,"
        "proposed,user_choice,signal"
    )
    assert lines[3] == (
        "error,false,E-001,2026-01-05,main,,,autonomous,,,,seed,,,,,,"
        "Seeded error,Seeded fix,true,,,,"
    )
    assert len(lines) == 5


def test_nothing_stored_yet_is_an_empty_export(cli: CLI, repo: Path) -> None:
    assert cli("export", cwd=repo).stdout == (
        '{\n  "format": "legion-memory-export",\n  "version": 1,\n  "records": []\n}\n'
    )
    assert cli("export", "--format", "jsonl", cwd=repo).stdout == ""
    assert cli("export", "--format", "csv", "--file", "patterns", cwd=repo).stdout == (
        "kind,archived,id,date,branch,pattern,context,reuse_criteria,source,tags\n"
    )
    assert not (repo / ".planning").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--format", "xml"), "Error: --format 'xml' is not valid (use one of json, jsonl, csv)\n"),
        (
            ("--file", "notes"),
            "Error: unknown memory kind 'notes' "
            "(use one of outcomes, patterns, errors, preferences)\n",
        ),
    ],
)
def test_bad_options_are_one_line_exit_2(
    cli: CLI, repo: Path, args: tuple[str, ...], message: str
) -> None:
    result = cli("export", *args, cwd=repo)
    assert (result.code, result.stdout, result.stderr) == (2, "", message)


def test_a_broken_table_is_an_error_not_a_partial_export(cli: CLI, repo: Path) -> None:
    seed_memory(repo)
    path = repo / MEMORY / "PATTERNS.md"
    path.write_text(path.read_text(encoding="utf-8") + "| P-002 | 2026-01-06 | too few |\n")
    result = cli("export", cwd=repo)
    assert (result.code, result.stdout) == (1, "")
    assert result.stderr == (
        f"Error: {path}:11: row has 3 cells but the header has 8 "
        "(escape pipes inside values as \\| and fix the row by hand)\n"
    )


def test_disabled_memory_exports_nothing_and_imports_nothing(cli: CLI, repo: Path) -> None:
    project(repo)
    (repo / "settings.json").write_text('{"memory": {"enabled": false}}', encoding="utf-8")
    assert json.loads(cli("export", cwd=repo).stdout)["records"] == []
    (repo / "b.json").write_text('{"namespaces": {"qa": [{"text": "t", "type": "pattern"}]}}')
    before = read_bytes_of(repo)
    result = cli("import", "bullpen", "b.json", cwd=repo)
    assert (result.code, result.stdout, result.stderr) == (
        0,
        "",
        "memory is disabled in settings.json (memory.enabled = false); nothing imported\n",
    )
    assert read_bytes_of(repo) == before


_VALUES = st.one_of(st.text(), st.integers(), st.booleans())


@settings(max_examples=500, deadline=None)
@given(st.lists(st.dictionaries(st.text(), _VALUES, max_size=6), max_size=5))
def test_the_json_export_is_the_indented_dump(records: list[dict[str, object]]) -> None:
    document = {"format": "legion-memory-export", "version": 1, "records": records}
    expected = json.dumps(document, ensure_ascii=False, indent=2) + "\n"
    assert export_json(records) == expected

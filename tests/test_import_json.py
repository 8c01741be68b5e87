"""`import json`: the tool's own export read back, every ID kept; export -> import round trips."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.interop import MEMORY, TODAY, copy_source, memory_text, seed_memory
from support.processes import CLI, REPO_ROOT, git, read_bytes_of

from legion_memory.schema.kinds import KINDS, OUTCOME, PATTERN, PREFERENCE, archive_template
from legion_memory.storage.reading import Memory, load_archived, load_records

FILES = ("OUTCOMES.md", "PATTERNS.md", "ERRORS.md", "PREFERENCES.md", "ARCHIVE.md")
LEARN_ENTRY = (
    "\n## PAT-001: Pin the toolchain\n- **Date**: 2026-03-09\n- **Tags**: ci\n\n"
    "Use .tool-versions so CI and laptops agree.\n\n---\n"
)
ARCHIVED_PATTERN = {
    "format": "legion-memory-export",
    "version": 1,
    "records": [
        {
            "kind": "pattern",
            "archived": True,
            "id": "P-001",
            "date": "2025-09-01",
            "branch": "main",
            "pattern": "Old habit",
            "context": "Phase 1",
            "reuse_criteria": "-",
            "source": "",
            "tags": "legacy",
        }
    ],
}


def new_project(path: Path, cli: CLI) -> Path:
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    assert cli("init", cwd=path).code == 0
    return path


def busy_project(cli: CLI, repo: Path) -> Path:
    """Memory grown by every importer, with archived records of two kinds."""
    assert cli("init", cwd=repo).code == 0
    for name in ("json", "bullpen", "memory-system", "memory-broker"):
        copy_source(repo, name)
    (repo / "archived.json").write_text(json.dumps(ARCHIVED_PATTERN), encoding="utf-8")
    with (repo / MEMORY / "PATTERNS.md").open("a", encoding="utf-8") as handle:
        handle.write(LEARN_ENTRY)
    steps = [
        ("json", "json/export.json"),
        ("json", "archived.json"),
        ("bullpen", "bullpen/memory.json"),
        ("memory-system", "memory-system"),
        ("memory-broker", "memory-broker"),
        ("learn", ".planning/memory", "--move"),
    ]
    for step in steps:
        result = cli("--today", TODAY, "import", *step, cwd=repo)
        assert result.code == 0, result.stderr
    return repo


def tables(project: Path) -> dict[str, bytes]:
    return {name: (project / MEMORY / name).read_bytes() for name in FILES}


def test_export_then_import_into_an_empty_project_gives_identical_tables(
    cli: CLI, repo: Path, tmp_path: Path
) -> None:
    busy_project(cli, repo)
    exported = cli("export", "--include-archive", cwd=repo).stdout
    assert '"archived": true' in exported
    target = new_project(tmp_path / "other", cli)
    (target / "export.json").write_text(exported, encoding="utf-8")
    result = cli("import", "json", "export.json", cwd=target)
    assert result.code == 0, result.stderr
    assert result.stdout.splitlines()[0] == "Imported 21 records from json (export.json)."
    assert tables(target) == tables(repo)
    assert "## Archived Patterns" in memory_text(target, "ARCHIVE.md")
    assert cli("export", "--include-archive", cwd=target).stdout == exported


def test_without_the_archive_the_live_tables_round_trip(
    cli: CLI, repo: Path, tmp_path: Path
) -> None:
    busy_project(cli, repo)
    target = new_project(tmp_path / "other", cli)
    (target / "live.jsonl").write_text(cli("export", "--format", "jsonl", cwd=repo).stdout)
    assert cli("import", "json", "live.jsonl", cwd=target).code == 0
    copied, original = tables(target), tables(repo)
    assert copied.pop("ARCHIVE.md") == archive_template().encode("utf-8")
    original.pop("ARCHIVE.md")
    assert copied == original


def test_ids_are_kept_and_new_records_continue_after_them(cli: CLI, repo: Path) -> None:
    new_project(repo / "p", cli)
    project = repo / "p"
    copy_source(project, "json")
    copy_source(project, "memory-broker")
    result = cli("import", "json", "json/export.json", cwd=project)
    assert result.stdout.splitlines()[0] == "Imported 5 records from json (json/export.json)."
    memory = Memory.of_project(project)
    assert [r.id for r in load_records(memory, OUTCOME)] == ["O-007"]
    assert [r.id for r in load_archived(memory, OUTCOME)] == ["O-002"]
    pattern = load_records(memory, PATTERN)[0]
    assert dict(pattern.values) == {
        "id": "P-003",
        "date": "2026-03-03",
        "branch": "feature/auth",
        "pattern": "Rotate | revoke tokens in one transaction",
        "context": "Phase 5 review\nfound a race",
        "reuse_criteria": "Any token lifecycle change",
        "source": "O-007",
        "tags": "auth",
    }
    # The preference was exported without a branch: it belongs to the default branch.
    assert load_records(memory, PREFERENCE)[0]["branch"] == "main"
    assert not (project / MEMORY / "IMPORTED.txt").exists()
    cli("--today", TODAY, "import", "memory-broker", "memory-broker", cwd=project)
    assert [r.id for r in load_records(memory, OUTCOME)] == [
        "O-007",
        "O-008",
        "O-009",
        "O-010",
        "O-011",
    ]


def test_importing_the_same_export_twice_adds_nothing(cli: CLI, repo: Path) -> None:
    new_project(repo / "p", cli)
    project = repo / "p"
    copy_source(project, "json")
    cli("import", "json", "json/export.json", cwd=project)
    before = read_bytes_of(project)
    result = cli("import", "json", "json/export.json", cwd=project)
    assert (result.code, result.stdout) == (
        0,
        "Nothing new to import from json (json/export.json).\n\n"
        "Skipped 5:\n- already present with the same ID and values: 5\n",
    )
    assert read_bytes_of(project) == before


def test_an_id_holding_a_different_record_stops_the_import(cli: CLI, repo: Path) -> None:
    seed_memory(repo)  # D-001 exists with other values
    copy_source(repo, "json")
    before = read_bytes_of(repo)
    result = cli("import", "json", "json/export.json", cwd=repo)
    assert (result.code, result.stdout) == (1, "")
    assert result.stderr == (
        "Error: json/export.json at records[4]: D-001 already holds a different preference "
        "(import an export into an empty project (after `init`), or remove this record from it)\n"
    )
    assert read_bytes_of(repo) == before


def test_corrupt_export_names_line_and_column(cli: CLI, repo: Path) -> None:
    seed_memory(repo)
    copy_source(repo, "json")
    before = read_bytes_of(repo)
    result = cli("import", "json", "json/corrupt.json", cwd=repo)
    assert (result.code, result.stdout) == (2, "")
    assert result.stderr == (
        "Error: json/corrupt.json:7:3: invalid JSON: Expecting value "
        "(fix the source file and import again)\n"
    )
    assert read_bytes_of(repo) == before


RECORD = {"kind": "pattern", "id": "P-009", "date": "2026-03-03", "branch": "main"}
PATTERN_VALUES = {"pattern": "p", "context": "c", "reuse_criteria": "r"}


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("[]", "x.json: not a legion-memory export: no 'records' array"),
        ('{"format": "other", "records": []}', "x.json: unknown export format 'other'"),
        ('{"records": {}}', "x.json at records: expected a JSON array, found an object"),
        (
            json.dumps({"records": [{**RECORD, "kind": "note"}]}),
            "x.json at records[0]: unknown memory kind 'note'",
        ),
        (
            json.dumps({"records": [{**RECORD, "id": "O-009", **PATTERN_VALUES}]}),
            "x.json at records[0]: ID 'O-009' must look like P-001",
        ),
        (
            json.dumps({"records": [{**RECORD, "archived": "yes", **PATTERN_VALUES}]}),
            "x.json at records[0]: 'archived' must be true or false",
        ),
        (
            json.dumps({"records": [{**RECORD, **PATTERN_VALUES, "tags": ["a"]}]}),
            "x.json at records[0]: 'tags' must be a string, integer or boolean",
        ),
        (
            json.dumps({"records": [{**RECORD, "pattern": "p"}]}),
            "x.json at records[0]: Context is required",
        ),
        (
            json.dumps({"records": [{**RECORD, **PATTERN_VALUES, "note": "a\nb"}]}),
            "x.json at records[0]: note must be a single line",
        ),
        (
            '{"kind": "pattern"}\n{"kind": "pattern", "id": }\n',
            "x.json:2:27: invalid JSON: Expecting value",
        ),
    ],
)
def test_bad_records_name_their_position_and_change_nothing(
    cli: CLI, repo: Path, content: str, message: str
) -> None:
    seed_memory(repo)
    (repo / "x.json").write_text(content, encoding="utf-8")
    before = read_bytes_of(repo)
    result = cli("import", "json", "x.json", cwd=repo)
    assert result.code == 2
    assert result.stderr.startswith(f"Error: {message}")
    assert read_bytes_of(repo) == before


def test_the_same_id_twice_with_different_values_is_refused(cli: CLI, repo: Path) -> None:
    seed_memory(repo)
    first = {**RECORD, **PATTERN_VALUES}
    records = [first, first, {**first, "pattern": "other"}]
    (repo / "x.json").write_text(json.dumps({"records": records}), encoding="utf-8")
    before = read_bytes_of(repo)
    result = cli("import", "json", "x.json", cwd=repo)
    assert result.code == 1
    assert result.stderr.startswith(
        "Error: x.json at records[2]: P-009 already holds a different pattern"
    )
    assert read_bytes_of(repo) == before


def test_export_piped_through_standard_input(
    cli: CLI, repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    busy_project(cli, repo)
    exported = cli("export", "--file", "errors", cwd=repo).stdout
    target = new_project(tmp_path / "other", cli)
    monkeypatch.setattr("sys.stdin", io.StringIO(exported))
    result = cli("import", "json", "-", cwd=target)
    assert (result.code, result.stdout.splitlines()[0]) == (
        0,
        "Imported 2 records from json (-).",
    )
    assert tables(target)["ERRORS.md"] == tables(repo)["ERRORS.md"]


def test_json_needs_a_path(cli: CLI, repo: Path) -> None:
    result = cli("import", "json", cwd=repo)
    assert (result.code, result.stderr) == (
        2,
        "Error: json needs a PATH (give the file written by `export`)\n",
    )
    assert len(KINDS) == 4


def test_dry_run_writes_nothing(cli: CLI, repo: Path) -> None:
    new_project(repo / "p", cli)
    project = repo / "p"
    copy_source(project, "json")
    before = read_bytes_of(project)
    result = cli("--json", "import", "json", "json/export.json", "--dry-run", cwd=project)
    data = json.loads(result.stdout)
    assert (result.code, data["dry_run"], data["skipped"]) == (0, True, [])
    assert [(a["id"], a["archived"]) for a in data["added"]] == [
        ("O-007", False),
        ("P-003", False),
        ("E-004", False),
        ("D-001", False),
        ("O-002", True),
    ]
    assert read_bytes_of(project) == before


def test_a_real_pipe_from_export_to_import(cli: CLI, repo: Path, tmp_path: Path) -> None:
    busy_project(cli, repo)
    target = new_project(tmp_path / "other", cli)
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    exported = subprocess.run(
        [sys.executable, "-m", "legion_memory", "export", "--include-archive"],
        cwd=repo, env=env, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-m", "legion_memory", "--root", str(target), "import", "json", "-"],
        cwd=repo, env=env, input=exported, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.splitlines()[0] == "Imported 21 records from json (-)."
    assert tables(target) == tables(repo)

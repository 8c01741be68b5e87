"""`import bullpen`: `.bullpen/memory.json` entries become PATTERNS, ERRORS and PREFERENCES rows."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from support.interop import MEMORY, TODAY, added_lines, copy_source, memory_text, seed_memory
from support.processes import CLI, read_bytes_of

from legion_memory.interop.import_items import content_hash
from legion_memory.interop.ledger import HEADER
from legion_memory.schema.kinds import PATTERN
from legion_memory.storage.reading import Memory, load_records

NEW_PATTERNS = [
    "| P-002 | 2026-04-08 | main | This codebase uses `useFormHook` for all forms "
    "| bullpen pattern in the ui-designer namespace | tasks of the ui-designer role "
    "| bullpen bp-7f3a | ui-designer, pattern |",
    "| P-003 | 2026-04-01 | main | Migrations \\| seeds share one transaction:<br>never split them "
    "| bullpen snippet in the backend-architect namespace | tasks of the backend-architect role "
    "| bullpen bp-a004 | backend-architect, snippet |",
]
NEW_PREFERENCES = [
    "| D-002 | 2026-04-12 | main | manual-edit | bullpen preference in the ui-designer namespace "
    "| - | User prefers Tailwind over CSS modules; default to it | positive | ui-designer "
    "| ui-designer, preference |",
    "| D-003 | 2026-03-30 | main | manual-edit | bullpen decision in the backend-architect "
    "namespace | - | User chose Postgres over MySQL because they need JSONB | positive "
    "| backend-architect | backend-architect, decision |",
]
NEW_ERRORS = [
    "| E-002 | 2026-05-01 | main | `ECONNREFUSED 127.0.0.1:5432` when the test database "
    "container is not up | - | backend-architect | false | backend-architect, failure |",
]
SOURCE = "bullpen/memory.json"


def run_import(cli: CLI, project: Path, *extra: str) -> tuple[int, str, str]:
    result = cli("--today", TODAY, "import", "bullpen", *extra, cwd=project)
    return result.code, result.stdout, result.stderr


def expected_ledger() -> str:
    """One line per imported entry: hash of (role, type, text, created_at as JSON), sorted."""
    data = json.loads((Path(__file__).parent.parent / "fixtures/interop" / SOURCE).read_text())
    lines = []
    for role, entries in data["namespaces"].items():
        for index, entry in enumerate(entries):
            if entry["type"] == "note":
                continue
            created = json.dumps(entry.get("created_at"))
            key = content_hash("bullpen", role, entry["type"], entry["text"], created)
            lines.append((key, f"{SOURCE} at namespaces.{role}[{index}]"))
    ids = {
        "namespaces.ui-designer[0]": "P-002",
        "namespaces.ui-designer[1]": "D-002",
        "namespaces.backend-architect[0]": "P-003",
        "namespaces.backend-architect[1]": "D-003",
        "namespaces.backend-architect[2]": "E-002",
    }
    rows = [f"{key} bullpen {ids[origin.split(' at ')[1]]} {origin}" for key, origin in lines]
    return HEADER + "".join(row + "\n" for row in sorted(rows))


def test_entries_become_rows_by_type_with_one_ledger_line_each(cli: CLI, repo: Path) -> None:
    seeded = seed_memory(repo)
    copy_source(repo, "bullpen")
    code, out, err = run_import(cli, repo, SOURCE)
    assert (code, err) == (0, "")
    assert out.splitlines()[0] == "Imported 5 records from bullpen (bullpen/memory.json)."
    assert out.endswith(
        "\nSkipped 1:\n"
        "- type 'note' has no memory table: bullpen/memory.json at namespaces.ui-designer[2]\n"
    )
    assert added_lines(repo, "PATTERNS.md", seeded["patterns"]) == NEW_PATTERNS
    assert added_lines(repo, "PREFERENCES.md", seeded["preferences"]) == NEW_PREFERENCES
    assert added_lines(repo, "ERRORS.md", seeded["errors"]) == NEW_ERRORS
    assert memory_text(repo, "OUTCOMES.md") == seeded["outcomes"]
    assert memory_text(repo, "IMPORTED.txt") == expected_ledger()


def test_the_report_shows_each_added_row_under_its_file(cli: CLI, repo: Path) -> None:
    seed_memory(repo)
    copy_source(repo, "bullpen")
    _, out, _ = run_import(cli, repo, SOURCE)
    assert out.split("\n\n")[1:3] == [
        "### PATTERNS.md",
        "| ID | Date | Branch | Pattern | Context | Reuse Criteria | Source | Tags |\n"
        "|---|---|---|---|---|---|---|---|\n" + "\n".join(NEW_PATTERNS),
    ]
    assert "### ERRORS.md" in out.split("\n\n")
    assert out.index("### ERRORS.md") < out.index("### PREFERENCES.md")


def test_importing_the_same_file_twice_adds_nothing(cli: CLI, repo: Path) -> None:
    seed_memory(repo)
    copy_source(repo, "bullpen")
    run_import(cli, repo, SOURCE)
    before = read_bytes_of(repo)
    code, out, _ = run_import(cli, repo, SOURCE)
    assert code == 0
    assert out == (
        "Nothing new to import from bullpen (bullpen/memory.json).\n\n"
        "Skipped 6:\n"
        "- type 'note' has no memory table: bullpen/memory.json at namespaces.ui-designer[2]\n"
        "- already imported: 5\n"
    )
    assert read_bytes_of(repo) == before


def test_a_new_entry_is_imported_and_the_ledger_keeps_its_order(cli: CLI, repo: Path) -> None:
    seeded = seed_memory(repo)
    source = copy_source(repo, "bullpen")
    run_import(cli, repo, SOURCE)
    ledger_before = memory_text(repo, "IMPORTED.txt")
    data = json.loads((source / "memory.json").read_text(encoding="utf-8"))
    data["namespaces"]["qa"] = [{"text": "Flaky e2e: retry once", "type": "pattern"}]
    (source / "memory.json").write_text(json.dumps(data), encoding="utf-8")
    code, out, _ = run_import(cli, repo, SOURCE)
    assert code == 0
    assert out.startswith("Imported 1 record from bullpen (bullpen/memory.json).")
    assert added_lines(repo, "PATTERNS.md", seeded["patterns"])[2] == (
        "| P-004 | 2026-05-01 | main | Flaky e2e: retry once | bullpen pattern in the qa "
        "namespace | tasks of the qa role | bullpen | qa, pattern |"
    )
    key = content_hash("bullpen", "qa", "pattern", "Flaky e2e: retry once", "null")
    ledger = memory_text(repo, "IMPORTED.txt").splitlines(keepends=True)
    assert f"{key} bullpen P-004 bullpen/memory.json at namespaces.qa[0]\n" in ledger
    assert [line for line in ledger if not line.startswith(key)] == ledger_before.splitlines(
        keepends=True
    )
    hashes = [line.split()[0] for line in ledger if not line.startswith("#")]
    assert hashes == sorted(hashes)


def test_dry_run_shows_the_rows_and_writes_nothing(cli: CLI, repo: Path) -> None:
    seed_memory(repo)
    copy_source(repo, "bullpen")
    before = read_bytes_of(repo)
    code, out, _ = run_import(cli, repo, SOURCE, "--dry-run")
    assert code == 0
    assert out.splitlines()[0] == (
        "Dry run: would import 5 records from bullpen (bullpen/memory.json); nothing was written."
    )
    assert "\n".join(NEW_PATTERNS) in out
    assert read_bytes_of(repo) == before


def test_dry_run_in_a_project_without_memory_creates_nothing(cli: CLI, repo: Path) -> None:
    copy_source(repo, "bullpen")
    before = read_bytes_of(repo)
    code, out, _ = run_import(cli, repo, SOURCE, "--dry-run")
    assert code == 0
    assert "| P-001 | 2026-04-08 | main | This codebase uses `useFormHook`" in out
    assert read_bytes_of(repo) == before
    assert not (repo / ".planning").exists()


def test_without_memory_the_import_creates_the_files_it_needs(cli: CLI, repo: Path) -> None:
    copy_source(repo, "bullpen", to=".bullpen")
    code, _, _ = run_import(cli, repo)  # the default path: .bullpen/memory.json
    assert code == 0
    patterns = load_records(Memory.of_project(repo), PATTERN)
    assert [(r.id, r["pattern"]) for r in patterns] == [
        ("P-001", "This codebase uses `useFormHook` for all forms"),
        ("P-002", "Migrations | seeds share one transaction:\nnever split them"),
    ]
    assert sorted(p.name for p in (repo / MEMORY).iterdir() if not p.name.startswith(".")) == [
        "ERRORS.md",
        "IMPORTED.txt",
        "PATTERNS.md",
        "PREFERENCES.md",
    ]
    assert cli("validate", cwd=repo).code == 0


def test_standard_input_is_read_for_a_dash(
    cli: CLI, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seeded = seed_memory(repo)
    text = '{"namespaces": {"qa": [{"text": "Run e2e on CI only", "type": "snippet"}]}}'
    monkeypatch.setattr("sys.stdin", io.StringIO(text))
    code, out, _ = run_import(cli, repo, "-")
    assert (code, out.splitlines()[0]) == (0, "Imported 1 record from bullpen (-).")
    assert memory_text(repo, "IMPORTED.txt").endswith(
        " bullpen P-002 <stdin> at namespaces.qa[0]\n"
    )
    assert added_lines(repo, "PATTERNS.md", seeded["patterns"]) == [
        "| P-002 | 2026-05-01 | main | Run e2e on CI only | bullpen snippet in the qa namespace "
        "| tasks of the qa role | bullpen | qa, snippet |"
    ]


def test_corrupt_json_names_line_and_column_and_changes_nothing(cli: CLI, repo: Path) -> None:
    seed_memory(repo)
    copy_source(repo, "bullpen")
    before = read_bytes_of(repo)
    code, out, err = run_import(cli, repo, "bullpen/corrupt.json")
    assert (code, out) == (2, "")
    assert err == (
        "Error: bullpen/corrupt.json:5:40: invalid JSON: Expecting ',' delimiter "
        "(fix the source file and import again)\n"
    )
    assert read_bytes_of(repo) == before


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("[]", "bullpen.json: expected a JSON object, found an array"),
        ('{"roles": {}}', "bullpen.json: not a bullpen memory file: no 'namespaces' object"),
        ('{"namespaces": {"qa": {}}}', "bullpen.json at namespaces.qa: expected a JSON array"),
        (
            '{"namespaces": {"qa": [{"type": "pattern", "text": 7.5}, {"text": ["x"]}]}}',
            "bullpen.json at namespaces.qa[1]: 'text' must be a string, found an array",
        ),
        (
            '{"namespaces": {"qa": [{"type": "pattern", "text": ""}]}}',
            "bullpen.json at namespaces.qa[0]: Pattern is required",
        ),
        (
            '{"namespaces": {"qa": [{"type": "pattern", "text": "x", "created_at": "soon"}]}}',
            'bullpen.json at namespaces.qa[0]: date "soon" is not a date',
        ),
        (
            '{"namespaces": {"qa": [{"type": "failure", '
            '"text": "login used password=hunter2hunter2"}]}}',
            "bullpen.json at namespaces.qa[0]: Error Signature looks like it contains a "
            "password or API key assignment; secrets are never stored in memory",
        ),
    ],
)
def test_a_bad_entry_names_its_position_and_nothing_is_written(
    cli: CLI, repo: Path, content: str, message: str
) -> None:
    seed_memory(repo)
    (repo / "bullpen.json").write_text(content, encoding="utf-8")
    before = read_bytes_of(repo)
    code, _, err = run_import(cli, repo, "bullpen.json")
    assert code == 2
    assert err.startswith(f"Error: {message}")
    assert err.count("\n") == 1
    assert read_bytes_of(repo) == before


def test_a_file_outside_the_project_is_read_and_a_missing_one_refused(cli: CLI, repo: Path) -> None:
    outside = repo.parent / "memory.json"
    outside.write_text('{"namespaces": {}}', encoding="utf-8")
    code, out, err = run_import(cli, repo, str(outside))
    assert (code, out, err) == (0, f"Nothing new to import from bullpen ({outside}).\n", "")
    code, _, err = run_import(cli, repo)
    assert (code, err) == (
        2,
        "Error: no bullpen memory at '.bullpen/memory.json' "
        "(give the path of .bullpen/memory.json)\n",
    )
    assert not (repo / ".planning").exists()


def test_json_output_lists_added_rows_and_skips(cli: CLI, repo: Path) -> None:
    seed_memory(repo)
    copy_source(repo, "bullpen")
    result = cli("--json", "--today", TODAY, "import", "bullpen", SOURCE, cwd=repo)
    data = json.loads(result.stdout)
    assert (data["source"], data["path"], data["dry_run"], data["moved"]) == (
        "bullpen",
        SOURCE,
        False,
        [],
    )
    assert data["added"][0] == {
        "kind": "pattern",
        "archived": False,
        "origin": "bullpen/memory.json at namespaces.ui-designer[0]",
        "id": "P-002",
        "date": "2026-04-08",
        "branch": "main",
        "pattern": "This codebase uses `useFormHook` for all forms",
        "context": "bullpen pattern in the ui-designer namespace",
        "reuse_criteria": "tasks of the ui-designer role",
        "source": "bullpen bp-7f3a",
        "tags": "ui-designer, pattern",
    }
    assert [a["id"] for a in data["added"]] == ["P-002", "D-002", "P-003", "D-003", "E-002"]
    assert data["skipped"] == [
        {
            "origin": "bullpen/memory.json at namespaces.ui-designer[2]",
            "reason": "type 'note' has no memory table",
        }
    ]


def test_the_branch_option_is_recorded(cli: CLI, repo: Path) -> None:
    seeded = seed_memory(repo)
    copy_source(repo, "bullpen")
    cli("--branch", "feature/forms", "--today", TODAY, "import", "bullpen", SOURCE, cwd=repo)
    rows = added_lines(repo, "PATTERNS.md", seeded["patterns"])
    assert [row.split(" | ")[2] for row in rows] == ["feature/forms", "feature/forms"]


def test_nothing_to_import_creates_no_memory_directory(cli: CLI, repo: Path) -> None:
    (repo / "b.json").write_text('{"namespaces": {"qa": [{"text": "t", "type": "note"}]}}')
    before = read_bytes_of(repo)
    code, out, _ = run_import(cli, repo, "b.json")
    assert (code, out) == (
        0,
        "Nothing new to import from bullpen (b.json).\n\n"
        "Skipped 1:\n- type 'note' has no memory table: b.json at namespaces.qa[0]\n",
    )
    assert read_bytes_of(repo) == before
    assert not (repo / ".planning").exists()

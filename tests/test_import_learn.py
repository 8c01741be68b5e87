"""`import learn`: `/legion:learn` entries inside memory files become proper table rows."""

from __future__ import annotations

import shutil
from pathlib import Path

from support.interop import INTEROP, MEMORY, TODAY, copy_source, memory_text
from support.processes import CLI, read_bytes_of

from legion_memory.markdown.cells import split_cells
from legion_memory.markdown.document import parse
from legion_memory.schema.kinds import PATTERN

LEARN = INTEROP / "learn"
PATTERN_CELLS = [
    [
        "P-001",
        "2026-03-04",
        "main",
        "Always run migrations in a transaction",
        "Always run migrations in a transaction so a failure leaves no half-applied schema.",
        "-",
        "/legion:learn PAT-001",
        "migrations, database",
    ],
    [
        "P-002",
        "2026-03-05",
        "main",
        "Prefer small PRs",
        "Small PRs get reviewed the same day.<br>Anything over 400 lines waits a week.",
        "-",
        "/legion:learn PAT-002",
        "review",
    ],
]
NEW_ERROR = (
    "| E-002 | 2026-03-06 | main | Don't run database migrations without a backup | Take a "
    "snapshot first; the rollback script cannot restore dropped columns. | user | true "
    "| migrations, backup |\n"
)
NEW_PREFERENCE = (
    "| D-002 | 2026-03-07 | main | manual-edit | Our design system is built on Tailwind tokens. "
    "| - | We prefer Tailwind utility classes over CSS modules | positive | user "
    "| css, tailwind |\n"
)
ERRORS_LAST_ROW = "| engineering-senior-developer | true | frontend, react |\n"
PREFERENCES_LAST_ROW = "| testing-qa-verification-specialist | review |\n"
PATTERNS_SECTION = "\n## Patterns\n\n" + "\n".join(PATTERN.header_lines()) + "\n"


def learn_project(repo: Path) -> Path:
    shutil.copytree(LEARN, repo / MEMORY)
    return repo


def fixture(name: str) -> str:
    return (LEARN / name).read_text(encoding="utf-8")


def run_import(cli: CLI, project: Path, *extra: str) -> tuple[int, str, str]:
    result = cli("--today", TODAY, "import", "learn", *extra, cwd=project)
    return result.code, result.stdout, result.stderr


def pattern_rows(text: str) -> list[list[str]]:
    document = parse(text)
    table = document.tables[0]
    return [split_cells(document.text(index)) for index in table.rows]


def test_entries_become_rows_and_stay_in_place(cli: CLI, repo: Path) -> None:
    learn_project(repo)
    code, out, err = run_import(cli, repo)
    assert (code, err) == (0, "")
    assert out.splitlines()[0] == "Imported 4 records from learn (.planning/memory)."
    # A file only /legion:learn wrote has no table: it gains the Patterns section at its end.
    patterns = memory_text(repo, "PATTERNS.md")
    assert patterns.startswith(fixture("PATTERNS.md") + PATTERNS_SECTION)
    assert pattern_rows(patterns) == PATTERN_CELLS
    assert patterns.count("\n") == fixture("PATTERNS.md").count("\n") + 5 + 2
    head, entry = fixture("ERRORS.md").split(ERRORS_LAST_ROW)
    assert memory_text(repo, "ERRORS.md") == head + ERRORS_LAST_ROW + NEW_ERROR + entry
    head, entry = fixture("PREFERENCES.md").split(PREFERENCES_LAST_ROW)
    assert (
        memory_text(repo, "PREFERENCES.md") == head + PREFERENCES_LAST_ROW + NEW_PREFERENCE + entry
    )


def test_importing_twice_adds_nothing(cli: CLI, repo: Path) -> None:
    learn_project(repo)
    run_import(cli, repo)
    before = read_bytes_of(repo)
    code, out, _ = run_import(cli, repo)
    assert (code, out) == (
        0,
        "Nothing new to import from learn (.planning/memory).\n\n"
        "Skipped 4:\n- already imported: 4\n",
    )
    assert read_bytes_of(repo) == before


def test_move_takes_the_entries_out_of_the_files(cli: CLI, repo: Path) -> None:
    learn_project(repo)
    code, out, _ = run_import(cli, repo, "--move")
    assert code == 0
    assert out.endswith(
        "\n\nMoved 4 /legion:learn entries into tables: .planning/memory/PATTERNS.md:6, "
        ".planning/memory/PATTERNS.md:16, .planning/memory/ERRORS.md:12, "
        ".planning/memory/PREFERENCES.md:12\n"
    )
    intro = fixture("PATTERNS.md").split("\n\n## PAT-001")[0] + "\n"
    patterns = memory_text(repo, "PATTERNS.md")
    assert patterns.startswith(intro + PATTERNS_SECTION)
    assert pattern_rows(patterns) == PATTERN_CELLS
    head = fixture("ERRORS.md").split(ERRORS_LAST_ROW)[0]
    assert memory_text(repo, "ERRORS.md") == head + ERRORS_LAST_ROW + NEW_ERROR
    head = fixture("PREFERENCES.md").split(PREFERENCES_LAST_ROW)[0]
    assert memory_text(repo, "PREFERENCES.md") == head + PREFERENCES_LAST_ROW + NEW_PREFERENCE
    assert cli("validate", cwd=repo).code == 0


def test_move_after_a_plain_import_only_takes_the_entries_out(cli: CLI, repo: Path) -> None:
    learn_project(repo)
    run_import(cli, repo)
    ledger = memory_text(repo, "IMPORTED.txt")
    with_rows = memory_text(repo, "ERRORS.md")
    code, out, _ = run_import(cli, repo, "--move")
    assert code == 0
    assert out.startswith("Nothing new to import from learn (.planning/memory).\n\nMoved 4 ")
    assert out.endswith("\n\nSkipped 4:\n- already imported: 4\n")
    assert memory_text(repo, "ERRORS.md") == with_rows.split("\n## PIT-001")[0]
    assert memory_text(repo, "IMPORTED.txt") == ledger
    assert "PAT-" not in memory_text(repo, "PATTERNS.md").replace("/legion:learn PAT-", "")


def test_dry_run_with_move_writes_nothing(cli: CLI, repo: Path) -> None:
    learn_project(repo)
    before = read_bytes_of(repo)
    code, out, _ = run_import(cli, repo, "--dry-run", "--move")
    assert code == 0
    assert out.splitlines()[0] == (
        "Dry run: would import 4 records from learn (.planning/memory); nothing was written."
    )
    assert "\nWould move 4 /legion:learn entries into tables: " in out
    assert NEW_ERROR.rstrip("\n") in out
    assert read_bytes_of(repo) == before


def test_entries_right_after_a_table_and_without_blank_lines(cli: CLI, repo: Path) -> None:
    table = (
        "# Memory — Pattern Library\n\n## Patterns\n\n"
        + "\n".join(PATTERN.header_lines())
        + "\n| P-001 | 2026-03-01 | main | Waves | Phase 5 | 3+ plans | O-001 | testing |\n"
    )
    entries = (
        "## PAT-001: Keep PRs small\n- **Date**: 2026-03-04\n- **Tags**: review\n\nSmall.\n---\n"
        "## PAT-002: Name branches by phase\n- **Date**: 2026-03-05\n\nphase-7/auth\n"
    )
    memory = repo / MEMORY
    memory.mkdir(parents=True)
    (memory / "PATTERNS.md").write_text(table + entries, encoding="utf-8")
    code, _, _ = run_import(cli, repo, ".planning/memory/PATTERNS.md", "--move")
    assert code == 0
    assert memory_text(repo, "PATTERNS.md") == table + (
        "| P-002 | 2026-03-04 | main | Keep PRs small | Small. | - | /legion:learn PAT-001 "
        "| review |\n"
        "| P-003 | 2026-03-05 | main | Name branches by phase | phase-7/auth | - "
        "| /legion:learn PAT-002 |  |\n"
    )


def test_one_file_can_be_given(cli: CLI, repo: Path) -> None:
    learn_project(repo)
    code, out, _ = run_import(cli, repo, ".planning/memory/ERRORS.md")
    assert code == 0
    assert out.splitlines()[0] == "Imported 1 record from learn (.planning/memory/ERRORS.md)."
    assert memory_text(repo, "PATTERNS.md") == fixture("PATTERNS.md")


def test_bad_date_names_the_entry_line_and_changes_nothing(cli: CLI, repo: Path) -> None:
    copy_source(repo, "learn-corrupt")
    before = read_bytes_of(repo)
    code, out, err = run_import(cli, repo, "learn-corrupt", "--move")
    assert (code, out) == (2, "")
    assert err == (
        'Error: learn-corrupt/PATTERNS.md:16: date "last tuesday" is not a date '
        "(use YYYY-MM-DD or an ISO timestamp)\n"
    )
    assert read_bytes_of(repo) == before


def test_move_is_refused_for_other_sources(cli: CLI, repo: Path) -> None:
    copy_source(repo, "bullpen")
    result = cli("import", "bullpen", "bullpen/memory.json", "--move", cwd=repo)
    assert (result.code, result.stderr) == (
        2,
        "Error: --move only applies to the learn source (drop --move)\n",
    )
    assert not (repo / ".planning").exists()


def test_an_entry_in_another_kinds_file_moves_to_its_own_table(cli: CLI, repo: Path) -> None:
    learn_project(repo)
    patterns = repo / MEMORY / "PATTERNS.md"
    pitfall = "\n## PIT-002: Never force-push main\n- **Date**: 2026-03-08\n\nIt rewrites CI.\n"
    patterns.write_text(fixture("PATTERNS.md") + pitfall, encoding="utf-8")
    code, _, _ = run_import(cli, repo, ".planning/memory/PATTERNS.md", "--move")
    assert code == 0
    head = fixture("ERRORS.md").split(ERRORS_LAST_ROW)[0]
    assert memory_text(repo, "ERRORS.md") == fixture("ERRORS.md").replace(
        head + ERRORS_LAST_ROW,
        head
        + ERRORS_LAST_ROW
        + "| E-002 | 2026-03-08 | main | Never force-push main | It rewrites CI. | user | true "
        + "|  |\n",
    )
    assert "PIT-002" not in memory_text(repo, "PATTERNS.md")
    assert pattern_rows(memory_text(repo, "PATTERNS.md")) == PATTERN_CELLS


def test_move_is_refused_for_entries_outside_the_memory_directory(cli: CLI, repo: Path) -> None:
    shutil.copytree(LEARN, repo / "elsewhere")
    (repo / MEMORY).mkdir(parents=True)
    before = read_bytes_of(repo)
    code, out, err = run_import(cli, repo, "elsewhere", "--move")
    assert (code, out) == (2, "")
    assert err == (
        "Error: elsewhere/PATTERNS.md:6: --move only takes entries out of this project's memory "
        "files (import without --move, or move the file into .planning/memory first)\n"
    )
    assert read_bytes_of(repo) == before

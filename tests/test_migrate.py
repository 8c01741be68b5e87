"""`migrate`: the spec's missing columns added to legacy tables, a diff first, idempotent."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.processes import CLI, FIXTURES, Result, git, read_bytes_of

from legion_memory.markdown.cells import split_raw
from legion_memory.schema.kinds import OUTCOME, PATTERN, archive_template
from legion_memory.storage.reading import Memory
from legion_memory.upkeep.migration import new_header, plan_migration

MEMORY = Path(".planning") / "memory"
PRE_BRANCH = FIXTURES / "outcomes" / "pre-branch-OUTCOMES.md"
NOTHING = "nothing to migrate: every memory table has the spec's columns\n"


@pytest.fixture
def memory(repo: Path) -> Path:
    path = repo / MEMORY
    path.mkdir(parents=True)
    return path


def run(cli: CLI, repo: Path, *args: str) -> Result:
    return cli("--root", str(repo), *args)


def test_dry_run_shows_the_diff_and_changes_nothing(cli: CLI, repo: Path, memory: Path) -> None:
    shutil.copy(PRE_BRANCH, memory / "OUTCOMES.md")
    before = read_bytes_of(repo)
    result = run(cli, repo, "migrate", "--dry-run")
    assert result.code == 0
    assert result.stdout == (
        "--- a/.planning/memory/OUTCOMES.md\n"
        "+++ b/.planning/memory/OUTCOMES.md\n"
        "@@ -4,10 +4,10 @@\n"
        " \n"
        " ## Records\n"
        " \n"
        "-| ID    | Date       | Phase | Plan  | Agent                         | Task Type "
        "| Outcome | Importance | Tags         | Summary                      |\n"
        "-|-------|------------|-------|-------|-------------------------------|-----------"
        "|---------|------------|--------------|------------------------------|\n"
        "-| O-001 | 2026-02-01 | 4     | 04-01 | engineering-backend-architect | backend   "
        "| success | 2          | api          | Orders API \\| v1              |\n"
        "-| O-002 | 2026-02-03 | 4     | 04-02 | autonomous                    | workflow  "
        "| failed  | 5          | ci, release  | Release job lost its cache   |\n"
        "+| ID    | Date       | Branch | Phase | Plan  | Agent                         | Task Type"
        " | Outcome | Importance | Tags         | Summary                      |\n"
        "+|-------|------------|--------|-------|-------|-------------------------------|-----------"
        "|---------|------------|--------------|------------------------------|\n"
        "+| O-001 | 2026-02-01 | main | 4     | 04-01 | engineering-backend-architect | backend  "
        " | success | 2          | api          | Orders API \\| v1              |\n"
        "+| O-002 | 2026-02-03 | main | 4     | 04-02 | autonomous                    | workflow "
        " | failed  | 5          | ci, release  | Release job lost its cache   |\n"
        " \n"
        " ## PAT-003: Keep migrations small\n"
        " \n"
        ".planning/memory/OUTCOMES.md: would add Branch to the Records table (2 rows); "
        "Branch = main\n"
    )
    assert result.stderr == "Dry run: nothing was changed\n"
    assert read_bytes_of(repo) == before


def test_migrate_adds_branch_and_a_second_run_changes_nothing(
    cli: CLI, repo: Path, memory: Path
) -> None:
    shutil.copy(PRE_BRANCH, memory / "OUTCOMES.md")
    result = run(cli, repo, "migrate")
    assert (result.code, result.stderr) == (0, "")
    assert result.stdout == (
        ".planning/memory/OUTCOMES.md: added Branch to the Records table (2 rows); Branch = main\n"
    )
    original = PRE_BRANCH.read_text(encoding="utf-8").split("\n")
    migrated = (memory / "OUTCOMES.md").read_text(encoding="utf-8").split("\n")
    assert [i for i, (a, b) in enumerate(zip(original, migrated, strict=True)) if a != b] == [
        6, 7, 8, 9,
    ]  # fmt: skip
    assert migrated[6].startswith("| ID    | Date       | Branch | Phase | Plan  |")
    assert migrated[7].startswith("|-------|------------|--------|-------|-------|")
    assert migrated[8].startswith("| O-001 | 2026-02-01 | main | 4     | 04-01 |")
    after = read_bytes_of(repo)
    assert run(cli, repo, "migrate") == Result(0, NOTHING, "")
    assert run(cli, repo, "migrate", "--dry-run") == Result(0, NOTHING, "")
    assert read_bytes_of(repo) == after
    assert run(cli, repo, "validate").code == 0


def test_the_three_column_legacy_table_gets_ids_and_the_spec_fallbacks(
    cli: CLI, repo: Path, memory: Path
) -> None:
    (memory / "OUTCOMES.md").write_text(
        "# Outcomes\n| Date | Agent | Outcome |\n|------|-------|---------|\n"
        "| 2026-03-01 | engineering-senior-developer | Success |\n"
        "| 2026-03-02 | autonomous | failed |\n",
        encoding="utf-8",
    )
    # The archive already used O-001..O-003: new IDs continue after them.
    archived = "| O-003 | 2025-01-01 | main | 1 | 01-01 | a | general | success | 2 |  | Old |\n"
    (memory / "ARCHIVE.md").write_text(archive_template() + archived, encoding="utf-8")
    git(repo, "config", "init.defaultBranch", "trunk")
    result = run(cli, repo, "--json", "migrate")
    assert json.loads(result.stdout) == {
        "dry_run": False,
        "default_branch": "trunk",
        "changes": [
            {
                "file": ".planning/memory/OUTCOMES.md",
                "table": "Records",
                "added": [
                    "ID",
                    "Branch",
                    "Phase",
                    "Plan",
                    "Task Type",
                    "Importance",
                    "Tags",
                    "Summary",
                ],
                "rows": 2,
            }
        ],
        "diff": "",
    }
    assert (memory / "OUTCOMES.md").read_text(encoding="utf-8") == (
        "# Outcomes\n"
        "| ID | Date | Branch | Phase | Plan | Agent | Task Type | Outcome | Importance | Tags "
        "| Summary |\n"
        "|----|------|--------|-------|------|-------|-----------|---------|------------|------"
        "|---------|\n"
        "| O-004 | 2026-03-01 | trunk | N/A | - | engineering-senior-developer | general | Success "
        "| 2 |  | - |\n"
        "| O-005 | 2026-03-02 | trunk | N/A | - | autonomous | general | failed | 5 |  | - |\n"
    )


def test_archive_and_other_kinds_crlf_kept(cli: CLI, repo: Path, memory: Path) -> None:
    patterns = (
        "# Memory — Pattern Library\r\n\r\n## Patterns\r\n\r\n"
        "| ID | Date | Pattern | Context | Reuse Criteria | Source | Tags |\r\n"
        "|----|------|---------|---------|----------------|--------|------|\r\n"
        "| P-001 | 2026-03-01 | Small PRs | Reviews | Always | O-001 | review |\r\n"
    )
    (memory / "PATTERNS.md").write_bytes(patterns.encode("utf-8"))
    archive = archive_template().replace(" Branch |", "").replace("--------|", "", 1)
    archive += "| O-001 | 2025-01-01 | 1 | 01-01 | a | general | success | 2 |  | Old |\n"
    (memory / "ARCHIVE.md").write_text(archive, encoding="utf-8")
    result = run(cli, repo, "migrate")
    assert result.stdout == (
        ".planning/memory/ARCHIVE.md: added Branch to the Archived Records table (1 row); "
        "Branch = main\n"
        ".planning/memory/PATTERNS.md: added Branch to the Patterns table (1 row); Branch = main\n"
    )
    assert (memory / "PATTERNS.md").read_bytes() == patterns.replace(
        "| ID | Date |", "| ID | Date | Branch |"
    ).replace("|----|------|", "|----|------|--------|").replace(
        "| P-001 | 2026-03-01 |", "| P-001 | 2026-03-01 | main |"
    ).encode("utf-8")
    assert (memory / "ARCHIVE.md").read_text(encoding="utf-8") == archive_template() + (
        "| O-001 | 2025-01-01 | main | 1 | 01-01 | a | general | success | 2 |  | Old |\n"
    )


def test_a_malformed_table_is_refused_and_nothing_changes(
    cli: CLI, repo: Path, memory: Path
) -> None:
    shutil.copy(PRE_BRANCH, memory / "OUTCOMES.md")
    (memory / "ERRORS.md").write_text(
        "## Errors\n\n| ID | Date | Error Signature | Fix | Agent | Resolved | Tags |\n"
        "|---|---|---|---|---|---|---|\n| E-001 | 2026-03-01 | boom | fix | a |\n",
        encoding="utf-8",
    )
    before = read_bytes_of(repo)
    for args in (["migrate"], ["migrate", "--dry-run"]):
        result = run(cli, repo, *args)
        assert (result.code, result.stdout) == (1, "")
        assert result.stderr == (
            f"Error: {memory / 'ERRORS.md'}:5: row has 5 cells but the header has 7 "
            "(escape pipes inside values as \\| and fix the row by hand)\n"
        )
    assert read_bytes_of(repo) == before


def test_without_memory_there_is_nothing_to_migrate(cli: CLI, repo: Path) -> None:
    before = read_bytes_of(repo)
    assert run(cli, repo, "migrate") == Result(0, NOTHING, "")
    assert read_bytes_of(repo) == before
    assert not (repo / ".planning").exists()


def test_disabled_memory_is_left_alone(cli: CLI, repo: Path, memory: Path) -> None:
    shutil.copy(PRE_BRANCH, memory / "OUTCOMES.md")
    (repo / "settings.json").write_text('{"memory": {"enabled": false}}', encoding="utf-8")
    before = read_bytes_of(repo)
    result = run(cli, repo, "migrate")
    assert (result.code, result.stdout) == (0, "")
    assert result.stderr == (
        "Note: memory is disabled (memory.enabled is false in settings.json); nothing to do\n"
    )
    assert read_bytes_of(repo) == before


def test_stores_after_migrate_carry_the_branch(cli: CLI, repo: Path, memory: Path) -> None:
    shutil.copy(PRE_BRANCH, memory / "OUTCOMES.md")
    run(cli, repo, "migrate")
    args = ["--today", "2026-03-31", "store", "outcome", "--phase", "5", "--plan", "05-01"]
    args += ["--agent", "autonomous", "--outcome", "success", "--summary", "s"]
    assert run(cli, repo, *args, "--importance", "2", "--task-type", "workflow").stderr == ""
    lines = (memory / "OUTCOMES.md").read_text(encoding="utf-8").split("\n")
    assert lines[10] == (
        "| O-003 | 2026-03-31 | main | 5 | 05-01 | autonomous | workflow | success | 2 |  | s |"
    )


def test_new_header_places_missing_columns_after_their_spec_neighbour() -> None:
    assert new_header(("Date", "Agent", "Outcome"), OUTCOME) == [
        "ID", "Date", "Branch", "Phase", "Plan", "Agent", "Task Type", "Outcome", "Importance",
        "Tags", "Summary",
    ]  # fmt: skip
    assert new_header(("ID", "Date", "Pattern", "Notes", "Tags"), PATTERN) == [
        "ID", "Date", "Branch", "Pattern", "Context", "Reuse Criteria", "Source", "Notes", "Tags",
    ]  # fmt: skip


@pytest.mark.parametrize(
    "text",
    ["| a | b |", "  |a|b|  ", "a | b", "| a \\| b | c |", "| a | b \\|", "|x||y|"],
)
def test_split_raw_joins_back_exactly(text: str) -> None:
    lead, cells, trail = split_raw(text)
    assert lead + "|".join(cells) + trail == text


_VALUES = st.text(alphabet="abc xyz-|019", min_size=0, max_size=8).map(str.strip)


@st.composite
def legacy_outcome_files(draw: st.DrawFn) -> str:
    keep = draw(st.lists(st.sampled_from(OUTCOME.columns), min_size=1, unique=True))
    columns = [c for c in OUTCOME.columns if c in keep]
    pad = draw(st.sampled_from(["", " ", "  "]))
    ending = draw(st.sampled_from(["\n", "\r\n"]))

    def row(cells: list[str]) -> str:
        return "|" + "|".join(f"{pad}{cell}{pad}" for cell in cells) + "|" + ending

    lines = ["## Records" + ending, ending, row([c.name for c in columns])]
    lines.append(row(["---"] * len(columns)))
    for _ in range(draw(st.integers(0, 4))):
        lines.append(row([draw(_VALUES).replace("|", "\\|") for _ in columns]))
    return "# Outcomes" + ending + "".join(lines) + draw(st.sampled_from(["", "tail" + ending]))


@settings(max_examples=60, deadline=None)
@given(legacy_outcome_files())
def test_any_legacy_outcome_table_migrates_once_and_keeps_every_value(text: str) -> None:
    memory = Memory(Path("/project/.planning/memory"))
    texts: dict[Path, str | None] = {memory.path(OUTCOME): text}
    first = plan_migration(memory, texts, "main")  # verifies values and lines outside the table
    migrated = first.new_texts.get(memory.path(OUTCOME), text)
    assert not plan_migration(memory, {memory.path(OUTCOME): migrated}, "main").tables
    assert migrated.count("\n") == text.count("\n")

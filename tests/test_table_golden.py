"""Golden fixtures: each round-trips byte-for-byte; an append adds exactly the expected line."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from support.processes import FIXTURES, git

from legion_memory.errors import SchemaError
from legion_memory.markdown.document import parse, render
from legion_memory.schema.kinds import OUTCOME, PATTERN, Kind, new_record
from legion_memory.schema.records import read_records, records_table
from legion_memory.storage.reading import Memory
from legion_memory.storage.writing import append

TABLES = FIXTURES / "tables"
ALL_FIXTURES = sorted(path.name for path in TABLES.glob("*.md"))

OUTCOME_VALUES = {
    "date": "2026-03-09",
    "branch": "main",
    "phase": "6",
    "plan": "06-01",
    "agent": "engineering-senior-developer",
    "task_type": "backend",
    "outcome": "success",
    "importance": "2",
    "tags": "api, db",
    "summary": "Added `a | b` pipe handling",
}
PADDED_ROW = (
    "| O-003 | 2026-03-09 | main | 6 | 06-01 | engineering-senior-developer | backend | success "
    "| 2 | api, db | Added `a \\| b` pipe handling |"
)
COMPACT_ROW = (
    "|O-003|2026-03-09|main|6|06-01|engineering-senior-developer|backend|success|2|api, db"
    "|Added `a \\| b` pipe handling|"
)

# fixture -> (kind, 0-based line index the new row lands on, the exact new line)
APPENDS: dict[str, tuple[Kind, int, str]] = {
    "crlf.md": (OUTCOME, 11, PADDED_ROW + "\r\n"),
    "bom.md": (OUTCOME, 11, PADDED_ROW + "\n"),
    "no-final-newline.md": (OUTCOME, 11, PADDED_ROW + "\n"),
    "trailing-spaces.md": (OUTCOME, 11, PADDED_ROW + "\n"),
    "odd-padding.md": (OUTCOME, 11, COMPACT_ROW + "\n"),
    "escaped-pipes.md": (OUTCOME, 11, PADDED_ROW + "\n"),
    "backtick-pipes.md": (OUTCOME, 10, PADDED_ROW.replace("O-003", "O-002") + "\n"),
    "fenced-table.md": (OUTCOME, 21, PADDED_ROW.replace("O-003", "O-002") + "\n"),
    "cjk-emoji.md": (OUTCOME, 11, PADDED_ROW + "\n"),
    "kv-after-table.md": (OUTCOME, 11, PADDED_ROW + "\n"),
    "learn-mixed.md": (
        PATTERN,
        10,
        "| P-002 | 2026-03-09 | main | Pin the \\| pipe | Small PRs | Reviews | O-001 | review |\n",
    ),
}
PATTERN_VALUES = {
    "date": "2026-03-09",
    "branch": "main",
    "pattern": "Pin the | pipe",
    "context": "Small PRs",
    "reuse_criteria": "Reviews",
    "source": "O-001",
    "tags": "review",
}


def fixture_text(name: str) -> str:
    text: str = (TABLES / name).read_bytes().decode("utf-8")
    return text


@pytest.mark.parametrize("name", ALL_FIXTURES)
def test_fixture_round_trips_byte_for_byte(name: str) -> None:
    text = fixture_text(name)
    assert render(parse(text)) == text


def test_every_fixture_has_an_append_expectation_or_is_legacy() -> None:
    assert sorted([*APPENDS, "legacy-3col.md"]) == ALL_FIXTURES


def install(tmp_path: Path, name: str, kind: Kind) -> Memory:
    memory = Memory(tmp_path / ".planning" / "memory")
    memory.directory.mkdir(parents=True)
    shutil.copyfile(TABLES / name, memory.path(kind))
    return memory


@pytest.mark.parametrize("name", sorted(APPENDS))
def test_append_inserts_exactly_the_expected_line(tmp_path: Path, name: str) -> None:
    kind, index, line = APPENDS[name]
    memory = install(tmp_path, name, kind)
    values = OUTCOME_VALUES if kind is OUTCOME else PATTERN_VALUES
    stored = append(memory, new_record(kind, values))
    before = parse(fixture_text(name))
    expected = [*before.lines[:index], line, *before.lines[index:]]
    prefix = b"\xef\xbb\xbf" if before.bom else b""
    assert memory.path(kind).read_bytes() == prefix + "".join(expected).encode("utf-8")
    assert stored.line == index + 1


@pytest.mark.parametrize("name", sorted(APPENDS))
def test_git_sees_one_added_line(repo: Path, name: str) -> None:
    kind, _, _ = APPENDS[name]
    memory = install(repo, name, kind)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "memory")
    append(memory, new_record(kind, OUTCOME_VALUES if kind is OUTCOME else PATTERN_VALUES))
    numstat = git(repo, "diff", "--numstat")
    assert numstat == f"1\t0\t.planning/memory/{kind.filename}\n"


def test_appended_record_reads_back_with_its_pipe(tmp_path: Path) -> None:
    memory = install(tmp_path, "escaped-pipes.md", OUTCOME)
    append(memory, new_record(OUTCOME, OUTCOME_VALUES))
    document = parse(memory.path(OUTCOME).read_text(encoding="utf-8"))
    table = records_table(document, OUTCOME)
    assert table is not None
    summaries = [record["summary"] for record in read_records(document, table, OUTCOME)]
    assert summaries == [
        "`cat a | grep b` failed: exit 1 | retried",
        "a\\|b kept a backslash before the pipe",
        "Added `a | b` pipe handling",
    ]


def test_legacy_table_without_id_column_is_never_appended_to(tmp_path: Path) -> None:
    memory = install(tmp_path, "legacy-3col.md", OUTCOME)
    before = memory.path(OUTCOME).read_bytes()
    with pytest.raises(SchemaError) as raised:
        append(memory, new_record(OUTCOME, OUTCOME_VALUES))
    assert raised.value.line() == (
        f"{memory.path(OUTCOME)}:2: table has no ID column, so a new row could not be told apart "
        "(run `legion-memory migrate` to add the missing columns)"
    )
    assert memory.path(OUTCOME).read_bytes() == before


def test_legacy_rows_read_with_missing_fields_empty() -> None:
    document = parse(fixture_text("legacy-3col.md"))
    table = records_table(document, OUTCOME)
    assert table is not None
    records = list(read_records(document, table, OUTCOME))
    assert [dict(r.values) for r in records] == [
        {"date": "2026-02-01", "agent": "engineering-backend-architect", "outcome": "Success"},
        {"date": "2026-02-03", "agent": "design-ui-designer", "outcome": "Failed"},
    ]
    assert (records[0]["branch"], records[0]["summary"], records[0].id) == ("", "", "")


def test_table_in_a_code_fence_is_not_the_records_table() -> None:
    document = parse(fixture_text("fenced-table.md"))
    table = records_table(document, OUTCOME)
    assert table is not None
    assert [r.id for r in read_records(document, table, OUTCOME)] == ["O-001"]
    assert len(document.tables) == 1


def test_last_row_without_final_newline_gains_one_and_the_new_row_ends_the_file(
    tmp_path: Path,
) -> None:
    memory = Memory(tmp_path)
    text = (
        OUTCOME.template()
        + "| O-001 | 2026-03-01 | main | 5 | 05-01 | a | b | success | 2 | t | s |"
    )
    memory.path(OUTCOME).write_text(text, encoding="utf-8")
    append(memory, new_record(OUTCOME, OUTCOME_VALUES))
    assert memory.path(OUTCOME).read_text(encoding="utf-8") == text + "\n" + PADDED_ROW.replace(
        "O-003", "O-002"
    )

"""A store of a record memory already holds (its identity: every cell but the ID and references,
spaces aside) writes nothing: a retried workflow never leaves the same record twice, which
`validate` would then refuse at the next commit (docs/decisions.md#store-once)."""

from __future__ import annotations

import json
from pathlib import Path

from support.processes import CLI, read_bytes_of

from legion_memory.schema.kinds import PATTERN, new_record
from legion_memory.storage.reading import Memory, load_records
from legion_memory.storage.row_edits import _lines_holding
from legion_memory.storage.writing import append, append_once

TODAY = "2026-03-10"
OUTCOME = (
    "--today", TODAY, "--branch", "main", "store", "outcome", "--phase", "3", "--plan", "03-01",
    "--agent", "coder", "--outcome", "success", "--task-type", "general", "--importance", "2",
    "--summary",
)  # fmt: skip
PATTERN_ARGS = ("--today", TODAY, "store", "pattern", "--context", "c", "--reuse", "r")
OUTCOME_ROW = (
    "| O-001 | 2026-03-10 | main | 3 | 03-01 | coder | general | success | 2 |  | {summary} |"
)


def test_an_outcome_stored_again_is_not_stored_twice(cli: CLI, repo: Path) -> None:
    assert cli("init", cwd=repo).code == 0
    first = cli(*OUTCOME, "Add the export", cwd=repo)
    assert (first.code, first.stderr) == (0, "")
    before = read_bytes_of(repo)

    again = cli(*OUTCOME, "Add the export", cwd=repo)

    assert again.code == 0
    assert again.stdout == first.stdout  # the record as held, its ID the first one's
    assert again.stderr == (
        "Note: OUTCOMES.md already holds this outcome as O-001 (line 10); nothing was stored\n"
    )
    assert read_bytes_of(repo) == before
    assert first.stdout.endswith(OUTCOME_ROW.format(summary="Add the export") + "\n")
    assert cli("validate", cwd=repo).code == 0


def test_another_summary_is_another_outcome(cli: CLI, repo: Path) -> None:
    assert cli("init", cwd=repo).code == 0
    assert cli(*OUTCOME, "Add the export", cwd=repo).code == 0
    other = cli(*OUTCOME, "Add the export again", cwd=repo)
    assert (other.code, other.stderr) == (0, "")
    assert "| O-002 |" in other.stdout


def test_a_pattern_stored_again_says_which_record_holds_it(cli: CLI, repo: Path) -> None:
    assert cli("init", cwd=repo).code == 0
    first = cli(*PATTERN_ARGS, "--pattern", "Table-driven parser tests", cwd=repo)
    assert first.stdout == "Stored P-001 in .planning/memory/PATTERNS.md:10\n"
    before = read_bytes_of(repo)

    again = cli(*PATTERN_ARGS, "--pattern", "Table-driven  parser tests", cwd=repo)
    shown = cli("--json", *PATTERN_ARGS, "--pattern", "Table-driven parser tests", cwd=repo)

    assert (again.code, again.stderr) == (0, "")
    assert again.stdout == (
        "Unchanged: P-001 already holds this pattern (.planning/memory/PATTERNS.md:10)\n"
    )
    data = json.loads(shown.stdout)
    assert (data["action"], data["where"], data["record"]["id"]) == (
        "unchanged",
        ".planning/memory/PATTERNS.md:10",
        "P-001",
    )
    assert data["record"]["pattern"] == "Table-driven parser tests"
    assert read_bytes_of(repo) == before


def test_a_row_padded_by_hand_is_the_record_it_holds(tmp_path: Path) -> None:
    memory = Memory(tmp_path)
    values = {
        "date": TODAY, "branch": "main", "pattern": "Pin | the tool", "context": "c",
        "reuse_criteria": "r", "source": "", "tags": "",
    }  # fmt: skip
    stored = append(memory, new_record(PATTERN, values))
    path = memory.path(PATTERN)
    written = path.read_text(encoding="utf-8")
    padded = written.replace(
        "| P-001 | 2026-03-10 | main | Pin \\| the tool | c | r |  |  |",
        "|P-001|  2026-03-10  | main |   Pin \\| the tool   | c | r | | |",
    )
    assert padded != written
    path.write_text(padded, encoding="utf-8")

    again, written_again = append_once(memory, new_record(PATTERN, {**values, "source": "O-001"}))

    assert (written_again, again.id, again.line) == (False, stored.id, stored.line)
    assert path.read_text(encoding="utf-8") == padded
    other, added = append_once(memory, new_record(PATTERN, {**values, "tags": "cli"}))
    assert (added, other.id) == (True, "P-002")
    assert [record.id for record in load_records(memory, PATTERN)] == ["P-001", "P-002"]


def test_the_rows_holding_a_word_are_found_in_the_bytes() -> None:
    text = "tool\n| a | b |\n|---|---|\n| tool | x |\n| y | z |\r\n| tool tool | w |\ntool\n"
    data = ("\ufeff" + text).encode("utf-8")
    found = _lines_holding(data, b"tool", range(3, 6))
    assert found == [3, 5]
    lines = text.split("\n")
    assert found == [at for at in range(3, 6) if "tool" in lines[at]]
    assert _lines_holding(data, b"absent", range(3, 6)) == []
    assert _lines_holding(data, b"tool", range(0, 7)) == [0, 3, 5, 6]


def test_a_retried_first_outcome_of_its_kind_is_held_whatever_importance_it_works_out(
    cli: CLI, repo: Path
) -> None:
    """The first run made the agent's first outcome of its task type (+1 importance); run
    again, the history holds that outcome, so the importance worked out is one lower. Still the
    same outcome: held. An importance the caller gives is compared like every other value."""
    assert cli("init", cwd=repo).code == 0
    store = [arg for arg in OUTCOME if arg not in ("--importance", "2")]
    first = cli(*store, "First of its kind", cwd=repo)
    assert first.stdout.endswith(
        "| O-001 | 2026-03-10 | main | 3 | 03-01 | coder | general | success | 3 |  "
        "| First of its kind |\n"
    )
    before = read_bytes_of(repo)

    again = cli(*store, "First of its kind", cwd=repo)

    assert (again.code, again.stdout) == (0, first.stdout)
    assert again.stderr.endswith(
        "Note: OUTCOMES.md already holds this outcome as O-001 (line 10); nothing was stored\n"
    )
    assert read_bytes_of(repo) == before
    given = cli(*store, "First of its kind", "--importance", "2", cwd=repo)
    assert "| O-002 |" in given.stdout

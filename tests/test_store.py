"""The store: locked appends from many processes, in-place updates, refusals that change nothing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from support.processes import REPO_ROOT, read_bytes_of

from legion_memory.errors import InputError, ParseError
from legion_memory.markdown.document import parse
from legion_memory.schema.kinds import ERROR_FIX, OUTCOME, new_record
from legion_memory.storage.reading import Memory, load_records
from legion_memory.storage.writing import append, update

WRITER = """
import sys
from pathlib import Path
from legion_memory.schema.kinds import OUTCOME, new_record
from legion_memory.storage.writing import append
from legion_memory.storage.reading import Memory

memory, worker = Memory(Path(sys.argv[1])), sys.argv[2]
for n in range(25):
    values = {"date": "2026-03-01", "branch": "main", "phase": "1", "plan": "01-01",
              "agent": "autonomous", "task_type": "general", "outcome": "success",
              "importance": "2", "summary": f"worker {worker} record {n}"}
    append(memory, new_record(OUTCOME, values))
"""


def outcome(summary: str = "Did the thing", **changes: str) -> dict[str, str]:
    values = {
        "date": "2026-03-01",
        "branch": "main",
        "phase": "1",
        "plan": "01-01",
        "agent": "autonomous",
        "task_type": "general",
        "outcome": "success",
        "importance": "2",
        "tags": "",
        "summary": summary,
    }
    return {**values, **changes}


def test_concurrent_appends_lose_nothing_and_never_duplicate_an_id(tmp_path: Path) -> None:
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(tmp_path), str(worker)],
            env={"PYTHONPATH": str(REPO_ROOT)},
        )
        for worker in range(4)
    ]
    assert [process.wait(timeout=120) for process in workers] == [0, 0, 0, 0]
    records = load_records(Memory(tmp_path), OUTCOME)
    assert sorted(r["summary"] for r in records) == sorted(
        f"worker {w} record {n}" for w in range(4) for n in range(25)
    )
    assert sorted(r.id for r in records) == [f"O-{n:03d}" for n in range(1, 101)]


def test_next_id_counts_archived_records_and_never_reuses(tmp_path: Path) -> None:
    memory = Memory(tmp_path)
    for summary in ("one", "two", "three"):
        append(memory, new_record(OUTCOME, outcome(summary)))
    text = memory.path(OUTCOME).read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    archived = [line for line in lines if line.startswith("| O-003")]
    memory.path(OUTCOME).write_text("".join(x for x in lines if x not in archived), "utf-8")
    from legion_memory.schema.kinds import archive_template

    memory.archive.write_text(archive_template() + "".join(archived), encoding="utf-8")
    stored = append(memory, new_record(OUTCOME, outcome("four")))
    assert stored.id == "O-004"


def test_update_changes_exactly_one_line(tmp_path: Path) -> None:
    memory = Memory(tmp_path)
    values = {
        "date": "2026-03-01",
        "branch": "main",
        "error_signature": "`TypeError: x | y`",
        "fix": "first try",
        "agent": "engineering-senior-developer",
        "resolved": "false",
        "tags": "react",
    }
    append(memory, new_record(ERROR_FIX, values))
    append(memory, new_record(ERROR_FIX, {**values, "error_signature": "other"}))
    before = memory.path(ERROR_FIX).read_text(encoding="utf-8").split("\n")
    update(memory, ERROR_FIX, "E-001", {"fix": "use optional chaining", "resolved": "true"})
    after = memory.path(ERROR_FIX).read_text(encoding="utf-8").split("\n")
    changed = [(b, a) for b, a in zip(before, after, strict=True) if b != a]
    assert changed == [
        (
            "| E-001 | 2026-03-01 | main | `TypeError: x \\| y` | first try "
            "| engineering-senior-developer | false | react |",
            "| E-001 | 2026-03-01 | main | `TypeError: x \\| y` | use optional chaining "
            "| engineering-senior-developer | true | react |",
        )
    ]


RAGGED = (
    OUTCOME.template()
    + "| O-001 | 2026-03-01 | main | 1 | 01-01 | a | b | success | 2 | t | ran `ls | wc` |\n"
)


def test_writer_refuses_a_ragged_table_and_changes_nothing(tmp_path: Path) -> None:
    memory = Memory(tmp_path / "memory")
    memory.directory.mkdir()
    memory.path(OUTCOME).write_text(RAGGED, encoding="utf-8")
    before = read_bytes_of(tmp_path)
    with pytest.raises(ParseError) as raised:
        append(memory, new_record(OUTCOME, outcome()))
    assert raised.value.line() == (
        f"{memory.path(OUTCOME)}:10: row has 12 cells but the header has 11 "
        "(escape pipes inside values as \\| and fix the row by hand)"
    )
    assert raised.value.exit_code == 1
    assert read_bytes_of(tmp_path) == before


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"outcome": "won"}, "Outcome 'won' must be one of success, partial, failed"),
        ({"date": "2026-3-1"}, "Date '2026-3-1' must be a date YYYY-MM-DD"),
        ({"date": "2026-02-30"}, "Date '2026-02-30' is not a real calendar date"),
        ({"importance": "0"}, "Importance '0' must be an integer from 1 to 5"),
        ({"importance": "6"}, "Importance '6' must be an integer from 1 to 5"),
        ({"plan": "5-1"}, "Plan '5-1' must be NN-PP (e.g. 05-01), board or -"),
        ({"phase": "x"}, "Phase 'x' must be an integer or N/A"),
        ({"agent": ""}, "Agent is required"),
        ({"agent": "two words"}, "Agent 'two words' must be an agent ID or a comma-separated list"),
    ],
)
def test_bad_values_are_refused_with_one_line(changes: dict[str, str], message: str) -> None:
    with pytest.raises(InputError) as raised:
        new_record(OUTCOME, outcome(**changes))
    assert raised.value.line().startswith(message)
    assert raised.value.exit_code == 2


@pytest.mark.parametrize(
    ("summary", "kind"),
    [
        ("key AKIAABCDEFGHIJKLMNOP leaked", "an AWS access key"),
        ("token ghp_" + "a" * 36, "a GitHub token"),
        ("set password=hunter22 in env", "a password or API key assignment"),
        ("-----BEGIN OPENSSH PRIVATE KEY-----", "a private key"),
        ("used sk-proj-" + "x" * 24, "an OpenAI or Anthropic API key"),
    ],
)
def test_secrets_are_refused_without_being_echoed(summary: str, kind: str) -> None:
    with pytest.raises(InputError) as raised:
        new_record(OUTCOME, outcome(summary))
    assert raised.value.line() == (
        f"Summary looks like it contains {kind}; secrets are never stored in memory "
        "(remove it and describe the change instead (e.g. 'rotated the API key'))"
    )


def test_a_reference_to_a_secret_is_not_a_secret() -> None:
    record = new_record(OUTCOME, outcome("read password=$DB_PASSWORD from the vault"))
    assert record["summary"] == "read password=$DB_PASSWORD from the vault"


def test_new_file_gets_the_template_and_one_row(tmp_path: Path) -> None:
    memory = Memory(tmp_path / ".planning" / "memory")
    append(memory, new_record(OUTCOME, outcome("first")))
    text = memory.path(OUTCOME).read_text(encoding="utf-8")
    assert text == OUTCOME.template() + (
        "| O-001 | 2026-03-01 | main | 1 | 01-01 | autonomous | general | success | 2 |  "
        "| first |\n"
    )
    assert (memory.directory / ".gitignore").read_text(encoding="utf-8") == (
        ".legion-memory.lock\n.legion-memory.journal\n.legion-memory-*.tmp\n"
    )
    assert parse(text).tables[0].heading == "Records"


def test_file_mode_is_kept(tmp_path: Path) -> None:
    memory = Memory(tmp_path)
    append(memory, new_record(OUTCOME, outcome("first")))
    memory.path(OUTCOME).chmod(0o600)
    append(memory, new_record(OUTCOME, outcome("second")))
    assert memory.path(OUTCOME).stat().st_mode & 0o777 == 0o600

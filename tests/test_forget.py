"""`forget` archives a row byte-for-byte, `restore` brings it back; the round trip is exact."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.processes import CLI, FIXTURES, read_bytes_of

from legion_memory.schema.kinds import KINDS, archive_template, kind_of_id
from legion_memory.upkeep import forgetting

FIXTURE = FIXTURES / "search" / "project"
TODAY = "2026-05-01"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    shutil.copytree(FIXTURE, root / ".planning" / "memory")
    # The lock file appears on the first write; make it exist so snapshots compare data alone.
    (root / ".planning" / "memory" / ".legion-memory.lock").touch()
    return root


def memory_file(root: Path, name: str) -> Path:
    return root / ".planning" / "memory" / name


def run(cli: CLI, root: Path, *args: str) -> tuple[int, str, str]:
    result = cli("--root", str(root), *args)
    return result.code, result.stdout, result.stderr


def test_forget_moves_the_row_byte_for_byte_into_a_new_archive_section(
    cli: CLI, project: Path
) -> None:
    patterns = memory_file(project, "PATTERNS.md")
    errors_before = memory_file(project, "ERRORS.md").read_text("utf-8")
    row = errors_before.splitlines()[10]
    assert row.startswith("| E-002 |")
    assert run(cli, project, "forget", "E-002") == (
        0,
        "archived E-002: ERRORS.md -> ARCHIVE.md (Archived Errors)\n",
        "",
    )
    assert memory_file(project, "ERRORS.md").read_text("utf-8") == errors_before.replace(
        row + "\n", ""
    )
    archive = memory_file(project, "ARCHIVE.md").read_text("utf-8")
    assert archive == (FIXTURE / "ARCHIVE.md").read_text("utf-8") + (
        "\n## Archived Errors\n\n"
        "| ID | Date | Branch | Error Signature | Fix | Agent | Resolved | Tags |\n"
        "|----|------|--------|-----------------|-----|-------|----------|------|\n"
        f"{row}\n"
    )
    assert patterns.read_bytes() == (FIXTURE / "PATTERNS.md").read_bytes()


def test_forget_an_outcome_appends_to_archived_records(cli: CLI, project: Path) -> None:
    outcomes = (FIXTURE / "OUTCOMES.md").read_text("utf-8").splitlines(keepends=True)
    row = outcomes[10]
    assert row.startswith("| O-002 |")
    assert run(cli, project, "forget", "O-002")[0] == 0
    archive = (FIXTURE / "ARCHIVE.md").read_text("utf-8").splitlines(keepends=True)
    # After O-006, the last row of `## Archived Records` (line 10), before the blank line.
    assert memory_file(project, "ARCHIVE.md").read_text("utf-8") == "".join(
        [*archive[:10], row, *archive[10:]]
    )
    assert memory_file(project, "OUTCOMES.md").read_text("utf-8") == "".join(
        [*outcomes[:10], *outcomes[11:]]
    )


def test_forget_then_restore_is_byte_identical_in_any_order(cli: CLI, project: Path) -> None:
    before = read_bytes_of(project)
    for record_id in ("P-001", "D-002", "O-003", "E-002", "E-001", "P-002"):
        assert run(cli, project, "forget", record_id)[0] == 0
    for record_id in ("D-002", "E-001", "P-002", "O-003", "E-002", "P-001"):
        code, out, err = run(cli, project, "restore", record_id)
        assert (code, err) == (0, "")
        assert out.startswith(f"restored {record_id}: ARCHIVE.md -> ")
    assert read_bytes_of(project) == before


def test_restore_puts_the_row_back_in_id_order(cli: CLI, project: Path) -> None:
    lines = (FIXTURE / "OUTCOMES.md").read_text("utf-8").splitlines(keepends=True)
    run(cli, project, "forget", "O-002")
    run(cli, project, "forget", "O-004")
    assert run(cli, project, "restore", "O-002") == (
        0,
        "restored O-002: ARCHIVE.md -> OUTCOMES.md (Records)\n",
        "",
    )
    # O-004 is still archived: O-002 goes back between O-001 and O-003.
    assert memory_file(project, "OUTCOMES.md").read_text("utf-8") == "".join(
        [*lines[:12], *lines[13:]]
    )


def test_forgotten_records_leave_search_and_context(cli: CLI, project: Path) -> None:
    search = ("--today", TODAY, "--json", "search", "tailwind")
    assert [h["id"] for h in json.loads(run(cli, project, *search)[1])["results"]] == [
        "D-001",
        "O-003",
    ]
    run(cli, project, "forget", "D-001")
    assert [h["id"] for h in json.loads(run(cli, project, *search)[1])["results"]] == ["O-003"]
    context = ("--today", TODAY, "context", "--agent", "x", "--task", "tailwind")
    assert "Styling the settings page" not in run(cli, project, *context)[1]
    run(cli, project, "restore", "D-001")
    assert "Styling the settings page" in run(cli, project, *context)[1]


def test_json_output(cli: CLI, project: Path) -> None:
    code, out, _ = run(cli, project, "--json", "forget", "D-002")
    assert code == 0
    assert json.loads(out) == {
        "scope": "project",
        "id": "D-002",
        "from": "PREFERENCES.md",
        "to": "ARCHIVE.md",
        "section": "Archived Preferences",
        "record": {
            "id": "D-002",
            "date": "2026-04-10",
            "branch": "main",
            "decision_point": "review-verdict",
            "context": "Auth review blockers",
            "proposed": "Block merge until tests pass",
            "user_choice": "Block merge until tests pass",
            "signal": "positive",
            "agent": "testing-qa-engineer",
            "tags": "auth, review",
        },
    }


CRLF_PATTERNS = (
    "# Memory — Pattern Library\r\n\r\n## Patterns\r\n\r\n"
    "| ID | Date | Branch | Pattern | Context | Reuse Criteria | Source | Tags |\r\n"
    "|----|------|--------|---------|---------|----------------|--------|------|\r\n"
    "|P-001|2026-04-01|main|First|c|r|-|a|\r\n"
    "|  P-002  | 2026-04-02 | main | Second \\| with pipe | c | r | - | b |   \r\n"
    "| P-003 | 2026-04-03 | main | Third | c | r | - | c |"
)


@pytest.mark.parametrize("record_id", ["P-001", "P-002", "P-003"])
def test_round_trip_keeps_crlf_padding_and_a_missing_final_newline(
    cli: CLI, tmp_path: Path, record_id: str
) -> None:
    memory = tmp_path / ".planning" / "memory"
    memory.mkdir(parents=True)
    (memory / "PATTERNS.md").write_bytes(CRLF_PATTERNS.encode("utf-8"))
    (memory / "ARCHIVE.md").write_bytes(archive_template().rstrip("\n").encode("utf-8"))
    (memory / ".legion-memory.lock").touch()
    before = read_bytes_of(tmp_path)
    assert run(cli, tmp_path, "forget", record_id)[0] == 0
    archived = (memory / "ARCHIVE.md").read_bytes()
    row = next(line for line in CRLF_PATTERNS.split("\r\n") if record_id in line)
    assert archived.endswith(b"\n" + row.encode("utf-8"))  # the row as written, no CR
    assert b"\r" not in archived
    assert run(cli, tmp_path, "restore", record_id)[0] == 0
    assert read_bytes_of(tmp_path) == before


def test_forget_creates_archive_md_when_missing_and_restore_keeps_it(
    cli: CLI, tmp_path: Path
) -> None:
    memory = tmp_path / ".planning" / "memory"
    memory.mkdir(parents=True)
    shutil.copy(FIXTURE / "ERRORS.md", memory / "ERRORS.md")
    assert run(cli, tmp_path, "forget", "E-001")[0] == 0
    archive = (memory / "ARCHIVE.md").read_text("utf-8")
    assert archive.startswith(archive_template() + "\n## Archived Errors\n")
    assert run(cli, tmp_path, "restore", "E-001")[0] == 0
    assert (memory / "ERRORS.md").read_bytes() == (FIXTURE / "ERRORS.md").read_bytes()
    assert (memory / "ARCHIVE.md").read_text("utf-8") == archive_template()


def test_an_archive_section_with_text_under_it_stays(cli: CLI, project: Path) -> None:
    archive = memory_file(project, "ARCHIVE.md")
    run(cli, project, "forget", "E-001")
    archive.write_text(archive.read_text("utf-8") + "Kept for the audit.\n", "utf-8")
    run(cli, project, "restore", "E-001")
    assert archive.read_text("utf-8").endswith(
        "## Archived Errors\n\n"
        "| ID | Date | Branch | Error Signature | Fix | Agent | Resolved | Tags |\n"
        "|----|------|--------|-----------------|-----|-------|----------|------|\n"
        "Kept for the audit.\n"
    )


def test_bad_ids_change_nothing(cli: CLI, project: Path) -> None:
    before = read_bytes_of(project)
    hint = "IDs look like O-001, P-001, E-001 or D-001; learn and retro entries are edited by hand"
    assert run(cli, project, "forget", "PAT-003") == (
        2,
        "",
        f"Error: 'PAT-003' is not a record ID ({hint})\n",
    )
    assert run(cli, project, "restore", "p-1")[0] == 2
    missing = run(cli, project, "forget", "E-099")
    assert missing[:2] == (2, "")
    assert missing[2].endswith(
        "ERRORS.md: no record E-099 (check the ID with `legion-memory search` or "
        "`legion-memory recall`)\n"
    )
    assert run(cli, project, "restore", "E-001")[2].endswith(
        "ERRORS.md:10: E-001 is not archived\n"
    )
    assert run(cli, project, "restore", "E-001")[0] == 1
    assert run(cli, project, "restore", "D-009")[2].endswith(
        "ARCHIVE.md: no archived record D-009 (check the ID with `legion-memory search` or "
        "`legion-memory recall`)\n"
    )
    assert read_bytes_of(project) == before


def test_forgetting_twice_says_it_is_archived(cli: CLI, project: Path) -> None:
    run(cli, project, "forget", "O-001")
    snapshot = read_bytes_of(project)
    code, out, err = run(cli, project, "forget", "O-001")
    assert (code, out) == (1, "")
    assert err.endswith(
        "ARCHIVE.md: O-001 is already archived (run `legion-memory restore O-001` to bring it "
        "back)\n"
    )
    assert read_bytes_of(project) == snapshot


def test_a_record_both_live_and_archived_is_refused(cli: CLI, project: Path) -> None:
    archive = memory_file(project, "ARCHIVE.md")
    outcomes = (FIXTURE / "OUTCOMES.md").read_text("utf-8").splitlines(keepends=True)
    text = archive.read_text("utf-8").replace("| O-006 |", "| O-001 |")
    archive.write_text(text.replace(outcomes[9].replace("O-001", "O-006"), ""), "utf-8")
    before = read_bytes_of(project)
    code, _, err = run(cli, project, "forget", "O-001")
    assert code == 1
    assert "O-001 is both live and archived" in err
    assert err.endswith("(run `legion-memory doctor --fix`, then retry)\n")
    assert read_bytes_of(project) == before


def test_tables_with_different_columns_are_refused(cli: CLI, tmp_path: Path) -> None:
    memory = tmp_path / ".planning" / "memory"
    memory.mkdir(parents=True)
    # A legacy OUTCOMES.md without the Branch column.
    (memory / "OUTCOMES.md").write_text(
        "## Records\n\n| ID | Date | Agent | Outcome | Summary |\n|---|---|---|---|---|\n"
        "| O-001 | 2026-04-01 | dev | success | Did it |\n",
        "utf-8",
    )
    (memory / "ARCHIVE.md").write_text(archive_template(), "utf-8")
    before = read_bytes_of(tmp_path)
    code, _, err = run(cli, tmp_path, "forget", "O-001")
    assert code == 1
    assert err == (
        f"Error: {memory / 'ARCHIVE.md'}:8: the archive table's columns differ from the live "
        "table's, so the row cannot move as it is (run `legion-memory migrate` so that both "
        "tables have the same columns)\n"
    )
    assert read_bytes_of(tmp_path) == before


def test_no_memory_creates_nothing(cli: CLI, tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    code, _, err = run(cli, tmp_path, "forget", "O-001")
    assert code == 2
    assert "no record O-001" in err
    code, _, err = run(cli, tmp_path, "restore", "O-001")
    assert code == 2
    assert "no archived record O-001" in err
    assert read_bytes_of(tmp_path) == {}


def test_a_root_that_is_no_project_is_refused_and_nothing_is_written(
    cli: CLI, tmp_path: Path
) -> None:
    refusal = (
        f"Error: --root '{tmp_path}' is not a project: it holds neither .git nor .planning "
        "(give a git repository's root, or run `git init` there first)\n"
    )
    assert run(cli, tmp_path, "forget", "O-001") == (2, "", refusal)
    stored = cli("--root", str(tmp_path), "store", "error", "--signature", "boom", "--fix", "x",
                 "--agent", "coder", "--resolved")  # fmt: skip
    assert stored.code == 2
    assert stored.stderr.startswith(refusal)
    assert read_bytes_of(tmp_path) == {}


def test_disabled_memory_changes_nothing(cli: CLI, project: Path) -> None:
    (project / "settings.json").write_text('{"memory": {"enabled": false}}', "utf-8")
    before = read_bytes_of(project)
    assert run(cli, project, "forget", "O-001") == (
        0,
        "",
        "memory is disabled (memory.enabled is false in settings.json); nothing changed\n",
    )
    assert read_bytes_of(project) == before


LIVE_IDS = ["O-001", "O-002", "O-003", "O-004", "O-005", "P-001", "P-002", "E-001", "E-002"]
LIVE_IDS += ["D-001", "D-002"]


@settings(max_examples=60, deadline=None)
@given(data=st.data(), crlf=st.booleans(), final_newline=st.booleans())
def test_any_forgets_then_restores_in_any_order_round_trip(
    data: st.DataObject, crlf: bool, final_newline: bool
) -> None:
    def variant(text: str) -> str:
        text = text.replace("\n", "\r\n") if crlf else text
        return text if final_newline else text.rstrip("\r\n")

    texts: dict[str, str | None] = {
        kind.name: variant((FIXTURE / kind.filename).read_text("utf-8")) for kind in KINDS.values()
    }
    archive: str | None = variant((FIXTURE / "ARCHIVE.md").read_text("utf-8"))
    original = (dict(texts), archive)
    chosen = data.draw(st.lists(st.sampled_from(LIVE_IDS), unique=True, min_size=1))
    for record_id in chosen:
        kind = kind_of_id(record_id)
        assert kind is not None
        live, archive, _ = forgetting.archive_row(
            kind,
            record_id,
            forgetting.Texts(Path(kind.filename), texts[kind.name], Path("ARCHIVE.md"), archive),
        )
        texts[kind.name] = live
    for record_id in data.draw(st.permutations(chosen)):
        kind = kind_of_id(record_id)
        assert kind is not None
        live, archive, _ = forgetting.unarchive_row(
            kind,
            record_id,
            forgetting.Texts(Path(kind.filename), texts[kind.name], Path("ARCHIVE.md"), archive),
        )
        texts[kind.name] = live
    assert (texts, archive) == original

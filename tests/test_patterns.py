"""`store pattern` and `recall patterns`: golden rows, one-line diffs, recency order, filters."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from support.knowledge import MEMORY, TODAY, files_of, golden, numstat, project_with
from support.processes import CLI, git, read_bytes_of

from legion_memory.knowledge.recency import by_recency
from legion_memory.schema.kinds import PATTERN
from legion_memory.schema.records import Record

RETRY = (
    "store",
    "pattern",
    "--pattern",
    "Retry flaky `curl | jq` calls with backoff",
    "--context",
    "CI job hit rate limits",
    "--reuse",
    "Any pipeline step calling a rate-limited API",
    "--source",
    "O-012",
    "--tags",
    "ci, api",
)


def run(cli: CLI, repo: Path, *args: str) -> tuple[int, str, str]:
    result = cli("--root", str(repo), "--today", TODAY, *args)
    return result.code, result.stdout, result.stderr


def recalled_ids(cli: CLI, repo: Path, *args: str) -> list[str]:
    code, out, err = run(cli, repo, "--json", "recall", "patterns", *args)
    assert (code, err) == (0, "")
    return [record["id"] for record in json.loads(out)["records"]]


def test_store_pattern_appends_the_golden_row_as_one_added_line(cli: CLI, repo: Path) -> None:
    memory = project_with(repo, "PATTERNS.md")
    code, out, err = run(cli, repo, "--branch", "feature/auth", *RETRY)
    assert (code, out, err) == (0, "Stored P-008 in .planning/memory/PATTERNS.md:17\n", "")
    assert (memory / "PATTERNS.md").read_bytes() == golden("PATTERNS.stored.md")
    assert numstat(repo) == ["1\t0\t.planning/memory/PATTERNS.md"]


def test_store_pattern_json_reports_the_new_record(cli: CLI, repo: Path) -> None:
    project_with(repo, "PATTERNS.md")
    code, out, _ = run(cli, repo, "--json", *RETRY)
    assert code == 0
    assert json.loads(out) == {
        "action": "stored",
        "where": ".planning/memory/PATTERNS.md:17",
        "record": {
            "id": "P-008",
            "date": "2026-04-01",
            "branch": "main",
            "pattern": "Retry flaky `curl | jq` calls with backoff",
            "context": "CI job hit rate limits",
            "reuse_criteria": "Any pipeline step calling a rate-limited API",
            "source": "O-012",
            "tags": "ci, api",
        },
        "notes": [],
    }


def test_first_store_creates_the_file_from_the_spec_template(cli: CLI, repo: Path) -> None:
    code, out, _ = run(
        cli, repo, "store", "pattern", "--pattern", "p", "--context", "c", "--reuse", "r"
    )
    assert (code, out) == (0, "Stored P-001 in .planning/memory/PATTERNS.md:10\n")
    assert (repo / MEMORY / "PATTERNS.md").read_text(encoding="utf-8") == (
        PATTERN.template() + "| P-001 | 2026-04-01 | main | p | c | r |  |  |\n"
    )


def test_ids_continue_after_archived_patterns(cli: CLI, repo: Path) -> None:
    memory = project_with(repo, "PATTERNS.md")
    (memory / "ARCHIVE.md").write_text(
        "# Memory — Archived Outcomes\n\n## Archived Patterns\n\n"
        "| ID | Date | Branch | Pattern | Context | Reuse Criteria | Source | Tags |\n"
        "|----|------|--------|---------|---------|----------------|--------|------|\n"
        "| P-011 | 2025-01-01 | main | Old | Old | Old | - | old |\n",
        encoding="utf-8",
    )
    code, out, _ = run(cli, repo, *RETRY)
    assert (code, out) == (0, "Stored P-012 in .planning/memory/PATTERNS.md:17\n")


def test_tags_are_trimmed_and_deduplicated(cli: CLI, repo: Path) -> None:
    run(
        cli,
        repo,
        "store",
        "pattern",
        "--pattern",
        "p",
        "--context",
        "c",
        "--reuse",
        "r",
        "--tags",
        " testing,, wave ,testing",
    )
    last = (repo / MEMORY / "PATTERNS.md").read_text(encoding="utf-8").splitlines()[-1]
    assert last == "| P-001 | 2026-04-01 | main | p | c | r |  | testing, wave |"


def test_pipes_backticks_backslashes_and_line_breaks_round_trip(cli: CLI, repo: Path) -> None:
    pattern = r"Run `grep -E 'a|b' \| sort` then C:\tmp\ cleanup"
    context = "First line\r\nsecond line with a typed <br> break"
    code, _, _ = run(
        cli,
        repo,
        "store",
        "pattern",
        "--pattern",
        pattern,
        "--context",
        context,
        "--reuse",
        "| leading and trailing |",
    )
    assert code == 0
    row = (repo / MEMORY / "PATTERNS.md").read_text(encoding="utf-8").splitlines()[-1]
    assert row == (
        r"| P-001 | 2026-04-01 | main | Run `grep -E 'a\|b' \\| sort` then C:\tmp\ cleanup "
        "| First line<br>second line with a typed <br> break | \\| leading and trailing \\| |  |  |"
    )
    _, out, _ = run(cli, repo, "--json", "recall", "patterns")
    record = json.loads(out)["records"][0]
    assert record["pattern"] == pattern
    assert record["context"] == "First line\nsecond line with a typed \n break"
    assert record["reuse_criteria"] == "| leading and trailing |"


def test_a_legacy_table_without_branch_gets_rows_of_its_own_shape(cli: CLI, repo: Path) -> None:
    memory = project_with(repo, "PATTERNS-legacy.md:PATTERNS.md")
    code, out, _ = run(
        cli,
        repo,
        "store",
        "pattern",
        "--pattern",
        "p",
        "--context",
        "c",
        "--reuse",
        "r",
        "--source",
        "notes",
    )
    assert (code, out) == (0, "Stored P-002 in .planning/memory/PATTERNS.md:8\n")
    lines = (memory / "PATTERNS.md").read_text(encoding="utf-8").splitlines()
    assert lines[-1] == "| P-002 | 2026-04-01 | p | c | r | notes |  |"
    assert numstat(repo) == ["1\t0\t.planning/memory/PATTERNS.md"]
    # Rows without a Branch belong to the default branch.
    assert recalled_ids(cli, repo, "--branch", "main") == ["P-002", "P-001"]
    assert recalled_ids(cli, repo, "--branch", "feature/x") == []


def test_recall_orders_by_recency_then_date_then_id(cli: CLI, repo: Path) -> None:
    project_with(repo, "PATTERNS.md")
    # Today 2026-04-01. Weight 1.0: P-006 and P-002 (both 03-28, higher ID first); 0.7: P-003;
    # 0.4: P-007 (02-20), P-005 (01-15), then P-004 whose date does not parse; 0.1: P-001.
    expected = ["P-006", "P-002", "P-003", "P-007", "P-005", "P-004", "P-001"]
    assert recalled_ids(cli, repo) == expected


def test_recall_json_carries_the_recency_fields(cli: CLI, repo: Path) -> None:
    project_with(repo, "PATTERNS.md")
    _, out, _ = run(cli, repo, "--json", "recall", "patterns", "--tag", "database")
    assert json.loads(out) == {
        "records": [
            {
                "id": "P-007",
                "date": "2026-02-20",
                "branch": "main",
                "pattern": "Split migrations from code deploys",
                "context": "Phase 4 release",
                "reuse_criteria": "Schema changes on live tables",
                "source": "O-005",
                "tags": "database",
                "days_old": 40,
                "recency_weight": 0.4,
                "decay_score": 0.4,
            },
            {
                "id": "P-005",
                "date": "2026-01-15",
                "branch": "main",
                "pattern": "Snapshot the fixture DB per test module",
                "context": "Slow integration suite",
                "reuse_criteria": "Suites over 5 minutes",
                "source": "O-002",
                "tags": "testing, database",
                "days_old": 76,
                "recency_weight": 0.4,
                "decay_score": 0.4,
            },
        ],
        "notes": [],
    }


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (("--tag", "testing"), ["P-002", "P-005", "P-001"]),
        (("--tag", "AUTH", "--tag", "docs"), ["P-006", "P-003", "P-004"]),
        (("--tag", "auth,docs"), ["P-006", "P-003", "P-004"]),
        (("--tag", "nothing"), []),
        (("--branch", "feature/auth"), ["P-006", "P-003"]),
        (("--branch", "main", "--tag", "api"), ["P-002"]),
        (("--branch", "all", "--limit", "2"), ["P-006", "P-002"]),
    ],
)
def test_recall_filters(cli: CLI, repo: Path, args: tuple[str, ...], expected: list[str]) -> None:
    project_with(repo, "PATTERNS.md")
    assert recalled_ids(cli, repo, *args) == expected


def test_branch_current_is_the_checked_out_branch(cli: CLI, repo: Path) -> None:
    project_with(repo, "PATTERNS.md")
    git(repo, "checkout", "-q", "-b", "feature/auth")
    assert recalled_ids(cli, repo, "--branch", "current") == ["P-006", "P-003"]


def test_recall_human_output_is_a_markdown_table(cli: CLI, repo: Path) -> None:
    project_with(repo, "PATTERNS.md")
    code, out, err = run(cli, repo, "recall", "patterns", "--tag", "auth", "--limit", "1")
    assert (code, err) == (0, "")
    assert out == (
        "| ID | Date | Branch | Pattern | Context | Reuse Criteria | Source | Tags |\n"
        "|---|---|---|---|---|---|---|---|\n"
        "| P-006 | 2026-03-28 | feature/auth | Pin the OAuth provider mock to one clock "
        "| Flaky expiry tests | Time-dependent auth tests | O-009 | auth, api |\n"
    )


def test_by_recency_puts_undated_records_after_dated_ones_of_the_same_weight() -> None:
    def pattern(number: int, date: str) -> Record:
        return Record(PATTERN, {"id": f"P-{number:03d}", "date": date})

    records = [pattern(1, "bad"), pattern(2, "2026-02-01"), pattern(3, "2026-03-31")]
    ranked = by_recency(records, dt.date(2026, 4, 1))
    assert [(s.record.id, s.recency_weight) for s in ranked] == [
        ("P-003", 1.0),
        ("P-002", 0.4),
        ("P-001", 0.4),
    ]


def test_recall_without_a_file_is_empty_and_creates_nothing(cli: CLI, repo: Path) -> None:
    before = read_bytes_of(repo)
    assert run(cli, repo, "recall", "patterns") == (0, "", "")
    code, out, err = run(cli, repo, "--json", "recall", "patterns")
    assert (code, json.loads(out), err) == (0, {"records": [], "notes": []}, "")
    assert read_bytes_of(repo) == before
    assert not (repo / ".planning").exists()


def test_a_malformed_file_warns_on_recall_and_refuses_a_store(cli: CLI, repo: Path) -> None:
    memory = project_with(repo, "PATTERNS.md")
    path = memory / "PATTERNS.md"
    path.write_text(path.read_text().replace("| P-003 ", "| P-003 | extra cell "))
    before = files_of(repo)
    warning = "Warning: PATTERNS.md could not be parsed. Proceeding without memory.\n"
    assert run(cli, repo, "recall", "patterns") == (0, "", warning)
    code, out, err = run(cli, repo, "--json", "recall", "patterns")
    assert (code, err) == (0, warning)
    assert json.loads(out) == {"records": [], "notes": [warning.strip()]}
    code, out, err = run(cli, repo, *RETRY)
    assert (code, out) == (1, "")
    assert err == (
        f"Error: {path}:12: row has 9 cells but the header has 8 "
        "(escape pipes inside values as \\| and fix the row by hand)\n"
    )
    assert files_of(repo) == before


def test_disabled_memory_recalls_nothing_and_stores_nothing(cli: CLI, repo: Path) -> None:
    project_with(repo, "PATTERNS.md")
    (repo / "settings.json").write_text('{"memory": {"enabled": false}}', encoding="utf-8")
    before = read_bytes_of(repo)
    assert run(cli, repo, "recall", "patterns") == (0, "", "")
    notice = "memory is disabled (memory.enabled is false in settings.json); nothing stored\n"
    assert run(cli, repo, *RETRY) == (0, "", notice)
    code, out, err = run(cli, repo, "--json", *RETRY)
    assert (code, json.loads(out), err) == (0, {"action": "disabled"}, notice)
    assert read_bytes_of(repo) == before


def test_an_unknown_outcome_source_is_stored_with_a_notice(cli: CLI, repo: Path) -> None:
    memory = project_with(repo, "PATTERNS.md")
    (memory / "OUTCOMES.md").write_text(
        "## Records\n\n| ID | Date | Branch | Phase | Plan | Agent | Task Type | Outcome "
        "| Importance | Tags | Summary |\n|---|---|---|---|---|---|---|---|---|---|---|\n"
        "| O-012 | 2026-03-30 | main | 8 | 08-01 | a | general | success | 2 | | done |\n",
        encoding="utf-8",
    )
    assert run(cli, repo, *RETRY)[2] == ""
    code, out, err = run(cli, repo, *RETRY[:-4], "--source", "O-013")
    assert (code, out) == (0, "Stored P-009 in .planning/memory/PATTERNS.md:18\n")
    assert err == "Source O-013 is not an outcome in OUTCOMES.md or ARCHIVE.md (stored as given)\n"


STORE = ("store", "pattern")
GOOD = {"--pattern": "p", "--context": "c", "--reuse": "r"}


def flags(**changes: str | None) -> list[str]:
    values = {**GOOD, **{f"--{key}": value for key, value in changes.items()}}
    return [part for key, value in values.items() if value is not None for part in (key, value)]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            (*STORE, *flags(pattern=None)),
            "Missing option '--pattern'. (see `legion-memory store pattern --help`)",
        ),
        (
            (*STORE, *flags(context=None)),
            "Missing option '--context'. (see `legion-memory store pattern --help`)",
        ),
        (
            (*STORE, *flags(reuse=None)),
            "Missing option '--reuse'. (see `legion-memory store pattern --help`)",
        ),
        ((*STORE, *flags(pattern="  ")), "Pattern is required (fix the value and retry)"),
        ((*STORE, *flags(reuse="")), "Reuse Criteria is required (fix the value and retry)"),
        (
            (*STORE, *flags(tags="a\nb")),
            "Tags must be a single line (remove the line break from the value)",
        ),
        (
            (*STORE, *flags(context="token ghp_abcdefghijklmnopqrstuvwxyz0123456789")),
            "Context looks like it contains a GitHub token; secrets are never stored in memory "
            "(remove it and describe the change instead (e.g. 'rotated the API key'))",
        ),
        (
            ("recall", "patterns", "--limit", "0"),
            "--limit 0 is not valid (use a number of 1 or more)",
        ),
        (
            ("recall", "patterns", "--branch", ""),
            "--branch is empty (use all, current or a branch name)",
        ),
    ],
)
def test_bad_input_exits_2_with_one_line_and_writes_nothing(
    cli: CLI, repo: Path, args: tuple[str, ...], message: str
) -> None:
    project_with(repo, "PATTERNS.md")
    before = read_bytes_of(repo)
    assert run(cli, repo, *args) == (2, "", f"Error: {message}\n")
    assert read_bytes_of(repo) == before

"""`store error` with duplicate detection and the in-place update, and `recall errors` ranking."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from support.knowledge import MEMORY, TODAY, files_of, golden, numstat, project_with
from support.processes import CLI, read_bytes_of, run_process

from legion_memory.knowledge import error_fixes
from legion_memory.schema.kinds import ERROR_FIX
from legion_memory.schema.records import Record

PSQL = '`psql: error: connection to server on socket "/tmp/.s.PGSQL.5432" failed` | `grep -v warn`'
PIPEFAIL = "Run the build with `bash -o pipefail -c 'npm run build | tee build.log'`"
WEBPACK_AGAIN = "`npm run build | tee build.log` exits 0 when webpack fails on CI"
MAP_AGAIN = "TypeError: Cannot read property 'map' of undefined in render"


def run(cli: CLI, repo: Path, *args: str) -> tuple[int, str, str]:
    result = cli("--root", str(repo), "--today", TODAY, *args)
    return result.code, result.stdout, result.stderr


def store_error(cli: CLI, repo: Path, signature: str, fix: str, *more: str) -> tuple[int, str, str]:
    return run(cli, repo, "store", "error", "--signature", signature, "--fix", fix, *more)


def recalled_ids(cli: CLI, repo: Path, *args: str) -> list[str]:
    code, out, err = run(cli, repo, "--json", "recall", "errors", *args)
    assert (code, err) == (0, "")
    return [record["id"] for record in json.loads(out)["records"]]


def error(number: int, signature: str, resolved: str = "true", date: str = TODAY) -> Record:
    values = {"id": f"E-{number:03d}", "date": date, "error_signature": signature}
    return Record(ERROR_FIX, {**values, "fix": "old fix", "resolved": resolved})


# ---- similarity and the duplicate decision (pure) ----------------------------------------------


def test_similarity_is_the_jaccard_index_of_keywords() -> None:
    stored = "ConnectionRefusedError: redis port 6379"
    # {connectionrefusederror, redis, port} shared of 5 in all: exactly the 0.6 threshold.
    assert error_fixes.similarity(stored, "ConnectionRefusedError: redis port 6380") == 0.6
    # One keyword more on the new side: 3 of 6.
    assert error_fixes.similarity(stored, "ConnectionRefusedError redis port 6380 docker") == 0.5
    # Case, punctuation and stopwords do not count.
    assert error_fixes.similarity(stored, "the connectionrefusederror, REDIS: port 6379!") == 1.0


def test_signatures_without_keywords_match_only_when_identical() -> None:
    assert error_fixes.similarity("!!! ???", "!!!  ???") == 1.0
    assert error_fixes.similarity("!!! ???", "??? !!!") == 0.0


def test_the_threshold_is_inclusive_both_ways() -> None:
    stored = [error(1, "ConnectionRefusedError: redis port 6379")]
    at = error_fixes.find_duplicate("ConnectionRefusedError: redis port 6380", stored, 0.6)
    assert at is not None
    assert (at.record.id, at.similarity) == ("E-001", 0.6)
    below = error_fixes.find_duplicate("ConnectionRefusedError redis port 6380 docker", stored)
    assert below is None
    assert (
        error_fixes.find_duplicate("ConnectionRefusedError: redis port 6380", stored, 0.61) is None
    )


def test_a_different_error_sharing_words_is_not_a_duplicate() -> None:
    stored = [error(1, "`TypeError: Cannot read property 'map' of undefined` in component render")]
    # Shares typeerror, cannot, read, property and render: 5 of 11 keywords.
    other = "TypeError: Cannot read property 'length' of null in table render"
    assert error_fixes.similarity(other, stored[0]["error_signature"]) == 5 / 11
    assert error_fixes.find_duplicate(other, stored) is None


def test_the_most_similar_duplicate_wins_then_resolved_then_newest() -> None:
    records = [
        error(1, "disk full on runner", "false", "2026-03-01"),
        error(2, "disk full on runner", "true", "2026-01-01"),
        error(3, "disk full on runner", "false", "2026-03-02"),
        error(4, "disk quota full on runner", "true", "2026-03-03"),
    ]
    found = error_fixes.find_duplicate("Disk full on runner", records)
    assert found is not None
    assert (found.record.id, found.similarity) == ("E-002", 1.0)
    found = error_fixes.find_duplicate("Disk full on runner", [records[0], records[2]])
    assert found is not None
    assert found.record.id == "E-003"


def test_changes_skip_a_resolved_duplicate_and_update_only_what_differs() -> None:
    new = Record(ERROR_FIX, {"fix": "new fix", "resolved": "true", "agent": "b", "tags": "x"})
    assert error_fixes.changes_for(error(1, "s", "true"), new) == {}
    assert error_fixes.changes_for(error(1, "s", "false"), new) == {
        "fix": "new fix",
        "resolved": "true",
    }
    same_fix = Record(ERROR_FIX, {"fix": "old fix", "resolved": "false"})
    assert error_fixes.changes_for(error(1, "s", "false"), same_fix) == {}


# ---- store error ---------------------------------------------------------------------------------


def test_a_new_error_appends_the_golden_row_as_one_added_line(cli: CLI, repo: Path) -> None:
    memory = project_with(repo, "ERRORS.md")
    result = store_error(
        cli,
        repo,
        PSQL,
        "Start the database service before the test job",
        "--agent",
        "devops-engineer",
        "--resolved",
        "--tags",
        "ci,database",
    )
    assert result == (0, "Stored E-010 in .planning/memory/ERRORS.md:19\n", "")
    assert (memory / "ERRORS.md").read_bytes() == golden("ERRORS.stored.md")
    assert numstat(repo) == ["1\t0\t.planning/memory/ERRORS.md"]
    # The signature full of backticks, pipes, quotes and slashes reads back exactly.
    code, out, _ = run(cli, repo, "--json", "recall", "errors", "--error-text", "psql socket")
    record = json.loads(out)["records"][0]
    assert (code, record["id"], record["error_signature"]) == (0, "E-010", PSQL)
    assert (record["resolved"], record["overlap"], record["matched"]) == (
        True,
        2,
        ["psql", "socket"],
    )


def test_a_duplicate_of_a_resolved_fix_is_skipped(cli: CLI, repo: Path) -> None:
    project_with(repo, "ERRORS.md")
    before = files_of(repo)
    result = store_error(
        cli, repo, MAP_AGAIN, "Use optional chaining", "--agent", "a", "--resolved"
    )
    assert result == (
        0,
        "Skipped: E-001 already holds a resolved fix for this error (signature 88% alike)\n"
        "Fix: Check for null data before mapping; default to an empty array\n",
        "",
    )
    assert files_of(repo) == before
    code, out, _ = run(
        cli,
        repo,
        "--json",
        "store",
        "error",
        "--signature",
        MAP_AGAIN,
        "--fix",
        "Use optional chaining",
        "--agent",
        "a",
        "--unresolved",
    )
    data = json.loads(out)
    assert (code, data["action"], data["where"]) == (0, "skipped", ".planning/memory/ERRORS.md:10")
    assert (data["similarity"], data["record"]["id"], data["previous"]["id"]) == (
        0.875,
        "E-001",
        "E-001",
    )
    assert files_of(repo) == before


def test_a_duplicate_of_an_unresolved_fix_is_updated_in_place(cli: CLI, repo: Path) -> None:
    memory = project_with(repo, "ERRORS.md")
    result = store_error(
        cli,
        repo,
        WEBPACK_AGAIN,
        PIPEFAIL,
        "--agent",
        "engineering-senior-developer",
        "--resolved",
        "--tags",
        "build",
    )
    assert result == (
        0,
        "Updated E-002 in place (Fix and Resolved) in .planning/memory/ERRORS.md:11 "
        "(signature 89% alike)\n",
        "",
    )
    # One line changed; ID, date, branch, signature, agent and tags are the row's own.
    assert (memory / "ERRORS.md").read_bytes() == golden("ERRORS.updated.md")
    assert numstat(repo) == ["1\t1\t.planning/memory/ERRORS.md"]


def test_the_update_json_shows_the_previous_values(cli: CLI, repo: Path) -> None:
    project_with(repo, "ERRORS.md")
    code, out, _ = run(
        cli,
        repo,
        "--json",
        "store",
        "error",
        "--signature",
        WEBPACK_AGAIN,
        "--fix",
        PIPEFAIL,
        "--agent",
        "a",
        "--resolved",
    )
    data = json.loads(out)
    assert (code, data["action"], data["similarity"]) == (0, "updated", 0.888889)
    assert (data["previous"]["fix"], data["previous"]["resolved"]) == (
        "Add `set -o pipefail` before the pipeline",
        False,
    )
    assert (data["record"]["fix"], data["record"]["resolved"]) == (PIPEFAIL, True)
    assert data["record"]["agent"] == "devops-engineer"


def test_an_unverified_new_fix_updates_only_the_fix(cli: CLI, repo: Path) -> None:
    memory = project_with(repo, "ERRORS.md")
    result = store_error(
        cli, repo, WEBPACK_AGAIN, "Check the exit code", "--agent", "a", "--unresolved"
    )
    assert result[1] == (
        "Updated E-002 in place (Fix) in .planning/memory/ERRORS.md:11 (signature 89% alike)\n"
    )
    row = (memory / "ERRORS.md").read_text(encoding="utf-8").splitlines()[10]
    assert row == (
        "| E-002 | 2026-03-05 | main | `npm run build \\| tee build.log` exits 0 when webpack "
        "fails | Check the exit code | devops-engineer | false | ci, shell |"
    )
    before = files_of(repo)
    again = store_error(
        cli, repo, WEBPACK_AGAIN, "Check the exit code", "--agent", "a", "--unresolved"
    )
    assert again == (0, "Unchanged: E-002 already records this fix (signature 89% alike)\n", "")
    assert files_of(repo) == before


def test_the_threshold_applies_at_the_command_line(cli: CLI, repo: Path) -> None:
    store_error(
        cli, repo, "ConnectionRefusedError: redis port 6379", "f1", "--agent", "a", "--unresolved"
    )
    at = store_error(
        cli, repo, "ConnectionRefusedError: redis port 6380", "f2", "--agent", "a", "--unresolved"
    )
    assert at[1].startswith("Updated E-001 in place (Fix) in .planning/memory/ERRORS.md:10")
    below = store_error(
        cli,
        repo,
        "ConnectionRefusedError redis port 6380 docker",
        "f3",
        "--agent",
        "a",
        "--unresolved",
    )
    assert below[1] == "Stored E-002 in .planning/memory/ERRORS.md:11\n"


def test_the_threshold_comes_from_settings(cli: CLI, repo: Path) -> None:
    project_with(repo, "ERRORS.md")
    (repo / "settings.json").write_text('{"memory": {"error_similarity": 0.9}}', encoding="utf-8")
    result = store_error(cli, repo, WEBPACK_AGAIN, PIPEFAIL, "--agent", "a", "--resolved")
    assert result == (0, "Stored E-010 in .planning/memory/ERRORS.md:19\n", "")


def test_a_different_error_with_shared_words_is_stored_as_new(cli: CLI, repo: Path) -> None:
    project_with(repo, "ERRORS.md")
    other = "TypeError: Cannot read property 'length' of null in table render"
    result = store_error(cli, repo, other, "Default rows to []", "--agent", "a", "--resolved")
    assert result == (0, "Stored E-010 in .planning/memory/ERRORS.md:19\n", "")


def test_concurrent_stores_of_one_error_append_it_once(repo: Path) -> None:
    args = (
        "--today",
        TODAY,
        "store",
        "error",
        "--signature",
        PSQL,
        "--fix",
        "Start the db",
        "--agent",
        "a",
        "--resolved",
    )
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda _: run_process(*args, cwd=repo), range(4)))
    outputs = sorted(result.stdout.splitlines()[0] for result in results)
    assert [result.code for result in results] == [0, 0, 0, 0]
    assert outputs == [
        "Skipped: E-001 already holds a resolved fix for this error (signature 100% alike)",
        "Skipped: E-001 already holds a resolved fix for this error (signature 100% alike)",
        "Skipped: E-001 already holds a resolved fix for this error (signature 100% alike)",
        "Stored E-001 in .planning/memory/ERRORS.md:10",
    ]
    rows = (repo / MEMORY / "ERRORS.md").read_text(encoding="utf-8").splitlines()[9:]
    assert [row[:7] for row in rows] == ["| E-001"]


def test_a_malformed_errors_file_is_never_written(cli: CLI, repo: Path) -> None:
    memory = project_with(repo, "ERRORS.md")
    path = memory / "ERRORS.md"
    # Without its delimiter row the header is prose: there is no table left to write to.
    path.write_text(path.read_text().replace("|----|------|--------|-----------------|", "|"))
    before = files_of(repo)
    code, out, err = store_error(cli, repo, MAP_AGAIN, "f", "--agent", "a", "--resolved")
    assert (code, out) == (1, "")
    assert err == (
        f"Error: {path}: no error table found (run `legion-memory validate` to see what is wrong)\n"
    )
    assert files_of(repo) == before
    warning = "Warning: ERRORS.md could not be parsed. Proceeding without memory.\n"
    assert run(cli, repo, "recall", "errors", "--error-text", "TypeError") == (0, "", warning)


def test_a_duplicate_whose_id_is_repeated_is_not_updated(cli: CLI, repo: Path) -> None:
    memory = project_with(repo, "ERRORS.md")
    path = memory / "ERRORS.md"
    # A merge made without the merge driver left two rows numbered E-002.
    path.write_text(path.read_text().replace("| E-004 |", "| E-002 |"))
    before = files_of(repo)
    code, out, err = store_error(cli, repo, WEBPACK_AGAIN, PIPEFAIL, "--agent", "a", "--resolved")
    assert (code, out) == (1, "")
    assert err == (
        f"Error: {path}:11: the row to update has a repeated ID (run `legion-memory doctor --fix` "
        "to give every row its own ID, then retry)\n"
    )
    assert files_of(repo) == before


# ---- recall errors -------------------------------------------------------------------------------


def test_recall_ranks_resolved_first_then_shared_keywords_then_recency(
    cli: CLI, repo: Path
) -> None:
    project_with(repo, "ERRORS.md")
    text = "TypeError: items.map is not a function"
    # Keywords: typeerror, items, map, function. Resolved: E-008 shares 3; E-007, E-006 and E-001
    # share 2 (E-007 and E-006 dated 03-25, the higher ID first; E-001 dated 02-10). Unresolved
    # after: E-005 shares all 4, E-009 shares `function`. E-002, E-003, E-004 share nothing.
    expected = ["E-008", "E-007", "E-006", "E-001", "E-005", "E-009"]
    assert recalled_ids(cli, repo, "--error-text", text, "--limit", "10") == expected
    assert recalled_ids(cli, repo, "--error-text", text) == expected[:5]


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        # No error text: every fix, resolved first, then date desc, then ID desc.
        ((), ["E-007", "E-006", "E-004", "E-003", "E-001"]),
        (
            ("--limit", "9"),
            ["E-007", "E-006", "E-004", "E-003", "E-001", "E-008", "E-009", "E-005", "E-002"],
        ),
        (("--tag", "ci"), ["E-004", "E-002"]),
        (("--tag", "ci", "--error-text", "webpack fails"), ["E-002"]),
        (("--branch", "feature/auth"), ["E-003"]),
        (("--error-text", "ExpiredSignatureError"), ["E-003"]),
        # Keywords match whole: `SignatureError` is not `ExpiredSignatureError`.
        (("--error-text", "SignatureError"), []),
        (("--error-text", "jwt expired"), ["E-003"]),
    ],
)
def test_recall_filters(cli: CLI, repo: Path, args: tuple[str, ...], expected: list[str]) -> None:
    project_with(repo, "ERRORS.md")
    assert recalled_ids(cli, repo, *args) == expected


def test_recall_human_output_puts_the_fix_first(cli: CLI, repo: Path) -> None:
    project_with(repo, "ERRORS.md")
    code, out, err = run(
        cli,
        repo,
        "recall",
        "errors",
        "--error-text",
        "items.map is not a function",
        "--tag",
        "frontend",
        "--limit",
        "10",
    )
    assert (code, err) == (0, "")
    assert out == (
        "### E-008 · resolved\n"
        "**Fix:** Upgrade the grid to v4, which returns arrays\n"
        "**Error:** `TypeError: items.map is undefined` in legacy grid\n"
        "Agent: engineering-senior-developer · Date: 2026-01-05 · Branch: main · "
        "Tags: frontend, legacy · Matched: items, map\n"
        "\n"
        "### E-007 · resolved\n"
        "**Fix:** Convert the Map with `Array.from` first\n"
        "**Error:** `TypeError: map is not iterable` in chart\n"
        "Agent: engineering-frontend-developer · Date: 2026-03-25 · Branch: main · "
        "Tags: frontend · Matched: map\n"
        "\n"
        "### E-006 · resolved\n"
        "**Fix:** Initialise state with an empty list\n"
        "**Error:** `TypeError: Cannot read property 'map' of null` in list view\n"
        "Agent: engineering-frontend-developer · Date: 2026-03-25 · Branch: main · "
        "Tags: frontend, react · Matched: map\n"
        "\n"
        "### E-001 · resolved\n"
        "**Fix:** Check for null data before mapping; default to an empty array\n"
        "**Error:** `TypeError: Cannot read property 'map' of undefined` in component render\n"
        "Agent: engineering-senior-developer · Date: 2026-02-10 · Branch: main · "
        "Tags: frontend, react · Matched: map\n"
        "\n"
        "### E-005 · unresolved (fix not verified)\n"
        "**Fix:** Guard `items` with `Array.isArray`\n"
        "**Error:** `TypeError: undefined is not a function` calling `items.map`\n"
        "Agent: engineering-frontend-developer · Date: 2026-03-25 · Branch: main · "
        "Tags: frontend · Matched: function, items, map\n"
    )


def test_an_error_text_without_keywords_matches_nothing_and_says_so(cli: CLI, repo: Path) -> None:
    project_with(repo, "ERRORS.md")
    note = "--error-text has no keywords to match (only stopwords or punctuation)"
    assert run(cli, repo, "recall", "errors", "--error-text", "it is not !!") == (
        0,
        "",
        note + "\n",
    )
    code, out, err = run(cli, repo, "--json", "recall", "errors", "--error-text", "?")
    assert (code, json.loads(out), err) == (0, {"records": [], "notes": [note]}, "")


def test_recall_without_a_file_is_empty_and_creates_nothing(cli: CLI, repo: Path) -> None:
    before = read_bytes_of(repo)
    assert run(cli, repo, "recall", "errors", "--error-text", "boom") == (0, "", "")
    assert read_bytes_of(repo) == before


STORE = ("store", "error")
GOOD = {"--signature": "boom", "--fix": "f", "--agent": "a", "--resolved": None}


def flags(**changes: str | None) -> list[str]:
    values = {**GOOD, **{f"--{key}": value for key, value in changes.items()}}
    parts: list[str] = []
    for key, value in values.items():
        if key == "--resolved" and value is None:
            parts.append(key)
        elif value != "omit":
            parts += [key, value or ""]
    return parts


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((*STORE, *flags(signature="omit")), "Missing option '--signature'."),
        ((*STORE, *flags(fix="omit")), "Missing option '--fix'."),
        ((*STORE, *flags(agent="omit")), "Missing option '--agent'."),
        ((*STORE, *flags(resolved="omit")), "Missing option '--resolved'."),
        ((*STORE, *flags(signature=" ")), "Error Signature is required (fix the value and retry)"),
        ((*STORE, *flags(fix="")), "Fix is required (fix the value and retry)"),
        (
            (*STORE, *flags(agent="two words")),
            "Agent 'two words' must be an agent ID or a comma-separated list of agent IDs "
            "(fix the value and retry)",
        ),
        (
            (*STORE, *flags(tags="a\nb")),
            "Tags must be a single line (remove the line break from the value)",
        ),
        (
            ("recall", "errors", "--limit", "-1"),
            "--limit -1 is not valid (use a number of 1 or more)",
        ),
    ],
)
def test_bad_input_exits_2_with_one_line_and_writes_nothing(
    cli: CLI, repo: Path, args: tuple[str, ...], message: str
) -> None:
    project_with(repo, "ERRORS.md")
    before = read_bytes_of(repo)
    code, out, err = run(cli, repo, *args)
    suffix = " (see `legion-memory store error --help`)" if message.startswith("Missing") else ""
    assert (code, out, err) == (2, "", f"Error: {message}{suffix}\n")
    assert read_bytes_of(repo) == before

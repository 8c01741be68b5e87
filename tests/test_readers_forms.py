"""Each form Legion writes a SUMMARY, PLAN, ROADMAP or STATE in, read right: golden readings of our
own fixtures (fixtures/readers/), written by reading the files, and the verdict property."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support.processes import CLI, FIXTURES, read_bytes_of

from legion_memory.project.catalog import load_catalog
from legion_memory.project.phases import PLAN, SUMMARY, document_of, read_document
from legion_memory.project.roadmap import roadmap_entries
from legion_memory.project.root import current_phase, milestone_start
from legion_memory.project.summary_facts import plan_facts
from legion_memory.project.summary_gist import title
from legion_memory.project.summary_outcome import SummaryFacts, read_summary_facts
from legion_memory.project.verdict import FAIL, PASS, outcome_of_status, stated_failures, verdict

READERS = FIXTURES / "readers"
CATALOG = FIXTURES / "catalog" / "CATALOG.md"

SUMMARY_FORMS = {
    # `- **Status**: Complete` and `- **Agent**: …` bullets under `## Result`; node's counts.
    "21-search/21-01": SummaryFacts(
        "21-01", "21", "engineering-backend-architect", "success", "Complete",
        "Built an inverted index over the invoice texts.", "search, engineering, py",
    ),
    # `## Result: Success`; a commit table adds no files (`retry.py`, the SUMMARY itself).
    "22-billing/22-01": SummaryFacts(
        "22-01", "22", "testing-api-tester", "success", "Success",
        "Retried card charges back off exponentially and stop after five attempts.",
        "billing, testing, py",
    ),
    # GSD front-matter: `completed:` and `requirements-completed:`, no status line; the PLAN's
    # `autonomous: true` wins over its body's "Agent: comma-separated list of ...".
    "23-exports/23-01": SummaryFacts(
        "23-01", "23", "autonomous", "success", "Complete",
        "CSV export streamed row by row, so a year of invoices exports in constant memory",
        "exports, py, md",
    ),
    # A bare `## Self-Check` heading, `Self-Check: PASSED` lines below; files as headings;
    # the PLAN's `Engineering-Senior-Developer` in its catalog form.
    "24-scheduler/24-01": SummaryFacts(
        "24-01", "24", "engineering-senior-developer", "success", "PASSED",
        "Nightly jobs run from one scheduler instead of three cron entries.",
        "scheduler, engineering, py, md",
    ),
    # No H1: the plan comes from the file name, the summary from `## Summary`'s first sentence.
    "25-queue/25-01": SummaryFacts(
        "25-01", "25", "autonomous", "success", "Complete",
        "Moved the mail sending onto a queue.", "queue, py",
    ),
    # `## One-Liner`; "24/24 checks passed … failure headlines", "1 pre-existing failure".
    "26-reports/26-01": SummaryFacts(
        "26-01", "26", "engineering-senior-developer", "success", "Complete",
        "Receivables aging in four buckets, rendered from the ledger in one query.",
        "reports, engineering",
    ),
    # A phase's title (`# Phase 28: Imports - Summary`) over a `## What Was Built` list alone:
    # the list's first item, without its marks, says what the plan did; the title names the phase.
    "28-imports/28-01": SummaryFacts(
        "28-01", "28", "engineering-backend-architect", "success", "Complete",
        "Read bank statements in CAMT.053 from the imports/ folder.", "imports, engineering",
    ),
    # An inserted phase (`phase: 28.1-imports-fix`, `plan: 01`) has no plan ID a row can hold:
    # none is read, so its plan is asked for, rather than filed as phase 28's plan 01.
    "28.1-imports-fix/28.1-01": SummaryFacts(
        None, None, None, "success", "PASSED",
        "A statement imported twice on one day is caught by its message ID before it reaches the "
        "ledger",
    ),
    # A complete status whose own words leave steps deferred (`complete-local (… deferred)`)
    # did part of the plan.
    "30-uploads/30-01": SummaryFacts(
        "30-01", "30", None, "partial",
        "complete-local (the bucket policy and CDN steps deferred)",
        "Large scans upload in 8 MB parts that resume after a dropped connection; the bucket "
        "policy and CDN steps wait for the account owner.",
        "uploads, py",
    ),
    # A `**One-liner:**` wrapped over three lines of its paragraph is one sentence; the
    # `**Status:**` line after it is a field of its own.
    "32-search-index/32-01": SummaryFacts(
        "32-01", "32", None, "success", "Complete",
        "Full-text search over recipe titles and ingredients with an FTS5 table kept in step by "
        "triggers, ranked by bm25 and answering in under 10 ms for 40k recipes.",
        "search-index, py",
    ),
    # No front matter; `## Execution Summary` says what the plan did, before its task titles.
    "33-cleanup/33-02": SummaryFacts(
        "33-02", "33", None, "partial", "PARTIAL (2 of 3 tasks applicable)",
        "The plan removed the legacy CSV importer and its settings.", "cleanup, py",
    ),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(SUMMARY_FORMS))
def test_every_summary_form(name: str) -> None:
    catalog = load_catalog(CATALOG)
    path = READERS / "phases" / f"{name}-SUMMARY.md"
    assert read_summary_facts(path, catalog) == SUMMARY_FORMS[name]


@pytest.mark.parametrize(
    ("name", "files"),
    [
        # headings that are paths; the PLAN's own list adds nothing new
        ("24-scheduler/24-01", [("src/scheduler/jobs.py", "created"),
                                ("docs/scheduler.md", "modified"), ("CHANGELOG.md", "modified")]),
        # a commit table's `retry.py` and the SUMMARY itself are not files; the PLAN's list is
        ("22-billing/22-01", [("src/billing/retry.py", ""), ("tests/test_retry.py", "")]),
        # a bare name another listed path ends with is that file
        ("25-queue/25-01", [("src/mail/queue.py", "modified")]),  # under `## Files Changed`
        # a fenced block of one path a line under `## Files Modified` (its glob passed over);
        # a block holding a command and a diff stat is no file list
        ("34-deploy/34-01", [("scripts/deploy.sh", "modified"),
                             (".github/workflows/deploy.yml", "modified"),
                             ("docs/deploy.md", "modified")]),
    ],
)  # fmt: skip
def test_the_files_of_a_plan(name: str, files: list[tuple[str, str]]) -> None:
    summary_path = READERS / "phases" / f"{name}-SUMMARY.md"
    plan_path = summary_path.with_name(summary_path.name.replace("SUMMARY", "PLAN"))
    summary = read_document(summary_path, name[-5:], SUMMARY)
    plan = read_document(plan_path, name[-5:], PLAN) if plan_path.is_file() else None
    found = plan_facts(summary, plan).files
    assert [(change.path, change.action) for change in found] == files


@pytest.fixture
def project(repo: Path) -> Path:
    shutil.copytree(READERS / "phases", repo / ".planning" / "phases")
    return repo


def _store(cli: CLI, project: Path, *args: str) -> tuple[int, dict[str, object], str]:
    base = ("--today", "2026-03-31", "--catalog", str(CATALOG), "--json", "store", "outcome")
    result = cli(*base, *args, "--dry-run", cwd=project)
    record = json.loads(result.stdout) if result.code == 0 else {}
    return result.code, record, result.stderr


def test_the_summary_gives_the_tags_unless_tags_are_given(cli: CLI, project: Path) -> None:
    summary = ".planning/phases/24-scheduler/24-01-SUMMARY.md"
    code, record, _ = _store(cli, project, "--from-summary", summary)
    assert (code, record["tags"], record["agent"]) == (
        0,
        "scheduler, engineering, py, md",
        "engineering-senior-developer",
    )
    code, record, _ = _store(cli, project, "--from-summary", summary, "--tags", "cron")
    assert (code, record["tags"]) == (0, "cron")


def test_an_event_on_the_command_line_wins_over_a_complete_status(cli: CLI, project: Path) -> None:
    summary = ".planning/phases/21-search/21-01-SUMMARY.md"
    code, record, stderr = _store(
        cli, project, "--from-summary", summary, "--event", "plan-partial"
    )
    assert (code, stderr.count("Error"), record["outcome"]) == (0, 0, "partial")


def test_a_summary_stating_no_outcome_is_refused_naming_that_field(cli: CLI, project: Path) -> None:
    before = read_bytes_of(project)
    summary = project / ".planning/phases/27-notes/27-01-SUMMARY.md"
    code, _, stderr = _store(cli, project, "--from-summary", str(summary))
    assert (code, stderr) == (
        2,
        f"Error: {summary}: the SUMMARY does not say its outcome (add --outcome)\n",
    )
    assert read_bytes_of(project) == before
    code, record, _ = _store(cli, project, "--from-summary", str(summary), "--outcome", "partial")
    assert (code, record["outcome"], record["agent"]) == (
        0,
        "partial",
        "engineering-frontend-developer",
    )


LEDGER_DECISIONS = """## Decisions

- 29-01: Double-entry journal rows instead of balance columns — A balance is derived, so it can never drift from its entries
- 29-01: Amounts stored in cents — Integer sums never round
- 29-02: Close by month: a closed month takes no new rows — Accountants reconcile by calendar month
- 29-02: Carry-forward rows, not snapshots — The next month starts from rows the journal already explains

"""  # noqa: E501


def test_decisions_as_front_matter_mappings_and_as_bold_paragraphs(cli: CLI, project: Path) -> None:
    """`- choice: X` over `rationale: Y` is one decision with its reason (its keys no part of the
    front matter around it); a bold paragraph over its details is one decision, with the first."""
    result = cli("--today", "2026-04-04", "compact", "29", "--dry-run", "--force", cwd=project)
    decisions = result.stdout.partition("## Decisions\n")[2].partition("## Files Modified")[0]
    assert (result.code, "## Decisions\n" + decisions) == (0, LEDGER_DECISIONS)
    journal = read_document(READERS / "phases/29-ledger/29-01-SUMMARY.md", "29-01", SUMMARY)
    assert "rationale" not in journal.front


def test_a_decisions_section_named_with_two_words_before_decisions() -> None:
    """`## Key Technical Decisions` is a Decisions section: its table's rows are the decisions."""
    path = READERS / "phases/30-uploads/30-01-SUMMARY.md"
    assert plan_facts(read_document(path, "30-01", SUMMARY), None).decisions == (
        "Parts of 8 MB — The smallest part the storage service accepts for every region",
        "Resume from the last acknowledged part — A dropped office connection should not "
        "restart a 2 GB upload",
    )


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        ("complete-with-gaps", "partial"),
        ("Complete (gaps found in 31-VERIFICATION.md)", "partial"),
        ("gaps_found", "partial"),
        ("complete-with-sample-data", "success"),
        ("Complete (gap closure)", "success"),
        ("in-progress", "partial"),
    ],
)
def test_a_status_that_leaves_gaps_or_deferred_steps(status: str, expected: str) -> None:
    assert outcome_of_status(status) == expected


def test_a_phase_summary_not_named_for_a_plan_is_named_in_the_refusal(
    cli: CLI, project: Path
) -> None:
    result = cli("--today", "2026-05-10", "compact", "31", "--dry-run", "--force", cwd=project)
    assert result.code == 1
    assert "not read: 31-SUMMARY.md" in result.stderr
    assert "31-PP-SUMMARY.md" in result.stderr


@pytest.mark.parametrize(
    ("heading", "expected"),
    [
        ("# Phase 04.1 Plan 02a: Bank Feed Mapping Summary", "Bank Feed Mapping"),
        ("# Plan 07-01b Summary: Retry Queue", "Retry Queue"),
        ("# 12-03a — Ledger Close Summary", "Ledger Close"),
        ("# Phase 1 Plan 1: Foundation Summary", "Foundation"),
    ],
)
def test_a_split_plan_s_letter_is_part_of_its_number_in_the_title(
    heading: str, expected: str
) -> None:
    """`Plan 02a:` is noise as `Plan 02:` is; before, the title kept `a:` in front."""
    document = document_of(f"{heading}\n\nWhat was done.\n", Path("x-SUMMARY.md"), "", SUMMARY)
    assert title(document) == expected


def test_without_a_summary_the_hint_offers_one(cli: CLI, project: Path) -> None:
    code, _, stderr = _store(cli, project, "--phase", "1", "--plan", "01-01", "--agent", "x-y")
    assert (code, stderr) == (
        2,
        "Error: missing --outcome, --summary (add them, or use --from-summary PATH)\n",
    )


ROADMAP_FORMS = {
    "reviewed-mark": {1: ("Foundation", True), 2: ("Commands", True), 3: ("Skills", False)},
    "bold-with-plans": {4: ("Observability", True), 5: ("Metadata", False), 6: ("Engine", False)},
    "phase-status-sections": {
        29: ("Progressive Disclosure", True),
        30: ("Review Verification", False),
    },
    "checkboxes": {
        1: ("Plan Schema Hardening", True),
        2: ("Wave Safety", True),
        3: ("Control Modes", False),
    },
    "shifted-row": {7: ("Validation", True), 8: ("Mapper", True), 9: ("Polymath", False)},
    "archived-milestone": {
        1: ("Plugin Skeleton", True),
        2: ("Agent Registry", True),
        3: ("Planning", True),
    },
    # `#` numbers the phases and the Phase column names them; `✅ Done`, `Finished ✅`.
    "number-column": {1: ("Foundation", True), 2: ("Auth & Sessions", True), 3: ("Billing", False)},
    # The heading says the status: a mark, `(Complete)`, `— Done (date)`, `[IN PROGRESS]`; a name
    # that only begins with a status word stays a name; a Status line wins over the heading.
    "heading-status": {
        1: ("Foundation", True),
        2: ("Auth & Sessions", True),
        3: ("Billing", True),
        4: ("Exports — Done Right", False),
        5: ("Search", False),
        6: ("Reports", False),
    },
    "marked-list": {1: ("Foundation", True), 2: ("Auth & Sessions", True), 3: ("Billing", False)},
    # No status but a `**Plans:**` line saying every plan is done; `2/3` is not, and a Status
    # line (`Blocked on …`) wins over the plans.
    "plans-line": {
        1: ("Chart of Accounts", True),
        2: ("Journal Entries", True),
        3: ("Bank Import", True),
        4: ("Reconciliation", True),
        5: ("Invoicing", False),
        6: ("Tax Reports", False),
        7: ("Payroll", False),
    },
    # `1-4. Accounts through Reconciliation`: one row for each phase of a shipped milestone.
    "span-rows": {
        **{number: ("", True) for number in range(1, 7)},
        7: ("Dashboards", True),
        8: ("Exports", False),
    },
    # A shipped milestone's list: `Phase 1-3: …` for a span, `Name (3/3 plans) — completed
    # date`; the name of `**Phase 6: Dashboards** - what it delivers` ends with the bold.
    "shipped-list": {
        **{number: ("", True) for number in range(1, 4)},
        4: ("Invoicing", True),
        5: ("Reminders", True),
        6: ("Dashboards", False),
        7: ("Exports", False),
    },
    # A mark opening the heading (`### ✅ Phase 1`, `✔️`; `🚧` is no status), a full-width colon,
    # and the emoji check marks `✔️ Complete`, `☑️` in a table.
    "marked-headings": {
        1: ("Accounts", True),
        2: ("Journal", True),
        3: ("Bank Import", False),
        4: ("Reconciliation", True),
        5: ("Reports", True),
        6: ("Payroll", False),
    },
    # A section with no status whose plan list has every box ticked (`- [x] 03-01-PLAN.md`) is
    # complete; one open box, a Status line, or another phase's plan in the list is not.
    "plan-lists": {
        1: ("Sensors", False),
        2: ("Storage", False),
        3: ("Alerts", True),
        4: ("Dashboard", False),
        5: ("Watering", False),
        6: ("Calibration", False),
    },
    # An inserted `Phase 2.1` (its list item, section and row) says nothing about phase 2.
    "inserted-decimal": {1: ("Accounts", True), 2: ("Payments", False), 3: ("Refunds", False)},
}


@pytest.mark.parametrize("name", sorted(ROADMAP_FORMS))
def test_every_roadmap_form(name: str) -> None:
    text = (READERS / "roadmaps" / f"{name}.md").read_text(encoding="utf-8")
    entries = roadmap_entries(text, archived=name.startswith("archived"))
    assert {n: (e.name, e.complete) for n, e in entries.items()} == ROADMAP_FORMS[name]


def test_a_milestone_head_completes_only_an_archived_roadmap() -> None:
    text = (READERS / "roadmaps" / "archived-milestone.md").read_text(encoding="utf-8")
    assert [e.complete for e in roadmap_entries(text).values()] == [False, False, False]


@pytest.mark.parametrize(
    ("name", "phase"),
    [
        ("gsd-last-activity", 39),  # front-matter, `Last activity: … Completed 39-04 plan`
        ("status-in-progress", 33),  # `Status: Active — 4/6 phases complete, Phase 33 in progress`
        ("phase-of", 12),  # `- **Phase**: 12 of 12 (complete)`
        ("front-matter-phase", 7),  # `current_phase: 7`
        ("current-focus", 36),  # `**Current focus:** Phase 36 — Polymath Integration`
        ("current-position", 28),  # `Phase 28 — Documentation` under `## Current Position`
        ("current-phase-row", 14),  # `| Current Phase | 14 |` in a field table
        ("current-phase-heading", 9),  # `🔨 Phase 9: Exports` opening `## Current Phase`
        ("executing", 6),  # `the team is now executing Phase 6`, after `Phase 5 shipped`
        ("numbered-items", 17),  # `2. **Phase**: 17 of 20 (executing)`
        ("task-boxes", 21),  # `- [ ] **Phase**: 21 — Search`
        ("no-phase", None),  # "Phase 3 shipped last week" names no current phase: no guess
        ("stale-focus", 5),  # `## Current Phase` says 5; `Current focus: Phase 4` lags behind
        ("inserted-phase", None),  # `Phase: 3.1 of 5`: an inserted phase, not phase 3
    ],
)
def test_every_state_form(tmp_path: Path, name: str, phase: int | None) -> None:
    (tmp_path / ".planning").mkdir()
    shutil.copy(READERS / "states" / f"{name}.md", tmp_path / ".planning" / "STATE.md")
    assert current_phase(tmp_path) == phase


def test_the_current_milestone_began_when_the_last_earlier_one_shipped(tmp_path: Path) -> None:
    (tmp_path / ".planning").mkdir()
    shutil.copy(READERS / "states" / "phase-of.md", tmp_path / ".planning" / "STATE.md")
    assert str(milestone_start(tmp_path)) == "2026-03-05"


@pytest.mark.parametrize(
    ("line", "failures"),
    [
        ("tests 4 | pass 4 | fail 0", 0),
        ("✅ 0 tests failing", 0),
        ("24/24 checks passed; the failure headlines are gone", 0),
        ("1 pre-existing failure in tests/legacy.test.js", 0),
        ("3 passed, 1 failed (expected: the fixture is missing)", 0),
        ("11/12 tests pass", 1),
        ("2 tests failed", 2),
        ("tests 5 | pass 3 | fail 2", 2),
        ("Self-Check: FAILED", 1),
    ],
)
def test_stated_failure_counts(line: str, failures: int) -> None:
    assert stated_failures(line) == failures


COMPLETE = st.sampled_from(["Complete", "COMPLETE", "Completed", "Done", "Success", "PASSED"])
PASSING_LINES = st.one_of(
    st.integers(0, 500).map(lambda n: f"{n}/{n} checks passed"),
    st.integers(0, 500).map(lambda n: f"tests {n} | pass {n} | fail 0"),
    st.sampled_from(["✅ 0 tests failing", "0 failures", "no failures", "Self-Check: PASSED"]),
    st.integers(1, 9).map(lambda n: f"{n} pre-existing failure(s) in an unrelated suite"),
    st.sampled_from(["failure headlines grouped", "the failing path is handled", "FOUND: a.md"]),
    st.text(st.sampled_from("abcdefgh0123456789 -:/|"), max_size=30),
)


@given(COMPLETE, st.lists(PASSING_LINES, max_size=8))
def test_a_complete_plan_stating_no_failure_count_never_fails(
    status: str, results: list[str]
) -> None:
    assert verdict(status, results) == PASS


@given(COMPLETE, st.lists(PASSING_LINES, max_size=5), st.integers(1, 50))
def test_a_stated_failure_count_fails_the_plan(
    status: str, results: list[str], failed: int
) -> None:
    assert verdict(status, [*results, f"{failed} tests failed"]) == FAIL

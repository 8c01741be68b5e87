"""SUMMARY files written in the other styles agents use read as the usual style does: numbered,
emoji-marked or colon-ended headings, the title as `##`, bold labels in place of headings,
task-list boxes, blank lines above the front matter, flow lists whose quoted items hold
commas, decisions, requirements and checks written as tables or nested items, a label with its
text on the next line, and a heading written with a no-break space."""

from __future__ import annotations

from pathlib import Path

import pytest

from legion_memory.markdown.frontmatter import split_front_matter
from legion_memory.markdown.outline import heading_key, heading_text
from legion_memory.project.phase_files import FileChange
from legion_memory.project.phases import SUMMARY, document_of, requirement_claims
from legion_memory.project.roadmap import RoadmapEntry, roadmap_entries
from legion_memory.project.summary_facts import PlanFacts, plan_facts
from legion_memory.project.summary_outcome import SummaryFacts, summary_facts

USUAL = """---
phase: 05-exports
plan: 05-02
---

# Plan 05-02 Summary: CSV export

## Status: Complete

## Accomplishments
Added the CSV export of the scores.

## Decisions
- Quote every cell: spreadsheets split on commas
- Keep the header row

## Files Modified
- `src/export.py` — new CSV writer
- `tests/test_export.py` — round-trip tests

## Verification
- 12/12 tests pass
"""

STYLED = """

---
phase: 05-exports
plan: 05-02
---

## Plan 05-02 Summary: CSV export

## 1. Status: Complete

## ✅ Accomplishments:
Added the CSV export of the scores.

**Decisions:**
- [x] Quote every cell: spreadsheets split on commas
- [x] Keep the header row

## 3) Files Modified:
- [x] `src/export.py` — new CSV writer
- [x] `tests/test_export.py` — round-trip tests

## Verification
**Automated:**
- 12/12 tests pass
"""

FACTS = PlanFacts(
    id="05-02",
    title="CSV export",
    gist="Added the CSV export of the scores.",
    decisions=("Quote every cell: spreadsheets split on commas", "Keep the header row"),
    verdict="pass",
    evidence=("Complete", "12/12 tests pass"),
    agents=(),
    claims=(),
    status="Complete",
    outcome="success",
    files=(
        FileChange("src/export.py", "05-02", "created", "new CSV writer"),
        FileChange("tests/test_export.py", "05-02", "modified", "round-trip tests"),
    ),
)


def _facts(text: str, plan: str) -> PlanFacts:
    return plan_facts(document_of(text, Path(f"{plan}-SUMMARY.md"), plan, SUMMARY), None)


@pytest.mark.parametrize("text", [USUAL, STYLED], ids=["usual", "styled"])
def test_a_summary_reads_alike_in_either_style(text: str) -> None:
    document = document_of(text, Path("05-02-SUMMARY.md"), "05-02", SUMMARY)
    assert plan_facts(document, None) == FACTS
    assert summary_facts(text, "05-02-SUMMARY.md") == SummaryFacts(
        plan="05-02",
        phase="5",
        agent=None,
        outcome="success",
        status="Complete",
        summary="Added the CSV export of the scores.",
        tags="exports, py",
    )


@pytest.mark.parametrize(
    ("title", "key", "text"),
    [
        ("Decisions", "decisions", "Decisions"),
        ("3. Decisions", "decisions", "Decisions"),
        ("2.1 Key Decisions:", "key decisions", "Key Decisions:"),
        ("B) Files Modified (3)", "files modified", "Files Modified (3)"),
        ("iv. Self-Check: PASSED", "self-check: passed", "Self-Check: PASSED"),
        ("✅ Status: Complete", "status: complete", "Status: Complete"),
        ("**Changes:**", "changes", "Changes:"),
        ("Agent(s)", "agent(s)", "Agent(s)"),
        ("404 errors", "404 errors", "404 errors"),
        ("v2.0 migration", "v2.0 migration", "v2.0 migration"),
        ("`src/app.py` (new)", "src/app.py (new)", "src/app.py (new)"),
    ],
)
def test_a_heading_key_drops_the_numbering_and_marks_around_a_name(
    title: str, key: str, text: str
) -> None:
    assert (heading_key(title), heading_text(title)) == (key, text)


def test_a_flow_list_splits_only_at_commas_outside_quotes() -> None:
    front, body = split_front_matter(
        '\n---\nkey-decisions: ["CSV, not JSON", \'a, b\', plain, "x"]\ntags: []\n---\nbody\n'
    )
    assert front == {"key-decisions": ["CSV, not JSON", "a, b", "plain", "x"], "tags": []}
    assert body == "body\n"


def test_front_matter_decisions_keep_their_commas() -> None:
    text = (
        '---\nplan: 05-02\nkey-decisions: ["CSV, not JSON, for the export", "One file"]\n---\n'
        "# Plan 05-02 Summary: CSV export\n\n## Status: Complete\n"
    )
    assert _facts(text, "05-02").decisions == ("CSV, not JSON, for the export", "One file")


def test_a_roadmap_phase_heading_in_any_case_is_a_phase() -> None:
    roadmap = (
        "# Roadmap\n\n### phase 7: Exports\n**Status:** Complete\n\n"
        "### PHASE 8: Imports\n**Status:** Planned\n"
    )
    assert roadmap_entries(roadmap) == {
        7: RoadmapEntry(7, "Exports", "Complete"),
        8: RoadmapEntry(8, "Imports", "Planned"),
    }


TABULAR = """# Plan 06-01 Summary: Widget cache

## Status: Complete

## Key Decisions

| # | Decision | Rationale |
|---|----------|-----------|
| 1 | Cache in memory | the data set is small |
| 2 | Evict by age | ✅ |

## Requirements Satisfied

| Requirement | Status | Evidence |
|-------------|--------|----------|
| CACHE-01 | ✅ Complete | cache tests pass |
| CACHE-02 | Done | x |

## Verification

| Check | Result |
|-------|--------|
| `grep -c cache src/app.py \\| wc -l` | PASS |
"""


def test_decisions_requirements_and_checks_written_as_tables_are_read() -> None:
    document = document_of(TABULAR, Path("06-01-SUMMARY.md"), "06-01", SUMMARY)
    facts = plan_facts(document, None)
    assert facts.decisions == (
        "Cache in memory — the data set is small",
        "Evict by age",
    )
    assert facts.claims == ("CACHE-01", "CACHE-02")
    assert requirement_claims(document) == {"CACHE-01": "cache tests pass", "CACHE-02": ""}
    assert facts.evidence == ("Complete", "grep -c cache src/app.py | wc -l — PASS")
    assert facts.verdict == "pass"


NESTED = """---
plan: 07-02
---

#\u00a0Plan 07-02 Summary: Import retries

##\u00a0Status
Complete

**One-liner:**
Retries a failed import three times before it reports.

## Technical Decisions

### Backoff doubles
The wait doubles after each try. Jitter was left out.

### No retry on a parse error
- A file that does not parse fails the same way again
- A timeout is retried

**Storage:**
- Attempts kept in memory

## Requirements
- Import resilience:
  - IMP-03: retries a failed import
  - IMP-04 — reports the last error

## Verification
- Automated:
  - 9/9 tests pass\t
"""


def test_nested_items_next_line_labels_and_decision_subsections_are_read() -> None:
    document = document_of(NESTED, Path("07-02-SUMMARY.md"), "07-02", SUMMARY)
    facts = plan_facts(document, None)
    assert (facts.title, facts.gist, facts.status) == (
        "Import retries",
        "Retries a failed import three times before it reports.",
        "Complete",
    )
    assert facts.decisions == (
        "Backoff doubles: The wait doubles after each try.",
        "No retry on a parse error: A file that does not parse fails the same way again; "
        "A timeout is retried",
        "Storage: Attempts kept in memory",
    )
    assert requirement_claims(document) == {
        "IMP-03": "retries a failed import",
        "IMP-04": "reports the last error",
    }
    assert facts.evidence == ("Complete", "9/9 tests pass")


def test_a_bare_status_under_a_status_heading_is_not_the_gist() -> None:
    text = "# Plan 08-01 Summary\n\n## Status\nComplete\n\n## Summary\nMoved the exports.\n"
    assert _facts(text, "08-01").gist == "Moved the exports."


def test_a_one_column_table_reads_as_the_list_it_stands_for() -> None:
    listed = USUAL.replace(
        "- Quote every cell: spreadsheets split on commas\n- Keep the header row\n",
        "| Decision |\n|---|\n| Quote every cell: spreadsheets split on commas |\n"
        "| Keep the header row |\n",
    ).replace(
        "- `src/export.py` — new CSV writer\n- `tests/test_export.py` — round-trip tests\n",
        "| Item |\n|------|\n| `src/export.py` — new CSV writer |\n"
        "| [x] `tests/test_export.py` — round-trip tests |\n",
    )
    assert listed.count("|\n") == 8  # both lists replaced
    assert _facts(listed, "05-02") == FACTS


def test_a_section_written_twice_gives_its_decisions_and_tasks_once() -> None:
    text = (
        "# Plan 09-01 Summary\n\n## Status: Complete\n\n## What Changed\n"
        "### Task 1: Add the export\n\n## Decisions\n- Quote every cell\n\n## What Changed\n"
        "### Task 1: Add the export\n\n## Decisions\n- Quote every cell\n- Keep the header\n"
    )
    facts = _facts(text, "09-01")
    assert (facts.gist, facts.decisions) == (
        "Add the export",
        ("Quote every cell", "Keep the header"),
    )


def test_a_decisions_heading_under_decisions_holds_decisions_not_one() -> None:
    text = (
        "# Plan 01-01 Summary\n\n## Status: Complete\n\n## Decisions\n\n### Key Decisions\n"
        "- Quote every cell\n- Keep the header\n\n### Caching\nIn memory. It is small.\n"
    )
    facts = _facts(text, "01-01")
    assert facts.decisions == ("Quote every cell", "Keep the header", "Caching: In memory.")


def test_a_table_of_fields_states_the_status_and_the_agent() -> None:
    text = (
        "# Plan 04-02 Summary: Review cycle delta\n\n| Field | Value |\n|---|---|\n"
        "| **Status** | ✅ Complete |\n| Agent | `testing-evidence-collector` |\n| Wave | 2 |\n\n"
        "## Reviewers\n\n| Agent | Role |\n|---|---|\n| testing-reality-checker | second look |\n"
    )
    facts = _facts(text, "04-02")
    assert (facts.status, facts.outcome, facts.verdict, facts.agents) == (
        "Complete",
        "success",
        "pass",
        ("testing-evidence-collector",),
    )
    reviewers = text[text.index("## Reviewers") :]
    listed = _facts(reviewers, "04-02")
    assert listed.agents == ()  # `| Agent | Role |` names columns, not an agent


def test_an_action_cell_that_says_what_changed_describes_the_file() -> None:
    text = (
        "# Plan 01-01 Summary\n\n## Status: Complete\n\n## Files Modified\n\n"
        "| # | Path | Action |\n|---|---|---|\n| 1 | src/a.py | Created |\n"
        "| 2 | src/b.py | Modified — wiring |\n| 3 | src/c.py | **Updated**: the retry loop |\n"
    )
    assert _facts(text, "01-01").files == (
        FileChange("src/a.py", "01-01", "created", ""),
        FileChange("src/b.py", "01-01", "modified", "wiring"),
        FileChange("src/c.py", "01-01", "modified", "the retry loop"),
    )


def test_a_completed_date_in_the_body_records_a_completion() -> None:
    text = (
        "# Phase 13 Plan 02: CSV Export Summary\n\n## Performance\n\n- **Duration:** 18 min\n"
        "- **Completed:** 2026-02-11T09:20:40Z\n\n## Accomplishments\n- Streamed the rows\n"
    )
    facts = _facts(text, "13-02")
    assert (facts.status, facts.outcome) == ("Complete", "success")
    footer = "# Plan 13-02 Summary\n\nStreamed the rows.\n\n---\n*Completed: 2026-02-11*\n"
    assert _facts(footer, "13-02").status == "Complete"
    undated = "# Plan 13-02 Summary\n\nStreamed the rows.\n\n**Completed:** the export part\n"
    assert _facts(undated, "13-02").status == ""


def test_a_section_that_reports_none_is_never_the_gist() -> None:
    text = "## Issues Encountered\nNone\n\n## Summary\nN/A - nothing to add\n\nMoved the exports.\n"
    assert _facts(text, "08-01").gist == "Moved the exports."
    sentence = "# Plan 08-01 Summary\n\nNone of the old exports survived the move.\n"
    assert _facts(sentence, "08-01").gist == "None of the old exports survived the move."

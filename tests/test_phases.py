from __future__ import annotations

import os
from pathlib import Path

import pytest
from support.phases import phase_dir, planning_project

from legion_memory.errors import InputError, LegionMemoryError
from legion_memory.markdown.outline import outline
from legion_memory.project import phases, roadmap
from legion_memory.project.phase_files import agent_files, leading_paths, looks_like_path
from legion_memory.project.root import current_phase


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return planning_project(tmp_path / "ledger")


@pytest.mark.parametrize("text, number", [("6", 6), ("06", 6), ("12", 12), (" 3 ", 3)])
def test_phase_argument_is_a_number(text: str, number: int) -> None:
    assert phases.phase_number(text) == number


@pytest.mark.parametrize("text", ["../x", "../../etc", "6/..", "06-auth", "-1", "", "6.1"])
def test_phase_argument_refuses_anything_but_a_number(text: str) -> None:
    with pytest.raises(InputError) as caught:
        phases.phase_number(text)
    assert caught.value.line() == f"PHASE '{text}' is not a phase number (give a number, e.g. 6)"


def test_plans_are_summary_and_plan_files_only_in_plan_order(project: Path) -> None:
    phase = phases.find_phase(project, 2)
    assert phase.name == "02-auth-sessions"
    assert (phase.prefix, phase.slug) == ("02", "auth-sessions")
    assert [plan.id for plan in phase.plans] == ["02-00", "02-01", "02-02"]
    assert [path.name for path in phase.summaries] == [
        "02-00-SUMMARY.md",
        "02-01-SUMMARY.md",
        "02-02-SUMMARY.md",
    ]
    assert phase.missing_summaries == []
    assert phase.compacted == phase_dir(project, "02-auth-sessions") / "02-COMPACTED.md"


def test_a_plan_without_its_summary_is_reported(project: Path) -> None:
    phase = phases.find_phase(project, 6)
    assert [(p.id, p.plan is not None, p.summary is not None) for p in phase.plans] == [
        ("06-01", True, True),
        ("06-02", True, False),
    ]
    assert phase.missing_summaries == ["06-02"]


def test_missing_and_ambiguous_phase_directories_are_errors(project: Path) -> None:
    with pytest.raises(LegionMemoryError) as missing:
        phases.find_phase(project, 7)
    assert missing.value.line() == (
        f"{project / '.planning/phases'}: no directory for phase 7 "
        "(expected .planning/phases/07-<name>/)"
    )
    (project / ".planning/phases/2-auth-copy").mkdir()
    with pytest.raises(LegionMemoryError) as twice:
        phases.find_phase(project, 2)
    assert twice.value.line() == (
        "phase 2 has several directories: 02-auth-sessions, 2-auth-copy"
        " (name one: its directory name, or MILESTONE/N for an archived one)"
    )
    assert phases.find_phase(project, "02-auth-sessions").name == "02-auth-sessions"


def test_a_phase_directory_linking_outside_the_project_is_refused(
    project: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    os.symlink(outside, project / ".planning/phases/08-linked")
    with pytest.raises(InputError) as caught:
        phases.find_phase(project, 8)
    assert "is outside the project" in caught.value.line()


def test_roadmap_progress_table_is_found_by_header_cells_and_statuses_normalised(
    project: Path,
) -> None:
    entries = roadmap.read_roadmap(project)
    assert {n: (e.name, e.status, e.complete) for n, e in entries.items()} == {
        1: ("Project Skeleton", "Complete", True),
        2: ("Auth & Sessions", "Complete", True),
        3: ("Invoice PDF", "Complete", True),
        4: ("Reporting", "Shipped", True),
        5: ("Export API", "Complete", True),
        6: ("Webhooks", "In Progress", False),
        7: ("Multi-currency", "Not started", False),
    }


def test_roadmap_requirements_lines_in_every_spelling(project: Path) -> None:
    entries = roadmap.read_roadmap(project)
    assert {n: e.requirements for n, e in entries.items()} == {
        1: ("CORE-01", "CORE-02"),
        2: ("AUTH-01", "AUTH-02", "AUTH-03"),
        3: ("INV-01", "INV-02"),
        4: ("RPT-01", "RPT-02"),
        5: ("API-01", "API-02", "API-03"),
        6: ("HOOK-01",),
        7: ("CUR-01",),
    }


@pytest.mark.parametrize(
    "cell, status",
    [
        ("Complete", "Complete"),
        ("**Complete**", "Complete"),
        ("✓ Complete", "Complete"),
        ("Complete (Archived)", "Complete"),
        ("**✓ Shipped** (archived)", "Shipped"),
        ("In Progress", "In Progress"),
    ],
)
def test_status_normalisation(cell: str, status: str) -> None:
    assert roadmap.normalise_status(cell) == status


def test_no_roadmap_means_no_entries(tmp_path: Path) -> None:
    assert roadmap.read_roadmap(tmp_path) == {}


def test_current_phase_comes_from_state(project: Path) -> None:
    assert current_phase(project) == 6


EXPECTED_FILES = {
    "01-01": [
        ("pyproject.toml", "modified"),
        ("src/ledger/__init__.py", "modified"),
        ("src/ledger/cli.py", "modified"),
        ("Makefile", "modified"),
        ("tests/test_cli.py", "modified"),
    ],
    "01-02": [
        ("src/ledger/config.py", "created"),
        ("tests/test_config.py", "modified"),
        ("src/ledger/cli.py", "modified"),
        ("docs/configuration.md", "modified"),
    ],
    "02-00": [("docs/adr/0002-sessions.md", "modified"), ("spikes/session_bench.py", "modified")],
    "02-01": [
        ("src/ledger/auth/sessions.py", "created"),
        ("src/ledger/db/migrations/0003_sessions.sql", "created"),
        ("src/ledger/app.py", "modified"),
    ],
    "02-02": [
        ("src/ledger/auth/views.py", "modified"),
        ("src/ledger/auth/sessions.py", "modified"),
        ("templates/login.html", "modified"),
        ("tests/test_auth.py", "modified"),
    ],
    "03-01": [
        ("src/ledger/invoices/render.py", "created"),
        ("templates/invoice.html", "created"),
        ("src/ledger/invoices/routes.py", "modified"),
    ],
    "03-02": [
        ("src/ledger/invoices/numbering.py", ""),
        ("src/ledger/db/migrations/0004_invoice_numbers.sql", ""),
        ("tests/test_numbering.py", ""),
    ],
    "04-01": [
        ("src/ledger/reports/revenue.py", "created"),
        ("src/ledger/reports/__init__.py", "created"),
        ("src/ledger/app.py", "modified"),
    ],
    "04-02": [
        ("src/ledger/reports/aging.py", "created"),
        ("tests/test_aging.py", "created"),
        ("src/ledger/reports/revenue.py", "modified"),
        ("src/ledger/cli.py", "modified"),
    ],
    "05-01": [
        ("src/ledger/api/export.py", ""),
        ("src/ledger/api/__init__.py", ""),
        ("tests/test_export.py", ""),
    ],
    "05-02": [("src/ledger/api/limits.py", "created"), ("src/ledger/api/export.py", "modified")],
}


@pytest.mark.parametrize("number", [1, 2, 3, 4, 5])
def test_files_of_every_summary_style(project: Path, number: int) -> None:
    found = {
        document.plan: [(change.path, change.action) for change in agent_files(document)]
        for document in phases.summaries(phases.find_phase(project, number))
    }
    assert found == {
        plan: files for plan, files in EXPECTED_FILES.items() if plan[1] == str(number)
    }


def test_non_file_tables_gap_reports_and_other_documents_list_no_files(project: Path) -> None:
    every = {
        change.path
        for number in (1, 2, 3, 4, 5)
        for document in phases.summaries(phases.find_phase(project, number))
        for change in agent_files(document)
    }
    assert "agents/engineering-rapid-prototyper.md" not in every  # agent metadata table
    assert "data-analytics-engineer" not in every  # agent scores table
    assert "src/ledger/legacy_auth.py" not in every  # gap report
    assert "src/ledger/reports/export_xlsx.py" not in every  # REVIEW.md


def test_plan_files_come_from_front_matter(project: Path) -> None:
    plans = phases.plan_documents(phases.find_phase(project, 2))
    assert [change.path for change in agent_files(plans["02-02"])] == [
        "src/ledger/auth/views.py",
        "src/ledger/auth/forms.py",
        "src/ledger/auth/sessions.py",
        "templates/login.html",
        "tests/test_auth.py",
    ]


def test_descriptions_come_with_the_files(project: Path) -> None:
    document = phases.summaries(phases.find_phase(project, 2))[1]
    assert [change.description for change in agent_files(document)] == [
        "SessionStore with create, touch and revoke",
        "sessions table and expiry index",
        "session middleware registered before routing",
    ]


@pytest.mark.parametrize(
    "line, paths, description",
    [
        ("`src/a.py` - does x", ["src/a.py"], "does x"),
        ("src/a.py — does x", ["src/a.py"], "does x"),
        ("**src/__init__.py**: marker", ["src/__init__.py"], "marker"),
        ("`a.py`, `b/c.ts` and `d.md` - three", ["a.py", "b/c.ts", "d.md"], "three"),
        ("./src/a.py:12 (new)", ["src/a.py"], "(new)"),
        ("`.gitignore`", [".gitignore"], ""),
        ("Makefile", ["Makefile"], ""),
        ("Tidied imports across the package", [], "Tidied imports across the package"),
        ("v2.0.1 released", [], "v2.0.1 released"),
        ("`agents/*.md` - all agents", [], "`agents/*.md` - all agents"),
        ("https://example.com/a.html", [], "https://example.com/a.html"),
    ],
)
def test_leading_paths(line: str, paths: list[str], description: str) -> None:
    assert leading_paths(line, listed=True) == (paths, description)


@pytest.mark.parametrize(
    "token, listed, expected",
    [
        ("src/ledger", False, True),
        ("cases.json", False, True),
        ("Makefile", False, False),
        ("Makefile", True, True),
        ("None", True, False),
        ("1.2.3", True, False),
        ("e.g", True, False),
        ("parse()", True, False),
    ],
)
def test_looks_like_path(token: str, listed: bool, expected: bool) -> None:
    assert looks_like_path(token, listed=listed) is expected


def test_files_under_headings_with_counts_sub_headings_and_labels(tmp_path: Path) -> None:
    path = tmp_path / "09-01-SUMMARY.md"
    path.write_text(
        "# Plan 09-01 Summary: X\n\n"
        "## Files Modified (25)\n\n### New files\n- `lib/new.rb`\n\n### Changed\n- lib/old.rb\n\n"
        "## Notes\n- `lib/mentioned.rb` is only mentioned here\n\n"
        "## Changes\n- `lib/changed.rb`: reworded\n- Removed dead code from lib/dead.rb\n",
        encoding="utf-8",
    )
    document = phases.read_document(path, "09-01", phases.SUMMARY)
    assert [(c.path, c.action, c.description) for c in agent_files(document)] == [
        ("lib/new.rb", "created", ""),
        ("lib/old.rb", "modified", ""),
        ("lib/changed.rb", "", "reworded"),
    ]


def test_requirement_claims_ignore_ids_cited_from_other_phases(project: Path) -> None:
    documents = phases.summaries(phases.find_phase(project, 3))
    assert [phases.requirement_claims(document) for document in documents] == [
        {"INV-01": ""},
        {"INV-02": "", "INV-03": ""},
    ]


def test_requirement_claims_with_descriptions(project: Path) -> None:
    documents = phases.summaries(phases.find_phase(project, 4))
    assert [phases.requirement_claims(document) for document in documents] == [
        {"RPT-01": "monthly revenue report by customer"},
        {"RPT-02": "receivables aging report"},
    ]


def test_agents_of_each_style(project: Path) -> None:
    found = {}
    for number in (1, 2, 3, 4, 5):
        phase = phases.find_phase(project, number)
        plans = phases.plan_documents(phase)
        for document in phases.summaries(phase):
            found[document.plan] = phases.plan_agents(document, plans.get(document.plan))
    assert found == {
        "01-01": ("engineering-senior-developer",),
        "01-02": ("engineering-backend-architect",),
        "02-00": ("engineering-rapid-prototyper",),
        "02-01": ("engineering-backend-architect",),  # the SUMMARY wins over `autonomous: true`
        "02-02": ("engineering-senior-developer",),
        "03-01": ("autonomous",),
        "03-02": ("autonomous",),
        "04-01": ("data-analytics-engineer",),
        "04-02": ("data-analytics-engineer",),
        "05-01": ("engineering-backend-architect",),
        "05-02": ("engineering-security-engineer",),
    }


def test_plan_agents_fall_back_to_the_plan_then_to_nothing(project: Path) -> None:
    plans = phases.plan_documents(phases.find_phase(project, 6))
    assert phases.plan_agents(None, plans["06-02"]) == ("engineering-backend-architect",)
    assert phases.plan_agents(None, None) == ()


def test_outline_keeps_paths_with_underscores_and_soft_breaks() -> None:
    sections = outline("# T\n\n**Status:** Done\n**Agent:** a-b\n\n- src/__init__.py\n")
    assert [(s.title, s.level, s.path) for s in sections] == [("", 0, ()), ("T", 1, ("T",))]
    assert list(sections[1].lines()) == ["**Status:** Done", "**Agent:** a-b"]
    assert [item.text for item in sections[1].items()] == ["src/__init__.py"]

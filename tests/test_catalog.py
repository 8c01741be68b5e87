"""CATALOG.md: divisions from headings, Task Types, the Custom Division, Section 2, lookup order."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from support.processes import FIXTURES, SAMPLES

from legion_memory.errors import InputError
from legion_memory.project.catalog import (
    CATALOG_IN_PLUGIN,
    DIVISION,
    SECTION_2,
    Agent,
    Catalog,
    catalog_path,
    division_name,
    load_catalog,
    opens_section_2,
    parse_catalog,
)

FIXTURE = FIXTURES / "catalog" / "CATALOG.md"


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    loaded = load_catalog(FIXTURE)
    assert loaded is not None
    return loaded


def test_every_agent_of_section_1_with_its_heading_division(catalog: Catalog) -> None:
    rows = [(a.id, a.division, ", ".join(a.task_types)) for a in catalog.agents.values()]
    assert rows == [
        ("design-ux-architect", "Design", "ux-architecture, css-systems, frontend-foundations"),
        ("design-brand-guardian", "Design", "branding, style-guides"),  # `\\|` in Specialty
        (
            "engineering-backend-architect",
            "Engineering",
            "backend, api-development, database-design",
        ),
        ("engineering-frontend-developer", "Engineering", "frontend, react, web-performance"),
        ("engineering-security-engineer", "Engineering", "security-audit, owasp, security-testing"),
        ("engineering-senior-developer", "Engineering", "full-stack, refactoring, code-quality"),
        ("project-manager-senior", "Project Management", "task-breakdown, sprint-execution"),
        ("agents-orchestrator", "Specialized", "orchestration, workflow-automation"),
        ("lsp-index-engineer", "Specialized", "lsp, code-intelligence"),
        ("testing-api-tester", "Testing", "api-testing, integration-testing, security-testing"),
        (
            "testing-qa-verification-specialist",
            "Testing",
            "visual-qa, bug-verification, quality-gates",
        ),
        ("engineering-house-style-checker", "Custom", "house-style, code-quality"),
    ]


def test_division_never_comes_from_the_id_prefix(catalog: Catalog) -> None:
    assert catalog.division_of("agents-orchestrator") == "Specialized"
    assert catalog.division_of("engineering-house-style-checker") == "Custom"
    assert catalog.division_of("autonomous") is None


def test_reading_stops_at_section_2(catalog: Catalog) -> None:
    assert "shadow-agent" not in catalog.agents
    assert catalog.first_task_type("engineering-backend-architect") == "backend"
    assert catalog.divisions_for("shadow-work") == frozenset()


def test_task_type_divisions(catalog: Catalog) -> None:
    assert catalog.divisions_for("security-testing") == {"Engineering", "Testing"}
    assert catalog.divisions_for("Code-Quality") == {"Engineering", "Custom"}
    assert catalog.knows_task_type("house-style")
    assert catalog.knows_task_type("quality-review")  # written by Legion itself, never warned
    assert not catalog.knows_task_type("blockchain")


def test_a_table_without_task_types_or_outside_a_division_is_ignored() -> None:
    text = (
        "## Section 1\n\n| ID | Task Types |\n|---|---|\n| loose | a |\n\n"
        "### Ops Division\n\n| ID | Specialty |\n|---|---|\n| no-types | x |\n\n"
        "### Data Division (1 agent)\n\n| Task Types | ID |\n|---|---|\n| etl, sql | data-eng |\n"
    )
    assert list(parse_catalog(text).agents.values()) == [Agent("data-eng", "Data", ("etl", "sql"))]


def test_lookup_order(tmp_path: Path) -> None:
    root = tmp_path / "project"
    plugin = tmp_path / "plugin"
    env_file = tmp_path / "env-catalog.md"
    for path in (root / CATALOG_IN_PLUGIN, plugin / CATALOG_IN_PLUGIN, env_file):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("", encoding="utf-8")
    env = {"LEGION_CATALOG": str(env_file), "CLAUDE_PLUGIN_ROOT": str(plugin)}
    assert catalog_path(FIXTURE, root, env) == FIXTURE
    assert catalog_path(None, root, env) == env_file
    env_file.unlink()
    assert catalog_path(None, root, env) == root / CATALOG_IN_PLUGIN
    (root / CATALOG_IN_PLUGIN).unlink()
    assert catalog_path(None, root, env) == plugin / CATALOG_IN_PLUGIN
    assert catalog_path(None, root, {}) is None


def test_a_missing_explicit_catalog_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(InputError) as raised:
        catalog_path(tmp_path / "nope.md", tmp_path, {})
    assert (
        raised.value.line()
        == f"--catalog '{tmp_path / 'nope.md'}' is not a file (give the CATALOG.md path)"
    )
    assert raised.value.exit_code == 2


def test_an_unreadable_catalog_reads_as_none(tmp_path: Path) -> None:
    path = tmp_path / "CATALOG.md"
    path.write_bytes(b"\xff\xfe not utf-8")
    assert load_catalog(path) is None


@pytest.mark.skipif(not SAMPLES.is_dir(), reason="../shared/legion-samples is not present")
def test_the_real_legion_catalog() -> None:
    real = load_catalog(SAMPLES / "skills" / "agent-registry" / "CATALOG.md")
    assert real is not None
    assert {agent.division for agent in real.agents.values()} == {
        "Design", "Engineering", "Marketing", "Product", "Project Management",
        "Spatial Computing", "Specialized", "Support", "Testing",
    }  # fmt: skip
    assert real.division_of("agents-orchestrator") == "Specialized"
    assert real.division_of("macos-spatial-metal-engineer") == "Spatial Computing"
    assert real.division_of("project-manager-senior") == "Project Management"
    assert real.first_task_type("engineering-backend-architect") == "backend"
    assert real.divisions_for("security-testing") == {"Testing"}
    # Section 2 names agents in an intent table: none of its cells become agents.
    assert "harden" not in real.agents


HEADING_WORDS = [
    *["", " ", "\t", "\n", "#", "##", "Section", "SECTION", "Sections", "2", "20", "2:", "_", "x"],
    *["Division", "division", "DIVISIONs", "日", "\u017f", "\x1c", "\u212a"],
]


@given(st.lists(st.sampled_from(HEADING_WORDS), max_size=7))
@example(["##", " ", "Section", " ", "2", ":"])
@example([" ", "Division"])
@example(["x", "\n", "x", " ", "Division"])  # `.` does not cross the line break
def test_sections_and_divisions_are_read_as_their_patterns_read_them(words: list[str]) -> None:
    """An ASCII line is read by string methods, any other by the pattern: the same answers."""
    text = "".join(words)
    assert opens_section_2(text) == (re.match(SECTION_2, text) is not None)
    match = re.match(DIVISION, text)
    assert division_name(text) == (None if match is None else match.group(1).strip())

"""Phases across milestones: numbers reused, old phases archived under .planning/archive/ and
their ROADMAPs under .planning/milestones/; where numbers repeat, a directory names the phase."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.processes import CLI, read_bytes_of

TODAY = "2026-12-01"
SUMMARY = "# Plan {plan} Summary: {title}\n\n## Status: Complete\n\n## Agent: {agent}\n\n{text}\n"
PLAN = "---\nplan: {plan}\nfiles_modified: [{files}]\nrequirements: [{requirement}]\n---\n"
CURRENT_ROADMAP = """# Roadmap: v2.0

| Phase | Plans | Status |
|-------|-------|--------|
| 3. Skills | 0/1 | In progress |
"""
OLD_ROADMAP = """# Milestone v1.0: Core

**Status:** Complete
**Completed:** 2026-03-01

| Phase | Focus | Plans |
|-------|-------|-------|
| 1 | Foundation | 1 |
| 3 | Planning | 1 |
"""
MIDDLE_ROADMAP = """# Milestone v1.1: Rebrand

### Phase 24: Foundation
**Requirements:** SKL-01
**Phase Status:** ✓ COMPLETE
"""
STATE = """# Project State

- **Phase**: 3 of 5
- **Milestone**: v2.0

| Milestone | Shipped |
|-----------|---------|
| v1.0 | 2026-03-01 |
| v1.1 | 2026-03-02 |
"""


def _phase(directory: Path, plan: str, agent: str, files: str, requirement: str) -> None:
    directory.mkdir(parents=True)
    title = directory.name.partition("-")[2].title()
    text = f"Built the {title.lower()} work of plan {plan}."
    summary = SUMMARY.format(plan=plan, title=title, agent=agent, text=text)
    (directory / f"{plan}-SUMMARY.md").write_text(summary, encoding="utf-8")
    plan_text = PLAN.format(plan=plan, files=files, requirement=requirement)
    (directory / f"{plan}-PLAN.md").write_text(plan_text, encoding="utf-8")


@pytest.fixture
def project(repo: Path) -> Path:
    planning = repo / ".planning"
    _phase(planning / "phases/03-skills", "03-01", "engineering-senior-developer",
           "skills/a/SKILL.md", "SKL-02")  # fmt: skip
    _phase(planning / "phases/24-foundation", "24-01", "autonomous",
           "skills/common/SKILL.md", "SKL-01")  # fmt: skip
    archive = planning / "archive/v1.0/phases"
    _phase(archive / "01-foundation", "01-01", "engineering-backend-architect",
           "src/core.py", "CORE-01")  # fmt: skip
    _phase(archive / "03-planning", "03-01", "testing-api-tester",
           "src/plan.py, tests/test_plan.py", "PLN-01")  # fmt: skip
    (planning / "milestones").mkdir()
    (planning / "milestones/v1.0-ROADMAP.md").write_text(OLD_ROADMAP, encoding="utf-8")
    (planning / "milestones/v1.1-ROADMAP.md").write_text(MIDDLE_ROADMAP, encoding="utf-8")
    (planning / "ROADMAP.md").write_text(CURRENT_ROADMAP, encoding="utf-8")
    (planning / "STATE.md").write_text(STATE, encoding="utf-8")
    return repo


def test_the_listing_reads_every_milestone_and_does_not_fail_on_a_reused_number(
    cli: CLI, project: Path
) -> None:
    result = cli("--json", "compact", "--list-uncompacted", cwd=project)
    assert (result.code, result.stderr) == (0, "")
    assert [(p["milestone"], p["directory"]) for p in json.loads(result.stdout)["phases"]] == [
        ("", "24-foundation"),  # complete per the v1.1 ROADMAP; ROADMAP.md does not list it
        ("v1.0", "01-foundation"),
        ("v1.0", "03-planning"),  # not 03-skills: phase 3 of v2.0 is in progress
    ]
    shown = cli("compact", "--list-uncompacted", "--exclude-current", cwd=project).stdout
    assert "| v1.0/03-planning | 03-planning | 1 |" in shown


def test_a_number_names_the_current_directory_and_a_milestone_names_an_archived_one(
    cli: CLI, project: Path
) -> None:
    before = read_bytes_of(project)
    refused = cli("compact", "3", cwd=project)
    assert (refused.code, refused.stderr) == (
        1,
        "Error: phase 3 is not marked Complete in ROADMAP.md (status: In progress) "
        "(use --force to compact it anyway)\n",
    )
    assert read_bytes_of(project) == before
    written = cli("--today", TODAY, "compact", "v1.0/3", cwd=project)
    assert written.code == 0, written.stderr
    target = project / ".planning/archive/v1.0/phases/03-planning/03-COMPACTED.md"
    text = target.read_text(encoding="utf-8")
    assert "requirements_satisfied: [PLN-01]\n" in text
    assert "| src/plan.py |" in text and "| tests/test_plan.py |" in text
    assert "- testing-api-tester: 03-01\n" in text
    assert cli("compact", "--check", "v1.0/03-planning", cwd=project).code == 0
    context = cli("phase-context", "v1.0/3", cwd=project)
    assert context.stdout == text
    by_path = cli("phase-context", ".planning/archive/v1.0/phases/03-planning/", cwd=project)
    assert (by_path.code, by_path.stdout) == (0, text)  # not 03-skills, which has that number


def test_a_phase_complete_in_its_milestone_roadmap_needs_no_force(cli: CLI, project: Path) -> None:
    result = cli("--today", TODAY, "compact", "24", cwd=project)
    assert result.code == 0, result.stderr
    assert (project / ".planning/phases/24-foundation/24-COMPACTED.md").is_file()


def test_a_number_only_archived_directories_share_is_refused_naming_them(
    cli: CLI, project: Path
) -> None:
    _phase(project / ".planning/archive/v0.9/01-setup", "01-01", "x-y", "a.md", "OLD-01")
    result = cli("compact", "1", cwd=project)
    assert (result.code, result.stdout) == (1, "")
    assert result.stderr == (
        "Error: phase 1 has several directories: v0.9/01-setup, v1.0/01-foundation "
        "(name one: its directory name, or MILESTONE/N for an archived one)\n"
    )


def test_prune_does_not_protect_an_old_milestones_phase_of_the_same_number(
    cli: CLI, project: Path
) -> None:
    store = ("store", "outcome", "--phase", "3", "--plan", "03-01", "--agent", "x-y",
             "--task-type", "t", "--outcome", "success", "--importance", "2")  # fmt: skip
    assert cli("--today", "2026-02-01", *store, "--summary", "v1.0 planning", cwd=project).code == 0
    assert cli("--today", "2026-04-01", *store, "--summary", "v2.0 skills", cwd=project).code == 0
    result = cli("--today", TODAY, "--json", "prune", "--dry-run", cwd=project)
    report = json.loads(result.stdout)
    assert (report["current_phase"], report["candidates"]) == (3, ["O-001"])
    assert report["current_phase_count"] == 1


def test_an_archive_folder_without_a_version_finds_its_roadmap_by_name(
    cli: CLI, project: Path
) -> None:
    _phase(project / ".planning/archive/old/24-foundation", "24-01", "x-y", "b.md", "SKL-01")
    listing = cli("--json", "compact", "--list-uncompacted", cwd=project)
    listed = [(p["milestone"], p["directory"]) for p in json.loads(listing.stdout)["phases"]]
    assert ("old", "24-foundation") in listed  # Phase 24: Foundation is complete in v1.1

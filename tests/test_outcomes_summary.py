"""`store outcome --from-summary`: plan, phase, agent, status and summary from SUMMARY files."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from support.processes import CLI, FIXTURES, SAMPLES, read_bytes_of

from legion_memory.project.summary_outcome import (
    SummaryFacts,
    outcome_of_status,
    read_summary_facts,
    summary_facts,
)

SUMMARIES = FIXTURES / "outcomes" / "summaries"
CATALOG = FIXTURES / "catalog" / "CATALOG.md"


def test_plain_heading_style() -> None:
    assert read_summary_facts(SUMMARIES / "04-plain" / "04-02-SUMMARY.md") == SummaryFacts(
        plan="04-02",
        phase="4",
        agent="engineering-backend-architect",
        outcome="partial",
        status="Partially complete",
        summary="Orders API pagination",
        tags="plain, py",  # the phase slug and the kinds of files modified; no catalog here
    )


def test_wave_executor_style() -> None:
    assert read_summary_facts(SUMMARIES / "07-wave" / "07-01-SUMMARY.md") == SummaryFacts(
        plan="07-01",
        phase="7",
        agent="engineering-frontend-developer",
        outcome="success",
        status="Complete",
        summary="Validate the checkout form",  # its task title: the H1 is only a title
        tags="wave",
    )


def test_front_matter_style_takes_the_agent_from_its_plan() -> None:
    assert read_summary_facts(SUMMARIES / "12-front-matter" / "12-03-SUMMARY.md") == SummaryFacts(
        plan="12-03",
        phase="12",
        agent="autonomous",  # the PLAN says `autonomous: true` and names no agent
        outcome="failed",  # Self-Check: FAILED
        status="FAILED",
        summary="Signed release artifacts and a smoke test that runs on every tag.",
        tags="release-hardening, yml",
    )


def test_front_matter_agents_and_status() -> None:
    text = (
        "---\nphase: 3\nplan: 03-02\nagents:\n  - testing-api-tester\n"
        "  - engineering-security-engineer\nstatus: blocked\n---\n\n# Security review\n"
    )
    facts = summary_facts(text, "whatever.md")
    assert (facts.plan, facts.phase, facts.agent, facts.outcome) == (
        "03-02",
        "3",
        "testing-api-tester, engineering-security-engineer",
        "failed",
    )
    assert facts.summary == "Security review"


def test_a_plan_file_with_an_agents_list() -> None:
    plan = "---\nplan: 09-01\nautonomous: false\nagents:\n  - engineering-ai-engineer\n---\n"
    facts = summary_facts("# Plan 09-01 Summary: X\n\n**Status:** Done\n", "09-01-SUMMARY.md", plan)
    assert (facts.agent, facts.outcome, facts.status) == (
        "engineering-ai-engineer",
        "success",
        "Done",
    )


def test_what_the_file_does_not_say_stays_unknown() -> None:
    assert summary_facts("Just some notes.\n") == SummaryFacts()
    assert summary_facts("# Notes\n", "05-03-SUMMARY.md").plan == "05-03"


@pytest.mark.parametrize(
    ("status", "outcome"),
    [
        ("Complete", "success"),
        ("Completed with minor deviations", "success"),
        ("PASSED", "success"),
        ("Partially complete", "partial"),
        ("Incomplete", "partial"),
        ("Failed", "failed"),
        ("Blocked on credentials", "failed"),
        ("In review", None),
    ],
)
def test_status_words(status: str, outcome: str | None) -> None:
    assert outcome_of_status(status) == outcome


@pytest.fixture
def phases(repo: Path) -> Path:
    target = repo / ".planning" / "phases"
    shutil.copytree(SUMMARIES, target)
    return target


def test_store_from_a_summary(cli: CLI, repo: Path, phases: Path) -> None:
    args = ["--today", "2026-03-31", "--catalog", str(CATALOG), "--json", "store", "outcome"]
    result = cli(*args, "--from-summary", ".planning/phases/04-plain/04-02-SUMMARY.md", cwd=repo)
    assert (result.code, result.stderr) == (0, "")
    assert json.loads(result.stdout) == {
        "id": "O-001",
        "date": "2026-03-31",
        "branch": "main",
        "phase": 4,
        "plan": "04-02",
        "agent": "engineering-backend-architect",
        "task_type": "backend",
        "outcome": "partial",
        "importance": 4,  # partial 3 + first backend outcome
        "tags": "plain, engineering, py",  # phase slug, the agent's division, files' kinds
        "summary": "Orders API pagination",
    }


def test_flags_override_the_summary(cli: CLI, repo: Path, phases: Path) -> None:
    args = ["--today", "2026-03-31", "--json", "store", "outcome"]
    summary = str(phases / "12-front-matter" / "12-03-SUMMARY.md")
    result = cli(
        *args, "--from-summary", summary, "--agent", "engineering-senior-developer",
        "--outcome", "partial", "--summary", "Signing done, smoke test missing", "--tags", "ci",
        cwd=repo / ".planning",
    )  # fmt: skip
    stored = json.loads(result.stdout)
    assert (stored["plan"], stored["agent"], stored["outcome"], stored["summary"]) == (
        "12-03",
        "engineering-senior-developer",
        "partial",
        "Signing done, smoke test missing",
    )


def test_a_relative_summary_path_is_relative_to_the_working_directory(
    cli: CLI, repo: Path, phases: Path
) -> None:
    args = ["--today", "2026-03-31", "--json", "store", "outcome"]
    result = cli(*args, "--from-summary", "07-01-SUMMARY.md", cwd=phases / "07-wave")
    assert (result.code, json.loads(result.stdout)["plan"]) == (0, "07-01")


def test_summary_refusals_change_nothing(cli: CLI, repo: Path, phases: Path) -> None:
    unknown = phases / "13-unknown" / "13-01-SUMMARY.md"
    unknown.parent.mkdir()
    unknown.write_text("# Plan 13-01 Summary: X\n\n## Status: In review\n\n## Agent: a\n", "utf-8")
    secret = phases / "13-unknown" / "13-02-SUMMARY.md"
    secret.write_text(
        "# Plan 13-02 Summary: rotated key sk-abcdefghijklmnopqrstuvwxyz123456\n\n"
        "## Status: Complete\n\n## Agent: a\n",
        "utf-8",
    )
    nameless = phases / "13-unknown" / "13-03-SUMMARY.md"
    nameless.write_text("# Plan 13-03 Summary: X\n\n## Status: Complete\n", "utf-8")
    outside = repo.parent / "outside-SUMMARY.md"
    outside.write_text("# Plan 01-01 Summary: X\n", "utf-8")
    before = read_bytes_of(repo)
    cases = {
        unknown: f"Error: {unknown}: the SUMMARY's status 'In review' is not success, partial or"
        " failed (give --outcome)",
        secret: "Error: Summary looks like it contains an OpenAI or Anthropic API key; secrets are"
        " never stored in memory (remove it and describe the change instead (e.g. 'rotated the API"
        " key'))",
        nameless: f"Error: {nameless}: the SUMMARY does not say its agent (add --agent)",
        outside: f"Error: path '{outside}' is outside the project (use a path under {repo})",
        phases / "nope.md": f"Error: --from-summary '{phases / 'nope.md'}' cannot be read"
        " (give a SUMMARY.md path)",
    }
    for path, message in cases.items():
        result = cli("store", "outcome", "--from-summary", str(path), cwd=repo)
        assert (result.code, result.stdout, result.stderr) == (2, "", message + "\n")
    assert read_bytes_of(repo) == before


@pytest.mark.skipif(not SAMPLES.is_dir(), reason="../shared/legion-samples is not present")
@pytest.mark.parametrize(
    ("name", "plan", "agent"),
    [
        ("06-recommendation-engine-v2/06-01-SUMMARY.md", "06-01", "engineering-backend-architect"),
        ("11-intent-routing-v2/11-02-SUMMARY.md", "11-02", "engineering-senior-developer"),
        ("33-knowledge-memory/33-02-SUMMARY.md", "33-02", "autonomous"),
    ],
)
def test_the_three_styles_of_real_legion_summaries(name: str, plan: str, agent: str) -> None:
    facts = read_summary_facts(SAMPLES / ".planning" / "phases" / name)
    assert (facts.plan, facts.agent, facts.outcome) == (plan, agent, "success")

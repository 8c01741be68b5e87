"""The real Legion repository (../shared/legion) read end to end: every SUMMARY accepted by
`store outcome --from-summary --dry-run`, every phase compacted and its COMPACTED.md checked here,
against what the files themselves say, not against the reader's own extraction."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from support.processes import CLI, REPO_ROOT

LEGION = REPO_ROOT.parent / "shared" / "legion"
PLANNING = LEGION / ".planning"
CATALOG = LEGION / "skills" / "agent-registry" / "CATALOG.md"
SUMMARIES = sorted(PLANNING.rglob("*-SUMMARY.md")) if PLANNING.is_dir() else []
PHASE_DIRECTORY = re.compile(r"^\d+-[\w.-]+$")
# A non-agent word a reader once credited: PLAN prose "Agent: comma-separated list of ...".
NOT_AGENTS = {"comma-separated", "the", "agent"}

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not PLANNING.is_dir(), reason="../shared/legion is not present"),
]


def _catalog_ids() -> set[str]:
    text = CATALOG.read_text(encoding="utf-8") if CATALOG.is_file() else ""
    return set(re.findall(r"^\|\s*([a-z0-9][a-z0-9-]*)\s*\|", text, re.MULTILINE))


@pytest.fixture(scope="module")
def legion(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the repository's planning files and catalog: compaction writes into it."""
    root = tmp_path_factory.mktemp("legion")
    (root / ".git").mkdir()
    shutil.copytree(PLANNING, root / ".planning")
    shutil.copytree(CATALOG.parent, root / CATALOG.parent.relative_to(LEGION))
    for path in [root, *root.rglob("*")]:
        path.chmod(path.stat().st_mode | 0o200)
    return root


def _named_as_agent(agent: str, text: str) -> bool:
    """An `Agent:` label or an `agents:` front-matter item names it (agents since retired)."""
    label = rf"agents?\W*:\W*(?:[^\n]*[\s,`])?{re.escape(agent)}\b"
    listed = rf"^agents:\s*\n(?:\s+-\s+\S+\n)*?\s+-\s+{re.escape(agent)}\s*$"
    return re.search(label, text) is not None or re.search(listed, text, re.MULTILINE) is not None


def _expected_outcome(text: str) -> str:
    """What the file says in its own words: a failed or partial status, else success."""
    if re.search(r"status\W*:\W*(?:failed|blocked)", text, re.IGNORECASE):
        return "failed"
    if re.search(r"status\W*:\W*(?:partial|incomplete)", text, re.IGNORECASE):
        return "partial"
    return "success"


@pytest.mark.parametrize("summary", SUMMARIES, ids=lambda path: path.name)
def test_every_real_summary_is_accepted(cli: CLI, legion: Path, summary: Path) -> None:
    relative = summary.relative_to(LEGION)
    result = cli("--today", "2026-03-31", "--json", "store", "outcome", "--from-summary",
                 str(relative), "--dry-run", cwd=legion)  # fmt: skip
    assert result.code == 0, result.stderr
    record = json.loads(result.stdout)
    text = summary.read_text(encoding="utf-8")
    plan = summary.with_name(summary.name.replace("SUMMARY", "PLAN"))
    both = (text + (plan.read_text(encoding="utf-8") if plan.is_file() else "")).casefold()
    for agent in str(record["agent"]).split(", "):
        assert agent in _catalog_ids() | {"autonomous"} or _named_as_agent(agent, both)
        assert agent == agent.lower() and agent in both  # named by the files themselves
    assert record["outcome"] == _expected_outcome(text)
    assert record["plan"] == summary.name[:5]
    summary_text = str(record["summary"])
    assert summary_text and not re.match(r"^(?:phase|plan)\s+\d", summary_text, re.IGNORECASE)
    assert not re.search(r"\bsummary$", summary_text, re.IGNORECASE)
    slug = summary.parent.name.partition("-")[2]
    assert str(record["tags"]).split(", ")[0] == slug


def _files_modified(plan: Path) -> list[str]:
    """A PLAN's `files_modified`, read here with a few lines of its own."""
    front = plan.read_text(encoding="utf-8").split("\n---", 1)[0]
    flow = re.search(r"^files_modified:\s*\[(.*)\]\s*$", front, re.MULTILINE)
    if flow:
        return [item.strip().strip("'\"") for item in flow.group(1).split(",") if item.strip()]
    block = re.search(r"^files_modified:\s*\n((?:\s+-.*\n?)+)", front, re.MULTILINE)
    items = re.findall(r"^\s+-\s+(.+?)\s*$", block.group(1), re.MULTILINE) if block else []
    return [item.strip("'\"").split(" (")[0] for item in items]


def _phase_directories() -> list[Path]:
    found = [p for p in PLANNING.rglob("*") if p.is_dir() and PHASE_DIRECTORY.match(p.name)]
    return sorted(p for p in found if any(p.glob("*-SUMMARY.md")))


@pytest.mark.parametrize("directory", _phase_directories(), ids=lambda path: path.name)
def test_every_real_phase_compacts_and_keeps_its_plans_files(
    cli: CLI, legion: Path, directory: Path
) -> None:
    relative = directory.relative_to(LEGION)
    milestone = [part for part in relative.parts if re.match(r"v\d", part)]
    selector = f"{milestone[0]}/{directory.name}" if "archive" in relative.parts else directory.name
    result = cli("--root", str(legion), "--today", "2026-03-31", "compact", selector, "--force")
    assert result.code == 0, result.stderr
    written = legion / relative / f"{directory.name.partition('-')[0]}-COMPACTED.md"
    text = written.read_text(encoding="utf-8")
    tokens = {token.strip("`*") for token in re.split(r"[\s|,;()]+", text.replace("\\|", "|"))}
    for plan in sorted(directory.glob("*-PLAN.md")):
        for path in _files_modified(plan):
            assert path in tokens, f"{path} of {plan.name}"
    agents = re.findall(r"^- (\S+): \d", text.split("## Agents", 1)[1], re.MULTILINE)
    assert agents and not set(agents) & NOT_AGENTS
    originals = "".join(p.read_text(encoding="utf-8") for p in directory.glob("*.md")).casefold()
    for agent in agents:
        assert agent in _catalog_ids() | {"autonomous"} or _named_as_agent(agent, originals)
    checked = cli("--root", str(legion), "compact", "--check", selector)
    assert "check passed" in checked.stdout, checked.stdout


def test_the_listing_of_uncompacted_phases_covers_every_milestone(cli: CLI, tmp_path: Path) -> None:
    root = tmp_path / "legion"
    (root / ".git").mkdir(parents=True)
    shutil.copytree(PLANNING, root / ".planning")
    result = cli("--root", str(root), "--json", "compact", "--list-uncompacted")
    assert result.code == 0, result.stderr
    listed = {(p["milestone"], p["directory"]) for p in json.loads(result.stdout)["phases"]}
    every = {directory.name for directory in _phase_directories()}
    assert {name for _, name in listed} == every

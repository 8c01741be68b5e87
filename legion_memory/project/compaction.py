"""Phase compaction: the deterministic COMPACTED.md scaffold, and what is due.

The memory-manager skill (docs/memory-manager-SKILL.md, Section 12) has an agent summarise a
completed phase. The tool does every part that needs no judgement: it gathers deliverables,
decisions, files, verification results and agents from the SUMMARY files into the spec's format,
so an agent only refines the prose, and it checks any COMPACTED.md (written here or edited later)
for lost requirement IDs and file paths.
"""

import datetime as dt
import re
from pathlib import Path

from legion_memory.errors import LegionMemoryError, WriteError
from legion_memory.markdown.cells import escape
from legion_memory.markdown.document import BOM
from legion_memory.named_tuple import NamedTuple
from legion_memory.project.catalog import Catalog
from legion_memory.project.compaction_check import CheckReport, check_text
from legion_memory.project.phase_files import FileChange
from legion_memory.project.phase_reading import PhaseFacts, gather
from legion_memory.project.phases import find_phase, phase_at, phase_directories
from legion_memory.project.roadmap import load_roadmaps
from legion_memory.project.summary_facts import FAIL, PlanFacts, requirement_verdict
from legion_memory.storage import reading, writing
from legion_memory.wording import count_of, noun_for

SECTIONS = ("Deliverables", "Decisions", "Files Modified", "Verification", "Agents")


def require_compactable(facts: PhaseFacts, *, force: bool) -> None:
    """The spec's preconditions: every PLAN has its SUMMARY (always), the phase is Complete
    in ROADMAP.md (unless forced)."""
    phase = facts.phase
    missing = phase.missing_summaries
    if missing:
        raise LegionMemoryError(
            f"phase {phase.number} has no SUMMARY for {noun_for(len(missing), 'plan')} "
            f"{', '.join(missing)}",
            where=str(phase.directory),
            hint="compact a phase only after all its plans have run",
        )
    if not facts.documents:
        raise LegionMemoryError(
            f"phase {phase.number} has no SUMMARY files",
            where=str(phase.directory),
            hint=_unnamed_summaries(phase.directory, phase.number),
        )
    if not force and not (facts.roadmap and facts.roadmap.complete):
        status = facts.roadmap.status if facts.roadmap and facts.roadmap.status else "not listed"
        where = f"{phase.milestone}-ROADMAP.md" if phase.milestone else "ROADMAP.md"
        raise LegionMemoryError(
            f"phase {phase.number} is not marked Complete in {where} (status: {status})",
            hint="use --force to compact it anyway",
        )


def _unnamed_summaries(directory: Path, number: int) -> str:
    """A SUMMARY not named for a plan (`01-SUMMARY.md`) is not read as one: say which name would
    be, so the refusal does not read as if the directory held no SUMMARY at all."""
    others = sorted(path.name for path in directory.glob("*SUMMARY*.md"))
    if not others:
        return ""
    return (
        f"a plan's SUMMARY is named {number:02d}-PP-SUMMARY.md, PP its plan number; "
        f"not read: {', '.join(others)}"
    )


def render(facts: PhaseFacts, today: dt.date) -> str:
    """The COMPACTED.md text: the spec's front-matter and five sections."""
    satisfied = [
        requirement
        for requirement in facts.requirements
        if requirement_verdict(requirement, facts.plans)[0] != FAIL
    ]
    lines = [
        "---",
        f"phase: {facts.phase.name}",
        f"compacted: {today.isoformat()}",
        f"original_summaries: [{', '.join(d.path.name for d in facts.documents)}]",
        f"requirements_satisfied: [{', '.join(satisfied)}]",
        "---",
        "",
        f"# Phase {facts.phase.number}: {facts.title} — Compacted Summary",
    ]
    for title, body in zip(SECTIONS, _section_bodies(facts), strict=True):
        lines += ["", f"## {title}", "", *body]
    return "\n".join(lines) + "\n"


def _section_bodies(facts: PhaseFacts) -> list[list[str]]:
    return [
        [_deliverable(plan) for plan in facts.plans],
        [f"- {plan.id}: {text}" for plan in facts.plans for text in plan.decisions]
        or ["- None recorded."],
        _files_table(facts.files),
        _verification(facts),
        _agents(facts.plans),
    ]


def _deliverable(plan: PlanFacts) -> str:
    head = f"- {plan.id} {plan.title}".rstrip()
    return f"{head}: {plan.gist}" if plan.gist and plan.gist != plan.title else head


def _files_table(files: tuple[FileChange, ...]) -> list[str]:
    changes: dict[str, list[str]] = {}
    for change in files:
        what = change.action or ("" if change.description else "changed")
        text = " — ".join(part for part in (what, _first_sentence(change.description)) if part)
        changes.setdefault(change.path, []).append(f"{change.plan}: {text}")
    rows = [f"| {escape(path)} | {escape('; '.join(parts))} |" for path, parts in changes.items()]
    return ["| File | Change |", "|------|--------|", *rows]


def _first_sentence(text: str) -> str:
    return re.split(r"(?<=[.!?])\s+(?=[A-Z`*])", text, maxsplit=1)[0].rstrip(".")


def _verification(facts: PhaseFacts) -> list[str]:
    lines = []
    for requirement, description in facts.requirements.items():
        verdict, plans = requirement_verdict(requirement, facts.plans)
        label = f"{requirement} ({description})" if description else requirement
        evidence = ", ".join(plans) if plans else "no plan summary claims it"
        lines.append(f"- {label}: {verdict} — {evidence}")
    for plan in facts.plans:
        evidence = "; ".join(plan.evidence)
        lines.append(f"- {plan.id}: {plan.verdict}" + (f" — {evidence}" if evidence else ""))
    return lines


def _agents(plans: tuple[PlanFacts, ...]) -> list[str]:
    by_agent: dict[str, list[str]] = {}
    for plan in plans:
        for agent in plan.agents or ("(not recorded)",):
            by_agent.setdefault(agent, []).append(plan.id)
    return [f"- {agent}: {', '.join(ids)}" for agent, ids in by_agent.items()]


class Compaction(NamedTuple):
    path: Path
    text: str
    report: CheckReport
    written: bool


def compact(
    root: Path,
    selector: str | int,
    today: dt.date,
    *,
    force: bool = False,
    dry_run: bool = False,
    catalog: Catalog | None = None,
) -> Compaction:
    """Build a phase's COMPACTED.md and write it (never over an existing one without `force`);
    the SUMMARY and PLAN files are only read."""
    facts = gather(root, selector, catalog)
    require_compactable(facts, force=force)
    path = facts.phase.compacted
    text = render(facts, today)
    report = check_text(facts, text, path)
    if dry_run:
        return Compaction(path, text, report, written=False)
    if path.exists() and not force:
        raise LegionMemoryError(
            "a compacted summary already exists", where=str(path), hint="use --force to replace it"
        )
    try:
        writing.atomic_write(path, text)
    except WriteError as exc:
        raise WriteError(exc.message, where=exc.where, record=text.rstrip("\n")) from exc
    return Compaction(path, text, report, written=True)


class Uncompacted(NamedTuple):
    number: int
    directory: Path
    summaries: int
    milestone: str = ""

    @property
    def name(self) -> str:
        """What `compact` takes to name this phase: `6`, or `v1.0/06-name` when archived."""
        return f"{self.milestone}/{self.directory.name}" if self.milestone else str(self.number)

    @property
    def suggestion(self) -> str:
        where = f" ({self.milestone})" if self.milestone else ""
        summaries = count_of(self.summaries, "uncompacted summary", "uncompacted summaries")
        return f"Phase {self.number}{where} has {summaries}. Compact now?"

    def to_json(self) -> dict[str, object]:
        return {
            "phase": self.number,
            "milestone": self.milestone,
            "directory": self.directory.name,
            "summaries": self.summaries,
        }


def uncompacted(root: Path, *, exclude: int | None = None) -> list[Uncompacted]:
    """Phase directories (current and archived) Complete in their ROADMAP with summaries but no
    COMPACTED.md; `exclude` is the current milestone's phase of that number."""
    roadmaps = load_roadmaps(root)
    found = []
    for directory in phase_directories(root):
        entry = roadmaps.entry(
            directory.number, directory.milestone, directory.directory.name.partition("-")[2]
        )
        current = not directory.milestone and directory.number == exclude
        if current or entry is None or not entry.complete:
            continue
        phase = phase_at(root, directory)
        if phase.summaries and not phase.compacted.exists():
            found.append(
                Uncompacted(phase.number, phase.directory, len(phase.summaries), phase.milestone)
            )
    return found


def phase_context(root: Path, selector: str | int) -> tuple[list[Path], str]:
    """The spec's recall integration: COMPACTED.md when present, else the summaries in plan
    order, each introduced by a comment naming its file. A BOM an editor saved is no text of
    theirs: left out, not printed into the middle of the context."""
    phase = find_phase(root, selector)
    compacted = reading.read_text(phase.compacted)
    if compacted is not None:
        return [phase.compacted], compacted.removeprefix(BOM)
    parts = []
    for path in phase.summaries:
        text = (reading.read_text(path) or "").removeprefix(BOM)
        parts.append(f"<!-- {path.relative_to(root)} -->\n{text.rstrip()}\n")
    return phase.summaries, "\n".join(parts)

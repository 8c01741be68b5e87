"""Phase compaction: the deterministic COMPACTED.md scaffold, its coverage check, and what is due.

The memory-manager skill (docs/memory-manager-SKILL.md, Section 12) has an agent summarise a
completed phase. The tool does every part that needs no judgement: it gathers deliverables,
decisions, files, verification results and agents from the SUMMARY files into the spec's format,
so an agent only refines the prose, and it checks any COMPACTED.md (written here or edited later)
for lost requirement IDs and file paths.
"""

import datetime as dt
import re
from pathlib import Path
from typing import NamedTuple

from legion_memory.errors import LegionMemoryError, WriteError
from legion_memory.markdown.document import escape
from legion_memory.markdown.frontmatter import Value, split_front_matter, strings
from legion_memory.project.phase_files import FileChange, phase_files
from legion_memory.project.phases import (
    Phase,
    PlanDocument,
    RoadmapEntry,
    find_phase,
    phase_directories,
    plan_agents,
    plan_documents,
    read_roadmap,
    requirement_claims,
    summaries,
)
from legion_memory.project.summary_facts import FAIL, PlanFacts, plan_facts, requirement_verdict
from legion_memory.storage import reading, writing

FRONT_MATTER_KEYS = ("phase", "compacted", "original_summaries", "requirements_satisfied")
SECTIONS = ("Deliverables", "Decisions", "Files Modified", "Verification", "Agents")
TARGET_PERCENT = (30, 50)
_PLACEHOLDER = re.compile(r"\{[A-Za-z_][^{}\n]{0,60}\}")
_CODE = re.compile(r"```.*?```|`[^`\n]*`", re.DOTALL)


class PhaseFacts(NamedTuple):
    """Everything the compacted summary of one phase is built from."""

    phase: Phase
    roadmap: RoadmapEntry | None
    documents: tuple[PlanDocument, ...]
    plans: tuple[PlanFacts, ...]
    requirements: dict[str, str]
    files: tuple[FileChange, ...]

    @property
    def title(self) -> str:
        if self.roadmap and self.roadmap.name:
            return self.roadmap.name
        return " ".join(word[:1].upper() + word[1:] for word in self.phase.slug.split("-"))

    @property
    def original_chars(self) -> int:
        return sum(len(document.text) for document in self.documents)


def gather(root: Path, number: int) -> PhaseFacts:
    """Read a phase: its summaries, plans, ROADMAP entry, requirement IDs and agent files."""
    phase = find_phase(root, number)
    roadmap = read_roadmap(root).get(number)
    documents = summaries(phase)
    plans = plan_documents(phase)
    facts = []
    requirements = dict.fromkeys(roadmap.requirements if roadmap else (), "")
    for document in documents:
        plan = plans.get(document.plan)
        claims = {**(requirement_claims(plan) if plan else {}), **requirement_claims(document)}
        for requirement, description in claims.items():
            if not requirements.get(requirement):
                requirements[requirement] = description
        facts.append(plan_facts(document, plan_agents(document, plan), tuple(claims)))
    files = phase_files(documents)
    return PhaseFacts(phase, roadmap, tuple(documents), tuple(facts), requirements, tuple(files))


def require_compactable(facts: PhaseFacts, *, force: bool) -> None:
    """The spec's preconditions: every PLAN has its SUMMARY (always), the phase is Complete
    in ROADMAP.md (unless forced)."""
    phase = facts.phase
    if phase.missing_summaries:
        raise LegionMemoryError(
            f"phase {phase.number} has no SUMMARY for plan(s) {', '.join(phase.missing_summaries)}",
            where=str(phase.directory),
            hint="compact a phase only after all its plans have run",
        )
    if not facts.documents:
        raise LegionMemoryError(
            f"phase {phase.number} has no SUMMARY files", where=str(phase.directory)
        )
    if not force and not (facts.roadmap and facts.roadmap.complete):
        status = facts.roadmap.status if facts.roadmap and facts.roadmap.status else "not listed"
        raise LegionMemoryError(
            f"phase {phase.number} is not marked Complete in ROADMAP.md (status: {status})",
            hint="use --force to compact it anyway",
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
    return f"{head}: {plan.gist}" if plan.gist else head


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


class CheckReport(NamedTuple):
    """The coverage check of a COMPACTED.md against its phase's originals."""

    path: Path
    compacted_chars: int
    original_chars: int
    requirements_total: int
    files_total: int
    missing_requirements: list[str]
    missing_files: list[str]
    missing_front_matter: list[str]
    placeholders: list[str]
    missing_sections: list[str]

    @property
    def percent(self) -> int:
        return round(100 * self.compacted_chars / self.original_chars) if self.original_chars else 0

    @property
    def ok(self) -> bool:
        problems = (self.missing_requirements, self.missing_files, self.missing_front_matter)
        return not any(problems) and not self.placeholders

    @property
    def warnings(self) -> list[str]:
        low, high = TARGET_PERCENT
        found = [f"section '## {name}' is missing" for name in self.missing_sections]
        if not low <= self.percent <= high:
            found.append(f"length is {self.percent}% of the originals (target {low}-{high}%)")
        return found

    def to_json(self) -> dict[str, object]:
        return {
            "file": str(self.path),
            "ok": self.ok,
            "missing_requirements": self.missing_requirements,
            "missing_files": self.missing_files,
            "missing_front_matter": self.missing_front_matter,
            "placeholders": self.placeholders,
            "requirements_total": self.requirements_total,
            "files_total": self.files_total,
            "length_percent": self.percent,
            "compacted_chars": self.compacted_chars,
            "original_chars": self.original_chars,
            "warnings": self.warnings,
        }


def check_text(facts: PhaseFacts, text: str, path: Path) -> CheckReport:
    """Every requirement ID and file path present, front-matter complete, no `{placeholder}`."""
    searchable = text.replace("\\|", "|")
    front, body = split_front_matter(text)
    originals = "\n".join(document.text for document in facts.documents)
    headings = {m.strip().casefold() for m in re.findall(r"^##\s+(.+)$", body, re.MULTILINE)}
    return CheckReport(
        path=path,
        compacted_chars=len(text),
        original_chars=facts.original_chars,
        requirements_total=len(facts.requirements),
        files_total=len({change.path for change in facts.files}),
        missing_requirements=[
            r for r in facts.requirements if not re.search(rf"\b{re.escape(r)}\b", searchable)
        ],
        missing_files=list(dict.fromkeys(c.path for c in facts.files if c.path not in searchable)),
        missing_front_matter=[key for key in FRONT_MATTER_KEYS if not _filled(front, key)],
        placeholders=[
            found
            for found in dict.fromkeys(_PLACEHOLDER.findall(_CODE.sub("", text)))
            if found not in originals
        ],
        missing_sections=[name for name in SECTIONS if name.casefold() not in headings],
    )


def _filled(front: dict[str, Value], key: str) -> bool:
    if key not in front:
        return False
    value = front[key]
    if key == "requirements_satisfied":
        return isinstance(value, list)
    if key == "compacted":
        return isinstance(value, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", value) is not None
    return bool(strings(value))


def check(root: Path, number: int) -> CheckReport:
    facts = gather(root, number)
    path = facts.phase.compacted
    text = reading.read_text(path)
    if text is None:
        raise LegionMemoryError(
            f"phase {number} has no {path.name}",
            where=str(path.parent),
            hint=f"run `legion-memory compact {number}` first",
        )
    return check_text(facts, text, path)


class Compaction(NamedTuple):
    path: Path
    text: str
    report: CheckReport
    written: bool


def compact(
    root: Path, number: int, today: dt.date, *, force: bool = False, dry_run: bool = False
) -> Compaction:
    """Build a phase's COMPACTED.md and write it (never over an existing one without `force`);
    the SUMMARY files are only read."""
    facts = gather(root, number)
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

    @property
    def suggestion(self) -> str:
        return f"Phase {self.number} has {self.summaries} uncompacted summaries. Compact now?"

    def to_json(self) -> dict[str, object]:
        return {"phase": self.number, "directory": self.directory.name, "summaries": self.summaries}


def uncompacted(root: Path, *, exclude: int | None = None) -> list[Uncompacted]:
    """Phases Complete in ROADMAP.md whose directory has summaries but no COMPACTED.md."""
    roadmap = read_roadmap(root)
    found = []
    for number in sorted(phase_directories(root)):
        entry = roadmap.get(number)
        if number == exclude or entry is None or not entry.complete:
            continue
        phase = find_phase(root, number)
        if phase.summaries and not phase.compacted.exists():
            found.append(Uncompacted(number, phase.directory, len(phase.summaries)))
    return found


def phase_context(root: Path, number: int) -> tuple[list[Path], str]:
    """The spec's recall integration: COMPACTED.md when present, else the summaries in plan
    order, each introduced by a comment naming its file."""
    phase = find_phase(root, number)
    compacted = reading.read_text(phase.compacted)
    if compacted is not None:
        return [phase.compacted], compacted
    parts = []
    for path in phase.summaries:
        text = reading.read_text(path) or ""
        parts.append(f"<!-- {path.relative_to(root)} -->\n{text.rstrip()}\n")
    return phase.summaries, "\n".join(parts)

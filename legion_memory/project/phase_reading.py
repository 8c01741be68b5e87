"""Everything one phase's planning files say, read once: its plans' facts (through the plan
reader `summary_facts`), its ROADMAP entry, requirement IDs and the files its agents changed."""

from pathlib import Path

from legion_memory.named_tuple import NamedTuple
from legion_memory.project.catalog import Catalog
from legion_memory.project.phase_files import FileChange
from legion_memory.project.phases import (
    Phase,
    PlanDocument,
    find_phase,
    plan_documents,
    requirement_claims,
    summaries,
)
from legion_memory.project.roadmap import RoadmapEntry, load_roadmaps
from legion_memory.project.summary_facts import PlanFacts, plan_facts


class PhaseFacts(NamedTuple):
    """Everything the compacted summary of one phase is built from and checked against."""

    phase: Phase
    roadmap: RoadmapEntry | None
    documents: tuple[PlanDocument, ...]
    plans: tuple[PlanFacts, ...]
    requirements: dict[str, str]
    files: tuple[FileChange, ...]
    sources: tuple[PlanDocument, ...] = ()
    """Every SUMMARY and PLAN read: the check's second source of file paths."""

    @property
    def title(self) -> str:
        if self.roadmap and self.roadmap.name:
            return self.roadmap.name
        return " ".join(word[:1].upper() + word[1:] for word in self.phase.slug.split("-"))

    @property
    def original_chars(self) -> int:
        return sum(len(document.text) for document in self.documents)


def known_agents(catalog: Catalog | None) -> dict[str, str] | None:
    """Casefolded catalog ID -> its catalog form; None without a catalog."""
    return {agent.casefold(): agent for agent in catalog.agents} if catalog else None


def gather(root: Path, selector: str | int, catalog: Catalog | None = None) -> PhaseFacts:
    """Read a phase: its summaries and plans, its ROADMAP entry (its milestone's for an archived
    or older phase), the requirement IDs they claim and the files its agents changed."""
    phase = find_phase(root, selector)
    roadmap = load_roadmaps(root).entry(phase.number, phase.milestone, phase.slug)
    documents = summaries(phase)
    plans = plan_documents(phase)
    known = known_agents(catalog)
    facts = [plan_facts(document, plans.get(document.plan), known) for document in documents]
    requirements = dict.fromkeys(roadmap.requirements if roadmap else (), "")
    read = [(plans.get(document.plan), document) for document in documents]
    for document in [part for pair in read for part in pair if part is not None]:
        for requirement, description in requirement_claims(document).items():
            if not requirements.get(requirement):
                requirements[requirement] = description
    files = tuple(change for plan in facts for change in plan.files)
    sources = (*documents, *plans.values())
    return PhaseFacts(phase, roadmap, tuple(documents), tuple(facts), requirements, files, sources)

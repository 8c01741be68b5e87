"""Manual edits to agent output: files changed in the working tree that a phase's agents modified.

Legion's build workflow intersects `git diff --name-only` with the files the phase's SUMMARY and
PLAN files list, and stores one corrective `manual-edit` preference per file, worded exactly as
its callers word it, with a `+N/-N lines` summary instead of the diff itself.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from pathlib import Path, PurePosixPath

from legion_memory.errors import GitError
from legion_memory.gitops.repository import diff_numstat
from legion_memory.named_tuple import NamedTuple
from legion_memory.project.phases import (
    PLAN,
    SUMMARY,
    Phase,
    document_of,
    find_phase,
    plan_agents,
    read_planning_file,
)
from legion_memory.schema.kinds import PREFERENCE, new_record
from legion_memory.schema.records import Record
from legion_memory.storage import reading, writing

TYPE_CHECKING = False  # not typing's: docs/decisions.md#hot-paths-without-typing
if TYPE_CHECKING:
    from legion_memory.project.catalog import Catalog

DECISION_POINT = "manual-edit"
UNKNOWN_AGENT = "system"


class ManualEdit(NamedTuple):
    """A file the user changed after an agent of `plan` modified it."""

    path: str
    plan: str
    agents: tuple[str, ...]
    added: int | None
    deleted: int | None

    @property
    def agent(self) -> str:
        return ", ".join(self.agents) or UNKNOWN_AGENT

    @property
    def lines(self) -> str:
        if self.added is None or self.deleted is None:
            return "binary file changed"
        return f"+{self.added}/-{self.deleted} lines"

    def preference(
        self, phase: int, today: dt.date, branch: str, divisions: Mapping[str, str]
    ) -> dict[str, str]:
        """The preference's field values, in the words Legion's build workflow uses."""
        extension = PurePosixPath(self.path).suffix.lstrip(".").lower()
        tags = [DECISION_POINT, extension, *(divisions.get(agent, "") for agent in self.agents)]
        return {
            "date": today.isoformat(),
            "branch": branch,
            "decision_point": DECISION_POINT,
            "context": f"Phase {phase}, post-build manual edit to {self.path}",
            "proposed": f"Agent output for {self.path} (see plan SUMMARY.md)",
            "user_choice": f"User edited {self.path} — {self.lines}",
            "signal": "corrective",
            "agent": self.agent,
            "tags": ", ".join(dict.fromkeys(tag for tag in tags if tag)),
        }

    def to_json(self) -> dict[str, object]:
        return {
            "file": self.path,
            "plan": self.plan,
            "agent": self.agent,
            "added": self.added,
            "deleted": self.deleted,
            "change": self.lines,
        }


def owners(
    phase: Phase, texts: Mapping[Path, str], catalog: Catalog | None = None
) -> dict[str, tuple[str, tuple[str, ...]]]:
    """Each agent-modified file -> (plan, agents) of the last plan that lists it, read by the
    plan reader from the phase's `planning_texts`; a plan still without its SUMMARY by its PLAN
    alone."""
    from legion_memory.project.phase_files import agent_files
    from legion_memory.project.phase_reading import known_agents
    from legion_memory.project.summary_facts import plan_facts

    known = known_agents(catalog)
    documents = {
        plan.id: document_of(texts[plan.summary], plan.summary, plan.id, SUMMARY)
        for plan in phase.plans
        if plan.summary
    }
    plans = {
        plan.id: document_of(texts[plan.plan], plan.plan, plan.id, PLAN)
        for plan in phase.plans
        if plan.plan
    }
    found: dict[str, tuple[str, tuple[str, ...]]] = {}
    for plan_files in phase.plans:
        summary, plan = documents.get(plan_files.id), plans.get(plan_files.id)
        if summary is not None:
            facts = plan_facts(summary, plan, known)
            agents, changes = facts.agents, list(facts.files)
        else:
            agents = plan_agents(None, plan, known)
            changes = agent_files(plan) if plan else []
        for change in changes:
            found[change.path] = (plan_files.id, agents)
    return found


def planning_texts(phase: Phase) -> dict[Path, str]:
    """The text of each SUMMARY, then each PLAN file of the phase, in plan order: read (and
    refused when unreadable) in the order the plan reader reads them."""
    summaries = [plan.summary for plan in phase.plans if plan.summary]
    plans = [plan.plan for plan in phase.plans if plan.plan]
    return {path: read_planning_file(path) for path in (*summaries, *plans)}


# A planning file's text reaches a listed path through markdown and front-matter readers that
# only change text at these characters (escapes, entities, inline HTML, `<br>` in cells).
_TRANSFORMING = ("\\", "&", "<", "\0")


def may_list(texts: Iterable[str], paths: Iterable[str]) -> bool:
    """Whether any of `paths` could be a file the texts list: false only when no text holds the
    path's last part, and no text holds a character its readers would change
    (docs/decisions.md#detect-edits-prefilter)."""
    held = list(texts)
    if any(mark in text for text in held for mark in _TRANSFORMING):
        return True
    return any(path.rpartition("/")[2] in text for path in paths for text in held)


def detect(root: Path, selector: str | int, catalog: Catalog | None = None) -> list[ManualEdit]:
    """Files changed in the working tree (unstaged) that the phase's agents modified."""
    phase = find_phase(root, selector)
    texts = planning_texts(phase)
    stats = diff_numstat(root)
    if stats is None:
        raise GitError(
            "git diff failed", where=str(root), hint="run detect-edits inside a git repository"
        )
    if not may_list(texts.values(), (stat.path for stat in stats)):
        return []  # no changed file can be one the plans list: their markdown is not read
    modified = owners(phase, texts, catalog)
    return [
        ManualEdit(stat.path, *modified[stat.path], stat.added, stat.deleted)
        for stat in stats
        if stat.path in modified
    ]


class Recorded(NamedTuple):
    edit: ManualEdit
    record: Record
    new: bool


def record(
    memory: reading.Memory,
    edits: list[ManualEdit],
    phase: int,
    today: dt.date,
    branch: str,
    divisions: Mapping[str, str],
) -> list[Recorded]:
    """Store one corrective preference per edit; an identical one already stored is reused."""
    existing = reading.load_records(memory, PREFERENCE)
    results = []
    for edit in edits:
        values = edit.preference(phase, today, branch, divisions)
        same = next((r for r in existing if _same_edit(r, values)), None)
        if same is not None:
            results.append(Recorded(edit, same, new=False))
            continue
        stored = writing.append(memory, new_record(PREFERENCE, values))
        existing.append(stored)
        results.append(Recorded(edit, stored, new=True))
    return results


def _same_edit(record: Record, values: Mapping[str, str]) -> bool:
    keys = ("decision_point", "context", "user_choice")
    return all(record[key] == values[key] for key in keys)


def division_tags(catalog: Catalog | None) -> dict[str, str]:
    """Agent ID -> its division as a tag (`Project Management` -> `project-management`); {}
    without a catalog."""
    if catalog is None:
        return {}
    return {agent.id: "-".join(agent.division.lower().split()) for agent in catalog.agents.values()}

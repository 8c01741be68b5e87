"""The outcome a SUMMARY file reports, for `store outcome --from-summary`: plan, phase, agent,
outcome, a one-line summary and tags, read by the same plan reader compaction uses.

Flags given on the command line win over what the file says (`--event plan-partial` over a
`Complete` status); a fact neither gives is refused naming that one field.
"""

import re
from collections.abc import Mapping
from pathlib import Path, PurePosixPath

from legion_memory.errors import InputError
from legion_memory.markdown.frontmatter import Value
from legion_memory.named_tuple import NamedTuple
from legion_memory.project.catalog import Catalog
from legion_memory.project.phase_reading import known_agents
from legion_memory.project.phases import PLAN, SUMMARY, PlanDocument, document_of, read_document
from legion_memory.project.summary_facts import plan_facts
from legion_memory.project.verdict import outcome_of_status

__all__ = [
    "SummaryFacts",
    "merged_values",
    "outcome_of_status",
    "read_summary_facts",
    "summary_facts",
]

_PLAN_IN_TEXT = re.compile(r"\bPlan\s+(\d+)-(\d+)\b", re.IGNORECASE)
_PHASE_PLAN_IN_TEXT = re.compile(r"\bPhase\s+(\d+)[,:]?\s+Plan\s+(\d+)\b", re.IGNORECASE)
_PHASE_DASH_PLAN = re.compile(r"\bPhase\s+(\d+)-(\d+)\b", re.IGNORECASE)
_PLAN_IN_NAME = re.compile(r"^(\d+)-(\d+)-SUMMARY", re.IGNORECASE)
_PLAN_ID = re.compile(r"^(\d+)-(\d+)$")
_PHASE_DIR = re.compile(r"^\d+-([a-z0-9][\w.-]*)$", re.IGNORECASE)
_EVENT_OUTCOME = re.compile(r"^plan-(success|partial|failed)$")
FIELDS = ("phase", "plan", "agent", "outcome", "summary")


class SummaryFacts(NamedTuple):
    plan: str | None = None
    phase: str | None = None
    agent: str | None = None
    outcome: str | None = None
    status: str | None = None
    summary: str | None = None
    tags: str = ""


def read_summary_facts(path: Path, catalog: Catalog | None = None) -> SummaryFacts:
    """The facts of a SUMMARY file together with its sibling PLAN file."""
    if not path.is_file():
        raise InputError(f"--from-summary '{path}' cannot be read", hint="give a SUMMARY.md path")
    plan_path = path.with_name(re.sub("SUMMARY", "PLAN", path.name, flags=re.IGNORECASE))
    summary = read_document(path, "", SUMMARY)
    plan_id = _plan_id(summary, path.name)
    summary = summary._replace(plan=plan_id or "")
    plan = None
    if plan_path != path and plan_path.is_file():
        plan = read_document(plan_path, plan_id or "", PLAN)
    return _facts(summary, plan, catalog)


def summary_facts(
    text: str, filename: str = "", plan_text: str | None = None, catalog: Catalog | None = None
) -> SummaryFacts:
    """The facts of a SUMMARY's text (and its PLAN's), as `read_summary_facts` reads files."""
    path = Path(filename or "SUMMARY.md")
    summary = document_of(text, path, "", SUMMARY)
    plan_id = _plan_id(summary, path.name) or ""
    plan = document_of(plan_text, path, plan_id, PLAN) if plan_text is not None else None
    return _facts(summary._replace(plan=plan_id), plan, catalog)


def _facts(
    summary: PlanDocument, plan: PlanDocument | None, catalog: Catalog | None
) -> SummaryFacts:
    facts = plan_facts(summary, plan, known_agents(catalog))
    agents = facts.agents
    divisions = [catalog.division_of(agent) for agent in agents] if catalog else []
    kinds = [PurePosixPath(change.path).suffix.lstrip(".").lower() for change in facts.files]
    tags = [_phase_slug(summary), *("-".join(d.lower().split()) for d in divisions if d), *kinds]
    plan_id = summary.plan or None
    return SummaryFacts(
        plan=plan_id,
        phase=str(int(plan_id.split("-")[0])) if plan_id else None,
        agent=", ".join(agents) or None,
        outcome=facts.outcome,
        status=facts.status or None,
        summary=facts.gist or None,
        tags=", ".join(dict.fromkeys(tag for tag in tags if tag)),
    )


def _phase_slug(summary: PlanDocument) -> str:
    """`24-foundation` (front-matter `phase`, else the directory) -> `foundation`."""
    for name in (_scalar(summary.value("phase")), summary.path.parent.name):
        if match := _PHASE_DIR.match(name):
            return match.group(1).lower()
    return ""


def _plan_id(summary: PlanDocument, filename: str) -> str | None:
    plan = _scalar(summary.value("plan"))
    if match := _PLAN_ID.match(plan):
        return _format(match.group(1), match.group(2))
    # An inserted phase (`14.1-audit`) is not phase 14: its plan 01 is not 14-01.
    phase = re.match(r"^(\d+)(?![\d.])", _scalar(summary.value("phase")))
    if plan.isdigit() and phase:
        return _format(phase.group(1), plan)
    heading = summary.top.title if summary.top else ""
    for pattern in (_PLAN_IN_TEXT, _PHASE_PLAN_IN_TEXT, _PHASE_DASH_PLAN):
        if match := pattern.search(heading):
            return _format(match.group(1), match.group(2))
    if match := _PLAN_IN_NAME.match(filename):
        return _format(match.group(1), match.group(2))
    return None


def _format(phase: str, plan: str) -> str:
    return f"{int(phase):02d}-{int(plan):02d}"


def _scalar(value: Value | None) -> str:
    return value.strip() if isinstance(value, str) else ""


def merged_values(
    facts: SummaryFacts, flags: Mapping[str, str | None], event: str | None, where: str
) -> dict[str, str]:
    """The outcome's fields: each flag given, else what the SUMMARY says; `--event plan-X`
    stands for `--outcome X`. An InputError names the one field neither gives."""
    found = dict(
        zip(
            FIELDS,
            (facts.phase, facts.plan, facts.agent, facts.outcome, facts.summary),
            strict=True,
        )
    )
    values = {key: flags.get(key) if flags.get(key) is not None else found[key] for key in FIELDS}
    implied = _EVENT_OUTCOME.match(event or "")
    if flags.get("outcome") is None and implied:
        values["outcome"] = implied.group(1)
    if values["outcome"] is None and facts.status:
        raise InputError(
            f"the SUMMARY's status '{facts.status}' is not success, partial or failed",
            where=where,
            hint="give --outcome",
        )
    missing = [key for key in FIELDS if values[key] is None]
    if missing:
        flags_text = ", ".join(f"--{key}" for key in missing)
        raise InputError(
            f"the SUMMARY does not say its {' or '.join(missing)}",
            where=where,
            hint=f"add {flags_text}",
        )
    return {key: value or "" for key, value in values.items()}

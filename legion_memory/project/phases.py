"""A project's phases: `.planning/phases/{NN-name}/`, their plan documents and ROADMAP.md facts.

Only `{NN}-{PP}-SUMMARY.md` and `{NN}-{PP}-PLAN.md` are plan documents; CONTEXT, REVIEW,
VERIFICATION, gap reports and COMPACTED files in the same directory are not.
"""

import re
from pathlib import Path
from typing import NamedTuple

from legion_memory.errors import InputError, LegionMemoryError, ParseError
from legion_memory.markdown.document import parse, row_cells
from legion_memory.markdown.frontmatter import Value, split_front_matter, strings
from legion_memory.markdown.outline import Section, outline, plain
from legion_memory.project.root import confine

PHASES_DIR = Path(".planning") / "phases"
ROADMAP_FILE = Path(".planning") / "ROADMAP.md"
SUMMARY = "SUMMARY"
PLAN = "PLAN"

_PHASE_ARGUMENT = re.compile(r"^\d{1,4}$")
_PHASE_DIR = re.compile(r"^(\d+)-(\S+)$")
_PLAN_FILE = re.compile(r"^(\d+)-(\d+)-(SUMMARY|PLAN)\.md$")
_ID = r"[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)*-\d+[a-z]?"
REQUIREMENT_ID = re.compile(rf"\b{_ID}\b")
_LEADING_IDS = re.compile(rf"^[\s*`]*(?:\[[ xX]\]\s*)?[*`]*({_ID}(?:[\s,/&*`]+(?:and\s+)?{_ID})*)")


def phase_number(text: str) -> int:
    """A PHASE argument: a number only, so that nothing like `../x` can name a directory."""
    if not _PHASE_ARGUMENT.match(text.strip()):
        raise InputError(f"PHASE '{text}' is not a phase number", hint="give a number, e.g. 6")
    return int(text)


class PlanFiles(NamedTuple):
    """One plan of a phase: `06-01` with its PLAN and SUMMARY files (either may be missing)."""

    id: str
    number: int
    plan: Path | None
    summary: Path | None


class Phase(NamedTuple):
    number: int
    directory: Path
    plans: tuple[PlanFiles, ...]

    @property
    def name(self) -> str:
        """The directory name, `06-recommendation-engine-v2`."""
        return self.directory.name

    @property
    def prefix(self) -> str:
        return self.name.partition("-")[0]

    @property
    def slug(self) -> str:
        return self.name.partition("-")[2]

    @property
    def summaries(self) -> list[Path]:
        return [plan.summary for plan in self.plans if plan.summary is not None]

    @property
    def missing_summaries(self) -> list[str]:
        """Plans that have a PLAN file but no SUMMARY yet."""
        return [plan.id for plan in self.plans if plan.plan is not None and plan.summary is None]

    @property
    def compacted(self) -> Path:
        return self.directory / f"{self.prefix}-COMPACTED.md"


def phase_directories(root: Path) -> dict[int, list[Path]]:
    """Every `{NN}-{name}` directory under .planning/phases, by phase number."""
    found: dict[int, list[Path]] = {}
    base = root / PHASES_DIR
    if not base.is_dir():
        return found
    for entry in sorted(base.iterdir()):
        match = _PHASE_DIR.match(entry.name)
        if match and entry.is_dir():
            found.setdefault(int(match.group(1)), []).append(entry)
    return found


def find_phase(root: Path, number: int) -> Phase:
    """The phase directory for a number; an error naming what is wrong when there is none."""
    candidates = phase_directories(root).get(number, [])
    if not candidates:
        raise LegionMemoryError(
            f"no directory for phase {number}",
            where=str(root / PHASES_DIR),
            hint=f"expected .planning/phases/{number:02d}-<name>/",
        )
    if len(candidates) > 1:
        names = ", ".join(path.name for path in candidates)
        raise LegionMemoryError(f"phase {number} has several directories: {names}")
    directory = confine(root, candidates[0].relative_to(root))
    return Phase(number, directory, _plans(directory, number))


def _plans(directory: Path, number: int) -> tuple[PlanFiles, ...]:
    files: dict[int, dict[str, Path]] = {}
    ids: dict[int, str] = {}
    for entry in sorted(directory.iterdir()):
        match = _PLAN_FILE.match(entry.name)
        if not match or int(match.group(1)) != number or not entry.is_file():
            continue
        plan = int(match.group(2))
        files.setdefault(plan, {})[match.group(3)] = entry
        ids.setdefault(plan, f"{match.group(1)}-{match.group(2)}")
    return tuple(
        PlanFiles(ids[plan], plan, files[plan].get(PLAN), files[plan].get(SUMMARY))
        for plan in sorted(files)
    )


class PlanDocument(NamedTuple):
    """A SUMMARY or PLAN file read as front-matter plus an outline of its body."""

    plan: str
    kind: str
    path: Path
    text: str
    front: dict[str, Value]
    sections: tuple[Section, ...]

    def value(self, *keys: str) -> Value | None:
        """The first front-matter value present under any of `keys`."""
        return next((self.front[key] for key in keys if key in self.front), None)


def read_document(path: Path, plan: str, kind: str) -> PlanDocument:
    text = read_planning_file(path)
    front, body = split_front_matter(text)
    return PlanDocument(plan, kind, path, text, front, tuple(outline(body)))


def summaries(phase: Phase) -> list[PlanDocument]:
    """The phase's SUMMARY documents in plan order."""
    return [read_document(plan.summary, plan.id, SUMMARY) for plan in phase.plans if plan.summary]


def plan_documents(phase: Phase) -> dict[str, PlanDocument]:
    """The phase's PLAN documents by plan ID."""
    return {plan.id: read_document(plan.plan, plan.id, PLAN) for plan in phase.plans if plan.plan}


def read_planning_file(path: Path) -> str:
    """A planning file's text; one clear error when it cannot be read."""
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ParseError("file is not valid UTF-8", where=str(path)) from exc
    except OSError as exc:
        raise ParseError(f"cannot read: {exc.strerror or exc}", where=str(path)) from exc


class RoadmapEntry(NamedTuple):
    """What ROADMAP.md says about one phase."""

    number: int
    name: str = ""
    status: str = ""
    requirements: tuple[str, ...] = ()

    @property
    def complete(self) -> bool:
        return self.status.casefold() in {"complete", "shipped"}


_STATUS_NOISE = re.compile(r"\*|✓|✔|✅|\(archived\)", re.IGNORECASE)
_PHASE_CELL = re.compile(r"^\W*(?:phase\s+)?0*(\d+)\b[\s:.—\u2013-]*(.*)$", re.IGNORECASE)
_PHASE_HEADING = re.compile(r"^(#{1,6})\s+Phase\s+0*(\d+)\s*[:.—\u2013-]\s*(.+?)\s*#*\s*$")
_ANY_HEADING = re.compile(r"^(#{1,6})\s")
_REQUIREMENTS_LINE = re.compile(r"^\s*(?:[-*]\s+)?\**Requirements\**\s*:?\**\s*:?(.*)$")


def normalise_status(cell: str) -> str:
    """`**✓ Complete** (Archived)` -> `Complete`."""
    return " ".join(_STATUS_NOISE.sub("", cell).split())


def read_roadmap(root: Path) -> dict[int, RoadmapEntry]:
    """Phase entries from ROADMAP.md (progress table + phase details); {} when there is none."""
    if not (root / ROADMAP_FILE).is_file():
        return {}
    text = read_planning_file(root / ROADMAP_FILE)
    progress = _progress(text)
    details = _details(text)
    entries: dict[int, RoadmapEntry] = {}
    for number in sorted({*progress, *details}):
        table_name, status = progress.get(number, ("", ""))
        heading_name, requirements = details.get(number, ("", ()))
        entries[number] = RoadmapEntry(number, heading_name or table_name, status, requirements)
    return entries


def _progress(text: str) -> dict[int, tuple[str, str]]:
    """Phase -> (name, normalised status) from every table with Phase and Status header cells."""
    document = parse(text)
    found: dict[int, tuple[str, str]] = {}
    for table in document.tables:
        names = [cell.replace("*", "").strip().casefold() for cell in table.columns]
        if "phase" not in names or "status" not in names:
            continue
        phase_at, status_at = names.index("phase"), names.index("status")
        for index in table.rows:
            cells = row_cells(document, index)
            if max(phase_at, status_at) >= len(cells):
                continue
            match = _PHASE_CELL.match(cells[phase_at].replace("*", ""))
            if match and int(match.group(1)) not in found:
                name = match.group(2).strip()
                found[int(match.group(1))] = (name, normalise_status(cells[status_at]))
    return found


def _details(text: str) -> dict[int, tuple[str, tuple[str, ...]]]:
    """Phase -> (name, requirement IDs) from `### Phase N: Name` sections."""
    found: dict[int, tuple[str, tuple[str, ...]]] = {}
    current: tuple[int, int] | None = None  # (phase, heading level)
    for line in text.split("\n"):
        heading = _PHASE_HEADING.match(line)
        if heading:
            current = (int(heading.group(2)), len(heading.group(1)))
            found.setdefault(current[0], (heading.group(3).strip(), ()))
            continue
        other = _ANY_HEADING.match(line)
        if other and current and len(other.group(1)) <= current[1]:
            current = None
        requirements = _REQUIREMENTS_LINE.match(line)
        if current and requirements:
            name, ids = found[current[0]]
            found[current[0]] = (name, _unique([*ids, *REQUIREMENT_ID.findall(requirements[1])]))
    return found


def _unique(values: list[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(values))


def requirement_claims(document: PlanDocument) -> dict[str, str]:
    """Requirement IDs a plan document claims, with a description when it gives one.

    Claims are front-matter `requirements*` keys and the leading IDs of the lines of a
    `## Requirements` section; IDs merely mentioned in prose (other phases) are not claims."""
    claims: dict[str, str] = {}
    for key, value in document.front.items():
        if key.casefold().startswith("requirements"):
            for text in strings(value):
                for found in REQUIREMENT_ID.findall(text):
                    claims.setdefault(found, "")
    if document.kind != SUMMARY:
        return claims
    for section in document.sections:
        if section.key.startswith("requirements"):
            lines = [*section.lines(), *(item.text for item in section.items())]
            for line in lines:
                for found, description in _leading_ids(line):
                    if not claims.get(found):
                        claims[found] = description
    return claims


def _leading_ids(text: str) -> list[tuple[str, str]]:
    match = _LEADING_IDS.match(text)
    if not match:
        return []
    description = plain(text[match.end() :]).lstrip(":—\u2013- ").strip()
    return [(found, description) for found in REQUIREMENT_ID.findall(match.group(1))]


_AGENT_ID = re.compile(r"^[a-z0-9][a-z0-9._-]*$")
_AGENT_HEADING = re.compile(r"^agents?\s*:\s*(.+)$", re.IGNORECASE)
_AGENT_LINE = re.compile(r"^\**Agents?\**\s*:\s*\**\s*(.+)$")
_PLAN_AGENT = re.compile(r"\bAgent:\s*\**\s*`?([a-z0-9][a-z0-9._-]*)`?")


def plan_agents(summary: PlanDocument | None, plan: PlanDocument | None) -> tuple[str, ...]:
    """Who executed a plan: the SUMMARY's agent, else the PLAN's, else `autonomous` when the
    PLAN says so; () when neither file tells."""
    if summary is not None:
        found = _summary_agents(summary)
        if found:
            return found
    if plan is None:
        return ()
    listed = agent_ids(strings(plan.value("agents", "agent")))
    if listed:
        return listed
    in_body = agent_ids(_PLAN_AGENT.findall(plan.text))
    if in_body:
        return in_body
    return ("autonomous",) if plan.value("autonomous") == "true" else ()


def _summary_agents(summary: PlanDocument) -> tuple[str, ...]:
    listed = agent_ids(strings(summary.value("agent", "agents", "assigned_agent")))
    if listed:
        return listed
    for section in summary.sections:
        heading = _AGENT_HEADING.match(section.title)
        if heading:
            return agent_ids([heading.group(1)])
        if section.key in {"agent", "agents", "assigned agent"}:
            return agent_ids([*section.paragraphs(), *(item.text for item in section.items())])
        for text in section.lines():
            line = _AGENT_LINE.match(text)
            if line:
                return agent_ids([line.group(1)])
    return ()


def agent_ids(texts: list[str]) -> tuple[str, ...]:
    """Agent IDs from free text: `a, b`, `a and b`, `` `a` `` -> (a, b)."""
    found: list[str] = []
    for text in texts:
        for raw in re.split(r"[,\s]+|\band\b", plain(text)):
            word = raw.strip("()[]:;.")
            if _AGENT_ID.match(word) and ("-" in word or word in {"autonomous", "system"}):
                found.append(word)
    return _unique(found)

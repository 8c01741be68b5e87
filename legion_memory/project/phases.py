"""A project's phases: `.planning/phases/{NN-name}/` and the archived directories of earlier
milestones under `.planning/archive/` (numbers repeat), their plan documents, agents and claims.

A phase is identified by its directory; a number names it when one directory has it
(docs/decisions.md#reused-phase-numbers). Only `{NN}-{PP}-SUMMARY.md` and `{NN}-{PP}-PLAN.md`
are plan documents; CONTEXT, REVIEW, VERIFICATION, gap reports and COMPACTED files are not.
"""

import re
from collections.abc import Mapping
from pathlib import Path

from legion_memory.errors import InputError, LegionMemoryError, ParseError
from legion_memory.markdown.frontmatter import Value, split_front_matter, strings
from legion_memory.markdown.outline import LazyOutline, Section, heading_text, plain
from legion_memory.named_tuple import NamedTuple
from legion_memory.project.root import confine, read_project_text

PHASES_DIR = Path(".planning") / "phases"
ARCHIVE_DIR = Path(".planning") / "archive"
SUMMARY = "SUMMARY"
PLAN = "PLAN"

_PHASE_ARGUMENT = re.compile(r"^\d{1,4}$")
_PHASE_NAME_ARGUMENT = re.compile(r"^(?:(v\d+(?:\.\d+)*)/)?(\d{1,4}(?:-[\w.]+(?:-[\w.]+)*)?)$")
# A path a shell completes: `.planning/phases/06-name/`; its last part names a phase directory.
_PHASE_PATH = re.compile(r"^(?:.*/)?(\d{1,4}-[\w.]+(?:-[\w.]+)*)/*$")
_MILESTONE_PART = re.compile(r"(v\d+(?:\.\d+)*)", re.IGNORECASE)
_ARCHIVE_DEPTH = 4
_PHASE_DIR = re.compile(r"^(\d+)-(\S+)$")
_PLAN_FILE = re.compile(r"^(\d+)-(\d+)-(SUMMARY|PLAN)\.md$")
_ID = r"[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)*-\d+[a-z]?"
REQUIREMENT_ID = re.compile(rf"\b{_ID}\b")
LETTER_RUNS = re.compile(r"[^\W\d_]+")  # words without marks: `✅ Complete` is one
_LEADING_IDS = re.compile(rf"^[\s*`]*(?:\[[ xX]\]\s*)?[*`]*({_ID}(?:[\s,/&*`]+(?:and\s+)?{_ID})*)")


def phase_number(text: str) -> int:
    """A PHASE argument that must be a number."""
    if not _PHASE_ARGUMENT.match(text.strip()):
        raise InputError(f"PHASE '{text}' is not a phase number", hint="give a number, e.g. 6")
    return int(text)


def phase_selector(text: str) -> tuple[str | None, str]:
    """A PHASE argument: `6`, a directory name `06-name`, or `v1.0/6` for a milestone's phase,
    as (milestone or None, number or name); or the path of a phase directory, which
    `find_phase` takes only when it is one of the project's (`..` names nothing else)."""
    match = _PHASE_NAME_ARGUMENT.match(text.strip())
    if match is not None:
        return match.group(1), match.group(2)
    path = _PHASE_PATH.match(text.strip())
    if path is None:
        raise InputError(
            f"PHASE '{text}' is not a phase",
            hint="give a number (6), a directory name (06-name) or MILESTONE/N (v1.0/6)",
        )
    return None, path.group(1)


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
    milestone: str = ""
    """`""` for `.planning/phases/`, else the archived milestone (`v1.0`) or archive folder."""

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


class PhaseDirectory(NamedTuple):
    number: int
    directory: Path
    milestone: str = ""

    @property
    def label(self) -> str:
        """`06-name`, or `v1.0/06-name` for an archived phase."""
        return f"{self.milestone}/{self.directory.name}" if self.milestone else self.directory.name


def phase_directories(root: Path) -> list[PhaseDirectory]:
    """Every `{NN}-{name}` directory: `.planning/phases/` first, then archived ones under
    `.planning/archive/` (a few levels deep) that hold plan files."""
    found = [PhaseDirectory(number, entry) for number, entry in _numbered(root / PHASES_DIR)]
    archive = root / ARCHIVE_DIR
    pending = [archive] if archive.is_dir() and not archive.is_symlink() else []
    for _ in range(_ARCHIVE_DEPTH):
        below = []
        for base in pending:
            for number, entry in _numbered(base):
                if any(_PLAN_FILE.match(child.name) for child in entry.iterdir()):
                    found.append(PhaseDirectory(number, entry, _milestone(archive, entry)))
            below += [e for e in sorted(base.iterdir()) if e.is_dir() and not e.is_symlink()]
        pending = below
    return found


def _numbered(base: Path) -> list[tuple[int, Path]]:
    if not base.is_dir():
        return []
    entries = sorted(base.iterdir())
    matches = [(_PHASE_DIR.match(entry.name), entry) for entry in entries]
    return [(int(m.group(1)), entry) for m, entry in matches if m and entry.is_dir()]


def _milestone(archive: Path, directory: Path) -> str:
    """The archive folder's milestone version (`archive/v1.0/phases/01-x` -> `v1.0`), else the
    folder path below the archive."""
    parts = directory.parent.relative_to(archive).parts
    versions = [m.group(1) for part in parts if (m := _MILESTONE_PART.search(part))]
    return versions[0] if versions else "/".join(parts) or ARCHIVE_DIR.name


def find_phase(root: Path, selector: str | int) -> Phase:
    """The phase a PHASE argument names; an error naming what is wrong when none or several do.

    A number means the `.planning/phases/` directory of that number, else the one archived
    directory of that number; a directory name or `MILESTONE/N` picks among several."""
    return phase_at(root, _chosen(root, str(selector)))


def phase_at(root: Path, found: PhaseDirectory) -> Phase:
    """The phase in one directory found by `phase_directories`, with its plan files."""
    directory = confine(root, found.directory.relative_to(root))
    return Phase(found.number, directory, _plans(directory, found.number), found.milestone)


class PhaseNotFound(LegionMemoryError):
    """No directory holds the phase: an error for what works on it, nothing to read for what
    only reads it."""


def _chosen(root: Path, selector: str) -> PhaseDirectory:
    milestone, name = phase_selector(selector)
    if not _PHASE_NAME_ARGUMENT.match(selector.strip()):
        return _at_path(root, selector.strip())
    candidates = [
        found
        for found in phase_directories(root)
        if (found.directory.name == name if "-" in name else found.number == int(name))
        and (milestone is None or found.milestone == milestone)
    ]
    current = [found for found in candidates if not found.milestone]
    if milestone is None and len(current) == 1:
        return current[0]
    if len(candidates) == 1:
        return candidates[0]
    if not candidates:
        expected = f"{int(name):02d}-<name>" if name.isdigit() else name
        raise PhaseNotFound(
            f"no directory for phase {selector}",
            where=str(root / PHASES_DIR),
            hint=f"expected .planning/phases/{expected}/",
        )
    names = ", ".join(found.label for found in candidates)
    raise LegionMemoryError(
        f"phase {selector} has several directories: {names}",
        hint="name one: its directory name, or MILESTONE/N for an archived one",
    )


def _at_path(root: Path, given: str) -> PhaseDirectory:
    """The project's phase directory at a path, from the working directory or the root."""
    places = {Path(given).resolve(), (root / given).resolve()}
    found = [each for each in phase_directories(root) if each.directory.resolve() in places]
    if not found:
        raise PhaseNotFound(
            f"{given} is not one of the project's phase directories",
            where=str(root / PHASES_DIR),
            hint="give a directory under .planning/phases/ or .planning/archive/, or its number",
        )
    return found[0]


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
    body: LazyOutline

    @property
    def sections(self) -> tuple[Section, ...]:
        """The body's sections, read when first asked for."""
        return self.body.sections()

    @property
    def top(self) -> Section | None:
        """The title's section: the H1, else the first heading (a title written as `##`)."""
        sections = self.sections
        first = next((s for s in sections if s.level == 1), None)
        return first or next((s for s in sections if s.level), None)

    def value(self, *keys: str) -> Value | None:
        """The first front-matter value present under any of `keys`."""
        return next((self.front[key] for key in keys if key in self.front), None)


def read_document(path: Path, plan: str, kind: str) -> PlanDocument:
    return document_of(read_planning_file(path), path, plan, kind)


def document_of(text: str, path: Path, plan: str, kind: str) -> PlanDocument:
    front, body = split_front_matter(text)
    return PlanDocument(plan, kind, path, text, front, LazyOutline(body))


def summaries(phase: Phase) -> list[PlanDocument]:
    """The phase's SUMMARY documents in plan order."""
    return [read_document(plan.summary, plan.id, SUMMARY) for plan in phase.plans if plan.summary]


def plan_documents(phase: Phase) -> dict[str, PlanDocument]:
    """The phase's PLAN documents by plan ID."""
    return {plan.id: read_document(plan.plan, plan.id, PLAN) for plan in phase.plans if plan.plan}


def read_planning_file(path: Path) -> str:
    """A planning file's text, without the BOM an editor may have saved it with (else its front
    matter and first heading go unseen); one clear error when it cannot be read."""
    try:
        return read_project_text(path)
    except UnicodeDecodeError as exc:
        raise ParseError("file is not valid UTF-8", where=str(path)) from exc
    except OSError as exc:
        raise ParseError(f"cannot read: {exc.strerror or exc}", where=str(path)) from exc


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
            lines = [*section.lines(), *(item.text for item in section.every_item())]
            rows = [_row_claim(row) for table in section.tables() for row in table.rows if row]
            for line in [*lines, *rows]:
                for found, description in _leading_ids(line):
                    if not claims.get(found):
                        claims[found] = description
    return claims


def _row_claim(row: tuple[str, ...]) -> str:
    """`| REQ-01 | ✅ | cache tests pass |` -> `REQ-01 — cache tests pass`: a status cell
    (`✅`, `Done`) says the claim holds, not what it is."""
    described = [cell for cell in row[1:] if len(LETTER_RUNS.findall(cell)) > 1]
    return " — ".join([row[0], *described])


def _leading_ids(text: str) -> list[tuple[str, str]]:
    match = _LEADING_IDS.match(text)
    if not match:
        return []
    description = plain(text[match.end() :]).lstrip(":—\u2013- ").strip()
    return [(found, description) for found in REQUIREMENT_ID.findall(match.group(1))]


_AGENT_ID = re.compile(r"^[a-z0-9][a-z0-9._-]*$", re.IGNORECASE)
_AGENT_HEADING = re.compile(r"^agents?\s*:\s*(.+)$", re.IGNORECASE)
_AGENT_LINE = re.compile(r"^\**(?:Assigned\s+)?Agents?\**\s*:\s*\**\s*(.+)$", re.IGNORECASE)
# A body line `Agent: id[, id]` and nothing else: "Agent: comma-separated list of ..." is prose.
_PLAN_AGENT = re.compile(
    r"^\W*Agents?\**\s*:\s*\**\s*((?:`?[a-z0-9][a-z0-9._-]*`?(?:\s*,\s*|\s+and\s+)?)+)\W*$",
    re.MULTILINE,
)
AUTONOMOUS = "autonomous"


def plan_agents(
    summary: PlanDocument | None,
    plan: PlanDocument | None,
    known: Mapping[str, str] | None = None,
) -> tuple[str, ...]:
    """Who executed a plan: the SUMMARY's agent, else the PLAN's front-matter agents, else
    `autonomous` when the PLAN says so, else an `Agent:` line of its body; () when none tells.
    `known` (casefolded catalog ID -> catalog form) puts each ID in its catalog form."""
    found: tuple[str, ...] = _summary_agents(summary) if summary is not None else ()
    if not found and plan is not None:
        found = agent_ids(strings(plan.value("agents", "agent")))
        if not found and str(plan.value("autonomous")).casefold() == "true":
            found = (AUTONOMOUS,)
        found = found or agent_ids(_PLAN_AGENT.findall(plan.text))
    return canonical_agents(found, known)


def canonical_agents(agents: tuple[str, ...], known: Mapping[str, str] | None) -> tuple[str, ...]:
    """Agent IDs compared case-insensitively, each in its catalog form (else lower case)."""
    forms = [(known or {}).get(agent.casefold(), agent.casefold()) for agent in agents]
    return _unique(forms)


def _summary_agents(summary: PlanDocument) -> tuple[str, ...]:
    listed = agent_ids(strings(summary.value("agent", "agents", "assigned_agent")))
    if listed:
        return listed
    for section in summary.sections:
        heading = _AGENT_HEADING.match(heading_text(section.title))
        if heading:
            return agent_ids([heading.group(1)])
        if section.key in {"agent", "agents", "agent(s)", "assigned agent", "assigned agents"}:
            return agent_ids([*section.paragraphs(), *(item.text for item in section.items())])
        texts = [*section.lines(), *(plain(item.text) for item in section.items())]
        for text in [*texts, *section.pairs()]:
            line = _AGENT_LINE.match(plain(text))
            if line:
                return agent_ids([line.group(1)])
    return ()


def _unique(values: list[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(values))


def agent_ids(texts: list[str]) -> tuple[str, ...]:
    """Agent IDs from free text: `a, b`, `a and b`, `` `a` `` -> (a, b). A part that is one word
    is an ID (`polymath`); in a longer part only hyphenated words (`x-y`) are."""
    found: list[str] = []
    for text in texts:
        for part in re.split(r",|;|\band\b", plain(text)):
            words = [raw.strip("()[]:;.`*") for raw in part.split()]
            words = [word for word in words if word]
            for word in words:
                named = len(words) == 1 or "-" in word or word.casefold() in {AUTONOMOUS, "system"}
                if named and _AGENT_ID.match(word):
                    found.append(word)
    return _unique(found)

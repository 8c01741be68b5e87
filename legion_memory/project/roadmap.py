"""What ROADMAP.md and the milestone ROADMAPs (`.planning/milestones/vN-ROADMAP.md`) say about
each phase: its name, status and requirement IDs.

Forms read: progress tables with Phase and Status columns (a row shifted by a column included;
the number in a `#` column beside a Phase column that names it; a `1-6. Name` row for a span of
phases), statuses such as `Complete ✓ (reviewed)` or `**Complete** (3/3 plans — ...)`, `### Phase
N: Name` sections with `**Status:**` or `**Phase Status:** ✓ COMPLETE` lines, a status in the
heading itself (`✅`, `(Complete)`, `— Done`; `### ✅ Phase N`) or, failing both, a `**Plans:**
Complete` or `3/3 plans complete` line or a plan list with every box ticked (`- [x] 05-01-PLAN.md`),
`- [x] Phase N: Name` and `- ✅ Phase N: Name` lists
(`Phase 1-5` for a span), and an archived milestone whose head says it is complete. An inserted
`Phase 2.1` is never read as phase 2.
"""

import re
from pathlib import Path

from legion_memory.markdown.document import parse, row_cells
from legion_memory.named_tuple import NamedTuple
from legion_memory.project.phases import REQUIREMENT_ID, read_planning_file

ROADMAP_FILE = Path(".planning") / "ROADMAP.md"
MILESTONES_DIR = Path(".planning") / "milestones"
COMPLETE = "Complete"
_NAME_COLUMNS = ("name", "phase name", "title", "focus")
# A column that may hold the phase number; `phase` may instead name it when `#` numbers it.
_NUMBER_COLUMNS = ("phase", "#", "phase #", "no", "no.", "number", "phase number", "phase no.")
_DONE_WORDS = ("complete", "completed", "shipped", "done", "finished")
_STATUS_WORDS = (*_DONE_WORDS, "in progress", "planned", "not started", "pending", "blocked")


class RoadmapEntry(NamedTuple):
    """What a ROADMAP says about one phase."""

    number: int
    name: str = ""
    status: str = ""
    requirements: tuple[str, ...] = ()
    milestone: str = ""

    @property
    def complete(self) -> bool:
        return is_done(self.status)


class Roadmaps(NamedTuple):
    """The current ROADMAP.md and the milestone ROADMAPs (newest first)."""

    current: dict[int, RoadmapEntry]
    milestones: dict[str, dict[int, RoadmapEntry]]

    def entry(self, number: int, milestone: str = "", slug: str = "") -> RoadmapEntry | None:
        """An archived phase's entry in its milestone's ROADMAP; a current phase's in
        ROADMAP.md, else in the newest milestone ROADMAP that lists its number. An archive
        folder naming no known milestone takes the milestone entry whose name is its `slug`."""
        if milestone in self.milestones:
            return self.milestones[milestone].get(number)
        listed = [entries[number] for entries in self.milestones.values() if number in entries]
        if milestone:
            return next((entry for entry in listed if slug and _slug(entry.name) == slug), None)
        return self.current.get(number) or next(iter(listed), None)


def _slug(name: str) -> str:
    """`Auth & Sessions` -> `auth-sessions`, as Legion names phase directories."""
    return "-".join(re.findall(r"[a-z0-9]+", name.casefold()))


def load_roadmaps(root: Path) -> Roadmaps:
    return Roadmaps(read_roadmap(root), milestone_roadmaps(root))


def is_done(status: str) -> bool:
    """`Complete`, `COMPLETE`, `Shipped`, `Complete (reviewed)`, a bare check mark."""
    folded = status.casefold()
    return folded.startswith(_DONE_WORDS) or folded in {"✓", "✔", "✅", "[x]"}


# A check mark and the emoji selector an emoji keyboard types after it (`✔️` is `✔` + U+FE0F).
_MARK = "[✓✔✅☑]\ufe0f?"
_CHECK_MARK = re.compile(_MARK)
_STATUS_NOISE = re.compile(rf"\*|{_MARK}|\([^)]*\)", re.IGNORECASE)
# `(?!\.\d)`: an inserted decimal phase (`2.1`) is a phase of its own, never phase 2.
_PHASE_CELL = re.compile(r"^\W*(?:phase\s+)?0*(\d+)\b(?!\.\d)[\s:\uff1a.—\u2013-]*(.*)$", re.I)
# `1-6. Foundation through SEO`: one row for a span of shipped phases; `01-02-PLAN` is no span.
_PHASE_SPAN_CELL = re.compile(
    r"^\W*(?:phases?\s+)?0*(\d+)\s*[-\u2013—]\s*0*(\d+)\b(?![-\u2013—]|\.\d)", re.IGNORECASE
)
# A mark may open the heading, `### ✅ Phase 1: Foundation`; group 2 is that mark.
_PHASE_HEADING = re.compile(
    r"^(#{1,6})\s+([^\w\s#*]{0,3})\s*\**Phase\s+0*(\d+)\b(?!\.\d)\**\s*[:\uff1a.—\u2013-]?\s*(.*?)"
    r"\**\s*#*\s*$",
    re.IGNORECASE,
)
_ANY_HEADING = re.compile(r"^(#{1,6})\s")
_REQUIREMENTS_LINE = re.compile(
    r"^\s*(?:[-*]\s+)?\**Requirements\**\s*:?\**\s*:?(.*)$", re.IGNORECASE
)
_STATUS_LINE = re.compile(r"^\s*(?:[-*]\s+)?\**(?:Phase\s+)?Status:?\**\s*:?\s*(.+)$", re.I)
# The colon is the label's own: `**Plans complete:** 2/3` is not a Plans line.
_PLANS_LINE = re.compile(r"^\s*(?:[-*]\s+)?\**Plans(?::\**|\**\s*:)\s*(.+)$", re.I)
# `**Plans:** Complete`, `Completed (shipped v1.0)`, `3/3 plans complete`, `5 (5/5 complete)`.
_PLANS_DONE = re.compile(r"^\W*(?:complete|completed|done|finished|shipped)\b", re.I)
_PLANS_ALL = re.compile(r"\b(\d+)\s*/\s*(\d+)\s+(?:plans?\s+)?(?:complete|completed|done)\b", re.I)
# A phase's plan list, `- [x] 05-01-PLAN.md — what it does`: the box says whether that plan ran.
_PLAN_BOX = re.compile(r"^\s*[-*]\s+\[([ xX])\]\s+[*`]*0*(\d+)-\d+\b(?!\.\d)")
_CHECKBOX = re.compile(
    rf"^\s*[-*]\s+(\[[ xX]\]|{_MARK})\s+\**Phase\s+0*(\d+)(?:[-\u2013]0*(\d+))?\b(?!\.\d)"
    r"\**\s*[:\uff1a.—\u2013-]?\s*(.*)$",
    re.IGNORECASE,
)
# Where a heading's status may begin after the name: `(Complete)`, `[DONE]`, `— Done`.
_STATUS_OPENING = re.compile(r"\(|\[|\s[—\u2013|-]\s")
_STATUS_ALONE = re.compile(rf"(?:{'|'.join(_STATUS_WORDS)})[\W\d]*", re.IGNORECASE)
# A longer "span" is more likely a date or an ID than a milestone's phases.
_LONGEST_SPAN = 30
_MILESTONE_DONE = re.compile(
    r"^\W*(?:status\W*:\W*(?:complete|shipped)|completed\W*:|shipped\W*:)", re.I | re.M
)


def normalise_status(cell: str) -> str:
    """`**✓ Complete** (Archived)` -> `Complete`; a cell that is only a check mark -> Complete."""
    text = " ".join(_STATUS_NOISE.sub("", cell).split())
    if not text and _CHECK_MARK.search(cell):
        return COMPLETE
    return text


def read_roadmap(root: Path) -> dict[int, RoadmapEntry]:
    """Phase entries of the current ROADMAP.md; {} when there is none."""
    if not (root / ROADMAP_FILE).is_file():
        return {}
    return roadmap_entries(read_planning_file(root / ROADMAP_FILE))


def milestone_roadmaps(root: Path) -> dict[str, dict[int, RoadmapEntry]]:
    """`v1.0` -> the phase entries of `.planning/milestones/v1.0-ROADMAP.md`, newest first."""
    base = root / MILESTONES_DIR
    paths = sorted(base.glob("*-ROADMAP.md"), key=_version_key, reverse=True)
    found = {}
    for path in paths:
        milestone = path.name[: -len("-ROADMAP.md")]
        found[milestone] = roadmap_entries(read_planning_file(path), milestone, archived=True)
    return found


def _version_key(path: Path) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", path.name))


def roadmap_entries(
    text: str, milestone: str = "", *, archived: bool = False
) -> dict[int, RoadmapEntry]:
    """Every phase a ROADMAP text lists; an archived milestone whose head says it is complete
    (`**Status:** Complete`, `**Completed:** date`) makes each of its phases complete."""
    progress = _progress(text)
    details = _details(text)
    boxes = _checkboxes(text)
    head = text.split("\n## ", 1)[0]
    all_done = archived and _MILESTONE_DONE.search(head) is not None
    entries: dict[int, RoadmapEntry] = {}
    for number in sorted({*progress, *details, *boxes}):
        table_name, table_status = progress.get(number, ("", ""))
        heading_name, heading_status, requirements, plans_status = details.get(
            number, ("", "", (), "")
        )
        box_name, box_status = boxes.get(number, ("", ""))
        statuses = [s for s in (table_status, heading_status, box_status, plans_status) if s]
        status = statuses[0] if statuses else ""
        if all_done and not is_done(status):
            status = COMPLETE
        name = heading_name or table_name or box_name
        entries[number] = RoadmapEntry(number, name, status, requirements, milestone)
    return entries


def _is_status(text: str) -> bool:
    """A cell that reads as a status; in a shifted row it is the status the row gives."""
    return text.casefold().startswith(_STATUS_WORDS) or is_done(text)


def _progress(text: str) -> dict[int, tuple[str, str]]:
    """Phase -> (name, status) from every table with a Phase header cell and a number column."""
    document = parse(text)
    found: dict[int, tuple[str, str]] = {}
    for table in document.tables:
        names = [cell.replace("*", "").strip().casefold() for cell in table.columns]
        rows = [row_cells(document, index) for index in table.rows]
        number_at = _number_column(names, rows)
        if number_at is None:
            continue
        status_at = next((names.index(n) for n in ("status", "state") if n in names), None)
        name_at = next(
            (i for n in (*_NAME_COLUMNS, "phase") for i, c in enumerate(names) if c == n),
            None,
        )
        name_at = None if name_at == number_at else name_at
        for cells in rows:
            named = cells[name_at] if name_at is not None and name_at < len(cells) else ""
            for number, name in _row_phases(cells, number_at, named.replace("*", "").strip()):
                found.setdefault(number, (name, _row_status(cells, number_at, status_at)))
    return found


def _row_phases(cells: list[str], at: int, named: str) -> list[tuple[int, str]]:
    """The phase a row is about, with its name; a row for a span (`1-6. Foundation through
    SEO`) is about each phase of it, and names none of them."""
    cell = cells[at].replace("*", "") if at < len(cells) else ""
    span = _PHASE_SPAN_CELL.match(cell)
    if span is not None and 0 < int(span[2]) - int(span[1]) <= _LONGEST_SPAN:
        return [(number, "") for number in range(int(span[1]), int(span[2]) + 1)]
    match = _PHASE_CELL.match(cell)
    return [] if match is None else [(int(match[1]), match[2].strip() or named)]


def _phase_cell(cells: list[str], at: int) -> "re.Match[str] | None":
    return _PHASE_CELL.match(cells[at].replace("*", "")) if at < len(cells) else None


def _number_column(names: list[str], rows: list[list[str]]) -> int | None:
    """The column numbering the phases of a table that has a Phase column: of the columns that
    may (`Phase`, `#`, `No.`), the one most rows start with a number in, `Phase` on a tie."""
    if not any(re.search(r"\bphase\b", name) for name in names):
        return None
    candidates = [i for i, name in enumerate(names) if name in _NUMBER_COLUMNS]
    numbered = {i: sum(_phase_cell(cells, i) is not None for cells in rows) for i in candidates}
    best = max(candidates, key=lambda i: (numbered[i], names[i] == "phase"), default=None)
    return best if best is not None and numbered[best] else None


def _row_status(cells: list[str], phase_at: int, status_at: int | None) -> str:
    """The Status cell, or in a row shifted by a column the status-like cell nearest it."""
    if status_at is None:
        return ""
    if status_at < len(cells) and _is_status(normalise_status(cells[status_at])):
        return normalise_status(cells[status_at])
    near = sorted(range(len(cells)), key=lambda index: abs(index - status_at))
    statuses = [normalise_status(cells[i]) for i in near if i != phase_at]
    written = normalise_status(cells[status_at]) if status_at < len(cells) else ""
    return next((status for status in statuses if _is_status(status)), written)


def _details(text: str) -> dict[int, tuple[str, str, tuple[str, ...], str]]:
    """Phase -> (name, status, requirement IDs, plans status) from `### Phase N: Name` sections;
    a status line in the section wins over one the heading gives. The plans status is what a
    `**Plans:**` line says when it says every plan is done, or a plan list whose every box is
    ticked (`- [x] 05-01-PLAN.md`): a weaker word than a status."""
    found: dict[int, tuple[str, str, tuple[str, ...]]] = {}
    headed: dict[int, str] = {}
    planned: dict[int, str] = {}
    boxes: dict[int, set[str]] = {}  # phase -> the marks of its plan list's boxes
    current: tuple[int, int] | None = None  # (phase, heading level)
    for line in text.split("\n"):
        heading = _PHASE_HEADING.match(line)
        if heading:
            current = (int(heading.group(3)), len(heading.group(1)))
            name, status = _heading_status(heading.group(4).strip())
            status = status or (COMPLETE if _CHECK_MARK.search(heading.group(2)) else "")
            found.setdefault(current[0], (name, "", ()))
            headed[current[0]] = headed.get(current[0]) or status
            continue
        other = _ANY_HEADING.match(line)
        if other and current and len(other.group(1)) <= current[1]:
            current = None
        if current is not None:
            found[current[0]] = _section_line(line, current[0], found[current[0]], planned, boxes)
    for number, marks in boxes.items():
        if marks == {"x"}:
            planned.setdefault(number, COMPLETE)
    return {
        n: (name, status or headed[n], ids, planned.get(n, ""))
        for n, (name, status, ids) in found.items()
    }


def _section_line(
    line: str,
    number: int,
    entry: tuple[str, str, tuple[str, ...]],
    planned: dict[int, str],
    boxes: dict[int, set[str]],
) -> tuple[str, str, tuple[str, ...]]:
    """What one line of phase `number`'s section adds: requirement IDs, a status, a Plans line
    saying every plan is done (into `planned`), a plan list's box (into `boxes`)."""
    name, status, ids = entry
    if (requirements := _REQUIREMENTS_LINE.match(line)) is not None:
        ids = tuple(dict.fromkeys([*ids, *REQUIREMENT_ID.findall(requirements[1])]))
    elif not status and (declared := _STATUS_LINE.match(line)) is not None:
        status = normalise_status(declared.group(1))
    elif (plans := _PLANS_LINE.match(line)) is not None and _all_planned(plans[1]):
        planned[number] = COMPLETE
    elif (box := _PLAN_BOX.match(line)) is not None and int(box[2]) == number:
        boxes.setdefault(number, set()).add(box[1].strip().lower())
    return name, status, ids


def _all_planned(plans: str) -> bool:
    """`Complete`, `Completed (shipped v1.0)`, `3/3 plans complete`, `5 (5/5 complete)`: every
    plan done. `6/7 complete`, `2 plans`, `TBD` are not."""
    plans = plans.replace("*", "")
    counted = _PLANS_ALL.search(plans)
    return _PLANS_DONE.match(plans) is not None or (
        counted is not None and counted[1] == counted[2] != "0"
    )


def _heading_status(title: str) -> tuple[str, str]:
    """`Foundation ✅` -> (Foundation, Complete); `Billing (In Progress)` -> (Billing, In
    Progress); `Foundation — Done (2026-03-04)` -> (Foundation, Done); `Done Right` stays a name."""
    for opening in _STATUS_OPENING.finditer(title):
        tail = title[opening.start() :].strip(" —\u2013|-")
        if tail[:1] + tail[-1:] in ("()", "[]"):
            tail = tail[1:-1]
        tail = normalise_status(tail)
        if _STATUS_ALONE.fullmatch(tail):
            return _unmarked(title[: opening.start()]), tail
    if _CHECK_MARK.search(title):
        return _unmarked(title), COMPLETE
    return title, ""


def _unmarked(name: str) -> str:
    return " ".join(_CHECK_MARK.sub("", name).split())


def _checkboxes(text: str) -> dict[int, tuple[str, str]]:
    """`- [x] Phase 3: Name (2 plans)` or `- ✅ Phase 3: Name` -> (Name, Complete); `- [ ]` ->
    (Name, Planned); `- [x] Phase 1-5: …` -> each of phases 1 to 5, unnamed."""
    found: dict[int, tuple[str, str]] = {}
    for line in text.split("\n"):
        if (match := _CHECKBOX.match(line)) is None:
            continue
        status = "Planned" if match.group(1) == "[ ]" else COMPLETE
        first, last = int(match.group(2)), int(match.group(3) or match.group(2))
        if 0 < last - first <= _LONGEST_SPAN:
            for number in range(first, last + 1):
                found.setdefault(number, ("", status))
        else:
            found.setdefault(first, (_box_name(match.group(4)), status))
    return found


def _box_name(title: str) -> str:
    """`Name** - what it delivers` -> Name (the bold ends the name); `Name (3/3 plans) — completed
    2026-02-06` -> Name."""
    if "**" in title:
        title = title.split("**", 1)[0]
    name, _ = _heading_status(title.strip())
    return re.sub(r"\s*\([^)]*\)\s*$", "", name).strip()

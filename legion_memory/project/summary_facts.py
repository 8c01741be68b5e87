"""What one plan's SUMMARY plus its PLAN say: agents, verdict, one-liner, files, requirement IDs
and decisions, read once for `store outcome --from-summary`, compaction and manual-edit detection.

Legion's summaries come in several styles (`## Status: Complete` headings, `- **Status**: Complete`
bullets under `## Result`, `## Result: Success`, the wave-executor template with
`## Verification Results`, GSD front-matter with `completed:` and `requirements-completed:` and a
Self-Check). Each reader below looks in every place a style puts the fact, most reliable first
(docs/decisions.md#plan-reader).
"""

import re
from collections.abc import Iterator, Mapping, Sequence

from legion_memory.markdown.frontmatter import Value, strings
from legion_memory.markdown.outline import (
    Block,
    CodeBlock,
    Item,
    ListBlock,
    Paragraph,
    Section,
    heading_text,
    plain,
)
from legion_memory.named_tuple import NamedTuple
from legion_memory.project.phase_files import FileChange, agent_files, merged_changes
from legion_memory.project.phases import (
    LETTER_RUNS,
    PlanDocument,
    plan_agents,
    requirement_claims,
)
from legion_memory.project.summary_gist import first_sentence, gist, title
from legion_memory.project.verdict import FAIL, PASS, UNKNOWN, outcome, outcome_of_status, verdict

__all__ = ["FAIL", "PASS", "UNKNOWN", "PlanFacts", "plan_facts", "requirement_verdict"]

# `Decisions`, `Key Decisions`, `Technical Decisions`, `Decisions Made`, `Design Decisions:`
# `Decisions Made`, `Technical Decisions`, `Key Technical Decisions`: the words before it qualify.
_DECISIONS = re.compile(r"^(?:[\w-]+\s+){0,2}decisions\b")
_STATUS_TITLE = re.compile(r"^(?:status|result|outcome|verdict|self-check)\s*:\s*(.+)$", re.I)
_MARKS = re.compile(r"^[^\w(`'\"]+")  # `✅ Complete` states `Complete`
_STATUS_SECTIONS = {"status", "result", "results", "outcome", "verdict"}
_STATUS_LINE = re.compile(
    r"^\**(?:Status|Result|Outcome|Verdict|Self-Check)\**\s*:\s*\**\s*:?\s*(.+)$", re.I
)
# `**Completed:** 2026-02-11T09:20:40Z` under `## Performance`, a `*Completed: 2026-02-11*` footer.
_COMPLETED_LINE = re.compile(
    r"^\**(?:Completed|Finished)(?: on| at)?\**\s*:\s*\**\s*\d{4}-\d\d-\d\d", re.IGNORECASE
)
_EVIDENCE_SECTION = re.compile(r"verification|self-check|test results|^tests?\b|checks|result")
_RESULT = re.compile(r"\b(?:pass(?:ed|es|ing)?|fail(?:ed|s|ures?|ing)?)\b|✅|❌", re.IGNORECASE)
_COMPLETED_KEYS = ("completed", "completed_date", "completed-date", "requirements-completed")
_EVIDENCE_LINES = 2
_WHOLLY_BOLD = re.compile(r"^\*\*[^*\n]+\*\*$")
_NUMBERED = re.compile(r"^\d+[.)]\s+")
_LABEL_LEAD = re.compile(r"^[\w -]{1,20}:\s+")  # `Rationale: ` before the reason itself
_DECISION_KEYS = ("decision", "choice", "what", "title", "summary", "name")
_REASON_KEYS = ("rationale", "reason", "why", "because")
PLANNED = "in the PLAN's files_modified"


class PlanFacts(NamedTuple):
    id: str
    title: str
    gist: str
    decisions: tuple[str, ...]
    verdict: str
    evidence: tuple[str, ...]
    agents: tuple[str, ...]
    claims: tuple[str, ...]
    status: str = ""
    outcome: str | None = None
    files: tuple[FileChange, ...] = ()


def plan_facts(
    summary: PlanDocument, plan: PlanDocument | None, known: Mapping[str, str] | None = None
) -> PlanFacts:
    """Every fact of one plan; `known` maps casefolded catalog IDs to their catalog form."""
    status = declared_status(summary)
    results = _results(summary)
    plan_verdict = verdict(status, results)
    shown = results[:_EVIDENCE_LINES]
    said = status and not any(line.endswith(plain(status)) for line in shown)
    evidence = tuple(([plain(status)] if said else []) + shown)
    claims = {**(requirement_claims(plan) if plan else {}), **requirement_claims(summary)}
    reported = agent_files(summary)
    files = merged_changes([*reported, *_planned_files(plan, {c.path for c in reported})])
    return PlanFacts(
        summary.plan,
        title(summary),
        gist(summary),
        _decisions(summary),
        plan_verdict,
        evidence,
        plan_agents(summary, plan, known),
        tuple(claims),
        status,
        outcome(status, plan_verdict),
        tuple(_unique_files(files)),
    )


def _planned_files(plan: PlanDocument | None, reported: set[str]) -> list[FileChange]:
    """The PLAN's files; one the SUMMARY does not report is said to be the PLAN's."""
    changes = agent_files(plan) if plan else []
    return [
        change if change.path in reported else change._replace(description=PLANNED)
        for change in changes
    ]


def _unique_files(files: list[FileChange]) -> list[FileChange]:
    """One entry per path; a bare name that another entry's path ends with is that file."""
    by_path: dict[str, FileChange] = {}
    for change in files:
        by_path.setdefault(change.path, change)
    paths = list(by_path)
    return [
        change
        for path, change in by_path.items()
        if "/" in path or not any(other.endswith("/" + path) for other in paths)
    ]


def _decisions(document: PlanDocument) -> tuple[str, ...]:
    """The body's Decisions sections (they carry the rationale), else front-matter decisions.
    A decision is an item, a table row, or a sub-section (`### Custom YAML Parser` and the
    paragraph under it)."""
    found: list[str] = []
    for section, under in _with_subsections(document.sections, _DECISIONS):
        entries = [_item_text(item) for item in section.items()]
        entries += [" — ".join(_worded(row)) for table in section.tables() for row in table.rows]
        if under and not _DECISIONS.match(section.key):
            # Its first sentence says the decision; the items under a paragraph are details,
            # but with no paragraph (`**Storage:**` over a list) the items are what was decided.
            prose = [first_sentence(text) for text in section.paragraphs()][:1]
            said = prose or (["; ".join(entries)] if entries else [])
            found.append(": ".join([heading_text(section.title), *said]))
        else:
            found += _bold_led(section) or entries or list(section.paragraphs())
    found = [text for text in found if text and not re.match(r"^none\b", plain(text), re.I)]
    if found:
        return tuple(dict.fromkeys(found))  # a decision written twice is one decision
    listed = document.value("key-decisions", "key_decisions", "decisions")
    items = listed if isinstance(listed, list) else strings(listed)
    return tuple(text for item in items if (text := _listed_decision(item)))


def _bold_led(section: Section) -> list[str]:
    """Decisions written as bold paragraphs, each over a list of its details (`**1. Storage:
    SQLite**` over `- **Rationale:** one file`): the paragraph is the decision and its first
    detail (the reason, as a writer gives it first) is said with it. A list under no bold
    paragraph is decisions as ever; none such paragraph, and the section is not read so."""
    found: list[str] = []
    blocks = section.blocks
    for index, block in enumerate(blocks):
        before = blocks[index - 1] if index else None
        if isinstance(block, ListBlock) and not _bold_paragraph(before):
            found += [_item_text(item) for item in block.items]
        elif _bold_paragraph(block) and isinstance(_at(blocks, index + 1), ListBlock):
            details = _at(blocks, index + 1)
            first = details.items[:1] if isinstance(details, ListBlock) else ()
            reason = [_LABEL_LEAD.sub("", plain(item.text)) for item in first]
            decision = _NUMBERED.sub("", plain(block.text) if isinstance(block, Paragraph) else "")
            found.append(" — ".join([decision, *reason]))
    headed = any(_bold_paragraph(block) for block in blocks)
    return found if headed else []


def _bold_paragraph(block: object) -> bool:
    return isinstance(block, Paragraph) and _WHOLLY_BOLD.match(block.text.strip()) is not None


def _at(blocks: list[Block], index: int) -> Block | None:
    return blocks[index] if index < len(blocks) else None


def _listed_decision(item: Value) -> str:
    """A front-matter decision: a string, or a mapping (`choice:` with its `rationale:`) read as
    the choice and its reason, one decision; its impact and alternatives are details."""
    if not isinstance(item, dict):
        return "; ".join(strings(item))
    said = [item[key] for key in _DECISION_KEYS if key in item] or list(item.values())[:1]
    why = [item[key] for key in _REASON_KEYS if key in item][:1]
    return " — ".join(text for value in [*said[:1], *why] for text in strings(value)[:1])


def _worded(row: tuple[str, ...]) -> list[str]:
    """A row's cells that say something: not its number (`| 1 |`) or its mark (`| ✅ |`)."""
    return [cell for cell in row if LETTER_RUNS.search(cell)]


def _item_text(item: Item) -> str:
    return "; ".join([item.text, *(_item_text(child) for child in item.children)])


def declared_status(document: PlanDocument) -> str:
    """The first status the plan declares that names an outcome (`## Status: Complete`,
    `- **Status**: Complete` under `## Result`, `## Result: Success`, `Self-Check: PASSED`,
    front-matter `status`), else `Complete` when the front-matter or a `Completed: date` line
    records a completion, else a declared status naming no outcome (`In review`), else ""."""
    declared = [*strings(document.value("status"))]
    candidates = list(declared)
    completed = _completion_recorded(document)
    for section in document.sections:
        if heading := _STATUS_TITLE.match(heading_text(section.title)):
            candidates.append(heading.group(1))
            declared.append(heading.group(1))
        if section.key in _STATUS_SECTIONS:
            candidates += list(section.paragraphs())[:1]
        items = (item.text for item in section.items())
        texts = [plain(text) for text in (*section.lines(), *items, *section.pairs())]
        candidates += [m.group(1) for text in texts if (m := _STATUS_LINE.match(text))]
        completed = completed or any(_COMPLETED_LINE.match(text) for text in texts)
    for candidate in candidates:
        if outcome_of_status(plain(candidate).split(".")[0]):
            return _MARKS.sub("", plain(candidate)).strip()
    if completed:
        return "Complete"
    return plain(declared[0]).strip() if declared else ""


def _completion_recorded(document: PlanDocument) -> bool:
    metrics = document.value("metrics")
    nested = [metrics.get(key) for key in _COMPLETED_KEYS] if isinstance(metrics, dict) else []
    values: list[Value | None] = [document.value(key) for key in _COMPLETED_KEYS]
    return any(strings(value) for value in [*values, *nested])


def _results(document: PlanDocument) -> list[str]:
    """Result lines of the verification sections (`15/15 tests pass`, `Self-Check: PASSED`)."""
    lines: list[str] = []
    for section in _evidence_sections(document.sections):
        lines += [heading_text(section.title)] if ":" in section.title else []
        lines += _section_lines(section)
    found = [line.rstrip(":").strip() for line in lines if _RESULT.search(line)]
    return list(dict.fromkeys(found))


def _evidence_sections(sections: Sequence[Section]) -> Iterator[Section]:
    """The verification sections and their sub-sections (`### Automated`, `**build.md:**`)."""
    return (section for section, _ in _with_subsections(sections, _EVIDENCE_SECTION))


def _with_subsections(
    sections: Sequence[Section], names: re.Pattern[str]
) -> Iterator[tuple[Section, bool]]:
    """Each section whose key `names` finds, then each sub-section under it (with True); a
    title (level 1) that names it is one, but not the whole document."""
    inside = 0  # the level of the named section the ones that follow are under
    for section in sections:
        if inside and section.level <= inside:
            inside = 0
        if section.level and (inside or names.search(section.key)):
            yield section, bool(inside)
            inside = inside or (section.level if section.level > 1 else 0)


def _section_lines(section: Section) -> list[str]:
    lines = [plain(text) for text in section.lines()]
    lines += [plain(item.text) for item in section.every_item()]
    lines += [plain(row) for row in section.row_lines()]
    for block in section.blocks:
        if isinstance(block, CodeBlock):
            lines += [line.strip() for line in block.text.split("\n") if line.strip()]
    return lines


def requirement_verdict(requirement: str, plans: tuple[PlanFacts, ...]) -> tuple[str, list[str]]:
    """A requirement passes when every plan claiming it passed; fails when one failed."""
    claimants = [plan for plan in plans if requirement in plan.claims]
    verdicts = {plan.verdict for plan in claimants}
    if not claimants:
        return UNKNOWN, []
    if FAIL in verdicts:
        return FAIL, [plan.id for plan in claimants]
    return (PASS if verdicts == {PASS} else UNKNOWN), [plan.id for plan in claimants]

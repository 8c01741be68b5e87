"""What one plan's SUMMARY says: title, gist, decisions, verification verdict and evidence.

Legion's summaries come in several styles (`## Status: Complete` headings, the wave-executor
template with `## Verification Results`, YAML front-matter with `key-decisions` and a Self-Check).
Each reader below looks in every place a style puts the fact, in order of reliability.
"""

import re
from typing import NamedTuple

from legion_memory.markdown.frontmatter import strings
from legion_memory.markdown.outline import CodeBlock, Item, Section, plain
from legion_memory.project.phases import PlanDocument

PASS = "pass"
FAIL = "fail"
UNKNOWN = "unknown"

_TITLE_NOISE = re.compile(
    r"^(?:phase\s+\d+\b[,:]?\s*)?(?:plan\s+)?(?:\d+(?:-\d+)?\b)?[\s-]*(?:summary\b)?\s*[:—\u2013-]?\s*",
    re.IGNORECASE,
)
_ONE_LINER = re.compile(r"^\**One[- ]liner:?\**\s*:?\s*(.+)$", re.IGNORECASE)
_TASK_TITLE = re.compile(r"^task\s+\d+\s*[:.—\u2013-]\s*(.+)$", re.IGNORECASE)
_DECISIONS = re.compile(r"^(?:key\s+)?decisions\b")
_STATUS_TITLE = re.compile(r"^status\s*:\s*(.+)$", re.IGNORECASE)
_STATUS_LINE = re.compile(r"^\**Status:?\**\s*:?\s*(.+)$")
_LABEL_LINE = re.compile(r"^\*\*[\w -]+(?::\*\*|\*\*\s*:)")
_EVIDENCE_SECTION = re.compile(r"verification|self-check|test results|^tests?\b|checks")
_RESULT = re.compile(r"\b(?:pass(?:ed|es|ing)?|fail(?:ed|s|ures?|ing)?)\b", re.IGNORECASE)
_NO_FAILURE = re.compile(r"\b(?:0|no|zero|none)\s+(?:failed|failures?|failing|fails)\b")
_FAILURE = re.compile(r"\bfail(?:ed|s|ures?|ing)?\b|\bblocked\b")
_FAILED_STATUS = re.compile(r"\b(?:fail(?:ed)?|blocked|partial|incomplete|not complete)\b")
_PASSED_STATUS = re.compile(r"\b(?:complete|completed|done|pass(?:ed)?|success(?:ful)?|shipped)\b")
_COUNTS = re.compile(r"\b(\d+)\s*/\s*(\d+)\b")
_EVIDENCE_LINES = 2


class PlanFacts(NamedTuple):
    id: str
    title: str
    gist: str
    decisions: tuple[str, ...]
    verdict: str
    evidence: tuple[str, ...]
    agents: tuple[str, ...]
    claims: tuple[str, ...]


def plan_facts(
    document: PlanDocument, agents: tuple[str, ...], claims: tuple[str, ...]
) -> PlanFacts:
    status = _status(document)
    results = _results(document)
    verdict = _verdict(status, results)
    evidence = tuple(([plain(status)] if status else []) + results[:_EVIDENCE_LINES])
    return PlanFacts(
        document.plan,
        _title(document),
        _gist(document),
        _decisions(document),
        verdict,
        evidence,
        agents,
        claims,
    )


def _title(document: PlanDocument) -> str:
    heading = next((s.title for s in document.sections if s.level == 1), "")
    title = _TITLE_NOISE.sub("", plain(heading), count=1)
    return re.sub(r"\s*\bsummary$", "", title, flags=re.IGNORECASE).strip(" :—\u2013-")


def _gist(document: PlanDocument) -> str:
    """The plan in one line: a one-liner, the text under the title, else its task titles."""
    for section in document.sections:
        for line in section.lines():
            match = _ONE_LINER.match(line)
            if match:
                return match.group(1).strip()
    for value in strings(document.value("one_liner", "one-liner")):
        return value
    top = next((s for s in document.sections if s.level == 1), None)
    prose = [p for p in (top.paragraphs() if top else []) if not _LABEL_LINE.match(p)]
    if prose:
        return _unwrap_bold(prose[0])
    tasks = [m.group(1) for s in document.sections if (m := _TASK_TITLE.match(plain(s.title)))]
    return "; ".join(tasks)


def _unwrap_bold(text: str) -> str:
    if text.startswith("**") and text.endswith("**") and text.count("**") == 2:
        return text[2:-2].strip()
    return text


def _decisions(document: PlanDocument) -> tuple[str, ...]:
    """The body's Decisions section (it carries the rationale), else front-matter decisions."""
    found: list[str] = []
    for section in document.sections:
        if _DECISIONS.match(section.key):
            items = [_item_text(item) for item in section.items()]
            found += items or list(section.paragraphs())
    found = [text for text in found if text and not re.match(r"^none\b", plain(text), re.I)]
    if found:
        return tuple(found)
    return tuple(strings(document.value("key-decisions", "key_decisions", "decisions")))


def _item_text(item: Item) -> str:
    return "; ".join([item.text, *(_item_text(child) for child in item.children)])


def _status(document: PlanDocument) -> str:
    """The plan's declared status (`## Status: Complete`, `**Status:** Failed`, front-matter)."""
    for section in document.sections:
        heading = _STATUS_TITLE.match(plain(section.title))
        if heading:
            return heading.group(1).strip()
        if section.key == "status":
            return next(section.paragraphs(), "")
        for text in section.lines():
            line = _STATUS_LINE.match(text)
            if line:
                return line.group(1).strip()
    return next(iter(strings(document.value("status"))), "")


def _results(document: PlanDocument) -> list[str]:
    """Result lines of the verification sections (`15/15 tests pass`, `Self-Check: PASSED`)."""
    lines: list[str] = []
    for section in document.sections:
        if section.level == 0 or not _EVIDENCE_SECTION.search(section.key):
            continue
        lines += [plain(section.title)] if ":" in section.title else []
        lines += _section_lines(section)
    found = [line.rstrip(":").strip() for line in lines if _RESULT.search(line)]
    return list(dict.fromkeys(found))


def _section_lines(section: Section) -> list[str]:
    lines = [plain(text) for text in section.lines()]
    lines += [plain(item.text) for item in section.items()]
    for block in section.blocks:
        if isinstance(block, CodeBlock):
            lines += [line.strip() for line in block.text.split("\n") if line.strip()]
    return lines


def _verdict(status: str, results: list[str]) -> str:
    verdicts = [_line_verdict(line) for line in results]
    lowered = plain(status).lower()
    if _FAILED_STATUS.search(lowered) or FAIL in verdicts:
        return FAIL
    if _PASSED_STATUS.search(lowered) or PASS in verdicts:
        return PASS
    return UNKNOWN


def _line_verdict(line: str) -> str:
    lowered = _NO_FAILURE.sub("", line.lower())
    if _FAILURE.search(lowered):
        return FAIL
    counts = _COUNTS.search(lowered)
    if counts and int(counts.group(1)) < int(counts.group(2)):
        return FAIL
    return PASS


def requirement_verdict(requirement: str, plans: tuple[PlanFacts, ...]) -> tuple[str, list[str]]:
    """A requirement passes when every plan claiming it passed; fails when one failed."""
    claimants = [plan for plan in plans if requirement in plan.claims]
    verdicts = {plan.verdict for plan in claimants}
    if not claimants:
        return UNKNOWN, []
    if FAIL in verdicts:
        return FAIL, [plan.id for plan in claimants]
    return (PASS if verdicts == {PASS} else UNKNOWN), [plan.id for plan in claimants]

"""A plan's title and its one line: what the SUMMARY says the plan did, from its one-liner, a
bold lead, the first sentence of a summary section, its task titles or its title
(docs/decisions.md#plan-reader).
"""

import itertools
import re

from legion_memory.markdown.frontmatter import strings
from legion_memory.markdown.outline import Paragraph, Section, heading_text, plain
from legion_memory.project.phases import PlanDocument
from legion_memory.project.verdict import outcome_of_status

__all__ = ["first_sentence", "gist", "title"]

_TITLE_NOISE = (
    # A plan split in two is `01a`, `01b`: its letter is part of its number.
    re.compile(
        r"^(?:phase\s+[\d.]+(?:-\d+)?|plan\s+[\d.-]+[a-z]?|\d+-\d+[a-z]?)(?![a-z])"
        r"\s*[,:.—\u2013-]*\s*",
        re.I,
    ),
    re.compile(r"\s*[,:.—\u2013-]*\s*\b(?:execution\s+)?summary\s*$", re.I),
    re.compile(r"^(?:execution\s+)?summary\b\s*[:.—\u2013-]*\s*", re.I),
)
# `Phase 1: Setup`, `Phase 04 — Summary`: a heading naming a phase and no plan of it.
_PHASE_HEADING = re.compile(r"^phase\s+[\d.]+\b(?!.*\bplan\b)", re.IGNORECASE)
_ONE_LINER = re.compile(r"^\**One[- ]liner:?\**\s*:?\s*(.+)$", re.IGNORECASE)
_TASK_TITLE = re.compile(r"^task\s+\d+\s*[:.—\u2013-]\s*(.+)$", re.IGNORECASE)
_NOTHING = re.compile(r"^(?:none|n/?a|tbd)\W*(?:$|[-—\u2013:]\s)", re.IGNORECASE)
_LABEL_LINE = re.compile(r"^\*\*[\w -]+(?::\*\*|\*\*\s*:)")
_SUMMARY_SECTIONS = {"summary", "overview", "one-liner", "one liner", "objective", "status"}
_SUMMARY_SECTIONS |= {"result", "what was built", "what was done", "accomplishments", "delivered"}
# `## Execution Summary` over what the plan did; not `Deviations Summary` or `Test Summary`.
_SUMMARY_NAMED = re.compile(r"^(?:execution|implementation|executive|work)\s+summary$")
_SENTENCE_END = re.compile(r"(?<=[a-z0-9)`'\"][.!?])\s+(?=[A-Z`*\"'])")


def title(document: PlanDocument) -> str:
    """Front-matter `title` (or a `name` that is words), else the title heading without its noise:
    `Plan 01-01 Summary — Schema Fields` -> `Schema Fields`."""
    named = [*strings(document.value("title")), *strings(document.value("name"))]
    if named and " " in named[0]:
        return named[0].strip()
    top = document.top  # read once: the property walks the sections
    text = plain(top.title) if top else ""
    for pattern in (*_TITLE_NOISE, _TITLE_NOISE[0]):
        text = pattern.sub("", text, count=1)
    return text.strip(" :—\u2013-")


def gist(document: PlanDocument) -> str:
    """The plan in one line: its one-liner, a bold lead, the first sentence of its summary
    paragraph or of the prose under its title, else its task titles, else its title (but the
    first item of a summary list over a title that names only the phase)."""
    for section in document.sections:
        if said := _one_liner(section):
            return said
    for value in strings(document.value("one_liner", "one-liner")):
        return value
    for candidate in (_bold_lead(document), _summary_paragraph(document)):
        if candidate:
            return candidate
    tasks = [
        m.group(1) for s in document.sections if (m := _TASK_TITLE.match(heading_text(s.title)))
    ]
    return "; ".join(dict.fromkeys(tasks)) or _named_or_listed(document)


def _one_liner(section: Section) -> str:
    """A `**One-liner:**` line with the lines that continue its sentence: an editor wrapping
    prose at 80 columns breaks it over several lines of one paragraph. The next labelled line
    (`**Status:** Complete`) is a field of its own, not more of the one-liner."""
    for block in section.blocks:
        if not isinstance(block, Paragraph):
            continue
        lines = [line.strip() for line in block.text.split("\n") if line.strip()]
        for at, line in enumerate(lines):
            if match := _ONE_LINER.match(line):
                after = lines[at + 1 :]
                rest = itertools.takewhile(lambda more: not _LABEL_LINE.match(more), after)
                return " ".join([match.group(1).strip(), *rest])
    return ""


def _named_or_listed(document: PlanDocument) -> str:
    """The plan's title; but a title that is the phase's (`# Phase 1: Setup - Summary`) names
    the phase, not what this plan did, and the first item of a summary list says that."""
    named = title(document)
    if named and not _PHASE_HEADING.match(_heading(document)):
        return named
    return _summary_item(document) or named


def _heading(document: PlanDocument) -> str:
    top = document.top
    return "" if document.value("title") or not top else plain(top.title)


def _bold_lead(document: PlanDocument) -> str:
    top = document.top
    prose = [p for p in (top.paragraphs() if top else []) if not _says_nothing(p)]
    return first_sentence(_unwrap_bold(prose[0])) if prose else ""


def _summary_paragraph(document: PlanDocument) -> str:
    for section in document.sections:
        if _summary_section(section.key):
            prose = [p for p in section.paragraphs() if not (_says_nothing(p) or _bare(p))]
            if prose:
                return first_sentence(_unwrap_bold(prose[0]))
    return ""


def _summary_item(document: PlanDocument) -> str:
    """The first item of a summary section written as a list alone (`## What Was Built` over
    `- Initialized the project`): the list is what the plan did, its first item the lead. An
    item's bold and code marks go, as they sit mid-line (`- **Parser** - reads the feed`)."""
    for section in document.sections:
        if _summary_section(section.key):
            items = [plain(item.text) for item in section.items() if not _says_nothing(item.text)]
            if items:
                return first_sentence(items[0])
    return ""


def _summary_section(key: str) -> bool:
    name = key.partition(":")[0].strip()
    return name in _SUMMARY_SECTIONS or _SUMMARY_NAMED.match(name) is not None


def _says_nothing(paragraph: str) -> bool:
    """A label line (`**Duration:** 18 min`), or `None`, `N/A`, `TBD` (alone or before a dash):
    what a template leaves in a section with nothing to report, never what a plan did."""
    return bool(_LABEL_LINE.match(paragraph) or _NOTHING.match(plain(paragraph)))


def first_sentence(text: str) -> str:
    """`Did A. Then B.` -> `Did A.`; a text without a sentence end is kept whole."""
    return _SENTENCE_END.split(text.strip(), maxsplit=1)[0].strip().rstrip(":").strip()


def _bare(paragraph: str) -> bool:
    """A status alone (`Complete` under `## Status`) says how the plan ended, not what it did."""
    return len(paragraph.split()) <= 2 and outcome_of_status(paragraph) is not None


def _unwrap_bold(text: str) -> str:
    if text.startswith("**") and text.endswith("**") and text.count("**") == 2:
        return text[2:-2].strip()
    return text

"""`/legion:learn` entries: `## PAT-003: summary` headings with bullet metadata and a body.

Legion's learn command writes these into the same memory files as the tables. They are kept
byte-for-byte; this module only reads them so that validate, search and context can see them.
"""

import re
from collections.abc import Iterator
from functools import cache

from legion_memory.markdown.document import Document
from legion_memory.named_tuple import NamedTuple

LEARN_TYPES = {"PAT": "pattern", "PIT": "pitfall", "PRF": "preference"}
_ID_STARTS = tuple(f"{prefix}-" for prefix in LEARN_TYPES)
"""What an entry's heading holds: a line without one is no entry, and its pattern is then never
compiled (most memory files hold no entry)."""


@cache
def _patterns() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """An entry's heading, one of its fields, and the line after it."""
    return (
        re.compile(r"^##\s+((?:PAT|PIT|PRF)-\d+)\s*:\s*(.*?)\s*$"),
        re.compile(r"^\s*[-*]\s+\*\*(\w[\w ]*)\*\*\s*:\s*(.*?)\s*$"),
        re.compile(r"^(#{1,6}\s|---\s*$)"),
    )


class LearnEntry(NamedTuple):
    id: str
    summary: str
    line: int
    fields: dict[str, str]
    body: str = ""
    end: int = 0
    """Index of the line after the entry (its `---` rule or the next heading)."""

    @property
    def type(self) -> str:
        return LEARN_TYPES[self.id.split("-", 1)[0]]

    @property
    def date(self) -> str:
        return self.fields.get("date", "")

    @property
    def tags(self) -> tuple[str, ...]:
        return tuple(t.strip() for t in self.fields.get("tags", "").split(",") if t.strip())


def learn_entries(document: Document) -> Iterator[LearnEntry]:
    """Every learn entry in a document, in order, skipping table lines."""
    # Tables come in document order and do not overlap: a line inside one jumps to its end,
    # rather than every table line being kept in a set.
    tables = document.tables
    next_table = 0
    index = 0
    while index < len(document.lines):
        while next_table < len(tables) and tables[next_table].end <= index:
            next_table += 1
        if next_table < len(tables) and tables[next_table].header <= index:
            index = tables[next_table].end
            continue
        text = document.text(index)
        heading = text.startswith("##") and any(map(text.__contains__, _ID_STARTS))
        match = _patterns()[0].match(text) if heading else None
        if match is None:
            index += 1
            continue
        end = _entry_end(document, index + 1)
        yield _entry(document, match, index, end)
        index = end


def _entry_end(document: Document, start: int) -> int:
    index = start
    end = _patterns()[2]
    while index < len(document.lines) and not end.match(document.text(index)):
        index += 1
    return index


def _entry(document: Document, match: re.Match[str], start: int, end: int) -> LearnEntry:
    fields: dict[str, str] = {}
    body: list[str] = []
    field = _patterns()[1]
    for index in range(start + 1, end):
        text = document.text(index)
        found = field.match(text)
        if found and not body:
            fields[found.group(1).strip().lower()] = found.group(2)
        elif text.strip() or body:
            body.append(text)
    return LearnEntry(
        id=match.group(1),
        summary=match.group(2),
        line=start + 1,
        fields=fields,
        body="\n".join(body).strip(),
        end=end,
    )

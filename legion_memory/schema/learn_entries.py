"""`/legion:learn` entries: `## PAT-003: summary` headings with bullet metadata and a body.

Legion's learn command writes these into the same memory files as the tables. They are kept
byte-for-byte; this module only reads them so that validate, search and context can see them.
"""

import re
from collections.abc import Iterator

from legion_memory.markdown.document import Document
from legion_memory.named_tuple import NamedTuple

_ENTRY = re.compile(r"^##\s+((?:PAT|PIT|PRF)-\d+)\s*:\s*(.*?)\s*$")
_FIELD = re.compile(r"^\s*[-*]\s+\*\*(\w[\w ]*)\*\*\s*:\s*(.*?)\s*$")
_END = re.compile(r"^(#{1,6}\s|---\s*$)")
LEARN_TYPES = {"PAT": "pattern", "PIT": "pitfall", "PRF": "preference"}


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
        match = _ENTRY.match(document.text(index))
        if match is None:
            index += 1
            continue
        end = _entry_end(document, index + 1)
        yield _entry(document, match, index, end)
        index = end


def _entry_end(document: Document, start: int) -> int:
    index = start
    while index < len(document.lines) and not _END.match(document.text(index)):
        index += 1
    return index


def _entry(document: Document, match: re.Match[str], start: int, end: int) -> LearnEntry:
    fields: dict[str, str] = {}
    body: list[str] = []
    for index in range(start + 1, end):
        text = document.text(index)
        found = _FIELD.match(text)
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

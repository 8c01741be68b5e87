"""`/legion:retro` entries in `.planning/memory/RETRO.md`, read for search (never written).

Legion's retro command appends one section per retrospective:

    ## Phase 3: Auth — 2026-03-14

    ### Key Findings
    ...
    ---

An entry is one level-2 heading and everything after it up to the next level-1 or level-2 heading,
a `---` rule, or the end of the file. Its date is the ISO date ending the heading (none when the
heading has no date); its ID is `RETRO-N`, N counting entries from the top of the file (the file is
append-only, so numbers do not move).
"""

import re
from collections.abc import Iterator

from legion_memory.markdown.document import Document
from legion_memory.named_tuple import NamedTuple

RETRO_FILENAME = "RETRO.md"
_HEADING = re.compile(r"^ {0,3}##[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
# The heading's date may follow an em dash, an en dash, a hyphen or a colon, or sit in parentheses.
_DATED = re.compile(r"^(.*?)[ \t]*(?:[\u2014\u2013:-][ \t]*)?\(?(\d{4}-\d{2}-\d{2})\)?$")
_END = re.compile(r"^ {0,3}(#{1,2}[ \t]|---+[ \t]*$)")
_FENCE = re.compile(r"^ {0,3}(```|~~~)")


class RetroEntry(NamedTuple):
    number: int
    title: str
    date: str
    line: int
    body: str

    @property
    def id(self) -> str:
        return f"RETRO-{self.number}"


def retro_entries(document: Document) -> Iterator[RetroEntry]:
    """Every retrospective section, in file order; headings inside fenced code do not count."""
    fenced = False
    open_at: int | None = None
    number = 0
    for index in range(len(document.lines) + 1):
        text = document.text(index) if index < len(document.lines) else "# end"
        if _FENCE.match(text):
            fenced = not fenced
            continue
        if fenced or not _END.match(text):
            continue
        if open_at is not None:
            number += 1
            yield _entry(document, number, open_at, index)
        open_at = index if _HEADING.match(text) else None


def _entry(document: Document, number: int, start: int, end: int) -> RetroEntry:
    heading = _HEADING.match(document.text(start))
    title, date = _split_date(heading.group(1) if heading else "")
    body = "\n".join(document.text(i) for i in range(start + 1, end)).strip()
    return RetroEntry(number, title, date, start + 1, body)


def _split_date(heading: str) -> tuple[str, str]:
    """`Phase 3: Auth — 2026-03-14` -> (`Phase 3: Auth`, `2026-03-14`)."""
    match = _DATED.match(heading)
    if match is None:
        return heading, ""
    return (match.group(1).strip() or heading), match.group(2)

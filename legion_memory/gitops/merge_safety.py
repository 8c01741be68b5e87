"""What makes a version of a memory file unsafe to merge by rows, and the conflict git gets then.

A side the row merge cannot read as the tables it expects (bytes that are not UTF-8, UTF-16 or
other binary text, conflict markers from an earlier merge, a row with more or fewer cells than its
header) is never merged into something git records as resolved: the driver writes both sides
whole between conflict markers and exits 1, so no line of either side is lost
(docs/decisions.md#merge-fails-safe).
"""

import re
from collections.abc import Sequence

from legion_memory.markdown.cells import cell_count
from legion_memory.markdown.document import parse, split_lines, strip_ending

# Opening and closing markers only: a line of `=` alone is also a setext heading's underline.
# Both patterns are compiled only for a text that may hold what they look for.
_MARKER = r"^(?:<{7,}|>{7,})(?: |$)"
_SURROGATES = "[\udc80-\udcff]"


def unmergeable(text: str) -> str | None:
    """Why a version cannot be merged by rows, or None when it can."""
    if _holds_surrogates(text):
        return "is not UTF-8 text"
    if "\0" in text:
        return "is binary or UTF-16, not UTF-8 text"
    if "<" * 7 in text or ">" * 7 in text:
        lines = split_lines(text)
        marker = re.compile(_MARKER)
        marked = next((i for i, line in enumerate(lines) if marker.match(strip_ending(line))), None)
        if marked is not None:
            return f"already holds a conflict marker at line {marked + 1}"
    return _ragged(text)


def refusal(texts: Sequence[str]) -> str | None:
    """Why one of base, ours and theirs cannot be merged by rows, naming it, or None."""
    for side, text in zip(("base", "ours", "theirs"), texts, strict=True):
        why = unmergeable(text)
        if why:
            return f"{side} {why}"
    return None


def _holds_surrogates(text: str) -> bool:
    """Whether the text holds a byte that was not UTF-8 (decoded as a lone surrogate)."""
    if text.isascii():
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # some surrogate: one of those bytes?
        return re.search(_SURROGATES, text) is not None
    return False


def _ragged(text: str) -> str | None:
    document = parse(text)
    for table in document.tables:
        width = len(table.columns)
        for index in table.rows:
            cells = cell_count(document.text(index))
            if cells != width:
                return f"line {index + 1} has {cells} cells where its header has {width}"
    return None


def whole_conflict(ours: str, theirs: str, marker_size: int) -> str:
    """Both versions whole between conflict markers: git sees a conflict, a person both sides."""
    ending = "\r\n" if "\r\n" in ours else "\n"
    return "".join(
        [
            "<" * marker_size + " ours" + ending,
            *_closed(split_lines(ours), ending),
            "=" * marker_size + ending,
            *_closed(split_lines(theirs), ending),
            ">" * marker_size + " theirs" + ending,
        ]
    )


def _closed(lines: Sequence[str], ending: str) -> list[str]:
    return [line if strip_ending(line) != line else line + ending for line in lines]

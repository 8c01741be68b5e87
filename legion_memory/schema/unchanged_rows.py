"""What a diff's validation still reads of the rows the old version holds as they are: their
problems are the old version's, so they are not checked, but a row the change brings may share
an ID with one of them, and one ragged row among them decides how GitHub shows the whole table
(docs/decisions.md#diff-checks-what-changed)."""

import re
from array import array
from bisect import bisect_right
from itertools import accumulate, repeat
from operator import contains

from legion_memory.markdown.cells import cell_count, line_cells, rows_to_count
from legion_memory.markdown.document import Document
from legion_memory.schema.problems import Problem, duplicate_ids


def duplicates_among_unchanged(
    document: Document,
    layout: tuple[int | None, int],
    checked: "tuple[array[int], list[str]]",
    unchanged: set[int],
    name: str,
) -> list[Problem]:
    """The problems `_duplicate_ids` gives of the IDs the checked rows hold (`checked`: the line
    indexes and IDs of those of the header's width with an ID), the unchanged rows of the
    header's width holding one read too: each row after the first holding such an ID."""
    position, width = layout
    rows, ids = checked
    if position is None or not ids:
        return []
    holding = dict(zip(rows, ids, strict=True))
    wanted = set(ids)
    for index in _candidates(document, sorted(unchanged), wanted):
        cells = line_cells(document.lines[index])
        if len(cells) == width and cells[position] in wanted:
            holding[index] = cells[position]
    return duplicate_ids(name, ((index, holding[index]) for index in sorted(holding)))


def _candidates(document: Document, indexes: list[int], wanted: set[str]) -> list[int]:
    """The indexes of the lines holding one of the IDs `wanted` as a cell holds it (a pipe
    escaped): one search of the lines joined, from C, and a step per line found."""
    joined = "".join(wanted)
    if any(map(contains, repeat(joined), "\n\r<\\")):
        return indexes  # written with a `<br>` or an escape read otherwise: every row is read
    forms = sorted((value.replace("|", "\\|") for value in wanted), key=len, reverse=True)
    lines = list(map(document.lines.__getitem__, indexes))
    starts = list(accumulate(map(len, lines), initial=0))
    text = "".join(lines)
    search = re.compile("|".join(map(re.escape, forms))).search
    found = []
    match = search(text)
    while match is not None:
        offset = bisect_right(starts, match.start()) - 1
        found.append(indexes[offset])
        match = search(text, starts[offset + 1])
    return found


def ragged_among(document: Document, unchanged: set[int], width: int) -> bool:
    """Whether one of the unchanged rows has another cell count than the header."""
    lines = list(map(document.lines.__getitem__, sorted(unchanged)))
    return any(cell_count(lines[offset]) != width for offset in rows_to_count(lines, width))

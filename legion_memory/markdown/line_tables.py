"""Tables read as mistune 3.4's table plugin reads them: `| a | b |` rows under a delimiter row
(a bad row turns the lines read so far into paragraph text), and rows without edge pipes, which
stand only when every row fits."""

from __future__ import annotations

import re

from legion_memory.markdown.line_rules import Token, line_at

TYPE_CHECKING = False  # not typing's: docs/decisions.md#hot-paths-without-typing
if TYPE_CHECKING:
    from collections.abc import Callable

    from legion_memory.markdown.line_blocks import BlockState

_DELIMITER = re.compile(r"^ *(?::-+:|:-+|-+:|-+) *$")


def read_table(found: re.Match[str], state: BlockState) -> int | None:
    """A table of `| a |` rows; where it ends, or None when the line is paragraph text."""
    head = _head(found, state, _piped)
    if head is None:
        return None
    header, width, pos = head
    if width is None:
        return _not_a_table(state, pos)
    rows, pos, fit = _rows(state, pos, _piped, width)
    if not fit:
        return _not_a_table(state, pos)
    state.tokens.append(_table(split_cells(header), rows))
    return pos


def read_nptable(found: re.Match[str], state: BlockState) -> int | None:
    """A table whose rows have no edge pipes; None (paragraph text) unless every row fits."""
    head = _head(found, state, _trimmed)
    if head is None or head[1] is None:
        return None
    header, width, pos = head
    rows, pos, fit = _rows(state, pos, _trimmed, width)
    if not fit:
        return None
    state.tokens.append(_table(split_cells(header), rows))
    return pos


def _rows(
    state: BlockState, pos: int, row: Callable[[str], str | None], width: int | None
) -> tuple[list[list[str]], int, bool]:
    """The rows from `pos` on, where they end (just past a row of another width) and whether
    every row had the header's width."""
    rows: list[list[str]] = []
    while pos < len(state.src):
        line = line_at(state.src, pos)
        text = row(line)
        if text is None:
            break
        pos += len(line)
        cells = split_cells(text)
        if len(cells) != width:
            return rows, pos, False
        rows.append(cells)
    return rows, pos, True


def _head(
    found: re.Match[str], state: BlockState, row: Callable[[str], str | None]
) -> tuple[str, int | None, int] | None:
    """The header row's text, the number of columns (None: no valid delimiter row under it) and
    where the rows start; None when the two lines are no table rows at all."""
    pos = found.end()
    header = row(found.group())
    delimiter_line = line_at(state.src, pos)
    delimiter = row(delimiter_line)
    if header is None or delimiter is None:
        return None
    return header, _width(header, delimiter), pos + len(delimiter_line)


def _width(header: str, delimiter: str) -> int | None:
    """The number of columns, when the delimiter row has one valid cell per header cell."""
    headers, delimiters = split_cells(header), split_cells(delimiter)
    if len(headers) != len(delimiters):
        return None
    if not all(_DELIMITER.match(cell) or not cell.strip() for cell in delimiters):
        return None
    return len(headers)


def _not_a_table(state: BlockState, pos: int) -> int:
    """The lines read, and the table-like lines after them, as paragraph text."""
    while pos < len(state.src):
        line = line_at(state.src, pos)
        if _piped(line) is None:
            break
        pos += len(line)
    state.add_paragraph(state.src[state.cursor : pos])
    return pos


def _table(header: list[str], rows: list[list[str]]) -> Token:
    head = {"type": "table_head", "children": [_cell(text) for text in header]}
    body = [{"type": "table_row", "children": [_cell(text) for text in row]} for row in rows]
    return {"type": "table", "children": [head, {"type": "table_body", "children": body}]}


def _cell(text: str) -> Token:
    return {"type": "table_cell", "text": text.strip()}


def _piped(line: str) -> str | None:
    text = line.rstrip("\n").rstrip(" \t")
    if not text.startswith("|") and text.startswith((" ", "\t")):
        text = text.lstrip(" ")
    if not text.startswith("|") or not text.endswith("|"):
        return None
    return text[1:-1]


def _trimmed(line: str) -> str | None:
    text = line.rstrip("\n").rstrip(" \t")
    return text if text and "|" in text else None


def split_cells(text: str) -> list[str]:
    """Cells split at each pipe not escaped by an odd number of backslashes."""
    cells = []
    start = 0
    for pos, char in enumerate(text):
        if char == "|" and (len(text[:pos]) - len(text[:pos].rstrip("\\"))) % 2 == 0:
            cells.append(text[start:pos].strip())
            start = pos + 1
    cells.append(text[start:].strip())
    return cells

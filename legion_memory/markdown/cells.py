"""The cells of one table row: split on unescaped pipes (GitHub's rule), counted, read one by
one, unescaped to values and escaped back, without building more of the row than asked for."""

import re
from collections.abc import Iterator, Sequence
from itertools import compress, repeat
from operator import contains, ne

from legion_memory.errors import InputError

_PIPE_SPLIT = r"(?<!\\)\|"  # compiled by `re` on first use, as the patterns below
_BR = r"(?i)<br\s*/?>"
# The first cell of a row that has a pipe after it and no backslash before that pipe. The
# quantifiers before the cell are possessive: an opening pipe must never be read as the closing one.
_FIRST_CELL = r"\s*+\|?+([^|\\]*)\|"
_HELD = "\0"


def split_cells(text: str) -> list[str]:
    """Cells of a row, stripped but still escaped. Outer pipes are optional, as on GitHub."""
    inner = _inner(text)
    # Every row of every read comes here, and str.split is several times faster than the regex.
    # An escaped pipe is held out of the split as a NUL, which text hardly ever holds; when it
    # does, the pieces are glued back one by one where a backslash precedes their pipe.
    if "\\" not in inner:
        pieces = inner.split("|")
    elif _HELD not in inner:
        held = inner.replace("\\|", _HELD).split("|")
        pieces = [piece.replace(_HELD, "\\|") for piece in held]
    else:
        pieces = _rejoin_escaped(inner.split("|"))
    return list(map(str.strip, pieces))


def _rejoin_escaped(pieces: list[str]) -> list[str]:
    """Pieces split on every pipe, glued back where the pipe was escaped (a backslash before it)."""
    cells = [pieces[0]]
    for piece in pieces[1:]:
        if cells[-1].endswith("\\"):
            cells[-1] += "|" + piece
        else:
            cells.append(piece)
    return cells


def cell_count(text: str) -> int:
    """len(split_cells(text)), without building the cells or copying the row: the structural
    check of a write counts the cells of every row."""
    row = text.strip()
    pipes = row.count("|")
    if "\\" in row:
        pipes -= row.count("\\|")
    opening = row[:1] == "|"
    closing = len(row) > opening and row[-1] == "|" and row[-2:] != "\\|"
    return pipes - opening - closing + 1


CLOSED = ("|\n", "|\r\n", "|")
CLOSED_ESCAPED = ("\\|\n", "\\|\r\n", "\\|")


def rows_to_count(rows: list[str], width: int) -> Iterator[int]:
    """Offsets of the rows whose cells (`cell_count`) must be counted one by one: all but those
    that have `width` cells in the plainest way, an opening and a closing pipe right at the line's
    edges and `width + 1` pipes, once any escaped ones (a summary's `\\|`) are taken away from a
    row with a backslash, whose closing pipe must not be escaped. A row whose first cell is empty
    (`||`) is counted too: a row not counted opens with a pipe and a cell, so it can be no git
    conflict marker either, which spares a store looking at it for one. One loop, the tests in the
    cheapest order (a call of `endswith` costs less than a slice; an index, less again)."""
    if width < 1:
        yield from range(len(rows))
        return
    pipes = width + 1
    for offset, row in enumerate(rows):
        if row.endswith(CLOSED) and row[0] == "|":
            found = row.count("|")
            # Two pipes or more: the row has a second character.
            if "\\" not in row:
                if found == pipes and row[1] != "|":
                    continue
            elif (
                found - row.count("\\|") == pipes
                and row[1] != "|"
                and not row.endswith(CLOSED_ESCAPED)
            ):
                continue
        yield offset


def first_ragged(rows: list[str], width: int) -> tuple[int, int] | None:
    """The offset of the first row without `width` cells and its cell count; None for none."""
    for offset in rows_to_count(rows, width):
        cells = cell_count(rows[offset])  # the line ending goes with the padding
        if cells != width:
            return offset, cells
    return None


def cell_at(text: str, position: int) -> str:
    """`split_cells(text)[position]`, splitting the row no further than that cell."""
    body = text.lstrip()
    if body[:1] == "|":
        body = body[1:]
    pieces = body.split("|", position + 1)
    # With a pipe after it, the cell is the piece at `position`, unless a backslash before that
    # pipe escapes one; the last cell depends on the row's closing pipe: split_cells decides.
    if len(pieces) <= position + 1 or any("\\" in piece for piece in pieces[: position + 1]):
        return split_cells(text)[position]
    return pieces[position].strip()


def first_cell(text: str) -> str:
    """`cell_at(text, 0)`: one regex match, which copies no more of the row than the cell."""
    match = re.match(_FIRST_CELL, text)
    return match.group(1).strip() if match else cell_at(text, 0)


def _inner(text: str) -> str:
    """A row without its outer pipes."""
    inner = text.strip()
    if inner.startswith("|"):
        inner = inner[1:]
    if inner.endswith("|") and not inner.endswith("\\|"):
        inner = inner[:-1]
    return inner


def unescape(cell: str) -> str:
    """Cell text to value: `\\|` is a pipe and `<br>` a line break."""
    value = cell.replace("\\|", "|")
    return re.sub(_BR, "\n", value) if "<" in value else value


def escape(value: str, *, single_line: bool = False, field: str = "value") -> str:
    """Value to cell text. Raises InputError when a single-line field holds a line break."""
    trimmed = value.strip()
    if single_line and ("\n" in trimmed or "\r" in trimmed):
        raise InputError(
            f"{field} must be a single line", hint="remove the line break from the value"
        )
    # Each CRLF, then each lone CR and LF, becomes one `<br>` (no pattern to compile).
    cell = trimmed.replace("|", "\\|")
    return cell.replace("\r\n", "<br>").replace("\r", "<br>").replace("\n", "<br>")


def line_cells(line: str) -> list[str]:
    """Unescaped cell values of a row line. Every row of every read comes here."""
    if "\\" in line or "<" in line:
        return _unescaped_cells(line)
    # Most rows: nothing escaped, so a plain split is exact. What lies before the opening pipe and
    # after the closing one (indent, trailing spaces, the line ending) is blank: those pieces go.
    pieces = line.split("|")
    if len(pieces) > 1 and (not pieces[0] or pieces[0].isspace()):
        del pieces[0]
    if len(pieces) > 1 and (not pieces[-1] or pieces[-1].isspace()):
        del pieces[-1]
    return list(map(str.strip, pieces))


def cells_of_rows(
    lines: Sequence[str], width: int, text: str | None = None
) -> tuple[list[list[str]], list[int]]:
    """`line_cells` of each line, and the offsets of the lines read alone. The rest (rows of
    `width` cells, nothing escaped: no backslash, no `<`) are split all at once: one split and
    one strip from C for the whole run, instead of a call per row. Each line is read alone when
    any of them holds something beside its outer pipes but blanks. `text`: the lines joined,
    when the caller has them so."""
    if text is None:
        text = "".join(lines)
    pipes = width + 1
    counts = list(map(str.count, lines, repeat("|")))
    alone: set[int] = set()
    if counts.count(pipes) != len(lines):
        alone.update(compress(range(len(lines)), map(ne, counts, repeat(pipes))))
    for mark in ("\\", "<"):
        if mark in text:
            alone.update(compress(range(len(lines)), map(contains, lines, repeat(mark))))
    odd = sorted(alone)
    if odd:
        text = "".join(_without(lines, odd))
    pieces = list(map(str.strip, text.split("|")))
    if "".join(pieces[::pipes]):  # what lies between one row's closing pipe and the next's opening
        return list(map(line_cells, lines)), list(range(len(lines)))
    rows = [pieces[at + 1 : at + pipes] for at in range(0, len(pieces) - 1, pipes)]
    return (_with(rows, lines, odd) if odd else rows), odd


def _without(lines: Sequence[str], odd: list[int]) -> list[str]:
    """The lines but those at the (sorted) offsets `odd`."""
    kept: list[str] = []
    previous = 0
    for at in odd:
        kept += lines[previous:at]
        previous = at + 1
    return kept + list(lines[previous:])


def _with(rows: list[list[str]], lines: Sequence[str], odd: list[int]) -> list[list[str]]:
    """The cells of every line: `rows` of the lines but those at `odd`, in order, with the
    cells of each line at `odd` read alone put in its place."""
    cells: list[list[str]] = []
    taken = previous = 0
    for at in odd:
        cells += rows[taken : taken + at - previous]
        taken += at - previous
        cells.append(line_cells(lines[at]))
        previous = at + 1
    return cells + rows[taken:]


def _unescaped_cells(line: str) -> list[str]:
    """`unescape` of each of `split_cells(line)`, the escaped pipes held out of the split as NULs
    and put back already unescaped."""
    inner = _inner(line)
    if _HELD in inner:
        return [unescape(cell) for cell in split_cells(line)]
    pieces = inner.replace("\\|", _HELD).split("|")
    cells = [piece.strip().replace(_HELD, "|") for piece in pieces]
    if "<" in inner:
        cells = [re.sub(_BR, "\n", cell) if "<" in cell else cell for cell in cells]
    return cells


def split_raw(text: str) -> tuple[str, list[str], str]:
    """A row as (indent and opening pipe, raw cells with their padding, closing pipe and
    trailing spaces): joining them with `|` gives the text back exactly."""
    body = text.lstrip()
    lead = text[: len(text) - len(body)]
    if body.startswith("|"):
        lead, body = lead + "|", body[1:]
    trimmed = body.rstrip()
    trail = ""
    if trimmed.endswith("|") and not trimmed.endswith("\\|"):
        trail = "|" + body[len(trimmed) :]
        body = trimmed[:-1]
    return lead, re.split(_PIPE_SPLIT, body), trail

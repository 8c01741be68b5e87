"""The lossless document model: markdown in, the same bytes out, tables found by a line scanner.

A document is a list of raw lines, each keeping its own line ending, so that rendering an untouched
document returns its input exactly (CRLF, a missing final newline, odd padding and all). Tables are
located by scanning for a header row followed by a delimiter row with the same number of cells,
outside fenced code and never from an indented (code) line. Cells split on unescaped pipes, which is
GitHub's rule; pipes inside backticks are not protected, as GitHub does not protect them either.
"""

import re
from collections.abc import Iterator, Sequence

from legion_memory.errors import InputError
from legion_memory.named_tuple import NamedTuple

BOM = "\ufeff"
_PIPE_SPLIT = r"(?<!\\)\|"  # compiled by `re` on first use, as the patterns below
_FENCE_OPEN = r"^ {0,3}(`{3,}|~{3,})"
# What `atx_heading` reads without compiling it (a property test holds the two equal).
ATX_HEADING = r"^ {0,3}#{1,6}(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$"
# Compiled by `re` on first use: a command that never meets what they read does not pay for them.
_LINE = r"[^\n]*\n|[^\n]+"
_BR = r"(?i)<br\s*/?>"
# The first cell of a row that has a pipe after it and no backslash before that pipe. The
# quantifiers before the cell are possessive: an opening pipe must never be read as the closing one.
_FIRST_CELL = r"\s*+\|?+([^|\\]*)\|"
_INDENTED_CODE = 4
_HELD = "\0"


class Table(NamedTuple):
    """A table's position in a document: header line, delimiter line, then body rows up to `end`."""

    header: int
    end: int
    heading: str
    columns: tuple[str, ...]

    @property
    def delimiter(self) -> int:
        return self.header + 1

    @property
    def rows(self) -> range:
        """Indexes of the body rows."""
        return range(self.header + 2, self.end)


class Document(NamedTuple):
    """Raw lines (each with its own ending), a BOM flag, and the tables found in them."""

    lines: list[str]
    bom: bool = False
    tables: tuple[Table, ...] = ()

    def text(self, index: int) -> str:
        """The content of line `index` without its line ending."""
        return strip_ending(self.lines[index])

    def table_under(self, heading: str) -> Table | None:
        """The first table whose nearest preceding heading is `heading` (case-insensitive)."""
        wanted = heading.casefold()
        return next((t for t in self.tables if t.heading.casefold() == wanted), None)

    def dominant_ending(self) -> str:
        """The line ending most lines use: new lines copy it."""
        crlf = sum(1 for line in self.lines if line.endswith("\r\n"))
        lf = sum(1 for line in self.lines if line.endswith("\n")) - crlf
        return "\r\n" if crlf > lf else "\n"


def strip_ending(line: str) -> str:
    if line.endswith("\r\n"):
        return line[:-2]
    if line.endswith("\n"):
        return line[:-1]
    return line


def ending_of(line: str) -> str:
    return line[len(strip_ending(line)) :]


def split_lines(text: str) -> list[str]:
    """Split on "\\n" only, each piece keeping its ending; never str.splitlines(), which also
    splits on \\r, form feeds and Unicode separators. One regex pass builds each line once; a
    short text (a catalog, a row being verified) is split by `str.split`, which copies the lines
    twice but spares compiling the pattern, which costs more than splitting it."""
    if len(text) > _SHORT_TEXT:
        return re.findall(_LINE, text)
    pieces = text.split("\n")
    last = pieces.pop()
    lines = [piece + "\n" for piece in pieces]
    if last:
        lines.append(last)
    return lines


_SHORT_TEXT = 1 << 20


def parse(text: str) -> Document:
    bom = text.startswith(BOM)
    lines = split_lines(text[1:] if bom else text)
    return Document(lines=lines, bom=bom, tables=tuple(scan_tables(lines)))


def parse_lines(lines: list[str]) -> Document:
    """`parse` of the text these lines (as `split_lines` gives them) make up; the list is kept."""
    bom = bool(lines) and lines[0].startswith(BOM)
    if bom:
        lines[0] = lines[0][1:]
        if not lines[0]:
            del lines[0]  # the text was the mark alone
    return Document(lines=lines, bom=bom, tables=tuple(scan_tables(lines)))


def render(document: Document) -> str:
    body = "".join(document.lines)
    return BOM + body if document.bom else body


def scan_tables(lines: Sequence[str]) -> Iterator[Table]:
    """Yield every table outside fenced code, in document order."""
    fence = ""
    heading = ""
    index = 0
    count = len(lines)
    while index < count:
        text = strip_ending(lines[index])
        if fence:
            if _closes_fence(text, fence):
                fence = ""
            index += 1
            continue
        # Only a line holding three backticks or tildes can open a fence: the others (every line
        # of a memory file, as a rule) are not matched, and the pattern is never compiled.
        opened = ("```" in text or "~~~" in text) and re.match(_FENCE_OPEN, text)
        if opened:
            fence = opened.group(1)
        elif text.lstrip(" ").startswith("#") and (found := atx_heading(text)) is not None:
            heading = found.strip()
        elif "|" in text and index + 1 < count and _starts_table(text, lines[index + 1]):
            end = _rows_end(lines, index + 2)
            columns = tuple(unescape(cell) for cell in split_cells(text))
            yield Table(header=index, end=end, heading=heading, columns=columns)
            index = end
            continue
        index += 1


def atx_heading(text: str) -> str | None:
    """The text of an ATX heading line (without its ending), unstripped, as `ATX_HEADING`'s
    group reads it ("" for none); None when the line is no heading. By string methods: every
    read of a memory file meets its headings, and compiling the pattern cost more than a
    1,000-row store reading them."""
    body = text.lstrip(" ")
    rest = body.lstrip("#")
    if len(text) - len(body) > 3 or not 0 < len(body) - len(rest) <= 6:
        return None  # a seventh `#` is no space: the pattern cannot match with fewer either
    if not rest:
        return ""
    if rest[0] not in " \t":
        return None
    content = rest.lstrip(" \t")
    # The lazy content ends where a closing run of `#` (after a blank) and blanks begin, or else
    # where the trailing blanks do; it is never empty unless nothing follows the blanks.
    end = len(content.rstrip(" \t"))
    opened = content[:end].rstrip("#")
    if len(opened) < end and opened[-1:] in (" ", "\t") and opened.rstrip(" \t"):
        end = len(opened.rstrip(" \t"))
    return content[:end]


def _closes_fence(text: str, fence: str) -> bool:
    stripped = text.strip()
    return (
        len(stripped) >= len(fence)
        and set(stripped) == {fence[0]}
        and len(text) - len(text.lstrip(" ")) < _INDENTED_CODE
    )


def _starts_table(header: str, next_line: str) -> bool:
    if _indent(header) >= _INDENTED_CODE:
        return False
    delimiter = strip_ending(next_line)
    if "-" not in delimiter:
        return False
    cells = split_cells(delimiter)
    if not cells or not all(map(_delimiter_cell, cells)):
        return False
    return len(cells) == len(split_cells(header))


def _delimiter_cell(cell: str) -> bool:
    """`^\\s*:?-+:?\\s*$`: dashes, a colon at either end or both, blanks around."""
    text = cell.strip()
    text = text[1:] if text.startswith(":") else text
    text = text[:-1] if text.endswith(":") else text
    return bool(text) and not text.strip("-")


def _rows_end(lines: Sequence[str], start: int) -> int:
    """The index of the first line from `start` that is not a table row (`is_row`, inlined: every
    row of every parse comes here). A line opening with a pipe is a row whatever follows (that
    pipe has nothing before it to escape it), which one slice tells; a line ending holds no pipe
    and no backslash, so no strip_ending is needed."""
    for index in range(start, len(lines)):
        line = lines[index]
        if line[:1] == "|":
            continue
        if "|" not in line or ("\\" in line and not _unescaped_pipe(line)):
            return index
    return len(lines)


def is_row(text: str) -> bool:
    """A table body line: not blank and holding at least one unescaped pipe."""
    # Without a backslash every pipe is unescaped: only the rest are counted.
    return "|" in text and ("\\" not in text or _unescaped_pipe(text))


def _unescaped_pipe(text: str) -> bool:
    """Whether a pipe in `text` has no backslash before it (`_PIPE_SPLIT` finds one). The first
    pipe, a row's opening one, almost always is; else each pipe with a backslash before it makes
    one `\\|`, and two of them cannot overlap."""
    first = text.find("|")
    if first <= 0 or text[first - 1] != "\\":
        return first >= 0
    return text.count("|") > text.count("\\|")


def _indent(text: str) -> int:
    expanded = text.expandtabs(4)
    return len(expanded) - len(expanded.lstrip(" "))


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


_CLOSED = ("|\n", "|\r\n", "|")
_CLOSED_ESCAPED = ("\\|\n", "\\|\r\n", "\\|")


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
        if row.endswith(_CLOSED) and row[0] == "|":
            found = row.count("|")
            # Two pipes or more: the row has a second character.
            if "\\" not in row:
                if found == pipes and row[1] != "|":
                    continue
            elif (
                found - row.count("\\|") == pipes
                and row[1] != "|"
                and not row.endswith(_CLOSED_ESCAPED)
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


class RowStyle(NamedTuple):
    """How a table's rows are written, copied from a neighbouring row so appends blend in."""

    indent: str = ""
    outer_pipes: bool = True
    padding: str = " "
    ending: str = "\n"

    @classmethod
    def of(cls, line: str) -> "RowStyle":
        text = strip_ending(line)
        inner = text.strip()
        outer = inner.startswith("|")
        after_pipe = inner[1:2] if outer else ""
        padding = " " if (after_pipe == " " or not outer) else ""
        return cls(
            indent=text[: len(text) - len(text.lstrip())],
            outer_pipes=outer,
            padding=padding,
            ending=ending_of(line),
        )

    def format(self, cells: Sequence[str]) -> str:
        """A row line (with this style's ending) from already-escaped cells."""
        pad = self.padding
        # A cell ending in a backslash would escape the next pipe without a space between them.
        cells = [cell + " " if not pad and cell.endswith("\\") else cell for cell in cells]
        body = f"{pad}|{pad}".join(cells)
        # Without outer pipes an empty first or last cell would vanish when read back.
        if self.outer_pipes or len(cells) == 1 or not cells[0] or not cells[-1]:
            body = f"|{pad}{body}{pad}|"
        return f"{self.indent}{body}{self.ending}"


def row_cells(document: Document, index: int) -> list[str]:
    """Unescaped cell values of line `index`."""
    return line_cells(document.lines[index])


def table_cells(document: Document, table: Table) -> Iterator[list[str]]:
    """`row_cells` of every body row of `table`, in order."""
    return map(line_cells, document.lines[table.header + 2 : table.end])


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

"""The lossless document model: markdown in, the same bytes out, tables found by a line scanner.

A document is a list of raw lines, each keeping its own line ending, so that rendering an untouched
document returns its input exactly (CRLF, a missing final newline, odd padding and all). Tables are
located by scanning for a header row followed by a delimiter row with the same number of cells,
outside fenced code and never from an indented (code) line. Cells split on unescaped pipes, which is
GitHub's rule; pipes inside backticks are not protected, as GitHub does not protect them either.
"""

import re
from collections.abc import Iterator, Sequence

from legion_memory.markdown.cells import line_cells, split_cells, unescape
from legion_memory.named_tuple import NamedTuple

BOM = "\ufeff"
_FENCE_OPEN = r"^ {0,3}(`{3,}|~{3,})"
# What `atx_heading` reads without compiling it (a property test holds the two equal).
ATX_HEADING = r"^ {0,3}#{1,6}(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$"
# Compiled by `re` on first use: a command that never meets what they read does not pay for them.
_LINE = r"[^\n]*\n|[^\n]+"
_INDENTED_CODE = 4


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

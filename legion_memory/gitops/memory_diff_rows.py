"""A kind's table in one version of the memory as the diff reads it: the first row of each
identity, worked out from the row lines, with a record built only for a row the diff reports or
compares (docs/decisions.md#diff-from-lines)."""

from collections import Counter
from collections.abc import Mapping
from itertools import compress, repeat
from operator import add, and_, contains, eq, itemgetter, not_

from legion_memory.markdown.cells import line_cells
from legion_memory.markdown.document import Document, Table, parse
from legion_memory.schema.identity import identity
from legion_memory.schema.kinds import ARCHIVE_FILENAME, Kind, identity_keys
from legion_memory.schema.records import Record, column_key, records_table
from legion_memory.schema.twin_hashes import printable_but_line_feeds

TYPE_CHECKING = False  # not typing's: docs/decisions.md#hot-paths-without-typing
if TYPE_CHECKING:
    from legion_memory.schema.validation import Unchanged

RowKey = str | tuple[str, ...]
"""A row's identity as one key: its values joined by " | " when none holds a pipe (then the join
can be split back, so equal joins are equal identities), else the identity itself; the kind's
prefix, the same for every row of a table, left out."""


class Identities:
    """The identity key of each row line of one table layout, each distinct line read once: the
    two versions of a table share most of their lines."""

    __slots__ = ("keys", "kind", "known", "pick", "tail", "width")

    def __init__(self, kind: Kind, keys: tuple[str, ...]) -> None:
        self.kind = kind
        self.keys = keys
        self.width = len(keys)
        # A record keeps the last of repeated columns; a column the table lacks reads empty: the
        # position past the row's cells, where an empty cell is put (picked last, so that one key
        # too gives a tuple).
        last = {key: position for position, key in enumerate(keys)}
        positions = [last.get(key, self.width) for key in identity_keys(kind)]
        self.pick = itemgetter(*positions, self.width)
        # The ID first and the identity every other cell, in order (an outcome's): a row as the
        # tool writes it holds its key as it lies, after its ID cell.
        self.tail = last.get("id") == 0 and positions == list(range(1, self.width))
        self.known: dict[str, RowKey] = {}

    def of_lines(self, lines: list[str]) -> list[RowKey]:
        known = self.known
        unknown = list(set(lines).difference(known))
        written = _keys_as_written(unknown, self.width) if self.tail else [None] * len(unknown)
        for line, key in zip(unknown, written, strict=True):
            known[line] = self._of(line) if key is None else key
        return list(map(known.__getitem__, lines))

    def _of(self, line: str) -> RowKey:
        """The key of `identity` of the row's record, without building the record (a row not
        as the tool writes it: `_keys_as_written` reads those)."""
        cells = line_cells(line)
        if len(cells) != self.width:  # a ragged row: its record is read as `read_records` reads it
            values = identity(self.kind, dict(zip(self.keys, cells, strict=False)))[1:]
        else:
            # `clean` of each value (its whitespace runs made single spaces), from C.
            values = tuple(map(" ".join, map(str.split, self.pick([*cells, ""])[:-1])))
        return values if any(map(str.__contains__, values, repeat("|"))) else " | ".join(values)


def _keys_as_written(lines: list[str], width: int) -> list[RowKey | None]:
    """`_key_as_written` of each line, the lines ending ` |` and a line feed with nothing
    escaped, no `<`, no CR and no two spaces in a row told apart all at once (each test a `map`
    from C); the others asked one by one."""
    if width < 2:
        return [None] * len(lines)
    plain = list(map(str.endswith, lines, repeat(" |\n")))
    text = "".join(lines)
    for mark in ("<", "  ", "\\", "\r"):
        if mark in text:  # else no line holds it, which one search from C tells
            plain = list(map(and_, plain, map(not_, map(contains, lines, repeat(mark)))))
    tests = [
        map(str.startswith, lines, repeat("| ")),
        map(eq, map(str.count, lines, repeat("|")), repeat(width + 1)),
        map(eq, map(str.count, lines, repeat(" | ")), repeat(width - 1)),
    ]
    if not printable_but_line_feeds(text):  # else each line is, its line feed aside
        tests.append(map(str.isprintable, map(itemgetter(slice(None, -1)), lines)))
    for test in tests:
        plain = list(map(and_, plain, test))
    starts = map(add, map(str.find, lines, repeat(" | ")), repeat(3))
    return [
        line[start:-3] if ok else _key_as_written(line, width)
        for line, ok, start in zip(lines, plain, starts, strict=True)
    ]


def _key_as_written(line: str, width: int) -> RowKey | None:
    """The key of a row written as the tool writes rows, `| a | b |`: one space of padding, every
    cell clean and none empty, nothing escaped but pipes (`\\|`), read from the cells after its
    ID cell as they lie. None for any other line."""
    if "<" in line or "  " in line or width < 2:
        return None
    escaped = 0
    if "\\" in line:
        escaped = line.count("\\|")
        if escaped != line.count("\\"):
            return None  # a backslash that escapes no pipe
    end = len(line) - (2 if line.endswith("\r\n") else 1 if line.endswith("\n") else 0)
    if not (line.startswith("| ") and line.endswith(" |", 0, end)):
        return None
    if line.count("|") - escaped != width + 1 or line.count(" | ") != width - 1:
        return None  # then every unescaped pipe is an edge or a separator with a space each side
    body = line[:end]
    # Every whitespace character `str.split` knows but the space is unprintable (as are the
    # other control and format characters): a printable line without two spaces in a row has
    # every cell as `clean` leaves it.
    if not body.isprintable():
        return None
    cells = body[body.find(" | ") + 3 : -2]
    if not escaped:
        return cells
    # An escaped pipe has a backslash before it: no separator (" | ") holds one.
    return tuple(cell.replace("\\|", "|") for cell in cells.split(" | "))


class KindRows:
    """One version of a kind's live or archived table: the line index of the first row of each
    identity (a record held twice counts once, as its first row), and the records read so far."""

    __slots__ = ("first", "first_line", "keys", "kind", "lines", "read")

    def __init__(
        self,
        kind: Kind,
        keys: tuple[str, ...] = (),
        lines: list[str] | None = None,
        first_line: int = 0,
        identities: Identities | None = None,
    ) -> None:
        self.kind = kind
        self.keys = keys
        self.lines = lines or []
        self.first_line = first_line
        self.read: dict[int, Record] = {}
        self.first: dict[RowKey, int] = {}
        if identities is not None and self.lines:
            self.first = _first_of_each(identities.of_lines(self.lines))

    def record(self, index: int) -> Record:
        """The record of row `index`, exactly as `read_records` reads it; the same object when
        asked again."""
        found = self.read.get(index)
        if found is None:
            values = dict(zip(self.keys, line_cells(self.lines[index]), strict=False))
            found = self.read[index] = Record(self.kind, values, self.first_line + index)
        return found

    def same_row(self, index: int, other: "KindRows", other_index: int) -> bool:
        """Whether row `index` and `other`'s row `other_index` are one record: the same line in
        the same layout."""
        return self.keys == other.keys and self.lines[index] == other.lines[other_index]


def _first_of_each(identities: list[RowKey]) -> dict[RowKey, int]:
    """Each identity's first row index, in the order of first rows."""
    count = len(identities)
    if len(set(identities)) == count:
        return dict(zip(identities, range(count), strict=True))
    firsts = dict(zip(reversed(identities), range(count - 1, -1, -1), strict=True))
    return {key: firsts[key] for key in dict.fromkeys(identities)}


class RowReader:
    """The kinds' rows of the versions compared, each distinct text parsed once (the archive
    holds every kind's table; the new version's documents are validated too)."""

    __slots__ = ("documents", "layouts")

    def __init__(self) -> None:
        self.documents: list[tuple[str, Document]] = []
        self.layouts: dict[tuple[str, tuple[str, ...]], Identities] = {}

    def document(self, text: str) -> Document:
        """`parse(text)`, once for each distinct text. The few texts are told apart by comparing
        them (their lengths first), not by a dict: hashing a text reads every character."""
        for known, document in self.documents:
            if known == text:
                return document
        document = parse(text)
        self.documents.append((text, document))
        return document

    def rows(self, texts: Mapping[str, str | None], kind: Kind, *, archived: bool) -> KindRows:
        text = texts.get(ARCHIVE_FILENAME if archived else kind.filename)
        if not text:
            return KindRows(kind)
        document = self.document(text)
        table = records_table(document, kind, archived=archived)
        if table is None:
            return KindRows(kind)
        keys = tuple(column_key(name) for name in table.columns)
        identities = self.layouts.get((kind.name, keys))
        if identities is None:
            identities = self.layouts[kind.name, keys] = Identities(kind, keys)
        lines = document.lines[table.header + 2 : table.end]
        return KindRows(kind, keys, lines, table.header + 3, identities)


def unchanged_rows(old: Document, new: Document, *, archived: bool) -> "Unchanged":
    """The rows of each of `new`'s tables that `old`'s table of the same kind holds as they are,
    in the same layout (the same column keys): a line the new version holds more often than the
    old counts as unchanged as often as the old one holds it, its later copies being the
    change's (docs/decisions.md#diff-checks-what-changed)."""

    def unchanged(table: Table, kind: Kind) -> set[int]:
        before = records_table(old, kind, archived=archived)
        if before is None or _keys(before) != _keys(table):
            return set()
        return _held(old.lines[before.header + 2 : before.end], new.lines, table.rows)

    return unchanged


def _keys(table: Table) -> tuple[str, ...]:
    return tuple(map(column_key, table.columns))


def _held(old_lines: list[str], lines: list[str], rows: range) -> set[int]:
    """The indexes among `rows` of the lines that `old_lines` holds, counted."""
    new_lines = lines[rows.start : rows.stop]
    held = set(old_lines)
    if len(set(new_lines)) == len(new_lines):  # no line twice: being held is enough
        return set(compress(rows, map(held.__contains__, new_lines)))
    left = Counter(old_lines)
    found = set()
    for index, line in zip(rows, new_lines, strict=True):
        if left[line] > 0:
            left[line] -= 1
            found.add(index)
    return found

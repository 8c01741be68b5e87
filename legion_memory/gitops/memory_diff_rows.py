"""A kind's table in one version of the memory as the diff reads it: the first row of each
identity, worked out from the row lines, with a record built only for a row the diff reports or
compares (docs/decisions.md#diff-from-lines)."""

from collections.abc import Mapping
from itertools import repeat
from operator import itemgetter

from legion_memory.markdown.document import Document, line_cells, parse
from legion_memory.schema.identity import identity, identity_keys
from legion_memory.schema.kinds import ARCHIVE_FILENAME, Kind
from legion_memory.schema.records import Record, column_key, records_table

RowKey = str | tuple[str, ...]
"""A row's identity as one key: its values joined by " | " when none holds a pipe (then the join
can be split back, so equal joins are equal identities), else the identity itself; the kind's
prefix, the same for every row of a table, left out."""


class Identities:
    """The identity key of each row line of one table layout, each distinct line read once: the
    two versions of a table share most of their lines."""

    __slots__ = ("keys", "kind", "known", "pick", "width")

    def __init__(self, kind: Kind, keys: tuple[str, ...]) -> None:
        self.kind = kind
        self.keys = keys
        self.width = len(keys)
        # A record keeps the last of repeated columns; a column the table lacks reads empty: the
        # piece past the line's pieces (an opening pipe's, the cells', the closing one's), where
        # an empty one is put. The pieces are picked by position after the opening pipe's.
        last = {key: position + 1 for position, key in enumerate(keys)}
        positions = [last.get(key, self.width + 2) for key in identity_keys(kind)]
        self.pick = itemgetter(*positions, self.width + 2)
        self.known: dict[str, RowKey] = {}

    def of_lines(self, lines: list[str]) -> list[RowKey]:
        known = self.known
        for line in set(lines).difference(known):
            known[line] = self._of(line)
        return list(map(known.__getitem__, lines))

    def _of(self, line: str) -> RowKey:
        """The key of `identity` of the row's record, without building the record. A row with
        nothing escaped, an opening and a closing pipe and the header's cells is split once: its
        cells are the pieces between its pipes, none holding a pipe."""
        pieces = line.split("|")
        plain = len(pieces) == self.width + 2 and "\\" not in line and "<" not in line
        edges = pieces[0], pieces[-1]
        if plain and all(not edge or edge.isspace() for edge in edges):
            pieces.append("")
            # `clean` of each value (its whitespace runs made single spaces), from C.
            return " | ".join(map(" ".join, map(str.split, self.pick(pieces)[:-1])))
        values = identity(self.kind, dict(zip(self.keys, line_cells(line), strict=False)))[1:]
        return values if any(map(str.__contains__, values, repeat("|"))) else " | ".join(values)


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
        self.documents: dict[str, Document] = {}
        self.layouts: dict[tuple[str, tuple[str, ...]], Identities] = {}

    def document(self, text: str) -> Document:
        found = self.documents.get(text)
        if found is None:
            found = self.documents[text] = parse(text)
        return found

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

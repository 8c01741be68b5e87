"""What search and context read: every live row of the chosen kinds' tables, every `/legion:learn`
heading entry in those files and, when asked, every section of RETRO.md.

Archived rows live in ARCHIVE.md, which is never read here, so they never come back.

Rows are read lazily so that a search over 10,000 of them stays fast: a row becomes a *source*
(searchable text plus the few facts ranking needs) only when its line contains a query word, found
by substring tests of each line lowered, and a source becomes a full *entry* (record, headline) only
when it is among the results. A row's length, for BM25's length normalisation, is the length of its
line in characters; a learn or retro entry's is the length of its searchable text.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import partial
from itertools import repeat
from pathlib import Path

from legion_memory.errors import ParseError
from legion_memory.markdown.cells import split_cells, unescape
from legion_memory.markdown.document import Document, Table, strip_ending
from legion_memory.schema.kinds import Kind
from legion_memory.schema.learn_entries import learn_entries
from legion_memory.schema.records import Record, column_key, records_table
from legion_memory.search.documents import (
    ENTRY_TYPES,
    MAIN_WEIGHT,
    STRUCTURAL,
    Entry,
    field_weight,
    learn_entry,
    record_entry,
    retro_entry,
)
from legion_memory.search.retro_entries import RETRO_FILENAME, retro_entries
from legion_memory.storage import reading

Fields = tuple[tuple[float, str], ...]
"""(field weight, lowercase text) of a document's searchable fields: what ranking counts in."""


class Source:
    """One searchable thing: type, searchable text, length and sort facts; its entry is built
    on demand."""

    __slots__ = (
        "_entry", "_make", "date", "fields", "id", "importance", "length", "names", "text", "type",
    )  # fmt: skip

    def __init__(
        self,
        type: str,
        text: str,
        make: Callable[[], Entry],
        *,
        id: str,
        date: str,
        importance: int | None = None,
        names: str = "",
        length: int | None = None,
        fields: tuple[tuple[float, str], ...] | None = None,
    ) -> None:
        self.type = type
        self.text = text
        # (field weight, lowercase text) of the searchable fields: what ranking counts words in.
        self.fields = ((MAIN_WEIGHT, text.lower()),) if fields is None else fields
        self.length = len(text) if length is None else length
        self.id = id
        self.date = date
        self.importance = importance
        self.names = names  # agents and tags, comma-separated: what a role is matched against
        self._make = make
        self._entry: Entry | None = None

    @classmethod
    def of(cls, entry: Entry) -> Source:
        names = ",".join((*entry.agents, *entry.tags))
        return cls(
            entry.type,
            " ".join(entry.fields),
            lambda: entry,
            id=entry.id,
            date=entry.date,
            importance=entry.importance,
            names=names,
            fields=tuple((field_weight(key), text.lower()) for key, text in entry.sections),
        )

    def entry(self) -> Entry:
        if self._entry is None:
            self._entry = self._make()
        return self._entry

    @property
    def day(self) -> dt.date | None:
        try:
            return dt.date.fromisoformat(self.date)
        except ValueError:
            return None

    @property
    def number(self) -> int:
        digits = self.id.rpartition("-")[2]
        return int(digits) if digits.isdigit() else 0


class Rows:
    """One table's rows, kept as the document's lines (each with its ending) until a query asks
    for some of them: never copied (docs/decisions.md#memory-as-lines)."""

    __slots__ = ("first_line", "groups", "keys", "kind", "lines", "path")

    def __init__(
        self, path: Path, kind: Kind, keys: list[str], first_line: int, lines: list[str]
    ) -> None:
        self.path = path
        self.kind = kind
        self.keys = keys
        self.first_line = first_line
        self.lines = lines
        self.groups = weight_groups(keys)

    @property
    def length(self) -> int:
        """The rows' length in characters, their line endings aside."""
        endings = map(str.endswith, self.lines, repeat("\n"))
        crs = map(str.endswith, self.lines, repeat("\r\n"))
        return sum(map(len, self.lines)) - sum(endings) - sum(crs)

    def containing(self, words: Sequence[str]) -> Iterator[tuple[Source, Fields]]:
        """Sources for the rows whose line contains any of the words (lowercase) as a substring,
        each with its searchable fields. Each line is lowered on its own, never the table joined
        into one string: one emoji made that string four bytes a character
        (docs/decisions.md#memory-as-lines). The fields are built as each row is reached and
        kept by no source, nor are its cells: a query can match most rows of a large table
        (docs/decisions.md#search-sources-hold-no-fields)."""
        for row, line in enumerate(self.lines):
            lowered = line.lower()
            if any(map(lowered.__contains__, words)):
                # A line that lowering made longer (`İ` is two characters lowered) has its cells
                # lowered one by one; in any other, each character lowered to one character,
                # never a pipe, backslash or space, so the lowered line splits into the same
                # cells lowered.
                yield self.source(row, lowered if len(lowered) == len(line) else None)

    def source(self, row: int, lowered: str | None = None) -> tuple[Source, Fields]:
        """The row's source and its fields; `lowered` is its line lowercased, when the caller
        has it."""
        line = self.lines[row]
        cells = split_cells(line)
        values = dict(zip(self.keys, cells, strict=False))
        if "<" in line:
            # Only `<br>` changes a cell's words when unescaped (an escaped pipe splits anyway).
            low = [unescape(cell).lower() for cell in cells]
        else:
            low = split_cells(lowered) if lowered is not None else [c.lower() for c in cells]
        width = len(low)
        fields = tuple(
            (weight, "\n".join(low[i] for i in columns if i < width))
            for weight, columns in self.groups
        )
        importance = values.get("importance", "")
        source = Source(
            ENTRY_TYPES[self.kind.name],
            "",  # a row's text is its fields, which are returned beside it
            partial(self._entry, row),
            id=values.get("id", ""),
            date=values.get("date", ""),
            importance=int(importance) if importance in {"1", "2", "3", "4", "5"} else None,
            names=",".join(values.get(key, "") for key in ("agent", "tags")),
            length=len(strip_ending(line)),
            fields=(),
        )
        return source, fields

    def _entry(self, row: int) -> Entry:
        """The row's entry, its cells split again from its line: only results need one."""
        values = dict(zip(self.keys, map(unescape, split_cells(self.lines[row])), strict=False))
        return record_entry(Record(self.kind, values, line=self.first_line + row), self.path)


def weight_groups(keys: Sequence[str]) -> list[tuple[float, list[int]]]:
    """The searchable columns' indices grouped by field weight, heaviest first: a row's words are
    then found with one pass per weight rather than one per cell."""
    groups: dict[float, list[int]] = {}
    for index, key in enumerate(keys):
        if key not in STRUCTURAL:
            groups.setdefault(field_weight(key), []).append(index)
    return sorted(groups.items(), reverse=True)


def _has(text: str, words: Sequence[str]) -> bool:
    lowered = text.lower()
    return any(word in lowered for word in words)


class Corpus:
    """The searchable documents of one tier: table rows (lazy) and learn/retro sources."""

    __slots__ = ("sources", "tables")

    def __init__(self) -> None:
        self.tables: list[Rows] = []
        self.sources: list[Source] = []

    @classmethod
    def of(cls, sources: Iterable[Source]) -> Corpus:
        corpus = cls()
        corpus.sources.extend(sources)
        return corpus

    @property
    def count(self) -> int:
        return sum(len(rows.lines) for rows in self.tables) + len(self.sources)

    @property
    def length(self) -> int:
        return sum(rows.length for rows in self.tables) + sum(s.length for s in self.sources)

    def containing(self, words: Sequence[str]) -> Iterator[tuple[Source, Fields]]:
        """Every document that may contain one of the words, with its searchable fields: a
        superset of the real matches."""
        for rows in self.tables:
            yield from rows.containing(words)
        for source in self.sources:
            if _has(source.text, words):
                yield source, source.fields


def gather(
    memory: reading.Memory, kinds: Iterable[Kind], *, retro: bool
) -> tuple[Corpus, list[Path]]:
    """The corpus of the chosen files, and the files that could not be parsed (skipped)."""
    corpus = Corpus()
    unreadable: list[Path] = []
    for kind in kinds:
        path = memory.path(kind)
        try:
            _add_file(corpus, path, kind)
        except ParseError:
            unreadable.append(path)
    if retro:
        path = memory.directory / RETRO_FILENAME
        try:
            document = reading.load(path)
        except ParseError:
            unreadable.append(path)
        else:
            if document is not None:
                found = retro_entries(document)
                corpus.sources.extend(Source.of(retro_entry(entry, path)) for entry in found)
    return corpus, unreadable


def _add_file(corpus: Corpus, path: Path, kind: Kind) -> None:
    document = reading.load(path)
    if document is None:
        return
    # A file written only by /legion:learn has entries and no table: that is not an error.
    table = records_table(document, kind)
    if table is not None:
        corpus.tables.append(rows_of(path, document, table, kind))
    corpus.sources.extend(Source.of(learn_entry(entry, path)) for entry in learn_entries(document))


def rows_of(path: Path, document: Document, table: Table, kind: Kind) -> Rows:
    """A table's rows; ParseError when a row's cells do not match the header (as store says)."""
    reading.require_table(path, document, kind)  # a ragged row: the store's own one-line message
    keys = [column_key(name) for name in table.columns]
    # A table without rows counts as one empty row, as it always has in BM25's document count:
    # the scores stay what they were.
    lines = document.lines[table.rows.start : table.rows.stop] or [""]
    return Rows(path, kind, keys, table.rows.start + 1, lines)

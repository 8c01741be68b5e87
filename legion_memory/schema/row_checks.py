"""The checks of every row of a memory table (its cell count, secrets, control characters, each
column's rule, duplicate IDs), run on the cells split straight from its lines, a chunk of rows at
a time and column by column: no record is built for a row (docs/decisions.md#validate-from-lines).
"""

from array import array
from itertools import compress, filterfalse
from operator import itemgetter

from legion_memory.markdown.cells import cells_of_rows, line_cells
from legion_memory.markdown.document import Document, Table
from legion_memory.named_tuple import NamedTuple
from legion_memory.schema.clean_values import clean_as_read, suspicious
from legion_memory.schema.fields import control_character, free_rule, taken_at_once
from legion_memory.schema.fingerprints import hashes, positions_of, repeated
from legion_memory.schema.kinds import Column, Kind, column_problem
from legion_memory.schema.problems import ERROR, WARNING, Problem, duplicate_ids
from legion_memory.schema.records import column_key
from legion_memory.schema.secrets import secret_kind, secret_message
from legion_memory.schema.source_links import Citations
from legion_memory.schema.twin_hashes import RowHasher, all_clean, hashes_of_rows

# A table's values repeat from row to row (agents, dates, task types): each distinct value of a
# chunk is checked once, and the values seen to pass are kept (emptied when this many, so that a
# column of unique values stays small). Every check is a pure function of the value
# (docs/decisions.md#secrets-once-per-value).
_KNOWN = 16384
_CHUNK = 4096
"""Rows whose cells are held at once: little memory, and each column's distinct values."""
_CLEAN: set[str] = set()
"""Values seen to be neither a secret nor hold a control character, in any table checked: a
file's agents, task types and tags recur in the others (a diff validates four files)."""
_ROTATE = "remove it from the file and rotate the credential"
_Found = list[tuple[int, int, Problem]]
"""Problems with their line index and their place among the row's (its value's or column's)."""
_Flagged = set[tuple[int, str]]
"""(line index, key) of the values found to be secrets: their column rules are not checked."""


class _Value(NamedTuple):
    order: int
    key: str
    position: int
    field: str
    free: bool
    """Free text (a summary, a fix): each row's own, so tested row by row and not kept as seen."""


class _Rule(NamedTuple):
    column: Column
    position: int
    known: set[str] | None
    """Values seen to pass the column's rule; None for free text, which only must not be empty
    when required."""
    order: int
    """Its problems' place among the row's: after every value's secret."""
    guard: _Value | None
    """The column's value when its rule is secret-free: only the values the rule refuses are
    looked at for a secret (or a control character), and those found are no rule's problem."""


class Layout(NamedTuple):
    """Where a table holds each value of its records: a record keeps the last of repeated columns,
    in the order of their first."""

    width: int
    values: tuple[_Value, ...]
    """The values searched for secrets: all but those of the secret-free columns."""
    rules: tuple[_Rule, ...]
    """The kind's columns the table has, in the kind's order."""
    id_position: int | None

    @classmethod
    def of(cls, table: Table, kind: Kind) -> "Layout":
        keys = [column_key(name) for name in table.columns]
        last = {key: position for position, key in enumerate(keys)}
        fields = {column.key: column.name for column in kind.columns}
        free = {column.key for column in kind.columns if column.rule is free_rule}
        values = tuple(
            _Value(order, key, last[key], fields.get(key, "a column"), key in free)
            for order, key in enumerate(dict.fromkeys(keys))
        )
        present = [column for column in kind.columns if column.key in last]
        guarded = {c.key for c in present if c.secret_free}
        guards = {value.key: value for value in values if value.key in guarded}
        rules = tuple(
            _Rule(
                c,
                last[c.key],
                None if c.rule is free_rule else set(),
                len(values) + order,
                guards.get(c.key),
            )
            for order, c in enumerate(present)
        )
        searched = tuple(value for value in values if value.key not in guarded)
        return cls(len(keys), searched, rules, last.get("id"))


class RowFindings(NamedTuple):
    ragged: list[Problem]
    """Rows whose cell count is not the header's: they are checked no further."""
    values: list[Problem]
    duplicates: list[Problem]
    identities: "tuple[array[int], array[int]] | None"
    """(line indexes, identity hashes) of the rows the hasher read, as `row_hashes` gives them."""


class _Chunk:
    """The rows of the header's width among some of a table's: their line indexes, their cells,
    and each column's values (all columns at once, from C) with its distinct values, which the
    column's secret check and its rule's both read."""

    __slots__ = ("_columns", "_distinct", "indexes", "name", "rows")

    def __init__(self, name: str) -> None:
        self.name = name
        self.indexes: list[int] = []
        self.rows: list[list[str]] = []
        self._columns: list[tuple[str, ...]] | None = None
        self._distinct: dict[int, set[str]] = {}

    def column(self, position: int) -> tuple[str, ...]:
        if self._columns is None:
            self._columns = list(zip(*self.rows, strict=True))
        return self._columns[position] if self._columns else ()

    def distinct(self, position: int) -> set[str]:
        if position not in self._distinct:
            self._distinct[position] = set(self.column(position))
        return self._distinct[position]


def check_rows(
    document: Document,
    table: Table,
    kind: Kind,
    name: str,
    hasher: RowHasher | None = None,
    unchanged: set[int] | None = None,
    citations: Citations | None = None,
) -> RowFindings:
    """Every problem of the table's rows, each row's in the order its record would give them;
    with a hasher, the hash of each row's identity too, from the cells read for the checks. The
    rows at the line indexes `unchanged` (a diff's rows the old version holds) are not checked:
    only a duplicate of the ID of a row checked is found among them (no hasher with them).
    `citations` gets the outcome IDs and the patterns' Sources read."""
    layout = Layout.of(table, kind)
    keys = [column_key(column) for column in table.columns] if citations is not None else []
    ragged: list[Problem] = []
    found: _Found = []
    ids = _Ids(keep=bool(unchanged))
    identities = (hashes(), hashes()) if hasher is not None else None
    checked = _checked(table.rows, unchanged)
    for at in range(0, len(checked), _CHUNK):
        indexes = checked[at : at + _CHUNK]
        chunk = _Chunk(name)
        lines = _lines_at(document, indexes)
        text = "".join(lines)
        rows, alone = cells_of_rows(lines, layout.width, text)
        if hasher is not None and identities is not None:
            plain = all_clean(text) or None  # else each line is asked alone
            hashes_of_rows(hasher, (lines, rows, indexes[0]), alone, plain, identities)
        _keep_whole_rows(chunk, ragged, (rows, indexes), alone, layout.width)
        _check_values(layout, chunk, found)
        if layout.id_position is not None:
            ids.add(chunk.column(layout.id_position), chunk.indexes)
        if citations is not None:
            citations.take(kind, keys, (name, chunk.indexes), chunk.column)
    found.sort(key=itemgetter(0, 1))
    duplicates = _duplicates(document, layout, ids, unchanged, name)
    return RowFindings(ragged, [problem for *_, problem in found], duplicates, identities)


def _duplicates(
    document: Document, layout: Layout, ids: "_Ids", unchanged: set[int] | None, name: str
) -> list[Problem]:
    """The duplicate IDs among the rows checked, and between them and the rows `unchanged`."""
    if unchanged:
        from legion_memory.schema.unchanged_rows import duplicates_among_unchanged  # a diff's

        held = (layout.id_position, layout.width)
        return duplicates_among_unchanged(document, held, ids.held(), unchanged, name)
    return _duplicate_ids(document, layout.id_position, ids.hashes, ids.rows, name)


def _check_values(layout: Layout, chunk: "_Chunk", found: _Found) -> None:
    """Each value's secret and control character check, then each column's rule."""
    flagged: _Flagged = set()
    for value in layout.values:
        _secrets(value, chunk, _CLEAN, found, flagged)
    for rule in layout.rules:
        _rule_problems(rule, chunk, flagged, found)
    if len(_CLEAN) >= _KNOWN:
        _CLEAN.clear()


class _Ids:
    """The hashes of the IDs checked and their rows' line indexes (an empty ID is no duplicate);
    the IDs themselves too when `keep`, a diff's few."""

    __slots__ = ("hashes", "keep", "rows", "values")

    def __init__(self, *, keep: bool) -> None:
        self.hashes, self.rows = hashes(), hashes()
        self.keep = keep
        self.values: list[str] = []

    def add(self, ids: tuple[str, ...], indexes: list[int]) -> None:
        self.hashes.extend(map(hash, compress(ids, ids)))
        self.rows.extend(compress(indexes, ids))
        if self.keep:
            self.values.extend(compress(ids, ids))

    def held(self) -> "tuple[array[int], list[str]]":
        return self.rows, self.values


def _lines_at(document: Document, indexes: "range | list[int]") -> list[str]:
    if isinstance(indexes, range):  # every row checked: one slice, not a lookup a line
        return document.lines[indexes.start : indexes.stop]
    return list(map(document.lines.__getitem__, indexes))


def _checked(rows: range, unchanged: set[int] | None) -> "range | list[int]":
    """The line indexes of the rows to check, in order: a run of lines (sliced from the
    document's) unless some are left out."""
    if not unchanged:
        return rows
    return list(filterfalse(unchanged.__contains__, rows))


def _keep_whole_rows(
    chunk: _Chunk,
    ragged: list[Problem],
    run: "tuple[list[list[str]], range | list[int]]",
    alone: list[int],
    width: int,
) -> None:
    """The run's rows (their cells, their line indexes) of the header's width into the chunk, in
    order; the others are ragged (only a row read alone can be)."""
    rows, kept = run
    short = [offset for offset in alone if len(rows[offset]) != width]
    for offset in short:
        ragged.append(_ragged(chunk.name, kept[offset] + 1, len(rows[offset]), width))
    if short:
        whole = [True] * len(rows)
        for offset in short:
            whole[offset] = False
        chunk.indexes.extend(compress(kept, whole))
        chunk.rows.extend(compress(rows, whole))
    else:
        chunk.indexes.extend(kept)
        chunk.rows.extend(rows)


def _ragged(name: str, line: int, cells: int, width: int) -> Problem:
    hint = "an unescaped | in a value? write it as \\|" if cells > width else "missing cells"
    return Problem(name, line, ERROR, f"row has {cells} cells, header has {width} ({hint})")


def _finding(field: str, value: str) -> str | None:
    """The message for a value of `field` that looks like a secret (the value never quoted) or
    holds a control character, or None."""
    kind = secret_kind(value)
    if kind is not None:
        return f"{secret_message(field, kind)} ({_ROTATE})"
    control = control_character(value)
    return None if control is None else f"{field} holds a control character ({control}); remove it"


def _secrets(
    value: _Value, chunk: _Chunk, clean: set[str], found: _Found, flagged: _Flagged
) -> None:
    """Adds a problem for each row whose value looks like a secret (never quoted) or holds a
    control character, and flags it. `clean`: values seen to be neither."""
    if value.free:
        unknown = suspicious(chunk.column(value.position))
        _flag(value, chunk, unknown.difference(clean_as_read(unknown)), found, flagged)
        return
    unknown = chunk.distinct(value.position).difference(clean)
    plain = unknown.difference(suspicious(list(unknown)))
    plain |= clean_as_read(unknown.difference(plain))
    clean |= plain
    clean |= _flag(value, chunk, unknown.difference(plain), found, flagged)


def _flag(
    value: _Value,
    chunk: _Chunk,
    texts: "set[str] | dict[str, str]",
    found: _Found,
    flagged: _Flagged,
) -> set[str]:
    """Adds a problem for each row whose value is one of `texts` that looks like a secret or
    holds a control character, and flags it; returns those of `texts` that are neither."""
    bad = {}
    clean = set()
    for text in texts:
        finding = _finding(value.field, text)
        if finding is None:
            clean.add(text)
        else:
            bad[text] = finding
    if bad:
        values = chunk.column(value.position)
        for offset in compress(range(len(values)), map(bad.__contains__, values)):
            index, message = chunk.indexes[offset], bad[values[offset]]
            found.append((index, value.order, Problem(chunk.name, index + 1, ERROR, message)))
            flagged.add((index, value.key))
    return clean


def _rule_problems(rule: _Rule, chunk: _Chunk, flagged: _Flagged, found: _Found) -> None:
    """Adds a problem for each row whose value breaks the rule's column (a value that only breaks
    it in upper case gets a warning), unless it was flagged as a secret. Only the values not seen
    to pass are checked."""
    column, position, known, order, guard = rule
    values = chunk.column(position)
    if known is None:  # free text: only an empty value breaks it, where one is required
        bad = {"": "is required"} if column.required and "" in values else {}
    else:
        bad = {}
        unknown = chunk.distinct(position).difference(known)
        unknown.difference_update(taken_at_once(column.rule, unknown))
        for value in unknown:
            problem = column_problem(column, value)
            if problem is None:
                known.add(value)
            else:
                bad[value] = problem
        if len(known) >= _KNOWN:
            known.clear()
    if not bad:
        return
    if guard is not None:
        _flag(guard, chunk, bad, found, flagged)
    for offset in compress(range(len(values)), map(bad.__contains__, values)):
        index, value = chunk.indexes[offset], values[offset]
        if (index, column.key) not in flagged:
            severity, message = _rule_message(column, value, bad[value])
            found.append((index, order, Problem(chunk.name, index + 1, severity, message)))


def _rule_message(column: Column, value: str, problem: str) -> tuple[str, str]:
    if value.lower() != value and column_problem(column, value.lower()) is None:
        return WARNING, f"{column.name} '{value}' should be lowercase '{value.lower()}'"
    return ERROR, f"{column.name} '{value}' {problem}"


def _duplicate_ids(
    document: Document,
    position: int | None,
    id_hashes: "array[int]",
    id_rows: "array[int]",
    name: str,
) -> list[Problem]:
    """Each row whose ID an earlier row has: only rows whose ID's hash repeats are read again."""
    again = repeated(id_hashes)
    if position is None or not again:
        return []
    indexes = [id_rows[offset] for offset in positions_of(id_hashes, again)]
    held = ((index, line_cells(document.lines[index])[position]) for index in indexes)
    return duplicate_ids(name, held)

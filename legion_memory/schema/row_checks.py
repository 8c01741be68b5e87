"""The checks of every row of a memory table (its cell count, secrets, control characters, each
column's rule, duplicate IDs), run on the cells split straight from its lines: no record is built
for a row (docs/decisions.md#validate-from-lines)."""

from array import array
from functools import lru_cache
from typing import NamedTuple

from legion_memory.markdown.document import Document, Table, line_cells
from legion_memory.schema.fields import control_character, free_rule
from legion_memory.schema.fingerprints import hashes, positions_of, repeated
from legion_memory.schema.kinds import Column, Kind, column_problem
from legion_memory.schema.problems import ERROR, WARNING, Problem
from legion_memory.schema.records import column_key
from legion_memory.schema.secrets import (
    could_hold_secret,
    has_prefilter_word,
    plainly_not_secret,
    secret_kind,
    secret_message,
)

# A table's values repeat from row to row (agents, dates, task types): each distinct one is read
# for secrets and control characters once; both are pure functions of the value
# (docs/decisions.md#secrets-once-per-value).
_KNOWN = 4096
_ROTATE = "remove it from the file and rotate the credential"


_secret_kind = lru_cache(maxsize=_KNOWN)(secret_kind)


def _value_finding(value: str, row: "_RowFlags") -> tuple[bool, str] | None:
    """(True, the kind of secret) or (False, the control character) `value` holds, or None.
    A value read from a row whose lowered text holds no prefilter word, which is ASCII with
    nothing to undo and no long run, is no secret: no rule's prefilter can pass on it."""
    if row.words or not plainly_not_secret(value):
        kind = _secret_kind(value)
        if kind is not None:
            return True, kind
    control = control_character(value) if row.control else None
    return None if control is None else (False, control)


class _RowFlags(NamedTuple):
    words: bool
    """The row's lowered text holds a prefilter word."""
    control: bool
    """The row holds a control character."""


class _Rule(NamedTuple):
    column: Column
    position: int
    known: set[str] | None
    """Values of the column seen to pass its rule (None for free text, which only must not be
    empty when required); emptied when full, so that a column of unique values stays small."""


class Layout(NamedTuple):
    """Where a table holds each value of its records: a record keeps the last of repeated columns,
    in the order of their first."""

    width: int
    values: tuple[tuple[str, int, str], ...]
    """(key, position, field shown) of each value, in the record's order."""
    rules: tuple[_Rule, ...]
    """The kind's columns the table has, in the kind's order."""
    id_position: int | None

    @classmethod
    def of(cls, table: Table, kind: Kind) -> "Layout":
        keys = [column_key(name) for name in table.columns]
        last = {key: position for position, key in enumerate(keys)}
        fields = {column.key: column.name for column in kind.columns}
        values = tuple((k, last[k], fields.get(k, "a column")) for k in dict.fromkeys(keys))
        rules = tuple(
            _Rule(column, last[column.key], None if column.rule is free_rule else set())
            for column in kind.columns
            if column.key in last
        )
        return cls(len(keys), values, rules, last.get("id"))


class RowFindings(NamedTuple):
    ragged: list[Problem]
    """Rows whose cell count is not the header's: they are checked no further."""
    values: list[Problem]
    duplicates: list[Problem]


def check_rows(document: Document, table: Table, kind: Kind, name: str) -> RowFindings:
    """Every problem of the table's rows, each row's in the order its record would give them."""
    layout = Layout.of(table, kind)
    ragged: list[Problem] = []
    found: list[Problem] = []
    id_hashes, id_rows = hashes(), hashes()
    clean: set[str] = set()
    lines = document.lines
    for index in table.rows:
        line = lines[index]
        cells = line_cells(line)
        if len(cells) != layout.width:
            ragged.append(_ragged(name, index + 1, len(cells), layout.width))
            continue
        # One search of the row's text spares each value its own on all but a few rows.
        flagged = _secrets(layout, cells, _Row(name, index + 1, line), clean, found)
        _rule_problems(layout, cells, name, index + 1, flagged, found)
        if layout.id_position is not None and cells[layout.id_position]:
            id_hashes.append(hash(cells[layout.id_position]))
            id_rows.append(index)
    duplicates = _duplicate_ids(document, layout.id_position, id_hashes, id_rows, name)
    return RowFindings(ragged, found, duplicates)


class _Row(NamedTuple):
    name: str
    line: int
    text: str


def _ragged(name: str, line: int, cells: int, width: int) -> Problem:
    hint = "an unescaped | in a value? write it as \\|" if cells > width else "missing cells"
    return Problem(name, line, ERROR, f"row has {cells} cells, header has {width} ({hint})")


def _secrets(
    layout: Layout, cells: list[str], row: _Row, clean: set[str], found: list[Problem]
) -> set[str]:
    """Adds a problem for each value that looks like a secret (never quoted) or holds a control
    character; returns their keys, whose column rules are not checked. `clean`: values seen to
    be neither (both are pure functions of the value, docs/decisions.md#secrets-once-per-value),
    emptied when full."""
    control = control_character(row.text) is not None  # a line ending is no control character
    if not control and not could_hold_secret(row.text):
        return set()
    flags = _RowFlags(has_prefilter_word(row.text), control)
    flagged = set()
    for key, position, field in layout.values:
        value = cells[position]
        if value in clean:
            continue
        finding = _value_finding(value, flags)
        if finding is None:
            if len(clean) >= _KNOWN:
                clean.clear()
            clean.add(value)
            continue
        is_secret, what = finding
        if is_secret:
            message = f"{secret_message(field, what)} ({_ROTATE})"
        else:
            message = f"{field} holds a control character ({what}); remove it"
        found.append(Problem(row.name, row.line, ERROR, message))
        flagged.add(key)
    return flagged


def _rule_problems(
    layout: Layout,
    cells: list[str],
    name: str,
    line: int,
    flagged: set[str],
    found: list[Problem],
) -> None:
    """Adds a problem for each value that breaks its column's rule; a value that only breaks it
    in upper case gets a warning."""
    for column, position, known in layout.rules:
        value = cells[position]
        if known is None:
            if value or not column.required:
                continue
        elif value in known:
            continue
        if column.key in flagged:
            continue
        problem = column_problem(column, value)
        if problem is None:
            if known is not None:
                if len(known) >= _KNOWN:
                    known.clear()
                known.add(value)
            continue
        if value.lower() != value and column_problem(column, value.lower()) is None:
            message = f"{column.name} '{value}' should be lowercase '{value.lower()}'"
            found.append(Problem(name, line, WARNING, message))
        else:
            found.append(Problem(name, line, ERROR, f"{column.name} '{value}' {problem}"))


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
    first_line: dict[str, int] = {}
    found = []
    for offset in positions_of(id_hashes, again):
        index = id_rows[offset]
        record_id = line_cells(document.lines[index])[position]
        if record_id in first_line:
            message = f"duplicate ID {record_id} (also on line {first_line[record_id]})"
            found.append(Problem(name, index + 1, ERROR, message))
        else:
            first_line[record_id] = index + 1
    return found

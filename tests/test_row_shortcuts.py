"""The per-row shortcuts against the full reading: lazy rows and their cells, recall's ranking
from three cells, and a renumbering occurrence's cell lookup, over arbitrary rows."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from hypothesis import event, given, settings
from hypothesis import strategies as st

from legion_memory.errors import ParseError
from legion_memory.knowledge.decay import rank, rank_rows
from legion_memory.markdown.document import escape, parse
from legion_memory.schema.kinds import OUTCOME
from legion_memory.schema.records import (
    Record,
    TableRows,
    highest_id_number,
    id_numbers,
    records_table,
)
from legion_memory.storage.reading import records_of
from legion_memory.upkeep.renumbering import Occurrence

TODAY = dt.date(2026, 3, 10)
PATH = Path("OUTCOMES.md")
# Values rich in what changes a row's reading: pipes, backslashes, line breaks, `<br>`, spaces.
value = st.lists(
    st.sampled_from(["a", "日", " ", "|", "\\", "\n", "<br>", "<", "-", "1", "5", "O-1"]),
    max_size=5,
).map("".join)
dates = st.sampled_from(["2026-03-10", "2026-03-01", "2025-12-01", "2024-01-01", "soon", ""])
importances = st.sampled_from(["1", "2", "3", "4", "5", "", "0", "12", " 3"])
ids = st.integers(0, 30).map(lambda n: f"O-{n:03d}") | st.sampled_from(["", "X-1", "O-x"])
styles = st.sampled_from([("| ", " |"), ("|", "|"), ("", ""), ("  | ", " |  "), ("| ", "")])
# Columns of the kind in the spec's order (ID first, the usual layout) or shuffled, one repeated
# or missing sometimes.
SPEC = [c.name for c in OUTCOME.columns]
layouts = (st.just(SPEC) | st.permutations(SPEC)).flatmap(
    lambda names: st.sampled_from([names, names[:-1], [*names, names[1]], names[1:]])
)


@st.composite
def tables(draw: st.DrawFn) -> str:
    names = draw(layouts)
    lines = ["## Records", "", "| " + " | ".join(names) + " |", "|" + "---|" * len(names)]
    for _ in range(draw(st.integers(0, 12))):
        cells = []
        for name in names:
            drawn = {"ID": ids, "Date": dates, "Importance": importances}.get(name, value)
            cells.append(escape(draw(drawn)))
        opening, closing = draw(styles)
        lines.append(opening + " | ".join(cells) + closing)
    return "\n".join(lines) + "\n"


def _rows(text: str) -> tuple[TableRows, list[Record]] | None:
    document = parse(text)
    table = records_table(document, OUTCOME)
    if table is None:
        return None
    try:
        records = records_of(PATH, document, OUTCOME)
    except ParseError:  # a ragged row: the lazy rows are only ever made of a checked table
        event("ragged")
        return None
    event(f"{min(len(table.rows), 3)}+ rows")
    return TableRows(OUTCOME, document, table), list(records)


@settings(max_examples=300, deadline=None)
@given(tables(), st.lists(st.sampled_from(["id", "date", "importance", "summary", "nope"])))
def test_lazy_rows_read_what_the_records_hold(text: str, keys: list[str]) -> None:
    read = _rows(text)
    if read is None:
        return
    rows, records = read
    assert rows.records() == records
    assert list(rows.cells(*keys)) == [tuple(r[k] for k in keys) for r in records]


@settings(max_examples=300, deadline=None)
@given(tables(), st.integers(1, 25))
def test_ranking_from_three_cells_is_the_full_ranking(text: str, limit: int) -> None:
    read = _rows(text)
    if read is None:
        return
    rows, records = read
    assert rank_rows(rows, TODAY, limit) == rank(records, TODAY, limit=limit)


@given(
    st.lists(st.sampled_from(["id", "date", "source", "branch"]), max_size=6),
    st.lists(value, max_size=7),
    st.sampled_from(["id", "date", "source", "branch", "tags"]),
)
def test_an_occurrence_reads_a_cell_as_its_values_would(
    columns: list[str], cells: list[str], key: str
) -> None:
    row = Occurrence(PATH, 0, "", tuple(columns), tuple(cells))
    assert row[key] == dict(zip(columns, cells, strict=False)).get(key, "")


@settings(max_examples=300, deadline=None)
@given(tables())
def test_the_highest_id_by_one_scan_is_the_highest_of_every_row(text: str) -> None:
    read = _rows(text)
    if read is None:
        return
    document = parse(text)
    table = records_table(document, OUTCOME)
    assert table is not None
    expected = max(id_numbers(document, table, OUTCOME), default=0)
    assert highest_id_number(document, table, OUTCOME) == expected

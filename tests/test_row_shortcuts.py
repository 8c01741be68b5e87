"""The per-row shortcuts against the full reading: lazy rows and their cells, recall's ranking
from three cells, a renumbering occurrence's cell lookup, over arbitrary rows, and a file read as
lines against its whole text."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from legion_memory.errors import InputError, IntegrityError, ParseError
from legion_memory.knowledge.decay import rank, rank_rows
from legion_memory.markdown.cells import escape
from legion_memory.markdown.document import Document, Table, parse, strip_ending
from legion_memory.schema.kinds import OUTCOME, row_for
from legion_memory.schema.records import (
    Record,
    highest_id_number,
    id_numbers,
    record_at,
    records_table,
)
from legion_memory.schema.table_rows import TableRows
from legion_memory.storage.files import decode
from legion_memory.storage.reading import load, ragged_row, records_of, require_table
from legion_memory.storage.row_edits import (
    Pieces,
    insert_row,
    row_insertion,
    same_values,
    verify_append,
)
from legion_memory.upkeep.renumbering import Occurrence

TODAY = dt.date(2026, 3, 10)
PATH = Path("OUTCOMES.md")
# Values rich in what changes a row's reading: pipes, backslashes, line breaks, `<br>`, spaces.
value = st.lists(
    st.sampled_from(["a", "日", " ", "|", "\\", "\n", "<br>", "<", "-", "1", "5", "O-1"]),
    max_size=5,
).map("".join)
# A `<br>` at a cell's edge reads as a line break that stays: `5<br>` is no importance.
dates = st.sampled_from(
    ["2026-03-10", "2026-03-01", "2025-12-01", "2024-01-01", "soon", "", "<br>2026-03-10"]
)
importances = st.sampled_from(["1", "2", "3", "4", "5", "", "0", "12", " 3", "5<br>", "<br>"])
odd_ids = st.sampled_from(["", "X-1", "O-x", "O-1<br>"])
ids = st.integers(0, 30).map(lambda n: f"O-{n:03d}") | odd_ids
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


def _read_checked(text: str, keys: list[str]) -> tuple[str, object] | None:
    """What reading `keys` of every row gives after the table is checked first: the values or the
    error, with the ranking's result too."""
    document = parse(text)
    table = records_table(document, OUTCOME)
    if table is None:
        return None
    try:
        require_table(PATH, document, OUTCOME)
    except ParseError as error:
        return "refused", error.line()
    records = records_of(PATH, document, OUTCOME)
    return "read", ([tuple(r[k] for k in keys) for r in records], rank(records, TODAY, limit=5))


def _read_unchecked(text: str, keys: list[str]) -> tuple[str, object]:
    document = parse(text)
    table = records_table(document, OUTCOME)
    assert table is not None
    try:
        cells = list(TableRows(OUTCOME, document, table, PATH).cells(*keys))
        ranked = rank_rows(TableRows(OUTCOME, document, table, PATH), TODAY, 5)
    except ParseError as error:
        return "refused", error.line()
    return "read", (cells, ranked)


@settings(max_examples=400, deadline=None)
@given(
    tables(),
    st.lists(st.sampled_from(["id", "date", "importance", "summary", "nope"])),
    st.integers(0, 16),
    st.sampled_from(["|", " x |", "\\", "\\|", "<br>|", " ", "\r"]),
    st.booleans(),
)
def test_rows_checked_as_they_are_read_give_what_checking_first_gives(
    text: str, keys: list[str], at: int, extra: str, crlf: bool
) -> None:
    """A recall reads unchecked rows and finds a ragged one as it reads them: the same values,
    ranking and error (the first ragged row) as checking the table before reading it."""
    lines = text.splitlines(keepends=True)
    if at < len(lines):  # one line tampered with: a pipe more, a closing pipe escaped, ...
        lines[at] = strip_ending(lines[at]) + extra + "\n"
    tampered = "".join(lines)
    tampered = tampered.replace("\n", "\r\n") if crlf else tampered
    expected = _read_checked(tampered, keys)
    if expected is None:
        return
    event(expected[0])
    assert _read_unchecked(tampered, keys) == expected


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
    # Scanned in the bytes the text came from: with a byte order mark, CRLF endings, lines after
    # the table.
    for variant in (
        text,
        "\ufeff" + text,
        text.replace("\n", "\r\n"),
        text + "\n## Later\n\n日本 😀\n",
    ):
        document = parse(variant)
        table = records_table(document, OUTCOME)
        assert table is not None
        expected = max(id_numbers(document, table, OUTCOME), default=0)
        data = variant.encode("utf-8")
        assert highest_id_number(document, table, OUTCOME, data) == expected


def _reparsed(before: Document, written: bytes, table: Table, record: Record) -> bool:
    """The former check, a parse of the whole text: the oracle for the one-parse store."""
    try:
        after = parse(written.decode("utf-8"))
    except UnicodeDecodeError:
        return False
    new_table = records_table(after, record.kind)
    if new_table is None or len(new_table.rows) != len(table.rows) + 1:
        return False
    read_back = record_at(after, new_table, record.kind, new_table.end - 1)
    old = before.lines[table.header + 2 : table.end]
    new = after.lines[new_table.header + 2 : new_table.end - 1]
    same = old[:-1] == new[:-1] and [strip_ending(x) for x in old[-1:]] == [
        strip_ending(x) for x in new[-1:]
    ]
    return same and same_values(read_back, record)


def _verified(
    before: Document, data: bytes, written: bytes | Pieces, table: Table, record: Record
) -> bool:
    try:
        verify_append(PATH, before, data, written, table, record)
    except IntegrityError:
        return False
    return True


@settings(max_examples=300, deadline=None)
@given(
    tables(),
    st.sampled_from(
        ["", "\n", "\nprose after\n", "\n## Next\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"]
    ),
    st.booleans(),
    st.booleans(),
    st.lists(value, min_size=3, max_size=3),
    st.tuples(st.integers(0, 200), st.sampled_from(["", "x", "|", "\n", "| O-9 |\n"])),
)
def test_an_append_is_verified_as_a_full_parse_would_verify_it(
    text: str,
    after: str,
    crlf: bool,
    bom: bool,
    summary_tags_plan: list[str],
    tamper: tuple[int, str],
) -> None:
    text = text.rstrip("\n") + after if after else text.rstrip("\n")
    text = ("\ufeff" if bom else "") + (text.replace("\n", "\r\n") if crlf else text)
    document = parse(text)
    table = records_table(document, OUTCOME)
    if table is None or ragged_row(document, table) is not None:
        return
    summary, tags, plan = summary_tags_plan
    values = {"id": "O-999", "date": "2026-03-10", "summary": summary, "tags": tags, "plan": plan}
    record = Record(OUTCOME, {key: v.strip() for key, v in values.items()})
    try:
        cells = row_for(record, table.columns)
    except InputError:  # a line break in a single-line field: refused before any write
        return
    data = text.encode("utf-8")
    written, _ = insert_row(document, table, data, cells)
    verified = _verified(document, data, written, table, record)
    assert verified == _reparsed(document, written, table, record)
    event("verified" if verified else "refused")
    # The pieces a store writes are those bytes, and verified alike without being joined.
    pieces, _ = row_insertion(document, table, data, cells)
    assert b"".join(pieces) == written
    assert _verified(document, data, pieces, table, record) == verified
    position, extra = tamper
    tampered = written[:position] + extra.encode("utf-8") + written[position:]
    if tampered != written and not _reparsed(document, tampered, table, record):
        assert not _verified(document, data, tampered, table, record)
        # Tampered in the new line or around it, as pieces: refused too.
        head, line, tail = pieces
        for changed in (
            (head, line + extra.encode("utf-8"), tail),
            (memoryview(bytes(head) + extra.encode("utf-8")), line, tail),
        ):
            if b"".join(changed) != written and not _reparsed(
                document, b"".join(changed), table, record
            ):
                assert not _verified(document, data, changed, table, record)


# Text pieces that change how a file splits and decodes: endings, a mark, emoji, a bad byte.
file_pieces = st.lists(
    st.sampled_from(
        [b"| O-1 | a |", b"\n", b"\r\n", b"\r", b"\xef\xbb\xbf", "😀日".encode(), b"\xff", b"x"]
    ),
    max_size=8,
).map(b"".join)


@settings(max_examples=300, deadline=None)
@given(file_pieces)
def test_a_file_read_as_lines_parses_as_its_whole_text(tmp_path_factory: Any, data: bytes) -> None:
    path = tmp_path_factory.mktemp("lines") / "OUTCOMES.md"
    path.write_bytes(data)
    try:
        expected: Document | str = parse(decode(path, data))
    except ParseError as whole:
        expected = str(whole)
    try:
        found: Document | str | None = load(path)
    except ParseError as lines:
        found = str(lines)
    event("not UTF-8" if isinstance(expected, str) else "read")
    assert found == expected


@pytest.mark.parametrize("ending", ["\n", "\r\n"])
def test_a_row_without_edge_pipes_ranks_by_the_date_that_ends_it(ending: str) -> None:
    """The last cell of a row with no closing pipe ends where the line does: its date is read
    without the line's ending, as its record reads it."""
    names = [name for name in SPEC if name != "Date"] + ["Date"]
    cells = ["O-007" if name == "ID" else "4" if name == "Importance" else "" for name in names]
    text = "".join(
        line + ending
        for line in [
            "## Records",
            "",
            "| " + " | ".join(names) + " |",
            "|" + "---|" * len(names),
            " | ".join([*cells[:-1], "2026-03-10"]),
        ]
    )
    document = parse(text)
    table = records_table(document, OUTCOME)
    assert table is not None
    rows, records = TableRows(OUTCOME, document, table), records_of(PATH, document, OUTCOME)
    assert [
        (s.record["id"], s.days_old, s.recency_weight, s.decay_score)
        for s in rank_rows(rows, TODAY, 5)
    ] == [("O-007", 0, 1.0, 4.0)]
    assert rank_rows(rows, TODAY, 5) == rank(records, TODAY, limit=5)

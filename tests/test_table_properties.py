"""Properties of the lossless model, over arbitrary text and values."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

from hypothesis import example, given, settings
from hypothesis import strategies as st

from legion_memory.markdown.cells import (
    cell_at,
    cell_count,
    escape,
    first_cell,
    line_cells,
    split_cells,
    unescape,
)
from legion_memory.markdown.document import (
    ATX_HEADING,
    RowStyle,
    _delimiter_cell,
    atx_heading,
    is_row,
    parse,
    render,
    split_lines,
)
from legion_memory.schema.fields import control_character
from legion_memory.schema.kinds import OUTCOME, new_record
from legion_memory.schema.records import column_key, id_numbers, read_records, records_table
from legion_memory.schema.secrets import secret_kind
from legion_memory.storage.reading import Memory, load_records, ragged_row, rows_to_count
from legion_memory.storage.writing import append

# Text rich in what breaks naive markdown handling: pipes, backslashes, CR/LF, fences, BOMs.
MARKDOWN_ALPHABET = st.sampled_from(
    [
        "|",
        "\\",
        "\r",
        "\n",
        "\r\n",
        "-",
        ":",
        " ",
        "\t",
        "`",
        "~",
        "#",
        "a",
        "é",
        "日",
        "\ufeff",
        "<br>",
    ]
)
markdown_text = st.lists(st.one_of(MARKDOWN_ALPHABET, st.text(max_size=5)), max_size=60).map(
    "".join
)
values = st.text(max_size=40)


def expected_value(value: str) -> str:
    """What a value must read back as: trimmed, any line break (or <br>) a single newline."""
    trimmed = re.sub(r"\r\n|\r|\n", "\n", value.strip())
    return re.sub(r"<br\s*/?>", "\n", trimmed, flags=re.IGNORECASE)


@given(markdown_text)
def test_render_parse_is_identity(text: str) -> None:
    assert render(parse(text)) == text


@given(
    st.lists(st.sampled_from(["| a | b |", "|---|---|", "| 1 | 2 |", "```", "", "x"]), max_size=30)
)
def test_render_parse_is_identity_on_table_like_lines(lines: list[str]) -> None:
    text = "\n".join(lines)
    assert render(parse(text)) == text


@given(values)
def test_escape_then_unescape_round_trips(value: str) -> None:
    assert unescape(escape(value)) == expected_value(value)


@given(st.lists(values, min_size=1, max_size=6), st.sampled_from([" ", ""]), st.booleans())
def test_a_formatted_row_splits_back_into_its_values(
    cells: list[str], padding: str, outer: bool
) -> None:
    style = RowStyle(outer_pipes=outer, padding=padding)
    line = style.format([escape(cell) for cell in cells]).rstrip("\n")
    assert [unescape(cell) for cell in split_cells(line)] == [expected_value(c) for c in cells]


# What a store accepts: no control character but tab and line breaks (those are refused), and
# nothing that looks like a credential.
storable = st.characters(blacklist_categories=["Cs"]).filter(lambda c: not control_character(c))
free_text = (
    st.text(alphabet=storable, min_size=1, max_size=30)
    .filter(lambda text: text.strip() != "")
    .filter(lambda text: secret_kind(text) is None)
)


single_line_text = (
    st.text(alphabet=storable, max_size=15)
    .filter(lambda text: not re.search(r"[\r\n]|<br", text))
    .filter(lambda text: secret_kind(text) is None)
)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(free_text, single_line_text), min_size=1, max_size=5))
@example([("a  b", "t"), ("a b", "t"), ("a b", "u"), ("x<br>y", ""), ("x\ny", "")])
def test_appended_records_read_back_equal(entries: list[tuple[str, str]]) -> None:
    with tempfile.TemporaryDirectory() as directory:
        memory = Memory(Path(directory))
        for summary, tags in entries:
            append(memory, new_record(OUTCOME, outcome_values(summary, tags)))
        records = load_records(memory, OUTCOME)
    # An entry the file holds already, spaces aside, is the same record: stored once.
    expected: dict[tuple[str, ...], tuple[str, str]] = {}
    for summary, tags in entries:
        value = (expected_value(summary), expected_value(tags))
        expected.setdefault(tuple(" ".join(part.split()) for part in value), value)
    assert [(r["summary"], r["tags"]) for r in records] == list(expected.values())
    assert [r.id for r in records] == [f"O-{n:03d}" for n in range(1, len(expected) + 1)]


def outcome_values(summary: str, tags: str) -> dict[str, str]:
    return {
        "date": "2026-03-01",
        "branch": "main",
        "phase": "1",
        "plan": "01-01",
        "agent": "autonomous",
        "task_type": "general",
        "outcome": "success",
        "importance": "2",
        "tags": tags,
        "summary": summary,
    }


@given(st.lists(st.one_of(MARKDOWN_ALPHABET, st.just("\0"), st.just("<BR />")), max_size=40))
def test_line_cells_are_the_unescaped_split_cells(pieces: list[str]) -> None:
    """The read path's splitter agrees with split_cells + unescape on every line, whatever mix of
    escaped pipes, backslashes, line breaks and NULs it holds."""
    line = "".join(pieces)
    assert line_cells(line) == [unescape(cell) for cell in split_cells(line)]


@given(st.lists(st.one_of(MARKDOWN_ALPHABET, st.just("\0")), max_size=40))
@example(["|", "\0"])  # an opening pipe and no other: the first cell has no pipe after it
def test_cell_at_and_cell_count_agree_with_split_cells(pieces: list[str]) -> None:
    """The shortcuts the store takes on every row (counting cells, reading only the ID cell) give
    what splitting the whole row gives."""
    line = "".join(pieces)
    cells = split_cells(line)
    assert cell_count(line) == len(cells)
    assert [cell_at(line, position) for position in range(len(cells))] == cells
    assert first_cell(line) == cells[0]


ROW_PIECES = st.sampled_from(["a", "b", "a.b", "c++", "\\|", "|", "<br>", " ", ",", "日"])


@settings(deadline=None)
@given(
    st.lists(st.lists(ROW_PIECES, max_size=8).map("".join), min_size=1, max_size=8),
    st.lists(st.lists(ROW_PIECES, min_size=1, max_size=3).map("".join), min_size=1, max_size=2),
)
@example(["a|b", "b"], ["a|b"])  # escaping writes the pipe `\|`: the raw row lacks `a|b`
def test_reading_only_rows_that_mention_a_string_drops_no_record_holding_it(
    summaries: list[str], wanted: list[str]
) -> None:
    """`read_records(..., mentioning=...)` skips rows by their raw text; every record one of whose
    values holds a wanted string must still be read, whatever escaping the row went through."""
    rows = [f"| O-{number:03d} | {escape(text)} |" for number, text in enumerate(summaries)]
    document = parse("\n".join(["## Records", "", "| ID | Summary |", "|---|---|", *rows]) + "\n")
    table = records_table(document, OUTCOME)
    assert table is not None
    every = list(read_records(document, table, OUTCOME))
    some = list(read_records(document, table, OUTCOME, mentioning=wanted))
    holding = [r for r in every if any(w in value for w in wanted for value in r.values.values())]
    assert [r for r in some if r in holding] == holding
    assert all(r in every for r in some)


ID_PIECES = st.sampled_from(
    ["O", "P", "-", "1", "07", "٣", "²", " ", "\t", "\u3000", "\\|", "|", "x"]
)


@given(st.lists(st.lists(ID_PIECES, max_size=6).map("".join), min_size=1, max_size=6))
@example(["O-12", " O-3 ", "O-²", "| O-9"])
def test_next_id_shortcut_reads_each_row_as_a_record_would(first_cells: list[str]) -> None:
    """The next ID reads only each row's first cell, mostly by a regex; every number must be the
    one the full record gives (and never an error, whatever the cell holds)."""
    rows = [f"|{cell}| summary |" for cell in first_cells]
    document = parse("\n".join(["## Records", "", "| ID | Summary |", "|---|---|", *rows]) + "\n")
    table = records_table(document, OUTCOME)
    assert table is not None
    records = list(read_records(document, table, OUTCOME))
    assert list(id_numbers(document, table, OUTCOME)) == [record.number for record in records]


@given(
    st.lists(st.lists(st.sampled_from(["|", " ", "a", "\\|", "\t", "\r"]), max_size=9), max_size=6)
)
@example([["a", " ", "|", "b", "|", "c", "|"]])  # no opening pipe, but the header's pipe count
def test_the_structural_check_finds_the_first_row_split_cells_would_refuse(
    rows: list[list[str]],
) -> None:
    """The write's ragged-row check takes shortcuts on plain rows; it must still name the first row
    whose cells differ in number from the header's, as counting every row would."""
    lines = ["| ID | Summary |", "|---|---|", *("".join(row) for row in rows)]
    document = parse("\n".join(["## Records", "", *lines]) + "\n")
    table = records_table(document, OUTCOME)
    assert table is not None
    expected = next(
        (
            (index, len(split_cells(document.lines[index])))
            for index in table.rows
            if len(split_cells(document.lines[index])) != 2
        ),
        None,
    )
    assert ragged_row(document, table) == expected


@given(
    st.lists(
        st.lists(st.sampled_from(["|", " ", "a", "\\", "\\|", "\\\\|", "\t", "\r"]), max_size=9)
        .map("".join)
        .flatmap(lambda row: st.sampled_from([row, row + "\n", row + "\r\n"])),
        max_size=8,
    ),
    st.integers(min_value=1, max_value=4),
)
@example(["|a|a\\|\n"], 1)  # its closing pipe is escaped: two cells
@example(["|a\\\\|b|\n", "|\\|\n"], 2)
@settings(max_examples=500)
def test_a_row_the_structural_check_skips_has_the_header_s_cell_count(
    rows: list[str], width: int
) -> None:
    """Rows the structural check does not count one by one (escaped pipes or not) are exactly
    `width` cells, as counting them would find."""
    counted = set(rows_to_count(rows, width))
    assert all(cell_count(row) == width for offset, row in enumerate(rows) if offset not in counted)


@given(st.lists(st.sampled_from(["a", "\n", "\r", "\r\n", " ", "日", "😀", "|"]), max_size=12))
def test_a_short_text_splits_into_the_lines_the_pattern_finds(pieces: list[str]) -> None:
    """A short text is split without the line pattern: into exactly the lines it finds."""
    text = "".join(pieces)
    assert split_lines(text) == re.findall(r"[^\n]*\n|[^\n]+", text)


@given(st.lists(st.sampled_from(["a", "|", "\\", "\\|", " ", "\\\\|"]), max_size=10))
def test_a_row_holds_a_pipe_without_a_backslash_before_it(pieces: list[str]) -> None:
    text = "".join(pieces)
    assert is_row(text) == (re.search(r"(?<!\\)\|", text) is not None)


@given(
    st.lists(st.sampled_from(["a", "Z", "9", " ", "_", "-", ":", "é", "İ", "\t", "\n"]), max_size=9)
)
def test_keys_and_delimiter_cells_are_what_their_patterns_say(pieces: list[str]) -> None:
    """A header's key and a delimiter cell are read without patterns: as the patterns read them."""
    text = "".join(pieces)
    expected_key = re.sub(r"[^a-z0-9]+", "_", text.strip().lower()).strip("_")
    assert column_key(text) == expected_key
    delimiter = re.match(r"^\s*:?-+:?\s*$", text) is not None
    assert delimiter == _delimiter_cell(text)


@given(
    st.lists(
        st.sampled_from([" ", "\t", "#", "##", "a", "\r", "\x0b", "日", "\u3000"]), max_size=10
    )
)
@example(["#", " ", "#", "#"])  # a closing run only: the content is that run
@example(["#", " ", "a", " ", "#", " "])
@example(["#######", " ", "a"])  # seven `#`: no heading
def test_an_atx_heading_is_read_as_its_pattern_reads_it(pieces: list[str]) -> None:
    """Headings are read by string methods, never by compiling `ATX_HEADING`: the same lines are
    headings, with the same text."""
    text = "".join(pieces)
    match = re.match(ATX_HEADING, text)
    assert atx_heading(text) == (None if match is None else match.group(1) or "")

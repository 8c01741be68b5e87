"""validate's row checks read no record: the shortcuts they take are checked here against the
full readings they stand for (docs/decisions.md#validate-from-lines,
docs/decisions.md#repeats-by-hash)."""

from __future__ import annotations

import re
import sys
import unicodedata
from array import array

from hypothesis import given, settings
from hypothesis import strategies as st

from legion_memory.markdown.cells import cell_count, cells_of_rows, line_cells
from legion_memory.markdown.document import strip_ending
from legion_memory.schema.clean_values import (
    ASCII_CONTROL,
    SPLIT_MARKS,
    clean_as_read,
    marking,
    suspicious,
)
from legion_memory.schema.fields import _CONTROL, control_character
from legion_memory.schema.identity import identity
from legion_memory.schema.kinds import ERROR_FIX, OUTCOME, PATTERN, Kind
from legion_memory.schema.records import column_key
from legion_memory.schema.secret_rules import PREFILTER_RUN, PREFILTER_WORDS
from legion_memory.schema.secrets import (
    _INVISIBLE,
    _SPLIT,
    _joined,
    _may_match,
    secret_kind,
    secret_variants,
)
from legion_memory.schema.twin_hashes import WIDE_SPACES, RowHasher, all_clean, hashes_of_rows

# What can disguise a secret or change how a row is read: split marks, escapes, invisible and
# full-width characters, control characters, whitespace, and pieces of real credential formats.
pieces = st.sampled_from(
    [
        "a", "Z", "0", "-", ".", "/", "_", "=", " ", "  ", "\t", "|", "\\", "\\|", "<br>",
        "<br />", "<", "\n", "\r", "\r\n", "\u200b", "\x1b", "\x0b", "日本", "😀",
        "\uff50\uff41\uff53\uff53", "\u3000", "\xa0", "\x00", "\x85", "\u0130", "\u212a",
        "\u017f", "\u0131", "\u00e9", "e\u0301", "\u2014",
        "pass", "key", "token", "://", "AKIA", "ABCDEFGHIJKLMNOP", "ghp_", "a1b2c3d4e5f6g7h8",
        "password=", "hunter2!", "O-", "O-001",
    ]
)  # fmt: skip
texts = st.lists(pieces, max_size=8).map("".join)


@settings(max_examples=3000, deadline=None)
@given(texts)
def test_a_plainly_clean_value_is_no_secret_and_holds_no_control_character(value: str) -> None:
    if not suspicious([value]):
        assert secret_kind(value) is None
        assert control_character(value) is None


def _one_by_one(value: str) -> bool:
    """The test of one value that the values tested together stand for: read as written (ASCII,
    or printable, folded as NFKC folds it and without U+0130), no control character, and with
    the split marks taken out no long token run and no prefilter word."""
    written = value.isascii() or (
        value.isprintable()
        and unicodedata.normalize("NFKC", value) == value
        and "\u0130" not in value
    )
    if not written or re.search(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]", value):
        return False
    text = re.sub(r"(?:\\?\||<br\s*/?>|\r?\n)+", "", value)
    lowered = text.lower()
    return re.search(PREFILTER_RUN, text) is None and not any(w in lowered for w in PREFILTER_WORDS)


@settings(max_examples=2000, deadline=None)
@given(st.sets(texts, max_size=12))
def test_values_tested_together_are_clean_as_each_is_alone(values: set[str]) -> None:
    # A backslash or CR beside a removed mark may go with it: a value then passes only when its
    # text with every mark out would too (never when it would not).
    clean = values.difference(suspicious(list(values)))
    alone = {value for value in values if _one_by_one(value)}
    assert clean <= alone
    assert {v for v in clean if "\\" not in v and "\r" not in v} == {
        v for v in alone if "\\" not in v and "\r" not in v
    }


@settings(max_examples=2000, deadline=None)
@given(st.sets(texts, max_size=12))
def test_suspicious_values_tested_together_are_clean_as_the_detector_finds(
    values: set[str],
) -> None:
    clean = clean_as_read(values)
    unread = {v for v in values if not any(map(_may_match, secret_variants(v)))}
    assert clean == {v for v in unread if control_character(v) is None}
    assert all(secret_kind(v) is None for v in clean)


def test_only_u0130_and_the_kelvin_sign_lower_to_ascii_from_beyond_it() -> None:
    # `suspicious` lowers UTF-8 bytes, which lowers ASCII letters alone: it leaves these out.
    lowering_to_ascii = [
        chr(point)
        for point in range(0x80, sys.maxunicode + 1)
        if not 0xD800 <= point < 0xE000 and any(map(str.isascii, chr(point).lower()))
    ]
    assert lowering_to_ascii == ["\u0130", "\u212a"]
    assert unicodedata.normalize("NFKC", "\u212a") == "K"  # not read as written


def test_no_invisible_character_is_printable() -> None:
    # `suspicious` reads a printable value as written: the detector drops none of its characters.
    assert not any(map(str.isprintable, _INVISIBLE))


@settings(max_examples=3000, deadline=None)
@given(texts)
def test_marks_are_taken_out_as_the_split_pattern_takes_them(text: str) -> None:
    assert _joined(text) == re.sub(_SPLIT, "", text)


@settings(max_examples=2000, deadline=None)
@given(st.lists(texts, min_size=1, max_size=12), st.sampled_from(["", " ", "|", "| "]))
def test_a_row_has_as_many_cells_as_it_is_counted_to(cells: list[str], edge: str) -> None:
    line = edge + " | ".join(cells) + edge[::-1] + "\n"
    if "\n" not in line[:-1]:  # one row line
        assert len(line_cells(line)) == cell_count(strip_ending(line))


LAYOUTS: dict[Kind, list[str]] = {
    OUTCOME: [c.name for c in OUTCOME.columns],
    PATTERN: [c.name for c in PATTERN.columns],
    ERROR_FIX: ["Date", "ID", "Branch", "Error Signature", "Extra"],
}


@settings(max_examples=2000, deadline=None)
@given(
    st.sampled_from(list(LAYOUTS)),
    st.lists(texts, min_size=1, max_size=12),
    st.sampled_from(["| {} |\n", "|{}|\n", "{}\r\n", "  | {} |  \n"]),
    st.sampled_from([" | ", "|", "  |  "]),
)
def test_a_row_hash_is_the_hash_of_its_identity(
    kind: Kind, cells: list[str], frame: str, separator: str
) -> None:
    names = LAYOUTS[kind]
    columns = tuple(column_key(name) for name in names)
    id_at = columns.index("id")
    row = [f"{kind.prefix}-007" if i == id_at else cells[i % len(cells)] for i in range(len(names))]
    line = frame.format(separator.join(row))
    if "\n" in line[:-1]:
        return  # not one row line
    values = dict(zip(columns, line_cells(line), strict=False))
    found = RowHasher(kind, columns).of_line(line)
    if not values.get("id", "").startswith(kind.prefix + "-"):
        assert found is None
    else:
        assert found == hash(" | ".join(identity(kind, values)[1:]))


@settings(max_examples=2000, deadline=None)
@given(
    st.sampled_from(list(LAYOUTS)),
    st.lists(st.lists(texts, min_size=1, max_size=6), min_size=1, max_size=6),
    st.sampled_from(["| {} |\n", "{}\r\n", "  | {} |  \n"]),
)
def test_rows_hashed_as_a_chunk_known_clean_hash_as_each_is_alone(
    kind: Kind, rows: list[list[str]], frame: str
) -> None:
    """`all_clean` of the lines may only say what `_clean_text` says of each: the hash a row gets
    with the chunk's verdict is the hash it gets alone."""
    names = LAYOUTS[kind]
    columns = tuple(column_key(name) for name in names)
    id_at = columns.index("id")
    lines = []
    for cells in rows:
        row = [
            f"{kind.prefix}-007" if i == id_at else cells[i % len(cells)] for i in range(len(names))
        ]
        line = frame.format(" | ".join(row))
        if "\n" not in line[:-1]:
            lines.append(line)
    hasher = RowHasher(kind, columns)
    plain = all_clean("".join(lines)) or None
    for line in lines:
        assert hasher.of_cells(line, line_cells(line), plain) == hasher.of_line(line)


@settings(max_examples=2000, deadline=None)
@given(
    st.lists(st.lists(texts, min_size=1, max_size=5), min_size=1, max_size=8),
    st.integers(min_value=1, max_value=5),
    st.sampled_from(["| {} |\n", "|{}|\n", "{} |\r\n", "  | {} |  \n", "| {} \\|\n"]),
)
def test_a_chunk_of_rows_splits_into_each_line_s_cells(
    rows: list[list[str]], width: int, frame: str
) -> None:
    """The rows split all at once (escaped pipes held out as NULs) are the cells each line gives
    alone, and every row of another width is among those read alone."""
    lines = [frame.format(" | ".join(cells)) for cells in rows]
    lines = [line for line in lines if "\n" not in line[:-1]]
    if not lines:
        return
    split, alone = cells_of_rows(lines, width)
    assert split == [line_cells(line) for line in lines]
    assert {at for at, cells in enumerate(split) if len(cells) != width} <= set(alone)


@settings(max_examples=1000, deadline=None)
@given(
    st.sampled_from(list(LAYOUTS)),
    st.lists(st.lists(texts, min_size=1, max_size=6), min_size=1, max_size=6),
    st.sampled_from(["| {} |\n", "{}\r\n", "  | {} |  \n"]),
)
def test_rows_hashed_from_a_chunk_s_cells_hash_as_each_line_alone(
    kind: Kind, rows: list[list[str]], frame: str
) -> None:
    names = LAYOUTS[kind]
    columns = tuple(column_key(name) for name in names)
    id_at = columns.index("id")
    lines = []
    for cells in rows:
        row = [
            f"{kind.prefix}-007" if i == id_at else cells[i % len(cells)] for i in range(len(names))
        ]
        line = frame.format(" | ".join(row))
        if "\n" not in line[:-1]:
            lines.append(line)
    if not lines:
        return
    hasher = RowHasher(kind, columns)
    split, alone = cells_of_rows(lines, len(names))
    found: tuple[array[int], array[int]] = (array("q"), array("q"))
    hashes_of_rows(hasher, (lines, split, 0), alone, all_clean("".join(lines)) or None, found)
    alone_hashes = [(at, hasher.of_line(line)) for at, line in enumerate(lines)]
    assert list(zip(*found, strict=True)) == [(at, h) for at, h in alone_hashes if h is not None]


def test_no_whitespace_character_but_the_space_is_printable() -> None:
    """What `all_clean` takes for granted of a printable text."""
    printable_spaces = [
        code
        for code in range(sys.maxunicode + 1)
        if chr(code).isspace() and chr(code).isprintable() and chr(code) != " "
    ]
    assert printable_spaces == []


def test_the_wide_spaces_are_every_whitespace_character_beyond_ascii() -> None:
    found = [chr(code) for code in range(0x80, sys.maxunicode + 1) if chr(code).isspace()]
    assert list(WIDE_SPACES) == found


def test_the_listed_characters_are_the_classes_they_stand_for() -> None:
    """The ASCII control characters listed are fields' control class less what is not ASCII, and
    each table marks exactly the characters of its class."""
    ascii_characters = list(map(chr, range(128)))
    control = re.compile(_CONTROL)
    assert [c for c in ascii_characters if c in ASCII_CONTROL] == list(
        filter(control.fullmatch, ascii_characters)
    )
    classes = {
        SPLIT_MARKS + ASCII_CONTROL: r"[|<\n\r\x00-\x08\x0b\x0c\x0e-\x1f\x7f]",
        ASCII_CONTROL: r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]",
    }
    for characters, pattern in classes.items():
        marked = marking(characters)
        assert [chr(byte) for byte in range(256) if marked[byte] == ord("x")] == list(
            filter(re.compile(pattern).fullmatch, map(chr, range(256)))
        )

"""The field rules test the shapes of dates, plans, phases and tokens with string methods; each
test accepts exactly what its pattern (anchored with `^` and `$`, as `re.match` reads it) does,
and a date is a real one exactly when `datetime` reads it."""

from __future__ import annotations

import datetime as dt
import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from legion_memory.schema import fields
from legion_memory.schema.fields import control_character
from legion_memory.schema.kinds import KINDS, OUTCOME, Column, Kind, column_problem
from legion_memory.schema.secrets import _may_match, secret_kind

PATTERNS = {
    fields.date_rule: r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$",
    fields.plan_rule: r"^([0-9]{2,6}-[0-9]{2,6}|board|-)$",
    fields.phase_rule: r"^([0-9]{1,6}|N/A)$",
    fields.token_rule: r"^[^\s,|]+$",
}
# What moves a shape: ASCII and other digits, dashes, the words, whitespace of every kind.
pieces = st.sampled_from(
    ["0", "1", "2", "9", "٣", "²", "-", "/", "N/A", "board", "a", " ", "\t", "\n", "\u00a0",
     "\u3000", ",", "|", "2026", "02", "29", "13", "00"]
)  # fmt: skip
values = st.lists(pieces, max_size=8).map("".join)


@given(values)
@example("2026-01-01\n")
@example("0000-01-01")
@example("2024-02-29")
@example("2100-02-29")
@example("12-34\n")
@example("abc\n\n")
def test_each_shape_is_its_pattern(value: str) -> None:
    for rule, pattern in PATTERNS.items():
        shaped = re.match(pattern, value) is not None
        assert (rule(value) in (None, "is not a real calendar date")) == shaped, (rule, value)
    if re.match(PATTERNS[fields.date_rule], value):
        try:
            dt.date.fromisoformat(value)
            real = True
        except ValueError:
            real = False
        assert (fields.date_rule(value) is None) == real


@given(st.dates())
def test_every_calendar_date_is_real_and_its_neighbours_are_not(day: dt.date) -> None:
    assert fields.date_rule(day.isoformat()) is None
    if day.year >= 1000:
        assert fields.date_rule(f"{day.year:04d}-{day.month:02d}-32") is not None
        feb = f"{day.year:04d}-02-29"
        real = day.year % 4 == 0 and (day.year % 100 != 0 or day.year % 400 == 0)
        assert (fields.date_rule(feb) is None) == real


# IDs and dates of every kind, real and near misses, beside the shapes above.
NEAR = st.one_of(
    st.dates().map(dt.date.isoformat),
    st.from_regex(r"[A-Z]{1,2}-[0-9٣]{1,11}\n?", fullmatch=True),
    st.from_regex(r"[0-9]{4}-[0-9]{2}-[0-9]{2}\n?", fullmatch=True),
    st.from_regex(r"(?:O-[0-9]{1,5}){2,3}|O-O-[0-9]{3}|O-[0-9]{3}[ ٣-]", fullmatch=True),
    values,
)
# Sets of IDs all plain but perhaps one, which `taken_at_once` tells from C all at once.
IDS = st.builds(
    set.union,
    st.sets(st.from_regex(r"O-[0-9]{3,9}", fullmatch=True), min_size=1, max_size=8),
    st.sets(NEAR, max_size=1),
)


@settings(max_examples=1000)
@given(st.one_of(st.sets(NEAR, max_size=8), IDS))
@example({"2024-02-29", "2023-02-29", "0000-01-01", "2026-01-01\n", "O-001", "O-0001234567"})
def test_the_values_taken_at_once_are_taken_by_their_rule(found: set[str]) -> None:
    """What `taken_at_once` finds of many values the column's rule takes: a shortcut that says
    nothing of the other values."""
    for kind in KINDS.values():
        for column in kind.columns:
            taken = fields.taken_at_once(column.rule, found)
            assert taken <= found
            assert all(column.rule(value) is None for value in taken), (column.name, taken)
    ids = {value for value in found if re.fullmatch(r"O-[0-9]{3,9}", value)}
    assert fields.taken_at_once(OUTCOME.column("id").rule, found) == ids  # type: ignore[union-attr]
    dates = {
        value
        for value in found
        if re.fullmatch(PATTERNS[fields.date_rule].strip("^$"), value)
        and not value.endswith("02-29")
        and fields.date_rule(value) is None
    }
    assert fields.taken_at_once(fields.date_rule, found) == dates


SECRET_FREE = [
    (kind, column) for kind in KINDS.values() for column in kind.columns if column.secret_free
]
# What each secret-free rule takes, as patterns and word lists, and the open rules' patterns (a
# token, a pipe-free run): any rule marked secret-free by mistake meets values that break it.
TAKEN = st.one_of(
    *(st.from_regex(pattern, fullmatch=True) for pattern in PATTERNS.values()),
    st.from_regex(r"[A-Z]-[0-9]{3,12}\n?", fullmatch=True),
    st.from_regex(r"[A-Za-z0-9_+/=.~-]{10,60}", fullmatch=True),
    st.sampled_from(
        [*fields.OUTCOMES, *fields.SIGNALS, *fields.DECISION_POINTS, "1", "5", "true", "false"]
    ),
    values,
)


def test_the_secret_free_columns_are_the_closed_ones() -> None:
    assert {(kind.name, column.key) for kind, column in SECRET_FREE} == {
        (kind, key) for kind in KINDS for key in ("id", "date", *CLOSED[kind])
    }


CLOSED = {
    "outcomes": ("phase", "plan", "outcome", "importance"),
    "patterns": (),
    "errors": ("resolved",),
    "preferences": ("decision_point", "signal"),
}


@settings(max_examples=3000)
@given(st.sampled_from(SECRET_FREE), TAKEN)
@example((OUTCOME, OUTCOME.columns[0]), "O-123456789")
def test_a_value_a_secret_free_rule_takes_can_hold_no_secret(
    kind_and_column: tuple[Kind, Column], value: str
) -> None:
    """validate searches such a column's values for a secret only where the rule refuses them
    (docs/decisions.md#validate-from-lines): what it takes must be no secret, hold no control
    character, and be too short and plain for the detector's prefilter even to look further."""
    _, column = kind_and_column
    if column_problem(column, value) is None:
        assert not _may_match(value)
        assert secret_kind(value) is None
        assert control_character(value) is None

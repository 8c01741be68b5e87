"""Field rules: what a valid value of each memory column looks like."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from itertools import repeat

Rule = Callable[[str], str | None]
"""A field rule returns None when the value is fine, else what is wrong with it."""

OUTCOMES = ("success", "partial", "failed")
SIGNALS = ("positive", "negative", "corrective")
DECISION_POINTS = (
    "review-verdict",
    "review-override",
    "agent-selection",
    "manual-edit",
    "fix-acceptance",
)
# The shapes of a date, a plan, a phase and a token, as patterns would say them, are tested with
# string methods: a store checks each on every call, and compiling the patterns cost it more than
# the checks (tests/test_field_rules.py holds each test to its pattern). Digits are ASCII ([0-9],
# never `\d`, which takes any script's digits) and a number has a sane length: repository content
# comes from anyone who can commit (docs/decisions.md#untrusted-values).
MAX_ID_DIGITS = 9
# C0 and C1 control characters but tab and line breaks: ESC starts a terminal escape sequence.
_CONTROL = r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]"


def _matched(value: str) -> str:
    """The part of `value` that a pattern anchored with `$` must match: `$` also matches before
    a final line break."""
    return value[:-1] if value.endswith("\n") else value


def _digits(text: str, shortest: int, longest: int) -> bool:
    """`[0-9]{shortest,longest}`, the whole of `text`."""
    return shortest <= len(text) <= longest and text.isascii() and text.isdigit()


def date_shaped(value: str) -> bool:
    """`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`."""
    text = _matched(value)
    return (
        len(text) == len("YYYY-MM-DD")
        and text[4] == text[7] == "-"
        and _digits(text[:4] + text[5:7] + text[8:], 8, 8)
    )


def _plan_shaped(value: str) -> bool:
    """`^([0-9]{2,6}-[0-9]{2,6}|board|-)$`."""
    text = _matched(value)
    first, dash, second = text.partition("-")
    return text in ("board", "-") or (bool(dash) and _digits(first, 2, 6) and _digits(second, 2, 6))


def _phase_shaped(value: str) -> bool:
    """`^([0-9]{1,6}|N/A)$`."""
    text = _matched(value)
    return text == "N/A" or _digits(text, 1, 6)


def _token_shaped(value: str) -> bool:
    """`^[^\\s,|]+$`: `str.split` knows whitespace as `\\s` does."""
    text = _matched(value)
    return text.split() == [text] and "," not in text and "|" not in text


def one_of(choices: tuple[str, ...]) -> Rule:
    def rule(value: str) -> str | None:
        return None if value in choices else f"must be one of {', '.join(choices)}"

    return rule


def date_rule(value: str) -> str | None:
    if not date_shaped(value):
        return "must be a date YYYY-MM-DD"
    return None if _calendar_date(value) else "is not a real calendar date"


_MONTH_DAYS_OF_YEAR = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _calendar_date(value: str) -> bool:
    """Whether `datetime.date.fromisoformat` reads a value `date_shaped` (a store checks its date
    on every call, and importing datetime would cost it more than the check)."""
    if len(value) != len("YYYY-MM-DD"):  # `$` let a final line break through
        return False
    year, month, day = int(value[:4]), int(value[5:7]), int(value[8:])
    if year < 1 or not 1 <= month <= len(_MONTH_DAYS_OF_YEAR):
        return False
    leap = month == 2 and year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    return 1 <= day <= _MONTH_DAYS_OF_YEAR[month - 1] + leap


def phase_rule(value: str) -> str | None:
    return None if _phase_shaped(value) else "must be an integer or N/A"


def plan_rule(value: str) -> str | None:
    return None if _plan_shaped(value) else "must be NN-PP (e.g. 05-01), board or -"


def importance_rule(value: str) -> str | None:
    return None if value in {"1", "2", "3", "4", "5"} else "must be an integer from 1 to 5"


def resolved_rule(value: str) -> str | None:
    return None if value in {"true", "false"} else "must be true or false"


def token_rule(value: str) -> str | None:
    return None if _token_shaped(value) else "must be one word without spaces or commas"


def agents_rule(value: str) -> str | None:
    names = [name.strip() for name in value.split(",")]
    if all(name and _token_shaped(name) for name in names):
        return None
    return "must be an agent ID or a comma-separated list of agent IDs"


def free_rule(value: str) -> str | None:
    return None


def id_rule(prefix: str) -> Rule:
    pattern = rf"^{prefix}-[0-9]{{3,{MAX_ID_DIGITS}}}$"
    compiled: list[re.Pattern[str]] = []  # on first use: `validate` checks every row's ID

    def rule(value: str) -> str | None:
        if not compiled:
            compiled.append(re.compile(pattern))
        return None if compiled[0].match(value) else f"must look like {prefix}-001"

    _TAKEN_AT_ONCE[rule] = lambda values: _plain_ids(f"{prefix}-", values)
    return rule


def taken_at_once(rule: Rule, values: set[str]) -> set[str]:
    """Values `rule` takes, found among many by one comprehension of string tests rather than a
    call of the rule each (an ID and a date for every row `validate` checks); the others, which
    may pass too, are the rule's to judge (tests/test_field_rules.py holds each to its rule)."""
    found = _TAKEN_AT_ONCE.get(rule)
    return set() if found is None else found(values)


def _plain_ids(start: str, values: set[str]) -> set[str]:
    """The IDs `start` and 3 to `MAX_ID_DIGITS` ASCII digits, nothing after them."""
    if _all_plain_ids(start, values):
        return set(values)
    at = len(start)
    return {
        value
        for value in values
        if value.startswith(start)
        and 3 <= len(value) - at <= MAX_ID_DIGITS
        and value.isascii()
        and value[at:].isdigit()
    }


def _all_plain_ids(start: str, values: set[str]) -> bool:
    """Whether every value is a plain ID, the usual answer for a table's IDs, told by passes
    from C instead of a test of each value: each starts with `start`; `start` (a prefix and one
    hyphen, which cannot overlap itself) occurs nowhere else in them, so what is left of them
    once it is taken out is their digits; and the lengths are in range."""
    joined = "".join(values)
    rest = joined.replace(start, "")
    lengths = set(map(len, values))
    return (
        bool(lengths)
        and len(rest) == len(joined) - len(start) * len(values)
        and rest.isascii()
        and rest.isdigit()
        and all(map(str.startswith, values, repeat(start)))
        and min(lengths) - len(start) >= 3
        and max(lengths) - len(start) <= MAX_ID_DIGITS
    )


def _plain_dates(values: set[str]) -> set[str]:
    """The real dates `YYYY-MM-DD` with nothing after them: a year of ASCII digits but 0000, and
    a month and day every year has (February 29th is left to the rule)."""
    month_days = _month_days()
    return {
        value
        for value in values
        if len(value) == len("YYYY-MM-DD")
        and value[5:] in month_days
        and value[4] == "-"
        and value.isascii()
        and value[:4].isdigit()
        and value[:4] != "0000"
    }


@cache
def _month_days() -> frozenset[str]:
    """`MM-DD` of every day of a year that is not a leap year (on first use: a store needs none)."""
    return frozenset(
        f"{month:02d}-{day:02d}"
        for month, days in enumerate(_MONTH_DAYS_OF_YEAR, start=1)
        for day in range(1, days + 1)
    )


_TAKEN_AT_ONCE: dict[Rule, Callable[[set[str]], set[str]]] = {date_rule: _plain_dates}


def control_character(value: str) -> str | None:
    """The first control character in `value` as `U+001B`, or None. Tab and line breaks pass."""
    if value.isprintable():  # no control character is printable: the usual value, not searched
        return None
    found = _control().search(value)
    return None if found is None else f"U+{ord(found[0]):04X}"


_compiled: list[re.Pattern[str]] = []


def _control() -> re.Pattern[str]:
    """`_CONTROL`, compiled on first use: `validate` searches every value and row for it."""
    if not _compiled:
        _compiled.append(re.compile(_CONTROL))
    return _compiled[0]


def not_text(value: str) -> bool:
    """Whether `value` holds lone surrogates: how Python passes on the bytes of an argument that
    was not UTF-8, which no memory file (always UTF-8) can hold."""
    return not value.isascii() and re.search(r"[\ud800-\udfff]", value) is not None

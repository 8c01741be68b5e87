"""Recency decay, computed at recall time and never applied destructively.

The rules are the memory-manager skill's (docs/memory-manager-SKILL.md, Sections 4-5).
"""

import datetime as dt
import functools
import heapq
from collections.abc import Iterable
from operator import itemgetter

from legion_memory.named_tuple import NamedTuple
from legion_memory.schema.records import Record, id_number
from legion_memory.schema.table_rows import TableRows, unpadded

# (days_old at most, weight): a record a week old or newer weighs 1.0, then 0.7, 0.4, 0.1.
WEIGHT_TIERS = ((7, 1.0), (30, 0.7), (90, 0.4))
OLDEST_WEIGHT = 0.1
UNPARSEABLE_DATE_WEIGHT = 0.4
EXCLUDE_BELOW = 0.2


def days_old(day: dt.date | None, today: dt.date) -> int | None:
    """Whole days since `day`; a future date counts as 0; None when the date is unknown."""
    return None if day is None else max(0, (today - day).days)


def recency_weight(day: dt.date | None, today: dt.date) -> float:
    return _weight_at(days_old(day, today))


def _weight_at(age: int | None) -> float:
    if age is None:
        return UNPARSEABLE_DATE_WEIGHT
    for limit, weight in WEIGHT_TIERS:
        if age <= limit:
            return weight
    return OLDEST_WEIGHT


class Scored(NamedTuple):
    """A record with its decay: what recall sorts on and prints under --json."""

    record: Record
    days_old: int | None
    recency_weight: float
    decay_score: float

    def to_json(self) -> dict[str, object]:
        return {
            **self.record.to_json(),
            "days_old": self.days_old,
            "recency_weight": self.recency_weight,
            "decay_score": round(self.decay_score, 6),
        }


def scored(record: Record, today: dt.date, *, importance: int | None = None) -> Scored:
    """Decay of one record; `importance` overrides the record's (patterns weigh 1 each)."""
    age, weight = _decay_of(record["date"], today)
    value = record.importance if importance is None else importance
    return Scored(record, age, weight, value * weight)


@functools.lru_cache(maxsize=4096)
def _decay_of(date: str, today: dt.date) -> tuple[int | None, float]:
    """Age and weight of a Date cell. Every record of a recall or a score comes here, and a
    file's rows share a few hundred dates, so each date is parsed once."""
    try:
        day: dt.date | None = dt.date.fromisoformat(date)
    except ValueError:
        day = None
    age = days_old(day, today)
    return age, _weight_at(age)


def newest_first(record: Record) -> tuple[str, int]:
    """Sort key, used with reverse=True: date desc, then ID number desc."""
    return (record["date"], record.number)


def rank(
    records: Iterable[Record], today: dt.date, *, keep_all: bool = False, limit: int | None = None
) -> list[Scored]:
    """Decay-score records, drop those under the 0.2 floor (unless `keep_all`), best first;
    ties go to the newer date, then the higher ID. With `limit`, only the first `limit`."""
    results = [scored(record, today) for record in records]
    if not keep_all:
        results = [result for result in results if result.decay_score >= EXCLUDE_BELOW]
    if limit is not None and limit >= 0:
        # The same as sorting and slicing (ties included), without sorting every record: only
        # records scoring at least the limit-th best score can be among the first `limit`, and
        # comparing bare scores is far cheaper than building every record's full sort key.
        floor = min(heapq.nlargest(limit, (result.decay_score for result in results)), default=0)
        contenders = [result for result in results if result.decay_score >= floor]
        return heapq.nlargest(limit, contenders, key=_best_first)
    results.sort(key=_best_first, reverse=True)
    return results if limit is None else results[:limit]


def _best_first(result: Scored) -> tuple[float, str, int]:
    return (result.decay_score, *newest_first(result.record))


_IMPORTANCES = frozenset("12345")


def rank_rows(rows: TableRows, today: dt.date, limit: int) -> list[Scored]:
    """`rank(rows.records(), today, limit=limit)`, reading only the Date, Importance and ID of
    each row and building the records of the first `limit` alone: on a long history nearly every
    row is scored and dropped, so building its record was most of a recall's time. A file's rows
    share a few hundred dates and five importances: each is unpadded and weighed once."""
    found = []
    decays: dict[str, tuple[str, int | None, float]] = {}
    values: dict[str, int] = {}
    cells = rows.padded_cells("date", "importance", "id")
    for offset, (padded_date, padded_importance, record_id) in enumerate(cells):
        decay = decays.get(padded_date)
        if decay is None:
            decay = decays[padded_date] = _unpadded_decay(padded_date, today)
        value = values.get(padded_importance)
        if value is None:
            value = values[padded_importance] = _importance_value(padded_importance)
        score = value * decay[2]
        if score >= EXCLUDE_BELOW:
            found.append((score, decay[0], record_id, offset, decay))
    # The same order as `rank`'s: score, then date, then ID number, ties in file order. Only rows
    # whose score and date tie with the limit-th best or beat it can be among the first `limit`:
    # the others' ID numbers are never read.
    if 0 < limit < len(found):
        floor_score, floor_date = heapq.nlargest(limit, found, key=itemgetter(0, 1))[-1][:2]
        found = [
            row for row in found
            if row[0] > floor_score or (row[0] == floor_score and row[1] >= floor_date)
        ]  # fmt: skip
    prefix = rows.kind.prefix
    numbered = [(*row[:2], id_number(unpadded(row[2]), prefix), *row[3:]) for row in found]
    best = heapq.nlargest(limit, numbered, key=itemgetter(0, 1, 2))
    return [Scored(rows.record(row[3]), *row[4][1:], row[0]) for row in best]


def _unpadded_decay(padded_date: str, today: dt.date) -> tuple[str, int | None, float]:
    date = unpadded(padded_date)
    return (date, *_decay_of(date, today))


def _importance_value(padded: str) -> int:
    value = unpadded(padded)
    return int(value) if value in _IMPORTANCES else 0

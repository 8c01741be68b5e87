"""Recency ranking for records without an importance weight: patterns and preferences.

The spec weighs every pattern (and every preference) alike, so only recency orders them. Nothing is
dropped under decay's 0.2 floor here: with a weight of 1, that floor would hide every pattern older
than 90 days, and the spec calls all patterns high-value.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable

from legion_memory.knowledge.decay import Scored, newest_first, scored
from legion_memory.schema.records import Record

UNWEIGHTED = 1


def by_recency(records: Iterable[Record], today: dt.date) -> list[Scored]:
    """Records best first: higher recency weight, then the newer date, then the higher ID.

    A record whose date does not parse weighs 0.4, as in every recall, and comes after the dated
    records 31 to 90 days old that weigh the same.
    """
    results = [scored(record, today, importance=UNWEIGHTED) for record in records]
    results.sort(key=_best_first, reverse=True)
    return results


def _best_first(result: Scored) -> tuple[float, bool, str, int]:
    return (result.recency_weight, result.record.day is not None, *newest_first(result.record))

"""Retrieval metrics over ranked keys and a judged set of relevant keys (binary relevance)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence, Set

CUTOFF = 10


def hit_at_1(ranked: Sequence[str], relevant: Set[str]) -> float:
    return 1.0 if ranked[:1] and ranked[0] in relevant else 0.0


def reciprocal_rank(ranked: Sequence[str], relevant: Set[str]) -> float:
    """1 / rank of the first relevant key within the first ten; 0 when there is none."""
    return next((1 / rank for rank, key in enumerate(ranked[:CUTOFF], 1) if key in relevant), 0.0)


def ndcg(ranked: Sequence[str], relevant: Set[str]) -> float:
    """nDCG@10: gains 1 for a relevant key, discounted by log2(rank + 1)."""
    gain = sum(
        1 / math.log2(rank + 1) for rank, key in enumerate(ranked[:CUTOFF], 1) if key in relevant
    )
    ideal = sum(1 / math.log2(rank + 1) for rank in range(1, min(len(relevant), CUTOFF) + 1))
    return gain / ideal if ideal else 0.0


def holds(shown: Sequence[str], relevant: Set[str]) -> float:
    """1.0 when any shown key is relevant (the context block's measure)."""
    return 1.0 if any(key in relevant for key in shown) else 0.0


def mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


Measure = Callable[[Sequence[str], Set[str]], float]

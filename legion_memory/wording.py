"""Counts in words: `1 record`, `2 records`, the one way every message says how many."""

from __future__ import annotations


def count_of(number: int, noun: str, plural: str | None = None) -> str:
    """`number` and `noun`, the noun in the plural unless the number is one."""
    return f"{number} {noun if number == 1 else plural or noun + 's'}"

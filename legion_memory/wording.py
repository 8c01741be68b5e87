"""Counts in words: `1 record`, `2 records`, the one way every message says how many."""

from __future__ import annotations


def count_of(number: int, noun: str, plural: str | None = None) -> str:
    """`number` and `noun`, the noun in the plural unless the number is one."""
    return f"{number} {noun_for(number, noun, plural)}"


def noun_for(number: int, noun: str, plural: str | None = None) -> str:
    """`noun` in the plural unless `number` is one: `columns A, B`, `column A`."""
    return noun if number == 1 else plural or noun + "s"

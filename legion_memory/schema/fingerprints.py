"""Which of many keys repeat, found from their hashes: eight bytes a row, not a dict of them.

A table of 100,000 rows kept as a dict of its IDs or its records' identities held more memory than
the file itself. Equal keys have equal hashes, so only the rows whose hash repeats can repeat a
key: the callers compare those few exactly (docs/decisions.md#repeats-by-hash).
"""

from array import array
from itertools import compress
from operator import eq


def hashes() -> "array[int]":
    """An empty array of hashes (signed 64-bit, as `hash` gives them)."""
    return array("q")


def repeated(found: "array[int]") -> set[int]:
    """The hashes that occur more than once."""
    if len(set(found)) == len(found):  # the usual answer: hashing an int is cheaper than sorting
        return set()
    ordered = sorted(found)
    later = ordered[1:]
    return set(compress(later, map(eq, later, ordered)))


def positions_of(found: "array[int]", wanted: set[int]) -> "compress[int]":
    """The positions, in order, of the hashes in `wanted`."""
    return compress(range(len(found)), map(wanted.__contains__, found))

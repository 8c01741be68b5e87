"""The hashes that repeat, found with or without sorting them."""

from __future__ import annotations

from array import array
from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from legion_memory.schema.fingerprints import repeated

hashes = st.lists(st.integers(-(2**63), 2**63 - 1) | st.integers(-3, 3), max_size=40)


@given(hashes)
def test_the_hashes_repeated_are_those_counted_twice_or_more(found: list[int]) -> None:
    counted = Counter(found)
    assert repeated(array("q", found)) == {value for value, n in counted.items() if n > 1}

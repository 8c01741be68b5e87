"""How near a record's matched words stand: a record holding `merge driver` as two neighbouring
words is more often about a merge driver than one holding `merge` in its fix and `driver` in a
tag (docs/decisions.md#search-proximity).

nearness = the distinct pairs of different query stems standing at most NEAR_WORDS words apart
(stopwords not counted) in one field, over the record's shared words - 1, at most 1.
"""

from collections.abc import Sequence

from legion_memory.search.stemming import stem
from legion_memory.search.terms import words

NEAR_WORDS = 5


def nearness(texts: Sequence[str], wanted: set[str], shared: int) -> float:
    """From 0 (no two matched words near each other, or one word matched) to 1, over the texts
    of a record's fields."""
    if shared < 2:
        return 0.0
    prefixes = tuple(wanted)  # a word whose stem is wanted starts with that stem
    pairs: set[tuple[str, str]] = set()
    for text in texts:
        placed = [
            (at, term)
            for at, word in enumerate(words(text))
            if word.startswith(prefixes) and (term := stem(word)) in wanted
        ]
        pairs.update(_near_pairs(placed))
    return min(1.0, len(pairs) / (shared - 1))


def _near_pairs(placed: list[tuple[int, str]]) -> set[tuple[str, str]]:
    """The pairs of different stems at most NEAR_WORDS apart, each pair once, in stem order."""
    pairs: set[tuple[str, str]] = set()
    for index, (at, term) in enumerate(placed):
        for later, other in placed[index + 1 :]:
            if later - at > NEAR_WORDS:
                break
            if other != term:
                pairs.add((min(term, other), max(term, other)))
    return pairs

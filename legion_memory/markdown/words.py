"""Words for matching: lowercase alphanumeric tokens minus stopwords, and their overlap."""

from __future__ import annotations

import re
from collections.abc import Iterable

# memory-broker's list, plus the English function words that carry no meaning in a search.
STOPWORDS = frozenset(
    """
    the a an and or but of to in for with on at by from build add fix make
    is are was were be been being it its this that these those as if then than so not no
    into onto over under out up down off about after before when while where which who what how
    do does did done has have had can could should would will shall may might must
    i we you he she they them our your their my me us
    """.split()
)
# A CJK character is a word on its own: those scripts do not separate words with spaces. Search
# tokenises with it too: compiling its CJK ranges costs about half of `python -c pass`, once.
TOKEN = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]|[^\W_]+")


def tokens(text: str) -> list[str]:
    """Lowercase alphanumeric tokens in order, stopwords removed."""
    return [word for word in TOKEN.findall(text.lower()) if word not in STOPWORDS]


def jaccard(left: Iterable[str], right: Iterable[str]) -> float:
    """Shared tokens over all tokens of two sets; 0.0 when both are empty."""
    a, b = set(left), set(right)
    union = a | b
    return len(a & b) / len(union) if union else 0.0

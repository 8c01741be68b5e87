"""Words for matching: lowercase alphanumeric tokens minus stopwords, and their overlap."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

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
# A token is a run of letters and digits, but a CJK character is a word on its own: those
# scripts do not separate words with spaces. That is the pattern
# `[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]|[^\W_]+`, whose CJK ranges cost
# half of `python -c pass` to compile (one step of Python per character of the ranges). Its
# second alternative alone finds an ASCII text's; in other text, the runs and each character
# that is neither a word's nor a space are found (categories, no range), the CJK characters a run
# opens with are split off and a CJK character outside words (`・`, one unassigned) kept alone.
_RUN = re.compile(r"[^\W_]+")
_RUN_OR_MARK = re.compile(r"[^\W_]+|[^\w\s]")
_CJK = (("\u3040", "\u30ff"), ("\u3400", "\u4dbf"), ("\u4e00", "\u9fff"), ("\uac00", "\ud7af"))


def token_list(text: str) -> list[str]:
    """The tokens of `text`, in order (the pattern's `findall`)."""
    if text.isascii():
        return _RUN.findall(text)
    return [token for _, token in token_spans(text)]


def token_spans(text: str) -> Iterator[tuple[int, str]]:
    """(where it starts, token) of each token of `text`, in order (the pattern's `finditer`)."""
    if text.isascii():
        for match in _RUN.finditer(text):
            yield match.start(), match.group()
        return
    for match in _RUN_OR_MARK.finditer(text):
        found, start = match.group(), match.start()
        if found.isalnum():  # a run: `\w` is a letter, a digit or a number, or `_`
            for offset, token in _split(found):
                yield start + offset, token
        elif _is_cjk(found):
            yield start, found


def _split(run: str) -> Iterator[tuple[int, str]]:
    """A run's tokens with their offsets: each CJK character it opens with alone, then the rest
    (from a character that is not CJK, the pattern's second alternative takes the run's end)."""
    if run.isascii():
        yield 0, run
        return
    at = 0
    while at < len(run) and _is_cjk(run[at]):
        yield at, run[at]
        at += 1
    if at < len(run):
        yield at, run[at:]


def _is_cjk(character: str) -> bool:
    return any(low <= character <= high for low, high in _CJK)


def tokens(text: str) -> list[str]:
    """Lowercase alphanumeric tokens in order, stopwords removed."""
    return [word for word in token_list(text.lower()) if word not in STOPWORDS]


def jaccard(left: Iterable[str], right: Iterable[str]) -> float:
    """Shared tokens over all tokens of two sets; 0.0 when both are empty."""
    # Sets are taken as they are (context compares every pair of its items' words): the union's
    # size is counted, not built.
    a = left if isinstance(left, (set, frozenset)) else set(left)
    b = right if isinstance(right, (set, frozenset)) else set(right)
    shared = len(a & b)
    union = len(a) + len(b) - shared
    return shared / union if union else 0.0

"""What search counts as a query's and a record's words: tokens minus search's stopwords, their
stems, the words of a text that start with given stems, and where a text first matches."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from legion_memory.markdown.words import token_list, token_spans
from legion_memory.search.stemming import stem

# English function words that carry no meaning in a search. (`markdown.words`, which error-fix
# duplicate detection uses, keeps memory-broker's list: it also drops build, add, fix, make, not.)
FUNCTION_WORDS = frozenset(
    """
    the a an and or but of to in for with on at by from
    is are was were be been being it its this that these those as if then than so
    into onto over under out up down off about after before when while where which who what how
    do does did done has have had can could should would will shall may might must
    i we you he she they them our your their my me us
    all any both each few more most other some such only own same very just too again once
    here there why because until against between through during above below further nor
    don doesn didn isn aren wasn weren hasn haven hadn won wouldn shouldn couldn ll ve re
    """.split()
)
# Search's: single Latin letters and digits too (what is left of node's, don't, - [x], and of
# version strings and numbering: 7.3.2, Step 0.5; they would match nearly anything). Words that
# carry meaning in error memory stay searchable: fix, build, add, make, not, no, and numbers of two
# digits or more (node 16) (docs/decisions.md#search-ranking).
STOPWORDS = FUNCTION_WORDS | frozenset("abcdefghijklmnopqrstuvwxyz0123456789")


def words(text: str) -> list[str]:
    """Lowercase alphanumeric tokens in order, search's stopwords removed."""
    return [word for word in token_list(text.lower()) if word not in STOPWORDS]


def first_match(text: str, wanted: Iterable[str]) -> int:
    """Where the first whole word of `text` whose stem is wanted starts; -1 when none is."""
    stems = set(wanted)
    for start, token in token_spans(text):
        word = token.lower()
        if word not in STOPWORDS and stem(word) in stems:
            return start
    return -1


def starting_with(prefixes: Iterable[str]) -> Callable[[str], list[str]]:
    """A function giving the words of a lowercase text (as `words`) that start with one of the
    prefixes. For ASCII text and prefixes it is one regex pass instead of tokenising everything;
    other text is tokenised (whether a CJK character is a word of its own depends on what precedes
    it)."""
    chosen = tuple(sorted(set(prefixes), key=len, reverse=True))
    fast = all(p.isascii() and p.isalnum() for p in chosen)
    pattern = re.compile(f"(?<![^\\W_])(?:{'|'.join(map(re.escape, chosen))})[^\\W_]*")

    def find(text: str) -> list[str]:
        if not chosen:
            return []
        if not (fast and text.isascii()):
            return [word for word in words(text) if word.startswith(chosen)]
        return [word for word in pattern.findall(text) if word not in STOPWORDS]

    return find


def terms(text: str) -> list[str]:
    """The stems of `words(text)`, in order: what ranking counts."""
    return [stem(word) for word in words(text)]

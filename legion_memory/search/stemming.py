"""A light English suffix stemmer for search: plural, -ing and -ed forms and a final e or y fold
onto one stem (agents/agent, spawning/spawn, retries/retry, caching/cache), and the -ise and -ize
spellings onto one (prioritised/prioritized, summarise/summary).

Every stem is a prefix of the word it came from, so a document that holds any form of a word holds
that word's stem as a substring: the corpus's `str.find` pre-filter stays a superset of the real
matches. Suffixes are removed only while at least MIN_STEM characters remain, so short words
(`is`, `bus`, `ss`) are left alone. See docs/decisions.md#search-ranking.
"""

MIN_STEM = 3
# The -ise/-ize family (-isations ... -ize) is removed only from a longer word: revise and
# revision keep meeting at revis, advise and advised at advis.
_SPELLINGS = tuple(
    f"{spelling}{end}"
    for end in ("ations", "ation", "ing", "ed", "es", "e")
    for spelling in ("is", "iz")
)
# Longest first; each suffix is removed once, then a doubled final consonant and a final e or y.
_SUFFIXES = tuple(
    sorted((*_SPELLINGS, *"ations ation ions ion ies ied ing ers es ed er ly s".split()), key=len)[
        ::-1
    ]
)
# What a suffix leaves in its place: escalation -> escalat, as escalate -> escalat.
_REPLACE = {"ations": "at", "ation": "at"}
_KEEP_S = ("ss", "us", "is")
_VOWELS = frozenset("aeiouy")
_cache: dict[str, str] = {}


def stem(word: str) -> str:
    """The word's stem (the word itself when it is short or not an ASCII letter word)."""
    found = _cache.get(word)
    if found is None:
        found = _cache[word] = _stem(word) if word.isascii() and word.isalpha() else word
    return found


def _stem(word: str) -> str:
    base = _strip_suffix(word)
    if len(base) > MIN_STEM and base[-1] == base[-2] and base[-1] not in _VOWELS:
        base = base[:-1]  # running -> runn -> run, and pass, passes, passed -> pas
    if len(base) > MIN_STEM and base[-1] in "ey":
        base = base[:-1]
    return base


def _strip_suffix(word: str) -> str:
    for suffix in _SUFFIXES:
        shortest = MIN_STEM + 1 if suffix in _SPELLINGS else MIN_STEM
        if word.endswith(suffix) and len(word) - len(suffix) >= shortest:
            if suffix == "s" and word.endswith(_KEEP_S):
                return word
            if suffix in ("ion", "ions") and word[-len(suffix) - 1] not in "ts":
                continue
            return word[: -len(suffix)] + _REPLACE.get(suffix, "")
    return word

"""Keyword search over memory: text relevance first (BM25F over stems), then recency, importance.

    score = bm25 * coverage * (1 + NEARNESS_SHARE * nearness)
            * (1 + RECENCY_SHARE * recency) * importance_weight * boost

- bm25: Okapi BM25 (k1 = 1.2, b = 0.75, idf = ln(1 + (N - n + 0.5) / (n + 0.5))) over each tier's
  own corpus, a word's count in a document being the sum of the weights of the fields it occurs in
  (`documents.field_weight`: main field 1.0, qualifying prose 0.6, context, tags, labels 0.3).
  Words are stems (`stemming.stem`) of `terms.words`. Document length, for the length
  normalisation, is counted in characters (see `corpus`).
- coverage: the share of the query's idf that the document matches (a query word no document
  holds counts with the idf of n = 0), from 0 to 1: a record matching every query word is not
  outranked by one matching a single word.
- nearness: the share of the matched words standing near another one in a field
  (`nearness.nearness`), from 0 to 1: a record whose matched words stand together is more often
  the answer than one holding them apart.
- recency: the spec's step weight of the record's age (1.0 / 0.7 / 0.4 / 0.1, `knowledge.decay`);
  importance_weight: 1 + IMPORTANCE_SHARE * (importance - 3) / 2 (1.0 without one). Together they
  move a score by at most a factor 1.1 * 1.05 / (1.01 * 0.95) = 1.2: a better text match by more
  than that always ranks first, however old it is.
- The relevance floor: a document is relevant when it covers RELEVANCE_FLOOR of the query, or
  shares SHARED_WORDS of its words, one of them distinctive (held by at most DISTINCTIVE_SHARE of
  the documents): a rare word alone is often a coincidence, a rare word with another one in common
  is a topic (a long task touching several topics covers little of itself in any one record);
  when none is, nothing is returned.

Every constant is explained in docs/decisions.md#search-ranking. Only documents that contain a
query stem as a substring are tokenised at all.
"""

import datetime as dt
import math
from collections.abc import Callable, Sequence
from pathlib import Path

from legion_memory.errors import InputError
from legion_memory.knowledge.decay import recency_weight
from legion_memory.named_tuple import NamedTuple
from legion_memory.schema.kinds import KINDS, Kind
from legion_memory.search.corpus import Corpus, Source, gather
from legion_memory.search.documents import Entry, one_line
from legion_memory.search.nearness import nearness
from legion_memory.search.stemming import stem
from legion_memory.search.terms import first_match, starting_with, terms
from legion_memory.storage.scopes import Marked, Scoped, merge

K1 = 1.2
B = 0.75
NEUTRAL_IMPORTANCE = 3
RECENCY_SHARE = 0.1
IMPORTANCE_SHARE = 0.05
NEARNESS_SHARE = 0.3
RELEVANCE_FLOOR = 0.25
SHARED_WORDS = 2
DISTINCTIVE_SHARE = 0.02
# In a small memory a word held by this many documents still counts as distinctive.
FEWEST_DISTINCTIVE = 2
SNIPPET_CHARS = 240
_SNIPPET_LEAD = 60
ELLIPSIS = "…"
ALL_FILES = "all"
RETRO = "retro"
FILE_CHOICES = (*KINDS, RETRO, ALL_FILES)


def file_choice(value: str) -> tuple[list[Kind], bool]:
    """`--file`: the kinds to read and whether RETRO.md is read too."""
    if value == ALL_FILES:
        return list(KINDS.values()), True
    if value == RETRO:
        return [], True
    kind = next((k for k in KINDS.values() if value in (k.name, k.singular)), None)
    if kind is None:
        raise InputError(
            f"--file '{value}' is not valid", hint=f"use one of {', '.join(FILE_CHOICES)}"
        )
    return [kind], False


def query_terms(text: str) -> list[str]:
    """The query's distinct stems, in order."""
    return list(dict.fromkeys(terms(text)))


class Hit(NamedTuple):
    source: Source
    bm25: float
    coverage: float
    recency: float
    importance_weight: float
    boost: float = 1.0
    distinctive: int = 0  # query words it shares that few records hold
    shared: int = 0  # distinct query words it shares
    nearness: float = 0.0

    @property
    def relevant(self) -> bool:
        """Above the relevance floor: it covers RELEVANCE_FLOOR of the query, or shares
        SHARED_WORDS words with it of which one is distinctive
        (docs/decisions.md#search-ranking)."""
        corroborated = self.distinctive >= 1 and self.shared >= SHARED_WORDS
        return self.coverage >= RELEVANCE_FLOOR or corroborated

    @property
    def relevance(self) -> float:
        """The text's part of the score: BM25 times the share of the query matched, times how
        near each other the matched words stand."""
        return self.bm25 * self.coverage * (1 + NEARNESS_SHARE * self.nearness)

    @property
    def score(self) -> float:
        age = 1 + RECENCY_SHARE * self.recency
        return self.relevance * age * self.importance_weight * self.boost

    @property
    def entry(self) -> Entry:
        return self.source.entry()


def importance_weight(importance: int | None) -> float:
    if importance is None:
        return 1.0
    return 1 + IMPORTANCE_SHARE * (importance - NEUTRAL_IMPORTANCE) / 2


def confident(hits: Sequence[Hit]) -> bool:
    """Whether the best match is strong enough to show anything at all: some hit is relevant."""
    return any(hit.relevant for hit in hits)


Boost = Callable[[Source], float]


def rank(
    corpus: Corpus, query: Sequence[str], today: dt.date, *, boost: Boost | None = None
) -> list[Hit]:
    """Documents sharing a word with the query, best first; ties: newer date, then higher ID."""
    hits = [
        Hit(
            match.source,
            match.bm25,
            match.coverage,
            recency_weight(match.source.day, today),
            importance_weight(match.source.importance),
            boost(match.source) if boost else 1.0,
            match.distinctive,
            match.shared,
            match.nearness,
        )
        for match in bm25(query, corpus)
    ]
    hits.sort(key=lambda hit: (hit.score, hit.source.date, hit.source.number), reverse=True)
    return hits


class TextMatch(NamedTuple):
    source: Source
    bm25: float
    coverage: float
    distinctive: int  # matched query words held by at most DISTINCTIVE_SHARE of the documents
    shared: int  # distinct query words matched
    nearness: float  # how near each other the matched words stand, from 0 to 1


def bm25(query: Sequence[str], corpus: Corpus) -> list[TextMatch]:
    """BM25F, coverage, distinctive words and nearness of every document that holds one of the
    query's distinct stems."""
    wanted = list(dict.fromkeys(query))
    count = corpus.count
    if not count or not wanted:
        return []
    average = corpus.length / count or 1.0
    matched: list[tuple[Source, dict[str, float], float]] = []
    containing = dict.fromkeys(wanted, 0)
    chosen = set(wanted)
    find = starting_with(wanted)  # a word whose stem is wanted starts with that stem
    for source, fields in corpus.containing(wanted):
        counts, together = weighted_counts(fields, chosen, find)
        if counts:
            matched.append((source, counts, nearness(together, chosen, len(counts))))
            for word in counts:
                containing[word] += 1
    idf = {w: math.log(1 + (count - n + 0.5) / (n + 0.5)) for w, n in containing.items()}
    total = sum(idf.values())
    few = max(FEWEST_DISTINCTIVE, DISTINCTIVE_SHARE * count)
    scored = []
    for source, counts, near in matched:
        norm = K1 * (1 - B + B * source.length / average)
        value = sum(idf[w] * tf * (K1 + 1) / (tf + norm) for w, tf in counts.items())
        coverage = sum(idf[w] for w in counts) / total
        distinctive = sum(containing[w] <= few for w in counts)
        scored.append(TextMatch(source, value, coverage, distinctive, len(counts), near))
    return scored


def weighted_counts(
    fields: Sequence[tuple[float, str]], wanted: set[str], find: Callable[[str], list[str]]
) -> tuple[dict[str, float], list[str]]:
    """Each wanted stem's count over the fields, each occurrence counting its field's weight,
    and the fields holding two different wanted stems (only there can two stand near each
    other); `find` gives a text's candidate words (a superset of those whose stem is wanted)."""
    counts: dict[str, float] = {}
    together: list[str] = []
    for weight, text in fields:
        here: set[str] = set()
        for word in find(text):
            term = stem(word)
            if term in wanted:
                counts[term] = counts.get(term, 0.0) + weight
                here.add(term)
        if len(here) > 1:
            together.append(text)
    return counts, together


def matched_section(entry: Entry, query: Sequence[str]) -> tuple[str, str]:
    """The heaviest field holding a query word as a whole word, as (field key, one-line text);
    the headline when no field does."""
    for key, text in entry.sections:
        if first_match(text, query) >= 0:
            return key, one_line(text)
    return "", entry.headline


def snippet(entry: Entry, query: Sequence[str]) -> str:
    """At most 240 characters of the matched field, around its first whole-word match."""
    return window(matched_section(entry, query)[1], query)


def shown_snippet(entry: Entry, query: Sequence[str]) -> str:
    """The snippet as a person reads it: the matched field's name first (`fix: ...`)."""
    field, _ = matched_section(entry, query)
    text = snippet(entry, query)
    return f"{field.replace('_', ' ')}: {text}" if field else text


def window(text: str, query: Sequence[str]) -> str:
    if len(text) <= SNIPPET_CHARS:
        return text
    start = max(0, first_match(text, query) - _SNIPPET_LEAD)
    # A match near the end still gets a full window.
    start = min(start, len(text) - SNIPPET_CHARS + len(ELLIPSIS))
    if start:
        space = text.find(" ", start, start + 20)
        start = space + 1 if space >= 0 else start
    prefix = ELLIPSIS if start else ""
    body = text[start:]
    if len(prefix) + len(body) <= SNIPPET_CHARS:
        return prefix + body
    room = SNIPPET_CHARS - len(prefix) - len(ELLIPSIS)
    cut = body[:room]
    space = cut.rfind(" ")
    if space > room - 40:
        cut = cut[:space]
    return prefix + cut.rstrip() + ELLIPSIS


class SearchResult(NamedTuple):
    hits: list[Marked[Hit]]
    query: list[str]
    unreadable: list[Path]


def search(
    tiers: Sequence[Scoped], text: str, file: str, *, today: dt.date, limit: int
) -> SearchResult:
    """Rank the query over each tier (each its own corpus), project first, cut to `limit`."""
    if limit < 1:
        raise InputError(f"--limit {limit} is not valid", hint="use a number of 1 or more")
    kinds, retro = file_choice(file)
    query = query_terms(text)
    groups: list[tuple[str, list[Hit]]] = []
    unreadable: list[Path] = []
    for tier in tiers if query else []:  # a query of stopwords alone finds nothing: read nothing
        corpus, bad = gather(tier.memory, kinds, retro=retro)
        unreadable.extend(bad)
        hits = rank(corpus, query, today)
        groups.append((tier.scope, hits if confident(hits) else []))
    return SearchResult(merge(groups, limit), query, unreadable)


def hit_json(marked: Marked[Hit], query: Sequence[str], shown_path: str) -> dict[str, object]:
    hit = marked.item
    entry = hit.entry
    field, _ = matched_section(entry, query)
    return {
        "scope": marked.scope,
        "file": entry.file,
        "path": shown_path,
        "line": entry.line,
        "id": entry.id,
        "type": entry.type,
        "date": entry.date,
        "score": round(hit.score, 6),
        "bm25": round(hit.bm25, 6),
        "coverage": round(hit.coverage, 6),
        "nearness": round(hit.nearness, 6),
        "distinctive": hit.distinctive,
        "shared": hit.shared,
        "recency": hit.recency,
        "importance": entry.importance,
        "importance_weight": round(hit.importance_weight, 6),
        "field": field,
        "snippet": snippet(entry, query),
    }

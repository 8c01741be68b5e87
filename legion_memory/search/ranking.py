"""Keyword search over memory: BM25 on every text field, weighted by recency and importance.

What is searched is described in `corpus`. Words come from `tokens.tokens` (lowercase, stopwords
removed), so a query made only of stopwords finds nothing.

score = bm25 * recency weight * importance weight, where the importance weight is
1 + (importance - 3) / 10 (0.8 for importance 1 up to 1.2 for 5; 1.0 for entries without one).

BM25 is Okapi BM25 (k1 = 1.2, b = 0.75, idf = ln(1 + (N - n + 0.5) / (n + 0.5))), each tier its own
corpus. Document length, for its length normalisation, is counted in characters (see `corpus`):
the same relative lengths as word counts for prose, without tokenising every record on every
search. Only documents that contain a query word as a substring are tokenised at all.
"""

import datetime as dt
import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NamedTuple

from legion_memory.errors import InputError
from legion_memory.knowledge.decay import recency_weight
from legion_memory.markdown.words import tokens
from legion_memory.schema.kinds import KINDS, Kind
from legion_memory.search.corpus import Corpus, Source, gather
from legion_memory.search.documents import Entry, one_line
from legion_memory.storage.scopes import Marked, Scoped, merge

K1 = 1.2
B = 0.75
NEUTRAL_IMPORTANCE = 3
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
    """The query's distinct words, in order."""
    return list(dict.fromkeys(tokens(text)))


class Hit(NamedTuple):
    source: Source
    bm25: float
    recency: float
    importance_weight: float
    boost: float = 1.0

    @property
    def score(self) -> float:
        return self.bm25 * self.recency * self.importance_weight * self.boost

    @property
    def entry(self) -> Entry:
        return self.source.entry()


def importance_weight(importance: int | None) -> float:
    return 1.0 if importance is None else 1 + (importance - NEUTRAL_IMPORTANCE) / 10


Boost = Callable[[Source], float]


def rank(
    corpus: Corpus, query: Sequence[str], today: dt.date, *, boost: Boost | None = None
) -> list[Hit]:
    """Documents sharing a word with the query, best first; ties: newer date, then higher ID."""
    hits = [
        Hit(
            source,
            value,
            recency_weight(source.day, today),
            importance_weight(source.importance),
            boost(source) if boost else 1.0,
        )
        for source, value in bm25(query, corpus)
    ]
    hits.sort(key=lambda hit: (hit.score, hit.source.date, hit.source.number), reverse=True)
    return hits


def bm25(query: Sequence[str], corpus: Corpus) -> list[tuple[Source, float]]:
    """Okapi BM25 of every document that contains one of the query's distinct words."""
    wanted = list(dict.fromkeys(query))
    count = corpus.count
    if not count or not wanted:
        return []
    average = corpus.length / count or 1.0
    matched: list[tuple[Source, dict[str, int]]] = []
    containing = dict.fromkeys(wanted, 0)
    for source in corpus.containing(wanted):
        words = tokens(source.text)
        counts = {word: n for word in wanted if (n := words.count(word))}
        if counts:
            matched.append((source, counts))
            for word in counts:
                containing[word] += 1
    idf = {w: math.log(1 + (count - n + 0.5) / (n + 0.5)) for w, n in containing.items()}
    scored = []
    for source, counts in matched:
        norm = K1 * (1 - B + B * source.length / average)
        scored.append(
            (source, sum(idf[w] * tf * (K1 + 1) / (tf + norm) for w, tf in counts.items()))
        )
    return scored


def snippet(entry: Entry, query: Sequence[str]) -> str:
    """At most 240 characters of the entry's prose, around the first query word it mentions
    (tags and agent names match but make poor snippets)."""
    wanted = set(query)
    sources = (entry.headline, *entry.prose)
    source = next((text for text in sources if wanted & set(tokens(text))), entry.headline)
    return window(one_line(source), query)


def window(text: str, query: Sequence[str]) -> str:
    if len(text) <= SNIPPET_CHARS:
        return text
    lowered = text.lower()
    found = [at for at in (lowered.find(word) for word in query) if at >= 0]
    start = max(0, min(found, default=0) - _SNIPPET_LEAD)
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
        groups.append((tier.scope, rank(corpus, query, today)))
    return SearchResult(merge(groups, limit), query, unreadable)


def hit_json(marked: Marked[Hit], query: Sequence[str], shown_path: str) -> dict[str, object]:
    hit = marked.item
    entry = hit.entry
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
        "recency": hit.recency,
        "importance": entry.importance,
        "importance_weight": round(hit.importance_weight, 6),
        "snippet": snippet(entry, query),
    }

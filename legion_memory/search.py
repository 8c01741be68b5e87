"""Keyword search over memory: BM25 on every text field, weighted by recency and importance.

What is searched (an *entry*): every live row of the chosen kinds' tables (archived rows live in
ARCHIVE.md, which is never read here), every `/legion:learn` heading entry in those files, and, for
`--file all|retro`, every section of RETRO.md. Words come from `tokens.tokens` (lowercase, stopwords
removed), so a query made only of stopwords finds nothing.

score = bm25 * recency weight * importance weight, where the importance weight is
1 + (importance - 3) / 10 (0.8 for importance 1 up to 1.2 for 5; 1.0 for entries without one).
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from . import store
from .decay import recency_weight
from .errors import InputError, ParseError
from .learn import LearnEntry, learn_entries
from .retro import RETRO_FILENAME, RetroEntry, retro_entries
from .schema import ERROR_FIX, KINDS, OUTCOME, PATTERN, Kind, Record, records_table
from .scopes import Marked, Scoped, merge
from .table import Document
from .tokens import tokens

K1 = 1.2
B = 0.75
NEUTRAL_IMPORTANCE = 3
SNIPPET_CHARS = 240
_SNIPPET_LEAD = 60
ELLIPSIS = "…"
ALL_FILES = "all"
RETRO = "retro"
FILE_CHOICES = (*KINDS, RETRO, ALL_FILES)
# Fields that identify or classify a row rather than say something about it.
STRUCTURAL = frozenset({"id", "date", "branch", "phase", "plan", "importance", "resolved"})
ENTRY_TYPES = {
    "outcomes": "outcome",
    "patterns": "pattern",
    "errors": "error-fix",
    "preferences": "preference",
}
LEARN_ENTRY_TYPES = {"pattern": "pattern", "pitfall": "error-fix", "preference": "preference"}


@dataclass(frozen=True)
class Entry:
    """One searchable thing: a table row, a learn entry or a retro section."""

    type: str
    id: str
    path: Path
    line: int
    date: str
    headline: str
    fields: tuple[str, ...]
    prose: tuple[str, ...] = ()
    importance: int | None = None
    agents: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()

    @property
    def file(self) -> str:
        return self.path.name

    @property
    def day(self) -> dt.date | None:
        try:
            return dt.date.fromisoformat(self.date)
        except ValueError:
            return None

    @property
    def number(self) -> int:
        digits = self.id.rpartition("-")[2]
        return int(digits) if digits.isdigit() else 0


def one_line(text: str) -> str:
    return " ".join(text.split())


def headline(record: Record) -> str:
    """The record as one line of prose, for snippets and the context block."""
    kind = record.kind
    if kind is OUTCOME:
        text = record["summary"]
    elif kind is PATTERN:
        when = record["reuse_criteria"]
        text = f"{record['pattern']} (reuse when: {when})" if when else record["pattern"]
    elif kind is ERROR_FIX:
        fix = record["fix"]
        text = f"{record['error_signature']}; fix: {fix}" if fix else record["error_signature"]
    else:
        text = _preference_line(record)
    return one_line(text)


def _preference_line(record: Record) -> str:
    proposed, choice = record["proposed"], record["user_choice"]
    if choice and choice != proposed:
        decision = f"user chose {choice} over {proposed}" if proposed else f"user chose {choice}"
    else:
        decision = f"user accepted {proposed}" if proposed else ""
    return ": ".join(part for part in (record["context"], decision) if part)


def record_entry(record: Record, path: Path) -> Entry:
    fields = tuple(v for k, v in record.values.items() if k not in STRUCTURAL and v)
    prose = tuple(record[c.key] for c in record.kind.columns if not c.single_line and record[c.key])
    return Entry(
        type=ENTRY_TYPES[record.kind.name],
        id=record.id,
        path=path,
        line=record.line,
        date=record["date"],
        headline=headline(record),
        fields=fields,
        prose=prose,
        importance=record.importance or None,
        agents=record.agents,
        tags=record.tags,
    )


def learn_entry(entry: LearnEntry, path: Path) -> Entry:
    # Date, type and phase bullets classify the entry; they are not words to search.
    fields = (entry.summary, entry.body, entry.fields.get("tags", ""))
    return Entry(
        type=LEARN_ENTRY_TYPES.get(entry.type, entry.type),
        id=entry.id,
        path=path,
        line=entry.line,
        date=entry.date,
        headline=one_line(entry.summary),
        fields=tuple(field for field in fields if field),
        prose=(entry.summary, entry.body),
        tags=entry.tags,
    )


def retro_entry(entry: RetroEntry, path: Path) -> Entry:
    return Entry(
        type=RETRO,
        id=entry.id,
        path=path,
        line=entry.line,
        date=entry.date,
        headline=one_line(entry.title),
        fields=(entry.title, entry.body),
        prose=(entry.title, entry.body),
    )


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


def gather(
    memory: store.Memory, kinds: Iterable[Kind], *, retro: bool
) -> tuple[list[Entry], list[Path]]:
    """Every entry of the chosen files, and the files that could not be parsed (skipped)."""
    entries: list[Entry] = []
    unreadable: list[Path] = []
    for kind in kinds:
        path = memory.path(kind)
        try:
            entries.extend(_file_entries(path, kind))
        except ParseError:
            unreadable.append(path)
    if retro:
        path = memory.directory / RETRO_FILENAME
        try:
            document = store.load(path)
        except ParseError:
            unreadable.append(path)
        else:
            if document is not None:
                entries.extend(retro_entry(entry, path) for entry in retro_entries(document))
    return entries, unreadable


def _file_entries(path: Path, kind: Kind) -> list[Entry]:
    document = store.load(path)
    if document is None:
        return []
    entries = [learn_entry(entry, path) for entry in learn_entries(document)]
    if _has_table(document, kind):
        records = store.records_of(path, document, kind)
        entries[:0] = [record_entry(record, path) for record in records]
    return entries


def _has_table(document: Document, kind: Kind) -> bool:
    # A file written only by /legion:learn has entries and no table: that is not an error.
    return records_table(document, kind) is not None


def query_terms(text: str) -> list[str]:
    """The query's distinct words, in order."""
    return list(dict.fromkeys(tokens(text)))


@dataclass(frozen=True)
class Hit:
    entry: Entry
    bm25: float
    recency: float
    importance_weight: float
    boost: float = 1.0

    @property
    def score(self) -> float:
        return self.bm25 * self.recency * self.importance_weight * self.boost


def importance_weight(importance: int | None) -> float:
    return 1.0 if importance is None else 1 + (importance - NEUTRAL_IMPORTANCE) / 10


Boost = Callable[[Entry], float]


def rank(
    entries: Sequence[Entry], query: Sequence[str], today: dt.date, *, boost: Boost | None = None
) -> list[Hit]:
    """Entries sharing a word with the query, best first; ties: newer date, then higher ID."""
    if not query or not entries:
        return []
    relevance = bm25(query, [tokens(" ".join(entry.fields)) for entry in entries])
    hits = [
        Hit(
            entry,
            value,
            recency_weight(entry.day, today),
            importance_weight(entry.importance),
            boost(entry) if boost else 1.0,
        )
        for entry, value in zip(entries, relevance, strict=True)
        if value > 0
    ]
    hits.sort(key=lambda hit: (hit.score, hit.entry.date, hit.entry.number), reverse=True)
    return hits


def bm25(query: Sequence[str], documents: Sequence[Sequence[str]]) -> list[float]:
    """Okapi BM25 of each document (a list of words) for the query's distinct words."""
    wanted = set(query)
    frequencies: list[dict[str, int]] = []
    containing = dict.fromkeys(wanted, 0)
    total_length = 0
    for words in documents:
        counts: dict[str, int] = {}
        for word in words:
            if word in wanted:
                counts[word] = counts.get(word, 0) + 1
        for word in counts:
            containing[word] += 1
        frequencies.append(counts)
        total_length += len(words)
    count = len(documents)
    average = total_length / count if total_length else 1.0
    idf = {w: math.log(1 + (count - n + 0.5) / (n + 0.5)) for w, n in containing.items()}
    scores = []
    for words, counts in zip(documents, frequencies, strict=True):
        norm = K1 * (1 - B + B * len(words) / average)
        scores.append(sum(idf[w] * tf * (K1 + 1) / (tf + norm) for w, tf in counts.items()))
    return scores


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


@dataclass(frozen=True)
class SearchResult:
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
    for tier in tiers:
        entries, bad = gather(tier.memory, kinds, retro=retro)
        unreadable.extend(bad)
        groups.append((tier.scope, rank(entries, query, today)))
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

"""The systems the retrieval benchmark compares, each a function from a query to ranked item keys:
`search`, `context` (the keys its default block shows) and SQLite FTS5 with bm25() and the porter
stemmer, all over the same memory."""

from __future__ import annotations

import datetime as dt
import re
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from legion_memory.schema.kinds import KINDS
from legion_memory.search import context_block
from legion_memory.search.corpus import gather
from legion_memory.search.documents import STRUCTURAL
from legion_memory.search.ranking import search, snippet
from legion_memory.search.terms import first_match
from legion_memory.storage import reading
from legion_memory.storage.scopes import PROJECT, Scoped

System = Callable[[str], list[str]]
RESULTS = 10
CONTEXT_ROLE = "engineering-senior-developer"
_WORD = re.compile(r"[^\W_]+")


def search_system(root: Path, keys: Mapping[str, str], today: dt.date) -> System:
    tiers = [Scoped(PROJECT, reading.Memory.of_project(root))]

    def run(query: str) -> list[str]:
        found = search(tiers, query, "all", today=today, limit=RESULTS)
        return [keys[marked.item.entry.id] for marked in found.hits]

    return run


def snippet_share(root: Path, queries: Sequence[str], today: dt.date) -> float:
    """The share of `search`'s snippets that show a query word as a whole word."""
    tiers = [Scoped(PROJECT, reading.Memory.of_project(root))]
    shown = []
    for query in queries:
        found = search(tiers, query, "all", today=today, limit=RESULTS)
        for marked in found.hits:
            text = snippet(marked.item.entry, found.query)
            shown.append(first_match(text, found.query) >= 0)
    return sum(shown) / len(shown) if shown else 0.0


def context_system(root: Path, keys: Mapping[str, str], today: dt.date) -> System:
    """The default block (budget and limit as the command's defaults) for one role."""
    memory = reading.Memory.of_project(root)

    def run(query: str) -> list[str]:
        corpus, _ = gather(memory, KINDS.values(), retro=False)
        block = context_block.build([(PROJECT, corpus)], CONTEXT_ROLE, query, today=today)
        return [keys[marked.item.entry.id] for marked in block.items]

    return run


def fts5_system(root: Path, keys: Mapping[str, str]) -> System:
    """Every record's text fields in one FTS5 column; the query's words OR-ed, best bm25 first."""
    connection = sqlite3.connect(":memory:")
    connection.execute(
        "CREATE VIRTUAL TABLE memory USING fts5(key UNINDEXED, body, tokenize='porter unicode61')"
    )
    memory = reading.Memory.of_project(root)
    for kind in KINDS.values():
        for record in reading.load_records(memory, kind):
            body = " ".join(v for k, v in record.values.items() if k not in STRUCTURAL)
            connection.execute("INSERT INTO memory VALUES (?, ?)", (keys[record.id], body))

    def run(query: str) -> list[str]:
        words = _WORD.findall(query)
        if not words:
            return []
        match = " OR ".join(f'"{word}"' for word in words)
        rows = connection.execute(
            "SELECT key FROM memory WHERE memory MATCH ? ORDER BY bm25(memory) LIMIT ?",
            (match, RESULTS),
        )
        return [key for (key,) in rows]

    return run

"""The memory block an agent gets before it starts: the most relevant items, within a byte budget.

    <legion-memory role="ROLE">
    - [pattern] Use table-driven tests for parsers (reuse when: parser work) (2026-04-08)
    - [error-fix] ImportError: cannot import name X; fix: pin the package (2026-03-30, global)
    </legion-memory>

Relevance is the task's BM25 score (search.rank) times recency and importance; items whose
Agent column or tags name the role weigh ROLE_BOOST times more. Only items sharing a word with the
task are relevant; when none is, the block is empty (the caller prints nothing). Near-duplicate
items (token Jaccard >= 0.8) appear once, the better one. The whole block, frame included, is
measured in UTF-8 bytes and never exceeds the budget: the lowest-ranked items are dropped whole
until it fits. Items
from the global tier are marked `global` next to their date; unmarked items are the project's.
"""

import datetime as dt
import re
from collections.abc import Sequence
from typing import NamedTuple

from legion_memory.errors import InputError
from legion_memory.markdown.words import jaccard, tokens
from legion_memory.search.corpus import Corpus, Source
from legion_memory.search.documents import one_line
from legion_memory.search.ranking import Boost, Hit, query_terms, rank
from legion_memory.storage.scopes import GLOBAL, Marked, merge

ITEM_TYPES = ("outcome", "pattern", "error-fix", "preference")
FORMATS = ("xml", "markdown")
ROLE_BOOST = 1.5
DUPLICATE_JACCARD = 0.8
_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


class Block(NamedTuple):
    """The rendered block ("" when nothing is relevant or nothing fits) and the items it shows."""

    text: str
    items: list[Marked[Hit]]


def role_boost(role: str) -> Boost:
    wanted = role.casefold()

    def boost(source: Source) -> float:
        named = {name.strip().casefold() for name in source.names.split(",")}
        return ROLE_BOOST if wanted in named else 1.0

    return boost


def require_options(role: str, block_format: str, budget: int, limit: int) -> str:
    """The role as it will be shown; InputError (exit 2) for a bad option."""
    shown = one_line(role)
    if not shown:
        raise InputError("--agent must not be empty", hint="give the agent's ID, e.g. qa-engineer")
    if block_format not in FORMATS:
        raise InputError(
            f"--format '{block_format}' is not valid", hint=f"use one of {', '.join(FORMATS)}"
        )
    if budget < 1:
        raise InputError(f"--budget {budget} is not valid", hint="use a number of bytes above 0")
    if limit < 1:
        raise InputError(f"--limit {limit} is not valid", hint="use a number of 1 or more")
    return shown


def candidates(
    tiers: Sequence[tuple[str, Corpus]], role: str, task: str, today: dt.date
) -> list[Marked[Hit]]:
    """Every relevant item of every tier, project first, each tier ranked on its own."""
    query = query_terms(task)
    boost = role_boost(role)
    groups = []
    for scope, corpus in tiers:
        hits = rank(corpus, query, today, boost=boost)
        groups.append((scope, [hit for hit in hits if hit.source.type in ITEM_TYPES]))
    return merge(groups)


def distinct(ranked: Sequence[Marked[Hit]], limit: int) -> list[Marked[Hit]]:
    """The first `limit` items of which no two are near-duplicates (the better one stays)."""
    kept: list[Marked[Hit]] = []
    seen: list[tuple[str, set[str]]] = []
    for marked in ranked:
        text = marked.item.entry.headline.casefold()
        words = set(tokens(text))
        if any(text == old or jaccard(words, known) >= DUPLICATE_JACCARD for old, known in seen):
            continue
        kept.append(marked)
        seen.append((text, words))
        if len(kept) == limit:
            break
    return kept


def item_line(marked: Marked[Hit], block_format: str) -> str:
    entry = marked.item.entry
    text = one_line(entry.headline)
    if block_format == "xml":
        text = xml_text(text)
    notes = [part for part in (entry.date, GLOBAL if marked.scope == GLOBAL else "") if part]
    suffix = f" ({', '.join(notes)})" if notes else ""
    return f"- [{entry.type}] {text}{suffix}"


def xml_text(text: str) -> str:
    """Text safe inside an XML element: `&` and `<` escaped, characters XML forbids dropped."""
    clean = _XML_INVALID.sub("", text).replace("&", "&amp;").replace("<", "&lt;")
    return clean.replace("]]>", "]]&gt;")


def frame(role: str, block_format: str) -> tuple[str, str]:
    if block_format == "xml":
        clean = xml_text(role).replace('"', "&quot;")
        return f'<legion-memory role="{clean}">', "</legion-memory>"
    return f"## Legion memory: {role}", ""


def fit(role: str, items: Sequence[Marked[Hit]], block_format: str, budget: int) -> Block:
    """The longest best-first run of items whose block fits in `budget` UTF-8 bytes."""
    opening, closing = frame(role, block_format)
    used = _size(opening) + (_size(closing) if closing else 0)
    shown: list[Marked[Hit]] = []
    lines: list[str] = []
    for marked in items:
        line = item_line(marked, block_format)
        if used + _size(line) > budget:
            break
        used += _size(line)
        shown.append(marked)
        lines.append(line)
    if not shown:
        return Block("", [])
    text = "".join(f"{line}\n" for line in (opening, *lines, *([closing] if closing else [])))
    return Block(text, shown)


def _size(line: str) -> int:
    """Bytes a line takes in the block, its newline included."""
    return len(line.encode("utf-8")) + 1


def build(
    tiers: Sequence[tuple[str, Corpus]],
    role: str,
    task: str,
    *,
    today: dt.date,
    budget: int = 1024,
    block_format: str = "xml",
    limit: int = 5,
) -> Block:
    """The context block for `role` about to do `task`, from each tier's entries (project first)."""
    shown_role = require_options(role, block_format, budget, limit)
    ranked = candidates(tiers, shown_role, task, today)
    return fit(shown_role, distinct(ranked, limit), block_format, budget)

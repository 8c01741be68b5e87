"""The memory block an agent gets before it starts: the most relevant items, within a byte budget.

    <legion-memory role="ROLE">
    - [pattern] Use table-driven tests for parsers (reuse when: parser work) (2026-04-08)
    - [error-fix] ImportError: cannot import name X; fix: pin the package (2026-03-30, global)
    </legion-memory>

Relevance is the task's search score (search.rank); items whose Agent column or tags name the role
weigh ROLE_BOOST times more. When no item reaches the relevance floor (`Hit.relevant`), the block
is empty and the caller prints nothing at all; else it holds the relevant items and those that
support them: covering at least half of the floor's share of the task, or sharing a distinctive
word with it. Near-duplicate items
(token Jaccard >= 0.8) appear once, the better one. The budget decides how many items there are
(`--limit` is only a cap the caller may set): whole lines are packed best first, an item that
does not fit is skipped for the next, and then the skipped ones are shortened into the room left
(their headline cut at a word, down to SHORTEST_HEADLINE characters) rather than dropped. The whole
block, frame included, is measured in UTF-8 bytes and never exceeds the budget. Items from the
global tier are marked `global` next to their date; unmarked items are the project's.
See docs/decisions.md#context-packing.
"""

import datetime as dt
import re
from collections.abc import Sequence

from legion_memory.errors import InputError
from legion_memory.markdown.words import jaccard, tokens
from legion_memory.named_tuple import NamedTuple
from legion_memory.search.corpus import Corpus, Source
from legion_memory.search.documents import one_line
from legion_memory.search.ranking import (
    ELLIPSIS,
    RELEVANCE_FLOOR,
    Boost,
    Hit,
    confident,
    query_terms,
    rank,
)
from legion_memory.storage.scopes import GLOBAL, Marked, merge

ITEM_TYPES = ("outcome", "pattern", "error-fix", "preference")
FORMATS = ("xml", "markdown")
ROLE_BOOST = 1.5
DUPLICATE_JACCARD = 0.8
SHORTEST_HEADLINE = 40
# The bytes of the shortest item line there can be (`- [outcome] x` and its newline).
SHORTEST_LINE = min(len(f"- [{kind}] x\n") for kind in ITEM_TYPES)
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


def require_options(role: str, block_format: str, budget: int, limit: int | None) -> str:
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
    if limit is not None and limit < 1:
        raise InputError(f"--limit {limit} is not valid", hint="use a number of 1 or more")
    return shown


def candidates(
    tiers: Sequence[tuple[str, Corpus]], role: str, task: str, today: dt.date
) -> list[Marked[Hit]]:
    """Every relevant item of every tier, project first, each tier ranked on its own: nothing when
    no item reaches the relevance floor, else the items that reach half of it or share a
    distinctive word with the task (a task of several parts is answered by items about one part
    each)."""
    query = query_terms(task)
    boost = role_boost(role)
    groups = []
    for scope, corpus in tiers:
        hits = [
            hit for hit in rank(corpus, query, today, boost=boost) if hit.source.type in ITEM_TYPES
        ]
        kept = [hit for hit in hits if _supporting(hit)] if confident(hits) else []
        groups.append((scope, kept))
    return merge(groups)


def _supporting(hit: Hit) -> bool:
    return hit.relevant or hit.coverage >= RELEVANCE_FLOOR / 2 or hit.distinctive >= 1


def distinct(ranked: Sequence[Marked[Hit]], limit: int | None) -> list[Marked[Hit]]:
    """The first `limit` items (all without one) of which no two are near-duplicates (the better
    one stays)."""
    kept: list[Marked[Hit]] = []
    seen: list[tuple[str, set[str]]] = []
    for marked in ranked if limit != 0 else ():
        text = marked.item.entry.headline.casefold()
        words = set(tokens(text))
        if any(text == old or jaccard(words, known) >= DUPLICATE_JACCARD for old, known in seen):
            continue
        kept.append(marked)
        seen.append((text, words))
        if len(kept) == limit:
            break
    return kept


def item_line(marked: Marked[Hit], block_format: str, text: str | None = None) -> str:
    """The item's line; `text` in place of its headline when it is shortened."""
    entry = marked.item.entry
    shown = one_line(entry.headline) if text is None else text
    if block_format == "xml":
        shown = xml_text(shown)
    notes = [part for part in (entry.date, GLOBAL if marked.scope == GLOBAL else "") if part]
    suffix = f" ({', '.join(notes)})" if notes else ""
    return f"- [{entry.type}] {shown}{suffix}"


def shortened(marked: Marked[Hit], block_format: str, room: int) -> str | None:
    """The item's line with its headline cut at a word to fit `room` bytes (newline included), or
    None when fewer than SHORTEST_HEADLINE characters of it would be left."""
    headline = one_line(marked.item.entry.headline)
    keep = len(headline)
    while keep >= SHORTEST_HEADLINE:
        line = item_line(marked, block_format, cut(headline, keep))
        over = _size(line) - room
        if over <= 0:
            return line
        keep -= max(over, 1)
    return None


def cut(text: str, keep: int) -> str:
    """`text` cut to at most `keep` characters at a word, an ellipsis marking the cut."""
    if len(text) <= keep:
        return text
    head = text[: keep - len(ELLIPSIS)]
    space = head.rfind(" ")
    if space > len(head) // 2:
        head = head[:space]
    return head.rstrip() + ELLIPSIS


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
    """As many best-first items as fit in `budget` UTF-8 bytes: whole lines first, skipping one
    that does not fit for the next; then the skipped ones shortened into what room is left."""
    opening, closing = frame(role, block_format)
    room = budget - _size(opening) - (_size(closing) if closing else 0)
    lines: dict[int, str] = {}
    for index, marked in enumerate(items):
        line = item_line(marked, block_format)
        if _size(line) <= room:
            lines[index] = line
            room -= _size(line)
    for index, marked in enumerate(items):
        short = None if index in lines else shortened(marked, block_format, room)
        if short is not None:
            lines[index] = short
            room -= _size(short)
    if not lines:
        return Block("", [])
    order = sorted(lines)
    body = [lines[index] for index in order]
    text = "".join(f"{line}\n" for line in (opening, *body, *([closing] if closing else [])))
    return Block(text, [items[index] for index in order])


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
    limit: int | None = None,
) -> Block:
    """The context block for `role` about to do `task`, from each tier's entries (project first)."""
    shown_role = require_options(role, block_format, budget, limit)
    ranked = candidates(tiers, shown_role, task, today)
    most = budget // SHORTEST_LINE  # no block of this budget can hold more items
    return fit(shown_role, distinct(ranked, min(most, limit or most)), block_format, budget)

"""What `search` and `context` do: plain functions of the Context and the command's options.

No typer here: the lean dispatcher and the typer app call them alike, through `hot.run`. The core
modules are imported inside the functions, so other commands never pay for search.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from legion_memory.cli import tiers
from legion_memory.cli.context import Context
from legion_memory.cli.output import emit, markdown_table, note
from legion_memory.storage import scopes

if TYPE_CHECKING:
    from legion_memory.search.corpus import Corpus
    from legion_memory.search.ranking import Hit


def search(context: Context, query: str, file: str, limit: int, scope: str) -> None:
    from legion_memory.search.ranking import file_choice, hit_json, search, shown_snippet

    file_choice(file)
    chosen = context.tiers(scope)
    result = search(
        chosen if context.settings.enabled else [], query, file, today=context.today, limit=limit
    )
    _warn_unreadable(context, result.unreadable)
    results = [hit_json(m, result.query, shown(context, m.item.entry.path)) for m in result.hits]
    headers = ["#", *(["Scope"] if scope != scopes.PROJECT else []), "File", "ID", "Score"]
    rows = [
        [
            number,
            *([marked.scope] if scope != scopes.PROJECT else []),
            f"{marked.item.entry.file}:{marked.item.entry.line}",
            marked.item.entry.id,
            f"{marked.item.score:.3f}",
            shown_snippet(marked.item.entry, result.query),
        ]
        for number, marked in enumerate(result.hits, start=1)
    ]
    human = markdown_table([*headers, "Snippet"], rows) if rows else "no matches"
    emit(context, {"results": results}, human)


def agent_context(
    context: Context,
    agent: str,
    task: str,
    budget: int,
    block_format: str,
    limit: int | None,
    scope: str,
) -> None:
    from legion_memory.search import context_block
    from legion_memory.search.corpus import gather
    from legion_memory.search.ranking import file_choice, query_terms

    context_block.require_options(agent, block_format, budget, limit)
    chosen = context.tiers(scope)
    if not context.settings.enabled or not query_terms(task):
        chosen = []  # nothing can be relevant: read nothing
    corpora: list[tuple[str, Corpus]] = []
    kinds, _ = file_choice("all")
    for tier in chosen:
        found, unreadable = gather(tier.memory, kinds, retro=False)
        _warn_unreadable(context, unreadable)
        corpora.append((tier.scope, found))
    block = context_block.build(
        corpora,
        agent,
        task,
        today=context.today,
        budget=budget,
        block_format=block_format,
        limit=limit,
    )
    if context.json:
        items = [_item_json(context, marked) for marked in block.items]
        emit(context, {"block": block.text, "items": items}, "")
    else:
        sys.stdout.write(block.text)


def _item_json(context: Context, marked: scopes.Marked[Hit]) -> dict[str, object]:
    hit = marked.item
    entry = hit.entry
    return {
        "scope": marked.scope,
        "type": entry.type,
        "id": entry.id,
        "path": shown(context, entry.path),
        "line": entry.line,
        "date": entry.date,
        "text": entry.headline,
        "score": round(hit.score, 6),
        "bm25": round(hit.bm25, 6),
        "coverage": round(hit.coverage, 6),
        "distinctive": hit.distinctive,
        "recency": hit.recency,
        "importance_weight": round(hit.importance_weight, 6),
        "role_boost": hit.boost,
    }


def shown(context: Context, path: Path) -> str:
    """A path relative to the project root when it is inside it (global files stay absolute)."""
    return tiers.shown(context.root, path)


def _warn_unreadable(context: Context, paths: list[Path]) -> None:
    for path in paths:
        note(f"Warning: {shown(context, path)} could not be parsed. Proceeding without it.")

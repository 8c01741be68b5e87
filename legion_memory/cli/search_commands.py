"""`search`, `context`, `forget` and `restore`.

The core modules are imported inside the functions that use them: this module is imported by every
command at start-up, and the others should not pay for search.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from .. import scopes
from .context import Context
from .output import emit, markdown_table, note
from .scope_option import ScopeOption, WriteScopeOption, target, tiers

if TYPE_CHECKING:
    from ..corpus import Corpus
    from ..search import Hit

DISABLED = "memory is disabled (memory.enabled is false in settings.json); nothing changed"


def register(app: typer.Typer) -> None:
    app.command("search")(search_command)
    app.command("context")(context_command)
    app.command("forget")(forget_command)
    app.command("restore")(restore_command)


def search_command(
    ctx: typer.Context,
    query: Annotated[str, typer.Argument(help="Words to look for (stopwords are ignored).")],
    file: Annotated[
        str,
        typer.Option(help="outcomes, patterns, errors, preferences, retro or all."),
    ] = "all",
    limit: Annotated[int, typer.Option(help="Most results to show.")] = 10,
    scope: ScopeOption = scopes.PROJECT,
) -> None:
    """Rank memory entries for a query: BM25 x recency x importance, best first."""
    run_search(ctx.obj, query, file, limit, scope)


def context_command(
    ctx: typer.Context,
    agent: Annotated[str, typer.Option(help="The agent's ID (its role).")],
    task: Annotated[str, typer.Option(help="What the agent is about to do.")],
    budget: Annotated[int, typer.Option(help="Most bytes (UTF-8) the block may take.")] = 1024,
    block_format: Annotated[str, typer.Option("--format", help="xml or markdown.")] = "xml",
    limit: Annotated[int, typer.Option(help="Most items to show.")] = 5,
    scope: ScopeOption = scopes.PROJECT,
) -> None:
    """Print the memory block for an agent's prompt (nothing at all when nothing is relevant)."""
    run_context(ctx.obj, agent, task, budget, block_format, limit, scope)


def forget_command(
    ctx: typer.Context,
    record_id: Annotated[str, typer.Argument(metavar="ID", help="The record, e.g. P-002.")],
    scope: WriteScopeOption = scopes.PROJECT,
) -> None:
    """Archive a record: its row moves, unchanged, into ARCHIVE.md (never deleted)."""
    run_forget(ctx.obj, record_id, scope)


def restore_command(
    ctx: typer.Context,
    record_id: Annotated[str, typer.Argument(metavar="ID", help="The record, e.g. P-002.")],
    scope: WriteScopeOption = scopes.PROJECT,
) -> None:
    """Bring an archived record back into its file, at its place in ID order."""
    run_restore(ctx.obj, record_id, scope)


def run_search(context: Context, query: str, file: str, limit: int, scope: str) -> None:
    from ..search import file_choice, hit_json, search, snippet

    file_choice(file)
    chosen = tiers(context, scope)
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
            snippet(marked.item.entry, result.query),
        ]
        for number, marked in enumerate(result.hits, start=1)
    ]
    human = markdown_table([*headers, "Snippet"], rows) if rows else "no matches"
    emit(context, {"results": results}, human)


def run_context(
    context: Context, agent: str, task: str, budget: int, block_format: str, limit: int, scope: str
) -> None:
    from .. import context_block
    from ..corpus import gather
    from ..search import file_choice, query_terms

    context_block.require_options(agent, block_format, budget, limit)
    chosen = tiers(context, scope)
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
        "role_boost": hit.boost,
    }


def run_forget(context: Context, record_id: str, scope: str) -> None:
    from .. import forgetting

    forgetting.kind_for(record_id)
    tier = target(context, scope)
    if not context.settings.enabled:
        note(DISABLED)
        return
    moved = forgetting.forget(tier.memory, record_id)
    human = f"archived {record_id}: {moved.source.name} -> {moved.target.name} ({moved.section})"
    emit(context, {"scope": tier.scope, **moved.to_json()}, human)


def run_restore(context: Context, record_id: str, scope: str) -> None:
    from .. import forgetting

    forgetting.kind_for(record_id)
    tier = target(context, scope)
    if not context.settings.enabled:
        note(DISABLED)
        return
    moved = forgetting.restore(tier.memory, record_id)
    human = f"restored {record_id}: {moved.source.name} -> {moved.target.name} ({moved.section})"
    emit(context, {"scope": tier.scope, **moved.to_json()}, human)


def shown(context: Context, path: Path) -> str:
    """A path relative to the project root when it is inside it (global files stay absolute)."""
    try:
        return str(path.relative_to(context.root))
    except ValueError:
        return str(path)


def _warn_unreadable(context: Context, paths: list[Path]) -> None:
    for path in paths:
        note(f"Warning: {shown(context, path)} could not be parsed. Proceeding without it.")

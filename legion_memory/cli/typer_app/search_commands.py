"""`search`, `context`, `forget` and `restore`.

The core modules are imported inside the functions that use them: this module is imported by every
command at start-up, and the others should not pay for search.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from legion_memory.cli.context import Context
from legion_memory.cli.output import emit, note
from legion_memory.cli.typer_app.groups import run_hot
from legion_memory.cli.typer_app.scope_option import ScopeOption, WriteScopeOption
from legion_memory.storage import scopes

if TYPE_CHECKING:
    pass

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
    """Rank memory entries for a query: text relevance first, recency and importance after."""
    run_hot(ctx, "search", locals())


def context_command(
    ctx: typer.Context,
    agent: Annotated[str, typer.Option(help="The agent's ID (its role).")],
    task: Annotated[str, typer.Option(help="What the agent is about to do.")],
    budget: Annotated[int, typer.Option(help="Most bytes (UTF-8) the block may take.")] = 1024,
    block_format: Annotated[str, typer.Option("--format", help="xml or markdown.")] = "xml",
    limit: Annotated[
        int | None, typer.Option(help="Most items to show (default: as many as the budget holds).")
    ] = None,
    scope: ScopeOption = scopes.PROJECT,
) -> None:
    """Print the memory block for an agent's prompt (nothing at all when nothing is relevant)."""
    run_hot(ctx, "context", locals())


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


def run_forget(context: Context, record_id: str, scope: str) -> None:
    _move(context, record_id, scope, restoring=False)


def run_restore(context: Context, record_id: str, scope: str) -> None:
    _move(context, record_id, scope, restoring=True)


def _move(context: Context, record_id: str, scope: str, *, restoring: bool) -> None:
    """Move one row between its file and ARCHIVE.md, in the tier `--scope` names."""
    from legion_memory.upkeep import forgetting

    forgetting.kind_for(record_id)
    tier = context.target(scope)
    if not context.settings.enabled:
        note(DISABLED)
        return
    move = forgetting.restore if restoring else forgetting.forget
    moved = move(tier.memory, record_id)
    verb = "restored" if restoring else "archived"
    human = f"{verb} {record_id}: {moved.source.name} -> {moved.target.name} ({moved.section})"
    emit(context, {"scope": tier.scope, **moved.to_json()}, human)

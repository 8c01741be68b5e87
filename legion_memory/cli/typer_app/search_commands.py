"""`search`, `context`, `forget` and `restore`.

The core modules are imported inside the functions that use them: this module is imported by every
command at start-up, and the others should not pay for search.
"""

from __future__ import annotations

from typing import Annotated

import typer

from legion_memory.cli.typer_app.groups import run_hot
from legion_memory.cli.typer_app.scope_option import ScopeOption, WriteScopeOption
from legion_memory.storage import scopes


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
    run_hot(ctx, "forget", locals())


def restore_command(
    ctx: typer.Context,
    record_id: Annotated[str, typer.Argument(metavar="ID", help="The record, e.g. P-002.")],
    scope: WriteScopeOption = scopes.PROJECT,
) -> None:
    """Bring an archived record back into its file, at its place in ID order."""
    run_hot(ctx, "restore", locals())

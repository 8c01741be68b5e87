"""`search`, `context`, `forget` and `restore`.

The core modules are imported inside the functions that use them: this module is imported by every
command at start-up, and the others should not pay for search.
"""

from __future__ import annotations

from typing import Annotated

import typer

from legion_memory.cli.typer_app.choices import BlockFormat, SearchFile
from legion_memory.cli.typer_app.groups import run_hot
from legion_memory.cli.typer_app.scope_option import ScopeOption, WriteScopeOption
from legion_memory.cli.typer_app.shared_options import limit_option


def register(app: typer.Typer) -> None:
    app.command("search")(search_command)
    app.command("context")(context_command)
    app.command("forget")(forget_command)
    app.command("restore")(restore_command)


def search_command(
    ctx: typer.Context,
    query: Annotated[
        str, typer.Argument(metavar="QUERY", help="Words to look for (stopwords are ignored).")
    ],
    file: Annotated[SearchFile, typer.Option(help="Which memory to search.")] = "all",
    limit: Annotated[int, limit_option("results")] = 10,
    scope: ScopeOption = "project",
) -> None:
    """Rank memory entries for a query: text relevance first, recency and importance after."""
    run_hot(ctx, "search", locals())


def context_command(
    ctx: typer.Context,
    agent: Annotated[str, typer.Option(metavar="AGENT", help="The agent's ID (its role).")],
    task: Annotated[str, typer.Option(metavar="TEXT", help="What the agent is about to do.")],
    budget: Annotated[
        int, typer.Option(metavar="BYTES", help="Most bytes (UTF-8) the block may take.")
    ] = 1024,
    block_format: Annotated[
        BlockFormat, typer.Option("--format", help="How the block is marked up.")
    ] = "xml",
    limit: Annotated[
        int | None,
        typer.Option(
            min=1, metavar="N", help="Most items to show (default: as many as the budget holds)."
        ),
    ] = None,
    scope: ScopeOption = "project",
) -> None:
    """Print the memory block for an agent's prompt (nothing at all when nothing is relevant)."""
    run_hot(ctx, "context", locals())


def forget_command(
    ctx: typer.Context,
    record_id: Annotated[str, typer.Argument(metavar="ID", help="The record, e.g. P-002.")],
    scope: WriteScopeOption = "project",
) -> None:
    """Archive a record: its row moves, unchanged, into ARCHIVE.md (never deleted)."""
    run_hot(ctx, "forget", locals())


def restore_command(
    ctx: typer.Context,
    record_id: Annotated[str, typer.Argument(metavar="ID", help="The record, e.g. P-002.")],
    scope: WriteScopeOption = "project",
) -> None:
    """Bring an archived record back into its file, at its place in ID order."""
    run_hot(ctx, "restore", locals())

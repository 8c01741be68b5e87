"""`init` and `validate`.

Typer wiring only for `validate`: a hot command, it hands its options to its action in
`setup_actions`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from legion_memory.cli.context import Context
from legion_memory.cli.output import emit
from legion_memory.cli.typer_app.groups import run_hot
from legion_memory.storage import writing


def register(app: typer.Typer) -> None:
    app.command()(init)
    app.command()(validate)
    app.command("mcp")(mcp_command)
    app.command()(batch)


def init(ctx: typer.Context) -> None:
    """Create .planning/memory/ and its five files from the spec's templates (never overwrites)."""
    context: Context = ctx.obj
    context.require_project()
    created = writing.init(context.memory)
    names = [str(path.relative_to(context.root)) for path in created]
    human = "\n".join(f"created {name}" for name in names) or "memory already initialised"
    emit(context, {"created": names}, human)


def validate(
    ctx: typer.Context,
    files: Annotated[
        list[Path] | None,
        typer.Argument(metavar="PATH", help="Files (default: every memory file)."),
    ] = None,
) -> None:
    """Report every problem as FILE:LINE: severity: message; exit 1 when any is an error."""
    run_hot(ctx, "validate", locals())


def mcp_command(
    ctx: typer.Context,
    root: Annotated[
        Path | None,
        typer.Option(metavar="PATH", help="Project root (default: the global --root, else found)."),
    ] = None,
) -> None:
    """Serve the memory as MCP tools on stdin/stdout (needs `pip install "legion-memory[mcp]"`)."""
    from legion_memory.cli.actions.mcp_server import mcp

    code = mcp(ctx.obj, root)
    if code:
        raise typer.Exit(code)


def batch(ctx: typer.Context) -> None:
    """Run JSON lines of commands from stdin in one process; one JSON result per line."""
    run_hot(ctx, "batch", locals())

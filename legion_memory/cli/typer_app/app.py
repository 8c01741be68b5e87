"""The typer application: global options and the registration of every command group."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from legion_memory.cli.context import Context
from legion_memory.cli.typer_app import (
    demo_command,
    git_commands,
    interop_commands,
    knowledge_commands,
    legion_commands,
    outcome_commands,
    phase_commands,
    prune_commands,
    search_commands,
    setup_commands,
)
from legion_memory.cli.typer_app.groups import GROUPS

app = typer.Typer(
    name="legion-memory",
    help="The executable memory layer for Legion: safe, lossless, branch-aware memory tables.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


@app.callback()
def global_options(
    ctx: typer.Context,
    root: Annotated[
        Path | None, typer.Option(help="Project root (default: nearest ancestor with .git).")
    ] = None,
    json: Annotated[
        bool, typer.Option("--json", help="Print stable JSON instead of markdown.")
    ] = False,
    today: Annotated[
        str | None, typer.Option(help="Today's date as YYYY-MM-DD (default: the system date).")
    ] = None,
    branch: Annotated[
        str | None, typer.Option(help="Branch to record (default: detected from git).")
    ] = None,
    catalog: Annotated[Path | None, typer.Option(help="Path of Legion's CATALOG.md.")] = None,
) -> None:
    ctx.obj = Context.from_options(
        root=root, json=json, today=today, branch=branch, catalog=catalog
    )


for name, group in GROUPS.items():
    app.add_typer(group, name=name)

COMMAND_MODULES = (
    setup_commands,
    outcome_commands,
    knowledge_commands,
    phase_commands,
    prune_commands,
    interop_commands,
    search_commands,
    git_commands,
    legion_commands,
    demo_command,
)
for module in COMMAND_MODULES:
    module.register(app)

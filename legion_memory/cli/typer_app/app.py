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
from legion_memory.cli.typer_app.choices import TableFormat
from legion_memory.cli.typer_app.groups import GROUPS

app = typer.Typer(
    name="legion-memory",
    help="The executable memory layer for Legion: safe, lossless, branch-aware memory tables. "
    "Global options go before or after the command.",
    no_args_is_help=True,
    # Completion runs through this app only: the hot commands never load it.
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)

_TABLE_FORMAT = typer.Option(
    "--format",
    help="How tables look: table (aligned to the terminal) or markdown "
    "(default: table on a terminal, markdown otherwise).",
    show_default=False,
)


def _show_version(asked: bool) -> None:
    if asked:
        from legion_memory.cli.routing import print_version

        raise typer.Exit(print_version())


# The entry point answers --version before any dispatcher; this makes it part of the help (and
# of the app, for a caller that runs the app directly).
_VERSION = typer.Option(
    "--version", help="Print the version and exit.", is_eager=True, callback=_show_version
)


@app.callback()
def global_options(
    ctx: typer.Context,
    root: Annotated[
        Path | None,
        typer.Option(metavar="PATH", help="Project root (default: nearest ancestor with .git)."),
    ] = None,
    json: Annotated[
        bool, typer.Option("--json", help="Print stable JSON instead of markdown.")
    ] = False,
    today: Annotated[
        str | None,
        typer.Option(metavar="YYYY-MM-DD", help="Today's date (default: the system date)."),
    ] = None,
    branch: Annotated[
        str | None,
        typer.Option(metavar="NAME", help="Branch to record (default: detected from git)."),
    ] = None,
    catalog: Annotated[
        Path | None, typer.Option(metavar="PATH", help="Path of Legion's CATALOG.md.")
    ] = None,
    output_format: Annotated[TableFormat | None, _TABLE_FORMAT] = None,
    version: Annotated[bool, _VERSION] = False,
) -> None:
    ctx.obj = Context.from_options(
        root=root,
        json=json,
        today=today,
        branch=branch,
        catalog=catalog,
        output_format=output_format,
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

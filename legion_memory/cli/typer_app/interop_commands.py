"""`import` and `export`. The import machinery loads only when one of them runs, so that the hot
commands (store, recall, score, briefing) never pay for it."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from legion_memory.cli.context import Context
from legion_memory.cli.output import emit, note
from legion_memory.cli.progress import working_on
from legion_memory.cli.typer_app.choices import ExportFormat
from legion_memory.cli.typer_app.groups import run_hot


def register(app: typer.Typer) -> None:
    app.command("import")(import_command)
    app.command()(export)


ImportSource = Annotated[
    str,
    typer.Argument(
        metavar="SOURCE",
        help="Which tool wrote the memory: bullpen, memory-system, memory-broker, learn or json.",
    ),
]
ImportPath = Annotated[
    str | None,
    typer.Argument(
        metavar="PATH",
        help="File or directory to import (default: the source's usual place; "
        "`-` reads a bullpen or json file from standard input).",
    ),
]
ImportDryRun = Annotated[
    bool, typer.Option("--dry-run", help="Show the rows that would be added; write nothing.")
]
ImportMove = Annotated[
    bool, typer.Option("--move", help="learn: take the entries out of the files once in a table.")
]


def import_command(
    ctx: typer.Context,
    source: ImportSource,
    path: ImportPath = None,
    dry_run: ImportDryRun = False,
    move: ImportMove = False,
) -> None:
    """Import memory written by another tool, or by `export`. Importing twice adds nothing."""
    from legion_memory.interop.pipeline import ImportRequest, import_source

    context: Context = ctx.obj
    if not context.settings.enabled:
        note("memory is disabled in settings.json (memory.enabled = false); nothing imported")
        return
    request = ImportRequest(
        source=source,
        path=path,
        root=context.root,
        today=context.today,
        branch=context.branch,
        default_branch=lambda: context.default_branch,
        dry_run=dry_run,
        move=move,
        stdin=sys.stdin.read,
    )
    with working_on(f"import: reading {source} memory"):
        report = import_source(context.memory, request)
    emit(context, report.to_json(), report.markdown())


def export(
    ctx: typer.Context,
    fmt: Annotated[ExportFormat, typer.Option("--format", help="The output format.")] = "json",
    file: Annotated[
        str,
        typer.Option(
            "--file",
            metavar="KIND",
            help="outcomes, patterns, errors, preferences (or one of them, singular) or all.",
        ),
    ] = "all",
    include_archive: Annotated[
        bool, typer.Option("--include-archive", help="Also export the records of ARCHIVE.md.")
    ] = False,
) -> None:
    """Print every record with its kind and ID; `import json` reads the json format back."""
    run_hot(ctx, "export", locals())

"""`prune`: typer wiring only; its action is `cli/actions/prune.py`."""

from __future__ import annotations

from typing import Annotated

import typer

from legion_memory.cli.typer_app.groups import run_hot


def register(app: typer.Typer) -> None:
    app.command()(prune)


def prune(
    ctx: typer.Context,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="List the records that would move; change nothing.")
    ] = False,
    yes: Annotated[
        bool, typer.Option("--yes", help="Prune even when the count is at or under the threshold.")
    ] = False,
    age_days: Annotated[
        int | None,
        typer.Option(
            min=0,
            metavar="DAYS",
            help="Archive records strictly older than this (default: settings).",
        ),
    ] = None,
    threshold: Annotated[
        int | None,
        typer.Option(
            min=0,
            metavar="N",
            help="Record count above which no --yes is needed (default: settings).",
        ),
    ] = None,
) -> None:
    """Archive outcomes older than the age with importance 1-3, outside the current phase.

    Exit 3 when a write or check fails: both files are restored and the rows are printed.
    """
    run_hot(ctx, "prune", locals())

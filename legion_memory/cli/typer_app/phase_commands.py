"""`compact`, `phase-context` and `detect-edits`: typer wiring only; each hands its options to
its action in `cli/actions/phases.py`, as the lean dispatcher does.
"""

from __future__ import annotations

from typing import Annotated

import typer

from legion_memory.cli.typer_app.groups import run_hot


def register(app: typer.Typer) -> None:
    app.command()(compact)
    app.command("phase-context")(phase_context)
    app.command("detect-edits")(detect_edits)


def compact(
    ctx: typer.Context,
    phase: Annotated[
        str | None,
        typer.Argument(
            metavar="PHASE", help="Phase number, directory name or path, or MILESTONE/N."
        ),
    ] = None,
    check: Annotated[
        bool, typer.Option("--check", help="Check an existing COMPACTED.md instead.")
    ] = False,
    list_uncompacted: Annotated[
        bool, typer.Option("--list-uncompacted", help="List completed phases not compacted.")
    ] = False,
    exclude_current: Annotated[
        bool, typer.Option("--exclude-current", help="With --list-uncompacted: skip STATE.md's.")
    ] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print it, write nothing.")] = False,
    force: Annotated[
        bool, typer.Option("--force", help="Compact an incomplete phase; replace COMPACTED.md.")
    ] = False,
) -> None:
    """Write a phase's {NN}-COMPACTED.md from its SUMMARY and PLAN files (the skill's
    Section 12)."""
    run_hot(ctx, "compact", locals())


def phase_context(
    ctx: typer.Context,
    phase: Annotated[
        str,
        typer.Argument(
            metavar="PHASE", help="Phase number, directory name or path, or MILESTONE/N."
        ),
    ],
) -> None:
    """A phase's COMPACTED.md when present, else its SUMMARY files in plan order."""
    run_hot(ctx, "phase-context", locals())


def detect_edits(
    ctx: typer.Context,
    phase: Annotated[
        str,
        typer.Option(
            "--phase", metavar="PHASE", help="Phase number, directory name or path, or MILESTONE/N."
        ),
    ],
    record: Annotated[
        bool, typer.Option("--record", help="Store one manual-edit preference per file.")
    ] = False,
) -> None:
    """Files changed in the working tree (git diff) that the phase's agents modified."""
    run_hot(ctx, "detect-edits", locals())

"""`legion install`: this tool's memory-manager skill in a Legion checkout or installed plugin."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from legion_memory.cli.context import Context
from legion_memory.cli.output import emit

legion_app = typer.Typer(
    help="Legion itself: put this tool's memory-manager skill in place.",
    no_args_is_help=True,
    rich_markup_mode=None,
)


def register(app: typer.Typer) -> None:
    legion_app.command("install")(install)
    app.add_typer(legion_app, name="legion")


def install(
    ctx: typer.Context,
    legion: Annotated[
        Path | None,
        typer.Option(
            help="A Legion checkout, install directory or manifest.json (default: the working "
            "directory, $CLAUDE_PLUGIN_ROOT, then ~/.claude/legion and ~/.legion)."
        ),
    ] = None,
    uninstall: Annotated[
        bool, typer.Option("--uninstall", help="Put Legion's original skill back, byte for byte.")
    ] = False,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Say what would change; change nothing.")
    ] = False,
) -> None:
    """Replace Legion's skills/memory-manager/SKILL.md with the one that calls legion-memory,
    keeping the original; regenerate a checkout's checksums.sha256 with Legion's script."""
    from legion_memory.legion import layout, skill_install

    context: Context = ctx.obj
    found = layout.locate(legion, Path.cwd(), Path.home(), os.environ.get("CLAUDE_PLUGIN_ROOT", ""))
    if uninstall:
        report = skill_install.uninstall(found, dry_run)
    else:
        report = skill_install.install(found, dry_run)
    lines = [f"Legion {found.kind}: {found.root}", *report.changes]
    lines += [report.checksums] if report.checksums else []
    if dry_run:
        lines.append("dry run: nothing was changed")
    emit(context, {**report.to_json(), "dry_run": dry_run}, "\n".join(lines))

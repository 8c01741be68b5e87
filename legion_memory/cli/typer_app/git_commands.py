"""`git merge-driver`, `git install`, `doctor` and `diff`."""

from __future__ import annotations

from typing import Annotated

import typer

from legion_memory.cli.context import Context
from legion_memory.cli.output import emit
from legion_memory.cli.typer_app.groups import git_app, run_hot


def register(app: typer.Typer) -> None:
    git_app.command("merge-driver")(merge_driver)
    git_app.command("install")(install)
    app.command()(doctor)
    app.command("diff")(diff)


def merge_driver(
    ctx: typer.Context,
    base: Annotated[str, typer.Argument(metavar="BASE", help="%O: the common ancestor's version.")],
    ours: Annotated[
        str, typer.Argument(metavar="OURS", help="%A: our version; receives the result.")
    ],
    theirs: Annotated[str, typer.Argument(metavar="THEIRS", help="%B: their version.")],
    marker_size: Annotated[
        int, typer.Argument(metavar="SIZE", help="%L: conflict marker size.")
    ] = 7,
    path: Annotated[
        str, typer.Argument(metavar="PATH", help="%P: the file's path in the repository.")
    ] = "",
) -> None:
    """Merge one memory file row by row (git calls this; `git install` sets it up)."""
    run_hot(ctx, "git merge-driver", locals())


def install(
    ctx: typer.Context,
    uninstall: Annotated[
        bool, typer.Option("--uninstall", help="Remove what install added, restore old hooks.")
    ] = False,
    command: Annotated[
        str,
        typer.Option(
            metavar="CMD", help="How git and the hooks run this tool (a shell command prefix)."
        ),
    ] = "legion-memory",
) -> None:
    """Set up the merge driver (.gitattributes + this clone's config) and the repair hooks."""
    from legion_memory.gitops import install

    context: Context = ctx.obj
    if uninstall:
        done = install.uninstall(context.root)
        idle = "legion-memory git integration is not installed"
    else:
        done = install.install(context.root, command)
        idle = "legion-memory git integration is already installed"
    emit(context, {"changed": done}, "\n".join(done) or idle)


def doctor(
    ctx: typer.Context,
    fix: Annotated[bool, typer.Option("--fix", help="Repair what can be repaired.")] = False,
    quiet: Annotated[
        bool, typer.Option("--quiet", help="Print nothing when there is nothing to do.")
    ] = False,
) -> None:
    """Find (and with --fix repair) interrupted changes, conflict markers, duplicate IDs and
    stale references."""
    run_hot(ctx, "doctor", locals())


def diff(
    ctx: typer.Context,
    revisions: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="REV",
            help="From REV to the working tree, or between two revisions.",
        ),
    ] = None,
) -> None:
    """Memory changes between revisions, as markdown for a pull request (or --json)."""
    run_hot(ctx, "diff", locals())

"""`git merge-driver`, `git install`, `doctor` and `diff`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from legion_memory.cli.context import Context
from legion_memory.cli.output import emit
from legion_memory.cli.progress import working_on
from legion_memory.cli.typer_app.groups import git_app, run_hot
from legion_memory.errors import GitError, InputError
from legion_memory.gitops.repository import files_at, merge_base, resolve
from legion_memory.storage import reading

if TYPE_CHECKING:
    from legion_memory.upkeep.doctor import Checkup


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
    from legion_memory.upkeep.doctor import doctor as run_doctor

    context: Context = ctx.obj
    with working_on("doctor: checking the memory files"):
        checkup = run_doctor(context.memory, fix=fix)
    emit(context, _checkup_json(checkup, context.root), _checkup_text(checkup, context, fix, quiet))
    if checkup.remaining:
        raise typer.Exit(1)


def _relative(text: str, root: Path) -> str:
    return text.replace(f"{root}/", "")


def _checkup_json(checkup: Checkup, root: Path) -> dict[str, object]:
    def findings(items: tuple[object, ...]) -> list[str]:
        return [_relative(str(item), root) for item in items]

    return {
        "found": findings(checkup.found),
        "repaired": findings(checkup.repaired),
        "remaining": findings(checkup.remaining),
    }


def _checkup_text(checkup: Checkup, context: Context, fix: bool, quiet: bool) -> str:
    root = context.root
    lines = [_relative(f"repaired {line}", root) for line in checkup.repaired]
    lines += [_relative(str(finding), root) for finding in checkup.remaining]
    if checkup.remaining:
        hint = "" if fix else " (run `legion-memory doctor --fix`)"
        lines.append(f"{len(checkup.remaining)} problem(s) need repair{hint}")
    elif not quiet:
        lines.append("memory is healthy" if not checkup.repaired else "memory repaired")
    return "\n".join(lines)


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
    from legion_memory.gitops.memory_diff import FILE_NAMES, compare, render_markdown

    context: Context = ctx.obj
    revisions = revisions or []
    if len(revisions) > 2:
        raise InputError("diff takes at most two revisions", hint="legion-memory diff REV [REV]")
    root, directory = context.root, context.memory.directory
    if revisions:
        old_label = old_rev = revisions[0]
    else:
        old_rev = merge_base(root, _default_ref(context), "HEAD")
        old_label = f"merge base with {context.default_branch}"
    old = files_at(root, old_rev, directory, FILE_NAMES)
    if len(revisions) == 2:
        new_label, new = revisions[1], files_at(root, revisions[1], directory, FILE_NAMES)
    else:
        new_label = "working tree"
        new = {name: reading.read_text(directory / name) for name in FILE_NAMES}
    shown = _relative(str(directory), root)
    result = compare(old, new, (old_label, new_label), shown)
    emit(context, result.to_json(), render_markdown(result))


def _default_ref(context: Context) -> str:
    """The default branch as a local branch, else as origin's."""
    name = context.default_branch
    for candidate in (name, f"origin/{name}"):
        try:
            resolve(context.root, candidate)
        except GitError:
            continue
        return candidate
    raise GitError(
        f"no branch '{name}' to compare with", hint="name a revision: legion-memory diff REV"
    )

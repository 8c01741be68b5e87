"""`init` and `validate`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from .. import store
from ..schema import KINDS
from ..validation import ERROR, validate_file
from .context import Context
from .output import emit


def register(app: typer.Typer) -> None:
    app.command()(init)
    app.command()(validate)


def init(ctx: typer.Context) -> None:
    """Create .planning/memory/ and its five files from the spec's templates (never overwrites)."""
    context: Context = ctx.obj
    created = store.init(context.memory)
    names = [str(path.relative_to(context.root)) for path in created]
    human = "\n".join(f"created {name}" for name in names) or "memory already initialised"
    emit(context, {"created": names}, human)


def validate(
    ctx: typer.Context,
    files: Annotated[
        list[Path] | None, typer.Argument(help="Files (default: every memory file).")
    ] = None,
) -> None:
    """Report every problem as FILE:LINE: severity: message; exit 1 when any is an error."""
    context: Context = ctx.obj
    paths = files or _memory_files(context)
    problems = [p for path in paths for p in validate_file(path, _shown(context, path))]
    errors = sum(1 for problem in problems if problem.severity == ERROR)
    summary = f"{len(paths)} file(s) checked, {errors} error(s), {len(problems) - errors} other"
    human = "\n".join([*(str(problem) for problem in problems), summary])
    emit(context, {"files": len(paths), "problems": [p.to_json() for p in problems]}, human)
    if errors:
        raise typer.Exit(1)


def _memory_files(context: Context) -> list[Path]:
    memory = context.memory
    candidates = [memory.path(kind) for kind in KINDS.values()] + [memory.archive]
    return [path for path in candidates if path.is_file()]


def _shown(context: Context, path: Path) -> str:
    try:
        return str(path.resolve().relative_to(context.root))
    except ValueError:
        return str(path)

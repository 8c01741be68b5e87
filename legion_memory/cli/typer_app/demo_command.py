"""`demo`: run the guided tour in a throw-away project and print it as it happens."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Annotated

import typer

from legion_memory.cli.context import Context
from legion_memory.demo.tour import Event, Heading, Remark, Shown, Tour, demo_environment, run
from legion_memory.errors import InputError, LegionMemoryError


def register(app: typer.Typer) -> None:
    app.command()(demo)


def demo(
    ctx: typer.Context,
    directory: Annotated[
        Path | None,
        typer.Option(
            "--dir",
            metavar="PATH",
            help="Build the project here (empty or absent) and keep it afterwards.",
        ),
    ] = None,
) -> None:
    """Build a throw-away git project and run a guided tour of the tool on it."""
    context: Context = ctx.obj
    if context.json:
        raise InputError("demo prints a transcript, not JSON", hint="run it without --json")
    project = _prepare(directory) if directory is not None else _temporary()
    tour = Tour(
        directory=project,
        python=sys.executable,
        env=demo_environment(os.environ),
        today=context.today,
        pinned=context.today_option is not None,
    )
    _say(f"legion-memory demo: a throw-away Legion project in {project}")
    try:
        for event in run(tour):
            _show(event)
    except LegionMemoryError as error:
        error.hint = error.hint or f"the project is kept in {project}"
        raise
    _say("")
    if directory is None:
        shutil.rmtree(project)
        _say(f"Done. Removed {project}; `legion-memory demo --dir PATH` keeps the project.")
    else:
        _say(f"Done. The project is in {project}: cd there and try any command.")


def _prepare(directory: Path) -> Path:
    """`--dir` must be absent (it is created) or an empty directory: the demo writes a project
    and a git repository there, and must never mix them with someone's files."""
    if directory.exists() and not directory.is_dir():
        raise InputError(f"--dir '{directory}' is not a directory", hint="give a new or empty one")
    if directory.is_dir() and any(directory.iterdir()):
        raise InputError(f"--dir '{directory}' is not empty", hint="give a new or empty directory")
    directory.mkdir(parents=True, exist_ok=True)
    return directory.resolve()


def _temporary() -> Path:
    return Path(tempfile.mkdtemp(prefix="legion-memory-demo-")).resolve()


def _show(event: Event) -> None:
    if isinstance(event, Heading):
        _say(f"\n==> {event.number}/{event.total} {event.title}")
    elif isinstance(event, Remark):
        _say(f"# {event.text}")
    elif isinstance(event, Shown):
        _say(f"$ {event.command}")
        if event.output:
            _say(event.output.rstrip("\n"))
        if event.code:
            _say(f"[exit {event.code}]")


def _say(text: str) -> None:
    # Flushed line by line, so a piped transcript shows each step as it runs.
    print(text, flush=True)

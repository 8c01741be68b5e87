"""Command line entry point: hot commands through the lean dispatcher, the rest through typer,
and every known error turned into one line with its exit code."""

from __future__ import annotations

import gc
import sys

from legion_memory.cli.lean.hook import clean_exit

TYPE_CHECKING = False  # not `typing.TYPE_CHECKING`: the git hooks' call must not import typing
if TYPE_CHECKING:
    from collections.abc import Callable


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    code = clean_exit(args)
    if code is not None:
        return code
    # Imported only now: the git hooks' call on clean memory (above) does without them.
    from legion_memory.cli.lean.dispatcher import dispatch

    code = _without_collector(dispatch, args)
    return run_typer(args) if code is None else code


def _without_collector(run: Callable[[list[str]], int | None], args: list[str]) -> int | None:
    """Run a hot command with the cyclic garbage collector paused. A hot command lives for one
    call and builds no reference cycles; the collector's passes over the 100,000 records of a
    large file cost about a tenth of the whole command and free nothing."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        return run(args)
    finally:
        if collecting:
            gc.enable()


def run_typer(args: list[str]) -> int:
    """The full command line: every command, its help and its usage errors."""
    import typer
    import typer.main

    from legion_memory.cli.output import note, report
    from legion_memory.cli.typer_app.app import app
    from legion_memory.errors import EXIT_USAGE, LegionMemoryError

    command = typer.main.get_command(app)
    try:
        result = command.main(args=args, prog_name="legion-memory", standalone_mode=False)
    except LegionMemoryError as error:
        return report(error)
    except typer.Exit as done:
        return int(done.exit_code)
    except typer.Abort:
        note("Error: aborted")
        return 1
    except typer.TyperException as usage:
        note(f"Error: {usage.format_message()} (see `legion-memory --help`)")
        return int(getattr(usage, "exit_code", EXIT_USAGE))
    return result if isinstance(result, int) else 0

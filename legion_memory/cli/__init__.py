"""Command line entry point: run the typer app and turn every known error into one line."""

from __future__ import annotations

import sys

from ..errors import EXIT_USAGE, LegionMemoryError
from .output import note, report


def main(argv: list[str] | None = None) -> int:
    import typer
    import typer.main

    from .app import app

    command = typer.main.get_command(app)
    args = sys.argv[1:] if argv is None else argv
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

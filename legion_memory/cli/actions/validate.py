"""What `validate` does: parse -> one call into `operations.upkeep` -> print.

No typer here: the pre-commit hook and CI run `validate` on every commit, so it is a hot command
that the lean dispatcher and the typer app call alike, through `hot_commands.run`.
"""

from __future__ import annotations

from pathlib import Path

from legion_memory.cli.context import Context
from legion_memory.cli.output import emit
from legion_memory.operations import validation


def validate(context: Context, files: list[Path] | None) -> int:
    """Report every problem as FILE:LINE: severity: message; 1 when any is an error."""
    from legion_memory.cli.progress import working_on

    found = validation.validate(context, files=files, progress=working_on)
    emit(context, found.to_json(), found.text())
    return found.exit_code

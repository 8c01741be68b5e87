"""Printing: tables for people (aligned on a terminal, markdown otherwise), stable JSON with
--json, one-line errors and notes on stderr."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from legion_memory.errors import LegionMemoryError, WriteError

if TYPE_CHECKING:
    from legion_memory.cli.context import Context


class _Style:
    """How tables are printed in this process, chosen once from --format and stdout."""

    aligned = False


def choose_table_style(output_format: str | None) -> None:
    """Aligned tables with --format table, or by default when stdout is a terminal."""
    if output_format is None:
        _Style.aligned = sys.stdout.isatty()
    else:
        _Style.aligned = output_format == "table"


def emit(context: Context, data: object, human: str) -> None:
    """Print `data` as JSON under --json, else the human text (nothing when it is empty)."""
    if context.json:
        print(json.dumps(data, ensure_ascii=False, indent=2))
    elif human:
        print(human.rstrip("\n"))


def note(message: str) -> None:
    print(message, file=sys.stderr)


def report(error: LegionMemoryError) -> int:
    """The one place errors are shown. A failed write also prints the record, so it is not lost."""
    if isinstance(error, WriteError) and error.record:
        print("The record was not stored. Here it is in full, to add by hand:")
        print(error.record)
    print(f"Error: {error.line()}", file=sys.stderr)
    return error.exit_code


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A GitHub markdown table; pipes and line breaks in values are escaped like in memory files.
    On a terminal (or with --format table) the same cells, aligned to its width."""
    cells = [[_cell(value) for value in row] for row in rows]
    if _Style.aligned:
        # tabulate is imported only here: piped output, which is what tools read, never pays.
        from legion_memory.cli.terminal_table import aligned_table

        return aligned_table([_cell(name) for name in headers], cells)
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in cells]
    return "\n".join(lines)


def _cell(value: object) -> str:
    return str(value).replace("|", "\\|").replace("\n", "<br>")

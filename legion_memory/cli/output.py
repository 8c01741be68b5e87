"""Printing: markdown for people, stable JSON with --json, one-line errors on stderr."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from legion_memory.errors import LegionMemoryError, WriteError

if TYPE_CHECKING:
    from legion_memory.cli.context import Context


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
    """A GitHub markdown table; pipes and line breaks in values are escaped like in memory files."""

    def cell(value: object) -> str:
        return str(value).replace("|", "\\|").replace("\n", "<br>")

    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)

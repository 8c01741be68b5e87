"""Tables for a person at a terminal: the markdown table's cells aligned by tabulate within the
terminal's width, long cells wrapped between words (a word longer than its column stays whole)."""

from __future__ import annotations

import os
import sys
import textwrap
from collections.abc import Sequence

import tabulate as tabulate_module
from tabulate import tabulate

DEFAULT_WIDTH = 80
# tabulate's github format: `| ` before each cell, ` ` after, and one closing `|`.
_BORDER_PER_COLUMN, _BORDER = 3, 1


def terminal_width() -> int:
    """$COLUMNS when set (as shells and `COLUMNS=60 cmd` give it), else the terminal's own."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    try:
        return os.get_terminal_size(sys.stdout.fileno()).columns
    except (OSError, ValueError):
        return DEFAULT_WIDTH


def aligned_table(
    headers: Sequence[str], rows: Sequence[Sequence[str]], width: int | None = None
) -> str:
    """The table as tabulate's github format, every column narrowed to fit `width`."""
    # tabulate pads headers by two spaces beyond the column's width; the widths here are exact.
    tabulate_module.MIN_PADDING = 0
    limits = column_widths(headers, rows, terminal_width() if width is None else width)
    wrapped = [
        [_wrap(text, limit) for text, limit in zip(row, limits, strict=True)] for row in rows
    ]
    heads = [_wrap(text, limit) for text, limit in zip(headers, limits, strict=True)]
    return tabulate(wrapped, heads, tablefmt="github", disable_numparse=True)


def column_widths(headers: Sequence[str], rows: Sequence[Sequence[str]], width: int) -> list[int]:
    """Each column's width: its widest cell, narrowed (widest column first) until the table
    fits `width`, but never below its longest word."""
    columns = list(zip(headers, *rows, strict=True))
    widths = [max(len(text) for text in column) for column in columns]
    floors = [max((len(word) for text in column for word in text.split()), default=1)
              for column in columns]  # fmt: skip
    room = width - _BORDER - _BORDER_PER_COLUMN * len(widths)
    excess = sum(widths) - room
    while excess > 0:
        narrowable = [i for i, w in enumerate(widths) if w > floors[i]]
        if not narrowable:
            break
        widest = max(narrowable, key=lambda i: widths[i])
        others = max((widths[i] for i in narrowable if i != widest), default=floors[widest])
        # Down to the next widest column at once, so a wide table takes few steps.
        step = min(excess, widths[widest] - max(others, floors[widest]) or 1)
        widths[widest] -= step
        excess -= step
    return widths


def _wrap(text: str, width: int) -> str:
    if len(text) <= width:
        return text
    lines = textwrap.wrap(text, width, break_long_words=False, break_on_hyphens=False)
    return "\n".join(lines)

"""What a long command is working on, as one status line on stderr, only for a person watching
a terminal: piped or captured, a command prints nothing of it."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

from legion_memory.cli.output import terminal_stream

_CLEAR = "\r\x1b[K"  # back to the line's start, erase it


@contextmanager
def working_on(text: str) -> Iterator[None]:
    """Show `text` while the block runs; erase it afterwards, however the block ends."""
    shown = sys.stderr.isatty()
    if shown:
        terminal_stream(sys.stderr).write(_CLEAR)  # our own escape; the text's are made visible
        sys.stderr.write(f"{text}…")
        sys.stderr.flush()
    try:
        yield
    finally:
        if shown:
            terminal_stream(sys.stderr).write(_CLEAR)
            sys.stderr.flush()

"""Printing: tables for people (aligned on a terminal, markdown otherwise), stable JSON with
--json, one-line errors and notes on stderr."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator, Sequence

from legion_memory.errors import LegionMemoryError, WriteError

TYPE_CHECKING = False  # not typing's: docs/decisions.md#hot-paths-without-typing
if TYPE_CHECKING:
    from typing import TextIO

    from legion_memory.cli.context import Context


# What `schema.fields` refuses in a value: C0 but tab and line breaks, DEL and C1. A committed row
# may still hold one (docs/decisions.md#untrusted-values), and ESC or CSI reaching a terminal
# starts an escape sequence written by whoever committed the row. Lone surrogates too: they are
# the bytes of an argument that was not UTF-8, which stdout could not encode at all. Compiled by
# `re` on first use: its surrogate range alone costs a tenth of `python -c pass` to compile, and
# text with none of these characters is told apart without it (`_plain`).
_CONTROL = r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]"


def _visible(found: re.Match[str]) -> str:
    return f"\\u{ord(found[0]):04x}"


class VisibleControls:
    """A text stream that writes every control character as its JSON escape (`\\u001b`), so that
    no output of the tool carries one: inside a JSON string the escape stands for the same
    character, so `--json` keeps every value exactly."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        if _plain(text) or re.search(_CONTROL, text) is None:
            return self._stream.write(text)
        self._stream.write(re.sub(_CONTROL, _visible, text))
        return len(text)

    def __getattr__(self, name: str) -> object:
        return getattr(self._stream, name)


def _plain(text: str) -> bool:
    """Whether `text` surely holds no `_CONTROL` character: each of them (C0, DEL, C1, a lone
    surrogate) is unprintable. So is a line feed, which `_CONTROL` lets through; text with any
    other unprintable character (a tab, a carriage return, a non-breaking space) is searched."""
    return text.isprintable() or text.replace("\n", "").isprintable()


def terminal_stream(stream: TextIO) -> TextIO:
    """The stream under `VisibleControls`, for the tool's own terminal escapes (a progress line
    erasing itself), never for text that comes from memory."""
    return stream._stream if isinstance(stream, VisibleControls) else stream


class controls_shown_visibly:
    """Route stdout and stderr through `VisibleControls` while a command runs. A class, not
    `contextlib`'s, which every hot command would import for it alone."""

    def __enter__(self) -> None:
        self.streams = sys.stdout, sys.stderr
        sys.stdout, sys.stderr = (
            stream if isinstance(stream, VisibleControls) else VisibleControls(stream)
            for stream in self.streams
        )

    def __exit__(self, *_: object) -> None:
        sys.stdout, sys.stderr = self.streams


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
        import json  # a table's output, the usual store's, needs no JSON

        print(json.dumps(data, ensure_ascii=False, indent=2))
    elif human:
        print(human.rstrip("\n"))


def write_lines(lines: Iterator[str], chunk: int = 1024) -> None:
    """Print each line, a chunk of lines at a time: a long listing is never held as one text,
    which one emoji would make four bytes a character."""
    batch: list[str] = []
    for line in lines:
        batch.append(line)
        if len(batch) == chunk:
            sys.stdout.write("\n".join(batch) + "\n")
            batch.clear()
    if batch:
        sys.stdout.write("\n".join(batch) + "\n")


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

"""A table's rows where they lie in the bytes its document was parsed from: their span, the rows
holding a string, found by `bytes.find` over the file rather than by a test of every row, and a
pattern's group in every row, by one scan.

UTF-8 puts no ASCII byte inside a character, and a character's bytes never start inside another's:
a newline or a pipe byte is that character, and an encoded string occurs in the bytes exactly where
the string occurs in the text. No memory meaning here, as in `document`.
"""

import re
from collections.abc import Iterator, Sequence

from legion_memory.markdown.document import Document, Table


def rows_span(document: Document, table: Table, data: bytes) -> tuple[int, int]:
    """Where the table's body rows lie in `data`: from the first byte of its first row (just after
    the delimiter line's newline) to the end of its last row's line ending."""
    start = (3 if document.bom else 0) + sum(
        len(line.encode("utf-8")) for line in document.lines[: table.header + 2]
    )
    stop = len(data) - sum(len(line.encode("utf-8")) for line in document.lines[table.end :])
    return start, stop


def rows_holding(
    document: Document, table: Table, data: bytes, needles: Sequence[str]
) -> Iterator[tuple[int, str]]:
    """The line index and the line (with its ending) of every body row whose text holds one of
    `needles`, in order, as a test of each row's line would find them. Each needle must be
    non-empty and hold no newline (one cannot then straddle two lines); only the rows found are
    decoded, and their line numbers counted, as far as the caller reads."""
    start, stop = rows_span(document, table, data)
    encoded = [needle.encode("utf-8") for needle in needles]
    upcoming = [data.find(needle, start, stop) for needle in encoded]
    index, counted = table.header + 2, start
    while True:
        found = [hit for hit in upcoming if hit >= 0]
        if not found:
            return
        hit = min(found)
        begin = data.rfind(b"\n", start - 1, hit) + 1
        end = data.find(b"\n", hit, stop)
        end = stop if end < 0 else end + 1
        index += data.count(b"\n", counted, begin)
        counted = begin
        yield index, data[begin:end].decode("utf-8")
        # A needle found again in the same row is not that row again: look past it.
        upcoming = [
            data.find(needle, end, stop) if 0 <= at < end else at
            for needle, at in zip(encoded, upcoming, strict=True)
        ]


def each_row_matching(
    document: Document, table: Table, data: bytes, pattern: bytes
) -> list[bytes] | None:
    """The first group of `pattern` (ASCII, opening with the newline before a row, never matching
    another) in every body row, by one scan of `data` from the newline that ends the delimiter
    line; None unless every row matches."""
    start, stop = rows_span(document, table, data)
    found: list[bytes] = re.compile(pattern).findall(data, start - 1, stop)
    return found if len(found) == table.end - table.header - 2 else None

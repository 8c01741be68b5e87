"""One row added to or changed in a document's text, and the proof that the new text reads back
as intended: the old rows unchanged and in order, the new row exactly the intended record. Pure:
`store` reads the file, calls these and writes the text only when they pass.
"""

from pathlib import Path

from legion_memory.errors import IntegrityError, ParseError, SchemaError
from legion_memory.markdown.cells import unescape
from legion_memory.markdown.document import (
    Document,
    RowStyle,
    Table,
    parse,
    render,
    strip_ending,
)
from legion_memory.schema.kinds import Kind, identity_keys
from legion_memory.schema.records import Record, column_key, read_records, record_at, records_table

Pieces = tuple[memoryview, bytes, memoryview]
"""A file's new bytes as the old bytes before the new line, the new line, the old bytes after."""


def insert_row(
    document: Document, table: Table, data: bytes, cells: list[str]
) -> tuple[bytes, int]:
    """The file's new bytes, one row line after the table's last row, and that row's line number.

    `document` is the parse of `data`. The bytes around the new line are copied as they were read:
    the file is never held as one string (docs/decisions.md#memory-as-lines), nor re-encoded.
    """
    pieces, line = row_insertion(document, table, data, cells)
    return b"".join(pieces), line


def row_insertion(
    document: Document, table: Table, data: bytes, cells: list[str]
) -> tuple[Pieces, int]:
    """`insert_row`'s new bytes as pieces, the old ones not copied: a store writes them so, and
    never holds the file's bytes twice (docs/decisions.md#one-parse-per-store)."""
    style = _row_style(document, table)
    added = style.format(cells)
    if not style.ending:
        # The anchor is the file's last line and has no newline: it gains one, the new row doesn't.
        added = document.dominant_ending() + added
    at = _row_end_offset(document, table, data)
    view = memoryview(data)
    return (view[:at], added.encode("utf-8"), view[at:]), table.end + 1


def held_already(
    document: Document,
    table: Table,
    data: bytes,
    kind: Kind,
    cells: list[str],
    inferred: frozenset[str] = frozenset(),
) -> Record | None:
    """The table's row holding the same record as the row of escaped `cells` about to be added
    (their identity as the file will read them back: every cell but the ID and references,
    spaces aside); None when there is none. A store of a record memory holds already writes
    nothing (docs/decisions.md#store-once). Only the rows holding the longest plain word of its
    longest value are read, found in the file's bytes (`data`, of which `document` is the parse)
    by C's search: a store that adds a new record reads none (nor imports what compares them).
    The `inferred` values (an importance worked out from the history, which the record held has
    since joined) are not compared."""
    keys = [column_key(name) for name in table.columns]
    mine = dict(zip(keys, map(unescape, cells), strict=False))
    # The longest value is the record's own text (a summary, a pattern, a signature), whose
    # words few rows share; an agent's or a branch's name is in many.
    own = [mine.get(key, "") for key in identity_keys(kind)]
    plain_words = (
        [word for word in value.split() if _plain(word)]
        for value in sorted(own, key=len, reverse=True)
    )
    words = next((found for found in plain_words if found), [])
    rows = range(table.header + 2, table.end)
    candidates = _lines_holding(data, max(words, key=len).encode(), rows) if words else list(rows)
    if not candidates:
        return None
    from legion_memory.schema.identity import identity  # only now: rarely

    for index in candidates:
        found = record_at(document, table, kind, index)
        worked_out = {key: found.values.get(key, "") for key in inferred}
        if identity(kind, found.values) == identity(kind, {**mine, **worked_out}):
            return found
    return None


def _lines_holding(data: bytes, needle: bytes, rows: range) -> list[int]:
    """The indexes of the lines among `rows` whose bytes hold `needle` (lines end at line feeds,
    as the file is read): a few searches and counts in the bytes, none a line."""
    found: list[int] = []
    line = counted = 0
    at = data.find(needle)
    while at >= 0:
        line += data.count(b"\n", counted, at)
        if line >= rows.stop:
            break
        if line >= rows.start:
            found.append(line)
        end = data.find(b"\n", at)
        if end < 0:
            break
        line, counted = line + 1, end + 1
        at = data.find(needle, counted)
    return found


def _plain(word: str) -> bool:
    """A word a row holds as the value does: none of the characters a cell escapes or unescapes
    (a pipe, a line break's `<br>`)."""
    return "|" not in word and "<" not in word and "\\" not in word


def _row_end_offset(document: Document, table: Table, data: bytes) -> int:
    """Where the table's last row ends in `data`: counted back from the end, over the few lines
    after the table (UTF-8 round-trips each line's text to its bytes)."""
    return len(data) - sum(len(line.encode("utf-8")) for line in document.lines[table.end :])


def replace_row(document: Document, index: int, cells: list[str]) -> str:
    """The text with line `index` rewritten from `cells`, in that line's own style."""
    lines = list(document.lines)
    lines[index] = RowStyle.of(lines[index]).format(cells)
    return render(Document(lines, bom=document.bom))


def _row_style(document: Document, table: Table) -> RowStyle:
    """The last row's style; for an empty table the header's, which the delimiter cannot show."""
    last = document.lines[table.end - 1]
    if table.rows:
        return RowStyle.of(last)
    return RowStyle.of(document.lines[table.header])._replace(ending=RowStyle.of(last).ending)


def verify_append(
    path: Path, before: Document, data: bytes, new: bytes | Pieces, table: Table, record: Record
) -> None:
    """What is about to be written reads back as the old rows plus exactly the new record.

    Without parsing the whole file again (one parse per store): `new` must be the old bytes
    `data`, of which `before` is the parse, with one line after the table's last row (byte
    comparisons, in C), the old last row gaining a line ending only when it had none; and that
    line, parsed under the table's header, must be one row reading back as the record. Nothing
    before the table reads differently for what follows it, and the old line after the table,
    which has no pipe, still ends it (docs/decisions.md#one-parse-per-store).
    """
    lines = before.lines
    added = _appended_text(path, before, data, new, table)
    if lines[table.end - 1] == strip_ending(lines[table.end - 1]):
        # The anchor was the file's last line, without an ending: it gains one.
        ending = added[: len(added) - len(added.lstrip("\r\n"))]
        if ending not in ("\n", "\r\n"):
            raise not_read_back(path)
        added = added[len(ending) :]
    header = "".join(strip_ending(line) + "\n" for line in lines[table.header : table.header + 2])
    mini = parse(header + added)
    new_table = mini.tables[0] if len(mini.lines) == 3 and len(mini.tables) == 1 else None
    if new_table is None or new_table.rows != range(2, 3) or new_table.columns != table.columns:
        raise not_read_back(path)
    if not same_values(record_at(mini, new_table, record.kind, 2), record):
        raise not_read_back(path)


def _appended_text(
    path: Path, before: Document, data: bytes, new: bytes | Pieces, table: Table
) -> str:
    """The text `new` adds to the old bytes `data` right after the table's last row, when every
    old byte is where it was (those after the table shifted); else not read back."""
    lines = before.lines
    head = _row_end_offset(before, table, data)
    view = memoryview(data)
    if isinstance(new, tuple):  # pieces: compared in place (by `bytes` methods, in C), never joined
        first, added_bytes, rest = new
        kept = (len(first), len(rest)) == (head, len(data) - head) and (
            data.startswith(first) and data.endswith(rest)
        )
    else:
        added_bytes = new[head : head + len(new) - len(data)]
        kept = new.startswith(view[:head]) and new.endswith(view[head:])
    if not (
        added_bytes
        # The place of the new line is where the parse has the table's last row end...
        and data.endswith(lines[table.end - 1].encode("utf-8"), 0, head)
        and (table.end == len(lines) or data.startswith(lines[table.end].encode("utf-8"), head))
        # ... and every old byte is where it was, the ones after the table shifted.
        and kept
    ):
        raise not_read_back(path)
    try:
        return added_bytes.decode("utf-8")
    except UnicodeDecodeError:
        raise not_read_back(path) from None


def same_values(read_back: Record, intended: Record) -> bool:
    return all(read_back[key] == intended[key] for key in read_back.values)


def not_read_back(path: Path) -> IntegrityError:
    return IntegrityError(
        "the text about to be written does not read back as the intended records; nothing was "
        "written (this is a bug)",
        where=str(path),
        hint="please report it with the file attached",
    )


def find_record(path: Path, document: Document, table: Table, kind: Kind, record_id: str) -> Record:
    for record in read_records(document, table, kind):
        if record.id == record_id:
            return record
    raise ParseError(f"no record {record_id}", where=str(path))


def verify_update(path: Path, before: Document, text: str, table: Table, new: Record) -> None:
    after = parse(text)
    new_table = records_table(after, new.kind)
    if new_table is None or new_table.rows != table.rows:
        raise not_read_back(path)
    changed = [i for i in table.rows if after.lines[i] != before.lines[i]]
    read_back = next(r for r in read_records(after, new_table, new.kind) if r.line == new.line)
    if changed not in ([], [new.line - 1]) or not same_values(read_back, new):
        raise not_read_back(path)


def require_id_column(path: Path, table: Table, rows: str = "a new row") -> None:
    """SchemaError unless the table has an ID column, without which `rows` are not told apart."""
    if "id" not in {column_key(name) for name in table.columns}:
        raise SchemaError(
            f"table has no ID column, so {rows} could not be told apart",
            where=f"{path}:{table.header + 1}",
            hint="run `legion-memory migrate` to add the missing columns",
        )

"""Checks of memory files: every problem with its file and line, nothing ever changed."""

import re
from collections.abc import Callable, Iterator
from itertools import compress, count, repeat
from operator import contains
from pathlib import Path

from legion_memory.markdown.cells import CLOSED, CLOSED_ESCAPED
from legion_memory.markdown.document import Document, Table, parse
from legion_memory.named_tuple import NamedTuple
from legion_memory.schema.kinds import ARCHIVE_FILENAME, KINDS, Kind, kind_of_filename
from legion_memory.schema.learn_entries import learn_entries
from legion_memory.schema.problems import ERROR, NOTE, WARNING, Problem
from legion_memory.schema.record_twins import KnownHashes, archive_layout, twins
from legion_memory.schema.records import column_key, records_table
from legion_memory.schema.row_checks import check_rows
from legion_memory.schema.secrets import secret_kind, secret_message
from legion_memory.schema.source_links import Citations
from legion_memory.schema.twin_hashes import RowHasher
from legion_memory.wording import noun_for

__all__ = [
    "ERROR",
    "NOTE",
    "WARNING",
    "KnownHashes",
    "Problem",
    "check_table",
    "document_twins",
    "kind_for_file",
    "not_a_memory_file",
    "path_is_live",
    "record_twins",
    "validate_document",
    "validate_text",
]

_CONFLICT = re.compile(r"^(<{7}|={7}|>{7})( |$)")
_CONFLICT_STARTS = ("<" * 7, "=" * 7, ">" * 7)
CONFLICT_MARKER_HINT = "(run `legion-memory doctor --fix`)"
# Git's octopus strategy merges text only: it never calls the merge driver.
OCTOPUS_HINT = "; git's octopus merge never calls the merge driver: merge one branch at a time"


def kind_for_file(path: Path, document: Document | None = None) -> Kind | None:
    """A memory file's kind from its name (`OUTCOMES.md`, `legacy-OUTCOMES.md`), else its table."""
    named = kind_of_filename(path.name)
    if named is not None or document is None:
        return named
    for kind in KINDS.values():
        if records_table(document, kind) is not None:
            return kind
    return None


def not_a_memory_file(path: Path, name: str) -> Problem | None:
    """The problem of a path that is no memory file by its name: `validate FILE` may be given any
    path, and reads only memory files (docs/decisions.md#memory-confinement)."""
    if path.name.upper() == ARCHIVE_FILENAME.upper() or kind_for_file(path) is not None:
        return None
    return Problem(name, 0, ERROR, "not a memory file (no memory kind in its name); not read")


def validate_text(path: Path, text: str, name: str) -> list[Problem]:
    """Every problem of a memory file's text (`path` tells its kind: its name is what counts)."""
    return validate_document(path, parse(text), name)


Unchanged = Callable[[Table, Kind], set[int]]
"""The line indexes of a table's rows that are no one's to check (a diff's rows that the old
version holds as they are): their problems are left out, but for a duplicate of an ID a checked
row holds and a table GitHub shows as text (docs/decisions.md#diff-checks-what-changed)."""


def validate_document(
    path: Path,
    document: Document,
    name: str,
    known: KnownHashes | None = None,
    unchanged: Unchanged | None = None,
    citations: Citations | None = None,
) -> list[Problem]:
    """`validate_text` of the text `document` was parsed from. `known` gets the identity hashes
    of the rows checked, for `document_twins`; `citations` the outcome IDs and Sources read."""
    found = list(_conflict_markers(document, name))
    reading = _Reading(known, unchanged, citations)
    if path.name.upper() == ARCHIVE_FILENAME.upper():
        found += _check_archive(document, name, reading)
    else:
        found += _check_live(path, document, name, reading)
    found += _check_learn_entries(document, name)
    return sorted(found, key=lambda problem: problem.line)


def _check_learn_entries(document: Document, name: str) -> list[Problem]:
    found = []
    for entry in learn_entries(document):
        note = f"/legion:learn entry {entry.id} (kept as written)"
        found.append(Problem(name, entry.line, NOTE, note))
        kind = secret_kind("\n".join([entry.summary, *entry.fields.values(), entry.body]))
        if kind is not None:
            message = _secret(f"/legion:learn entry {entry.id}", kind)
            found.append(Problem(name, entry.line, ERROR, message))
    return found


class _Reading(NamedTuple):
    """What the row checks of a file are given, and gather for the checks across files."""

    known: KnownHashes | None
    unchanged: Unchanged | None
    citations: Citations | None


def _check_live(path: Path, document: Document, name: str, reading: _Reading) -> list[Problem]:
    kind = kind_for_file(path, document)
    if kind is None:
        return [Problem(name, 1, ERROR, "not a memory file: no known table in it")]
    table = records_table(document, kind)
    if table is None:
        return [Problem(name, 1, ERROR, f"no {kind.singular} table found (## {kind.section})")]
    return list(check_table(document, table, kind, name, *reading))


def _check_archive(document: Document, name: str, reading: _Reading) -> list[Problem]:
    found = [Problem(name, m.line, ERROR, m.message) for m in archive_layout(document)]
    for kind in KINDS.values():
        table = records_table(document, kind, archived=True)
        if table is not None:
            found += check_table(document, table, kind, name, *reading)
    return found


def check_table(
    document: Document,
    table: Table,
    kind: Kind,
    name: str,
    known: KnownHashes | None = None,
    unchanged: Unchanged | None = None,
    citations: Citations | None = None,
) -> Iterator[Problem]:
    yield from _check_header(table, kind, name)
    columns = tuple(column_key(c) for c in table.columns)
    hasher = RowHasher(kind, columns) if known is not None and "id" in columns else None
    left = unchanged(table, kind) if unchanged is not None else None
    rows = check_rows(document, table, kind, name, hasher, left, citations)
    if known is not None and rows.identities is not None:
        known[id(document), table.header, kind.name] = rows.identities
    yield from rows.ragged
    yield from rows.values
    yield from rows.duplicates
    ragged = rows.ragged or (left and _ragged_among(document, left, len(columns)))
    if ragged or not (_plainly_a_table(document, table) or _renders_as_table(document, table)):
        yield Problem(
            name,
            table.header + 1,
            WARNING,
            "GitHub would show this table as plain text (a bad row)",
        )


def _ragged_among(document: Document, unchanged: set[int], width: int) -> bool:
    from legion_memory.schema.unchanged_rows import ragged_among  # a diff's alone

    return ragged_among(document, unchanged, width)


def _check_header(table: Table, kind: Kind, name: str) -> Iterator[Problem]:
    keys = [column_key(column) for column in table.columns]
    missing = [c.name for c in kind.columns if c.key not in keys]
    unknown = [
        name for name, key in zip(table.columns, keys, strict=True) if kind.column(key) is None
    ]
    line = table.header + 1
    if missing:
        yield Problem(
            name,
            line,
            WARNING,
            f"legacy layout: missing {noun_for(len(missing), 'column')} {', '.join(missing)} "
            "(read as empty; `legion-memory migrate` adds them)",
        )
    if unknown:
        yield Problem(
            name,
            line,
            WARNING,
            f"unknown {noun_for(len(unknown), 'column')} {', '.join(unknown)} (kept as is)",
        )
    if len(set(keys)) != len(keys):
        yield Problem(name, line, ERROR, "a column name appears twice in the header")


_ROTATE = "remove it from the file and rotate the credential"


def _secret(field: str, kind: str) -> str:
    return f"{secret_message(field, kind)} ({_ROTATE})"


def _conflict_markers(document: Document, name: str) -> Iterator[Problem]:
    """Each marker line: one of a conflict `doctor --fix` resolves (nested ones too, from the
    inside out), or a separator or closing one outside any, left by a hand resolution."""
    depth = 0
    lines = document.lines
    # Only a line opening with seven marker characters can be one: found from C, not per line.
    starts = map(str.startswith, lines, repeat(_CONFLICT_STARTS))
    for index in compress(count(), starts):
        marker = _CONFLICT.match(document.text(index))
        if marker is None:
            continue
        kind = marker.group(1)[0]
        if kind == "<":
            depth += 1
            nested = f"nested git conflict marker {CONFLICT_MARKER_HINT}"
            how = nested if depth > 1 else None
        else:
            how = None if depth else "leftover git conflict marker (remove it by hand)"
            depth = max(depth - 1, 0) if kind == ">" else depth
        message = how or f"git conflict marker {CONFLICT_MARKER_HINT}"
        yield Problem(name, index + 1, ERROR, message)


def _plainly_a_table(document: Document, table: Table) -> bool:
    """True when mistune's pass would find this table, known without it: its every row has as
    many cells as the header (checked before), and every line opens and closes with a pipe at
    its edges, the closing one not escaped, with no double backslash (mistune reads `\\\\|` as
    an escaped backslash and a pipe) and no lone CR (which mistune reads as a line break). Then
    mistune splits each line into the same cells (docs/decisions.md#validate-skips-mistune).
    Each test is one pass over the lines from C: the table is never copied into one string."""
    lines = document.lines[table.header : table.end]
    if not all(map(str.startswith, lines, repeat("|"))):
        return False
    if not all(map(str.endswith, lines, repeat(CLOSED))):
        return False
    if any(map(str.endswith, lines, repeat(CLOSED_ESCAPED))):
        return False
    if any(map(contains, lines, repeat("\\\\"))):
        return False
    # A CR only in a line's CRLF ending (a line ending is its last characters).
    with_cr = compress(lines, map(contains, lines, repeat("\r")))
    return all(line.count("\r") == 1 and line.endswith("\r\n") for line in with_cr)


def _table_text(document: Document, table: Table) -> str:
    """The table's lines with mistune's line-ending normalisation, ending in a newline."""
    text = "".join(document.lines[table.header : table.end])
    text = text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text
    return text if text.endswith("\n") else text + "\n"


def _renders_as_table(document: Document, table: Table) -> bool:
    """Whether a GitHub-flavoured renderer shows these lines as a table (mistune's table plugin).

    Only mistune's block parser runs: it alone decides whether the lines form a table. The inline
    parsing and HTML of every cell that `markdown(text)` adds cannot change the answer, and cost
    three quarters of the check on 1,000 rows, five sixths on 10,000."""
    import mistune  # a validation-only dependency: kept off the hot paths

    block = mistune.create_markdown(renderer=None, plugins=["table"]).block
    # The first half of `Markdown.parse`, through the documented BlockState and BlockParser:
    # the same line-ending normalisation, then block tokens without their inline children.
    state = mistune.BlockState()
    state.process(_table_text(document, table))
    block.parse(state)
    # The table plugin's rules are block-level rules only (not inside quotes or lists).
    return any(token["type"] == "table" for token in state.tokens)


def record_twins(files: list[tuple[Path, str, str]]) -> list[Problem]:
    """One record held twice across a memory directory's files: under two IDs, or live and
    archived at once (docs/decisions.md#record-identity). `files`: (path, name shown, text)."""
    return document_twins([(path, name, parse(text)) for path, name, text in files])


def document_twins(
    files: list[tuple[Path, str, Document]], known: KnownHashes | None = None
) -> list[Problem]:
    """`record_twins` of files already parsed: (path, name shown, document), with the identity
    hashes `validate_document` read of them."""
    ordered = sorted(files, key=lambda item: path_is_live(item[0]))  # the archive first
    documents = [(name, document, not path_is_live(path)) for path, name, document in ordered]
    return [
        Problem(twin.again.name, twin.again.line_index + 1, ERROR, twin.message())
        for twin in twins(documents, known)
    ]


def path_is_live(path: Path) -> bool:
    return path.name.upper() != ARCHIVE_FILENAME.upper()

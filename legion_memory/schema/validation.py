"""Checks of memory files: every problem with its file and line, nothing ever changed."""

import re
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

from legion_memory.markdown.document import Document, Table, cell_count, parse
from legion_memory.schema.fields import control_character
from legion_memory.schema.kinds import ARCHIVE_FILENAME, KINDS, Kind, column_problem
from legion_memory.schema.learn_entries import learn_entries
from legion_memory.schema.record_twins import archive_layout, twins
from legion_memory.schema.records import Record, column_key, read_records, records_table
from legion_memory.schema.secrets import could_hold_secret, secret_kind, secret_message
from legion_memory.wording import noun_for

ERROR = "error"
WARNING = "warning"
NOTE = "note"
_CONFLICT = re.compile(r"^(<{7}|={7}|>{7})( |$)")
# A table's values repeat from row to row (agents, dates, task types): each distinct one is read
# for secrets, control characters and its column's rule once; each is a pure function of the value
# (docs/decisions.md#secrets-once-per-value).
_secret_kind = lru_cache(maxsize=4096)(secret_kind)
_control_character = lru_cache(maxsize=4096)(control_character)
_column_problem = lru_cache(maxsize=4096)(column_problem)


class Problem(NamedTuple):
    path: str
    line: int
    severity: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.severity}: {self.message}"

    def to_json(self) -> dict[str, object]:
        return {
            "file": self.path,
            "line": self.line,
            "severity": self.severity,
            "message": self.message,
        }


def kind_for_file(path: Path, document: Document | None = None) -> Kind | None:
    """A memory file's kind from its name (`OUTCOMES.md`, `legacy-OUTCOMES.md`), else its table."""
    upper = path.name.upper()
    for kind in KINDS.values():
        if kind.filename.upper().removesuffix(".MD") in upper:
            return kind
    if document is None:
        return None
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
    document = parse(text)
    found = list(_conflict_markers(document, name))
    if path.name.upper() == ARCHIVE_FILENAME.upper():
        found += _check_archive(document, name)
    else:
        found += _check_live(path, document, name)
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


def _check_live(path: Path, document: Document, name: str) -> list[Problem]:
    kind = kind_for_file(path, document)
    if kind is None:
        return [Problem(name, 1, ERROR, "not a memory file: no known table in it")]
    table = records_table(document, kind)
    if table is None:
        return [Problem(name, 1, ERROR, f"no {kind.singular} table found (## {kind.section})")]
    return list(check_table(document, table, kind, name))


def _check_archive(document: Document, name: str) -> list[Problem]:
    found = [Problem(name, m.line, ERROR, m.message) for m in archive_layout(document)]
    for kind in KINDS.values():
        table = records_table(document, kind, archived=True)
        if table is not None:
            found += check_table(document, table, kind, name)
    return found


def check_table(document: Document, table: Table, kind: Kind, name: str) -> Iterator[Problem]:
    yield from _check_header(table, kind, name)
    width = len(table.columns)
    good_rows = []
    for index in table.rows:
        cells = cell_count(document.text(index))
        if cells != width:
            hint = (
                "an unescaped | in a value? write it as \\|" if cells > width else "missing cells"
            )
            yield Problem(
                name, index + 1, ERROR, f"row has {cells} cells, header has {width} ({hint})"
            )
        else:
            good_rows.append(index)
    good = set(good_rows)  # a list here made validate quadratic: 100,000 rows took minutes
    records = [r for r in read_records(document, table, kind) if r.line - 1 in good]
    for record in records:
        yield from _check_record(record, name, document.text(record.line - 1))
    yield from _duplicate_ids(records, name)
    if len(good_rows) != len(table.rows) or not (
        _plainly_a_table(document, table) or _renders_as_table(document, table)
    ):
        yield Problem(
            name,
            table.header + 1,
            WARNING,
            "GitHub would show this table as plain text (a bad row)",
        )


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


def _secrets(record: Record, name: str) -> Iterator[tuple[str, Problem]]:
    """A problem for each value of the record that looks like a secret, with the value's key;
    the value is never quoted."""
    for key, value in record.values.items():
        column = record.kind.column(key)
        field = column.name if column else "a column"
        kind = _secret_kind(value)
        if kind is not None:
            yield key, Problem(name, record.line, ERROR, _secret(field, kind))
            continue
        control = _control_character(value)
        if control is not None:
            message = f"{field} holds a control character ({control}); remove it"
            yield key, Problem(name, record.line, ERROR, message)


def _check_record(record: Record, name: str, line: str) -> Iterator[Problem]:
    secret_keys = set()
    # One search of the row's text spares each value its own on all but a few rows.
    if could_hold_secret(line) or control_character(line.rstrip("\r\n")):
        for key, secret in _secrets(record, name):
            secret_keys.add(key)
            yield secret
    for column in record.kind.columns:
        if column.key not in record.values or column.key in secret_keys:
            continue
        value = record[column.key]
        problem = _column_problem(column, value)
        if problem is None:
            continue
        if value.lower() != value and _column_problem(column, value.lower()) is None:
            message = f"{column.name} '{value}' should be lowercase '{value.lower()}'"
            yield Problem(name, record.line, WARNING, message)
        else:
            yield Problem(name, record.line, ERROR, f"{column.name} '{value}' {problem}")


def _duplicate_ids(records: list[Record], name: str) -> Iterator[Problem]:
    first_line: dict[str, int] = {}
    for record in records:
        if not record.id:
            continue
        if record.id in first_line:
            message = f"duplicate ID {record.id} (also on line {first_line[record.id]})"
            yield Problem(name, record.line, ERROR, message)
        else:
            first_line[record.id] = record.line


def _conflict_markers(document: Document, name: str) -> Iterator[Problem]:
    """Each marker line: one of a conflict `doctor --fix` resolves (nested ones too, from the
    inside out), or a separator or closing one outside any, left by a hand resolution."""
    depth = 0
    for index in range(len(document.lines)):
        marker = _CONFLICT.match(document.text(index))
        if marker is None:
            continue
        kind = marker.group(1)[0]
        if kind == "<":
            depth += 1
            nested = "nested git conflict marker (run `legion-memory doctor --fix`)"
            how = nested if depth > 1 else None
        else:
            how = None if depth else "leftover git conflict marker (remove it by hand)"
            depth = max(depth - 1, 0) if kind == ">" else depth
        message = how or "git conflict marker (run `legion-memory doctor --fix`)"
        yield Problem(name, index + 1, ERROR, message)


def _plainly_a_table(document: Document, table: Table) -> bool:
    """True when mistune's pass would find this table, known without it: its every row has as
    many cells as the header (checked before), and every line opens and closes with a pipe at
    its edges, the closing one not escaped, with no double backslash (mistune reads `\\\\|` as
    an escaped backslash and a pipe) and no lone CR (which mistune reads as a line break). Then
    mistune splits each line into the same cells (docs/decisions.md#validate-skips-mistune)."""
    raw = "".join(document.lines[table.header : table.end])
    if "\r" in raw and "\r" in raw.replace("\r\n", ""):
        return False
    text = _table_text(document, table)
    lines = text.count("\n")
    return (
        text.startswith("|")
        and "\\\\" not in text
        and text.count("\n|") == lines - 1
        and text.count("|\n") == lines
        and "\\|\n" not in text
    )


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
    ordered = sorted(files, key=lambda item: path_is_live(item[0]))  # the archive first
    documents = [(name, parse(text), not path_is_live(path)) for path, name, text in ordered]
    return [
        Problem(twin.again.name, twin.again.line_index + 1, ERROR, twin.message())
        for twin in twins(documents)
    ]


def path_is_live(path: Path) -> bool:
    return path.name.upper() != ARCHIVE_FILENAME.upper()

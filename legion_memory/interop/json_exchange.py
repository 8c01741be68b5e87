"""The tool's own interchange format: every record with its kind, archive flag and ID, as JSON,
JSON Lines or CSV; and the JSON forms read back for `import json`, keeping every ID.

A record's keys are its columns in snake_case with typed values (importance an integer, resolved a
boolean, a numeric phase an integer), exactly as `--json` prints records everywhere else.
"""

import io
import json
from collections.abc import Sequence

from legion_memory.errors import InputError
from legion_memory.interop.import_items import (
    FIX_HINT,
    Conversion,
    Item,
    SourceFile,
    expect_list,
    expect_object,
    json_line,
    make_record,
)
from legion_memory.markdown.cells import escape
from legion_memory.named_tuple import NamedTuple
from legion_memory.schema.kinds import Kind, check_value, kind_named
from legion_memory.schema.records import Record
from legion_memory.schema.secrets import quoted, refuse_secrets
from legion_memory.storage import reading
from legion_memory.storage.bulk_append import live_records
from legion_memory.storage.reading import Memory

FORMATS = ("json", "jsonl", "csv")
EXPORT_FORMAT = "legion-memory-export"
EXPORT_VERSION = 1
_META = ("kind", "archived", "id")


class Exported(NamedTuple):
    record: Record
    archived: bool

    def to_json(self) -> dict[str, object]:
        kind = self.record.kind.singular
        return {"kind": kind, "archived": self.archived, **self.record.to_json()}


def check_format(name: str) -> str:
    if name not in FORMATS:
        raise InputError(f"unknown export format '{name}'", hint=f"use one of {', '.join(FORMATS)}")
    return name


def render_export(entries: Sequence[Exported], kinds: Sequence[Kind], fmt: str) -> str:
    """The export text; a CSV header lists the columns of every exported kind, even with no rows."""
    check_format(fmt)
    if fmt == "json":
        return export_json([entry.to_json() for entry in entries])
    if fmt == "jsonl":
        line = json.JSONEncoder(ensure_ascii=False).encode
        return "".join(line(entry.to_json()) + "\n" for entry in entries)
    return _csv(entries, kinds)


def export_json(records: Sequence[dict[str, object]]) -> str:
    """`json.dumps({"format": ..., "version": ..., "records": records}, ensure_ascii=False,
    indent=2)` and a newline, for records of plain values: each record is encoded by the C
    encoder (which `indent` turns off), its items joined by the line break and indentation the
    indented dump puts between them (docs/decisions.md#export-json-from-c)."""
    flat = json.JSONEncoder(ensure_ascii=False, separators=(",\n      ", ": ")).encode
    shown = [
        f"    {{\n      {flat(record)[1:-1]}\n    }}" if record else "    {}" for record in records
    ]
    body = "[\n" + ",\n".join(shown) + "\n  ]" if shown else "[]"
    head = json.dumps(EXPORT_FORMAT, ensure_ascii=False)
    return f'{{\n  "format": {head},\n  "version": {EXPORT_VERSION},\n  "records": {body}\n}}\n'


def _csv(entries: Sequence[Exported], kinds: Sequence[Kind]) -> str:
    keys = [key for kind in kinds for key in kind.keys]
    keys += [key for entry in entries for key in entry.record.extra_keys()]
    header = list(dict.fromkeys(["kind", "archived", *keys]))
    import csv  # the csv format's alone

    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    for entry in entries:
        meta = {"kind": entry.record.kind.singular, "archived": str(entry.archived).lower()}
        writer.writerow([meta.get(key, entry.record[key]) for key in header])
    return buffer.getvalue()


def export_records(memory: Memory, kinds: Sequence[Kind], include_archive: bool) -> list[Exported]:
    """Every record of the kinds, live rows in file order, then (when asked) archived ones."""
    entries = []
    for kind in kinds:
        entries += [Exported(record, False) for record in live_records(memory, kind)]
        if include_archive:
            entries += [Exported(record, True) for record in reading.load_archived(memory, kind)]
    return entries


def read_export(files: Sequence[SourceFile], default_branch: str) -> Conversion:
    """The records of `export --format json` (or jsonl) output, each keeping its ID. A record
    without a branch (from a legacy table) gets the default branch, as everywhere else."""
    result = Conversion()
    for file in files:
        for row, where in _rows(file):
            result.items.append(_item(row, where, default_branch))
    return result


def _rows(file: SourceFile) -> list[tuple[object, str]]:
    if not file.text.strip():
        return []  # an export of no records in JSON Lines is an empty file
    try:
        data = json.loads(file.text)
    except json.JSONDecodeError as error:
        if error.msg != "Extra data":
            raise InputError(
                f"invalid JSON: {error.msg}",
                where=f"{file.name}:{error.lineno}:{error.colno}",
                hint=FIX_HINT,
            ) from None
        lines = enumerate(file.text.split("\n"), start=1)
        return [(json_line(file, n, line), f"{file.name}:{n}") for n, line in lines if line.strip()]
    if isinstance(data, dict) and "kind" in data:
        return [(data, f"{file.name}:1")]  # JSON Lines holding one record
    if not isinstance(data, dict) or "records" not in data:
        raise InputError(
            "not a legion-memory export: no 'records' array",
            where=file.name,
            hint="give a file written by `legion-memory export --format json`",
        )
    if data.get("format", EXPORT_FORMAT) != EXPORT_FORMAT:
        raise InputError(f"unknown export format {quoted(str(data['format']))}", where=file.name)
    records = expect_list(data["records"], f"{file.name} at records")
    return [(record, f"{file.name} at records[{index}]") for index, record in enumerate(records)]


def _item(row: object, where: str, default_branch: str) -> Item:
    data = expect_object(row, where)
    try:
        kind = kind_named(str(data.get("kind", "")))
    except InputError as error:
        raise InputError(error.message, where=where, hint=error.hint) from error
    archived = data.get("archived", False)
    if not isinstance(archived, bool):
        raise InputError("'archived' must be true or false", where=where, hint=FIX_HINT)
    record_id = _cell(data, "id", where)
    problem = check_value(kind, "id", record_id)
    if problem:
        raise InputError(f"ID {quoted(record_id)} {problem}", where=where, hint=FIX_HINT)
    values = {key: _cell(data, key, where) for key in data if key not in _META}
    values["branch"] = values.get("branch") or default_branch
    record = make_record(kind, values, where)
    extras = {key: value for key, value in values.items() if kind.column(key) is None}
    for key, value in extras.items():
        try:
            refuse_secrets("a column name", key)  # before the name is shown in any message
            escape(value, single_line=True, field=key)
            refuse_secrets(key, value)
        except InputError as error:
            raise InputError(error.message, where=where, hint=FIX_HINT) from error
    kept = Record(kind, {**record.values, "id": record_id, **extras})
    return Item(kept, where, archived=archived)


def _cell(data: dict[str, object], key: str, where: str) -> str:
    """A value as cell text: booleans as true/false, integers in decimal, null as empty."""
    value = data.get(key)
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return value
    raise InputError(
        f"{quoted(key)} must be a string, integer or boolean", where=where, hint=FIX_HINT
    )

"""Import items: a record to add, where it came from, and the content hash that makes imports
idempotent. Shared by every importer, with the functions that turn foreign values into fields.
"""

import datetime as dt
import json
from collections.abc import Mapping
from pathlib import Path

from legion_memory.errors import InputError
from legion_memory.named_tuple import NamedTuple
from legion_memory.schema.kinds import Kind, new_record
from legion_memory.schema.records import Record
from legion_memory.storage.bulk_append import Removal

FIX_HINT = "fix the source file and import again"
NOT_RECORDED = "-"
"""A required free-text field the source has no value for."""
BASE_IMPORTANCE = {"success": "2", "partial": "3", "failed": "5"}
"""Importance from the outcome alone (the base of the design's table): imports carry no events."""


class SourceFile(NamedTuple):
    """One file of an import source: its path, its name as shown in messages, its text."""

    path: Path
    name: str
    text: str


class Item(NamedTuple):
    """One record to import. `key` is its content hash; empty when the record keeps its own ID
    (the tool's own export), which then identifies it instead."""

    record: Record
    origin: str
    key: str = ""
    archived: bool = False
    removal: Removal | None = None


class Skip(NamedTuple):
    """Something in the source that is not imported, and why."""

    origin: str
    reason: str


class Conversion:
    __slots__ = ("items", "skipped")

    def __init__(self) -> None:
        self.items: list[Item] = []
        self.skipped: list[Skip] = []

    def add(self, found: Item | Skip | None) -> None:
        if isinstance(found, Item):
            self.items.append(found)
        elif found is not None:
            self.skipped.append(found)

    def extend(self, other: "Conversion") -> None:
        self.items.extend(other.items)
        self.skipped.extend(other.skipped)


def content_hash(source: str, *parts: str) -> str:
    """16 hex digits of SHA-256 over the source name and the item's identifying values."""
    import hashlib  # an import's alone: `export` reads this module's types, never hashes

    data = json.dumps([source, *parts], ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(data.encode("utf-8")).hexdigest()[:16]


def make_record(kind: Kind, values: Mapping[str, str], where: str) -> Record:
    """`schema.new_record`, with a refusal (bad value, secret) pointing at the source position."""
    try:
        return new_record(kind, values)
    except InputError as error:
        raise InputError(error.message, where=where, hint=FIX_HINT) from error


def load_json(file: SourceFile) -> object:
    """The file's JSON value; a syntax error names the file, line and column."""
    try:
        return json.loads(file.text)
    except json.JSONDecodeError as error:
        raise InputError(
            f"invalid JSON: {error.msg}",
            where=f"{file.name}:{error.lineno}:{error.colno}",
            hint=FIX_HINT,
        ) from None


def json_line(file: SourceFile, number: int, line: str) -> object:
    """One line of a JSON Lines file; a syntax error names the file, line and column."""
    try:
        return json.loads(line)
    except json.JSONDecodeError as error:
        raise InputError(
            f"invalid JSON: {error.msg}", where=f"{file.name}:{number}:{error.colno}", hint=FIX_HINT
        ) from None


def expect_object(value: object, where: str) -> dict[str, object]:
    if not isinstance(value, dict):
        raise InputError(f"expected a JSON object, found {_json_type(value)}", where=where)
    return value


def expect_list(value: object, where: str) -> list[object]:
    if not isinstance(value, list):
        raise InputError(f"expected a JSON array, found {_json_type(value)}", where=where)
    return value


def text_of(data: Mapping[str, object], key: str, where: str) -> str:
    """A string member ('' when absent or null); numbers are taken as their decimal text."""
    value = data.get(key)
    if value is None:
        return ""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    raise InputError(f"'{key}' must be a string, found {_json_type(value)}", where=where)


def day_of(value: object, today: dt.date, where: str) -> str:
    """YYYY-MM-DD from an ISO date or timestamp, or epoch seconds/milliseconds; today if absent."""
    if value is None or value == "":
        return today.isoformat()
    if isinstance(value, int | float) and not isinstance(value, bool):
        seconds = value / 1000 if value > 1e11 else value  # JavaScript clocks count milliseconds
        try:
            return dt.datetime.fromtimestamp(seconds, tz=dt.UTC).date().isoformat()
        except (OverflowError, OSError, ValueError):
            pass
    elif isinstance(value, str):
        try:
            return dt.date.fromisoformat(value.strip()[:10]).isoformat()
        except ValueError:
            pass
    raise InputError(
        f"date {json.dumps(value, ensure_ascii=False)} is not a date",
        where=where,
        hint="use YYYY-MM-DD or an ISO timestamp",
    )


def token(text: str) -> str:
    """A value usable as an agent ID or task type: lowercase, spaces and commas become dashes."""
    cleaned = "-".join(text.lower().replace(",", " ").replace("|", " ").split())
    return cleaned


def _json_type(value: object) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}
    if value is None:
        return "null"
    return names.get(type(value), "a number")


IMPORTED_DECISION = "manual-edit"
"""Imported preferences are choices the user made by hand, not answers to an agent's proposal."""
IMPORTED_SIGNAL = "positive"


def pattern_values(day: str, branch: str, **values: str) -> dict[str, str]:
    return {"date": day, "branch": branch, "reuse_criteria": NOT_RECORDED, **values}


def error_values(day: str, branch: str, **values: str) -> dict[str, str]:
    return {"date": day, "branch": branch, "fix": NOT_RECORDED, "resolved": "false", **values}


def preference_values(day: str, branch: str, **values: str) -> dict[str, str]:
    defaults = {"decision_point": IMPORTED_DECISION, "signal": IMPORTED_SIGNAL}
    return {"date": day, "branch": branch, "proposed": NOT_RECORDED, **defaults, **values}

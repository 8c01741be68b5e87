"""The memory file kinds: their columns, header templates, ID prefixes, field rules and records."""

from __future__ import annotations

from collections.abc import Mapping

from legion_memory.errors import InputError
from legion_memory.markdown.cells import escape, unescape
from legion_memory.named_tuple import NamedTuple
from legion_memory.schema.fields import (
    DECISION_POINTS,
    OUTCOMES,
    SIGNALS,
    Rule,
    agents_rule,
    control_character,
    date_rule,
    free_rule,
    id_rule,
    importance_rule,
    not_text,
    one_of,
    phase_rule,
    plan_rule,
    resolved_rule,
    token_rule,
)
from legion_memory.schema.records import Record, column_key
from legion_memory.schema.secrets import quoted, refuse_secrets, secret_kind, secret_message

TYPE_CHECKING = False  # not typing's: docs/decisions.md#hot-paths-without-typing
if TYPE_CHECKING:
    from typing import Final

GENERAL = "general"
"""The task type of an outcome without one (rows written before task types existed)."""


class Column(NamedTuple):
    name: str
    key: str
    rule: Rule = free_rule
    required: bool = True
    single_line: bool = True
    secret_free: bool = False
    """Every value the rule takes is too short and too plain to hold a secret (an ID, a date,
    one of a few words): `validate` looks for one only in a value the rule refuses
    (tests/test_field_rules.py holds each such rule to it)."""


class Kind:
    """One kind of memory record and the file that holds it: the five kinds are module constants,
    compared by identity."""

    __slots__ = (
        "archive_section",
        "columns",
        "description",
        "filename",
        "keys",
        "name",
        "prefix",
        "section",
        "singular",
        "title",
    )
    name: Final[str]
    singular: Final[str]
    filename: Final[str]
    prefix: Final[str]
    section: Final[str]
    title: Final[str]
    description: Final[tuple[str, ...]]
    columns: Final[tuple[Column, ...]]
    keys: Final[tuple[str, ...]]
    archive_section: Final[str]

    def __init__(
        self,
        *,
        name: str,
        singular: str,
        filename: str,
        prefix: str,
        section: str,
        title: str,
        description: tuple[str, ...],
        columns: tuple[Column, ...],
    ) -> None:
        self.name = name
        self.singular = singular
        self.filename = filename
        self.prefix = prefix
        self.section = section
        self.title = title
        self.description = description
        self.columns = columns
        self.keys = tuple(column.key for column in columns)
        self.archive_section = "Archived Records" if name == "outcomes" else f"Archived {section}"

    def __repr__(self) -> str:
        return f"Kind({self.name!r})"

    def column(self, key: str) -> Column | None:
        return next((c for c in self.columns if c.key == key), None)

    def header_lines(self) -> list[str]:
        """Table header and delimiter, in the spec's exact spelling."""
        names = [column.name for column in self.columns]
        return ["| " + " | ".join(names) + " |", "|" + "|".join(_dashes(n) for n in names) + "|"]

    def template(self) -> str:
        """A new file: title, description, section heading, table header, no rows."""
        lines = [f"# {self.title}", "", *self.description, "", f"## {self.section}", ""]
        return "\n".join([*lines, *self.header_lines()]) + "\n"


def _dashes(name: str) -> str:
    # The spec pads each delimiter cell to its header's width plus two, except one it shortened.
    return "-" * _SPEC_DELIMITER_WIDTHS.get(name, len(name) + 2)


_SPEC_DELIMITER_WIDTHS = {"Decision Point": 15}


def _text(name: str, key: str, *, required: bool = True) -> Column:
    return Column(name, key, free_rule, required=required, single_line=False)


def _common(prefix: str) -> tuple[Column, ...]:
    return (
        Column("ID", "id", id_rule(prefix), secret_free=True),
        Column("Date", "date", date_rule, secret_free=True),
        Column("Branch", "branch", token_rule),
    )


OUTCOME = Kind(
    name="outcomes",
    singular="outcome",
    filename="OUTCOMES.md",
    prefix="O",
    section="Records",
    title="Memory — Outcome Log",
    description=(
        "Records agent performance and task outcomes for cross-session learning.",
        "Managed by memory-manager skill. Do not edit manually unless pruning old records.",
    ),
    columns=(
        *_common("O"),
        Column("Phase", "phase", phase_rule, secret_free=True),
        Column("Plan", "plan", plan_rule, secret_free=True),
        Column("Agent", "agent", agents_rule),
        Column("Task Type", "task_type", token_rule),
        Column("Outcome", "outcome", one_of(OUTCOMES), secret_free=True),
        Column("Importance", "importance", importance_rule, secret_free=True),
        Column("Tags", "tags", required=False),
        _text("Summary", "summary"),
    ),
)

PATTERN = Kind(
    name="patterns",
    singular="pattern",
    filename="PATTERNS.md",
    prefix="P",
    section="Patterns",
    title="Memory — Pattern Library",
    description=(
        "Successful patterns distilled from agent outcomes. Each pattern captures what worked, "
        "under what conditions, and when to reuse it.",
        "Managed by memory-manager skill. Do not edit manually unless curating entries.",
    ),
    columns=(
        *_common("P"),
        _text("Pattern", "pattern"),
        _text("Context", "context"),
        _text("Reuse Criteria", "reuse_criteria"),
        Column("Source", "source", required=False),
        Column("Tags", "tags", required=False),
    ),
)

ERROR_FIX = Kind(
    name="errors",
    singular="error",
    filename="ERRORS.md",
    prefix="E",
    section="Errors",
    title="Memory — Error Fixes",
    description=(
        "Error signatures mapped to known fixes. When an agent encounters a matching error, it "
        "should try the documented fix before investigating from scratch.",
        "Managed by memory-manager skill. Do not edit manually unless curating entries.",
    ),
    columns=(
        *_common("E"),
        _text("Error Signature", "error_signature"),
        _text("Fix", "fix"),
        Column("Agent", "agent", agents_rule),
        Column("Resolved", "resolved", resolved_rule, secret_free=True),
        Column("Tags", "tags", required=False),
    ),
)

PREFERENCE = Kind(
    name="preferences",
    singular="preference",
    filename="PREFERENCES.md",
    prefix="D",
    section="Preferences",
    title="Memory — User Preferences",
    description=(
        "Decision signals from user interactions with agent proposals. Each record captures what "
        "was proposed, what the user chose, and the preference signal. Used by /legion:plan to "
        "improve agent and approach recommendations.",
        "Managed by memory-manager skill. Do not edit manually unless curating entries.",
    ),
    columns=(
        *_common("D"),
        Column("Decision Point", "decision_point", one_of(DECISION_POINTS), secret_free=True),
        _text("Context", "context"),
        _text("Proposed", "proposed"),
        _text("User Choice", "user_choice"),
        Column("Signal", "signal", one_of(SIGNALS), secret_free=True),
        Column("Agent", "agent", agents_rule),
        Column("Tags", "tags", required=False),
    ),
)

KINDS: dict[str, Kind] = {kind.name: kind for kind in (OUTCOME, PATTERN, ERROR_FIX, PREFERENCE)}
REFERENCE_KEYS = frozenset({"source"})
"""Cells that cite another record by ID: a renumbering rewrites them, they are no part of a
record's identity (`schema.identity`)."""

_UPDATED_IN_PLACE: Mapping[str, tuple[str, ...]] = {
    ERROR_FIX.name: ("date", "branch", "error_signature"),
}


def identity_keys(kind: Kind) -> tuple[str, ...]:
    """The columns whose values make up a record's identity (`schema.identity`): an error fix's
    Fix and Resolved are updated in place, so its identity is its signature, date and branch.
    Here beside the columns, so that a store reads it without importing the identity rules."""
    if kind.name in _UPDATED_IN_PLACE:
        return _UPDATED_IN_PLACE[kind.name]
    return tuple(key for key in kind.keys if key != "id" and key not in REFERENCE_KEYS)


ARCHIVE_FILENAME = "ARCHIVE.md"
ARCHIVE_TITLE = "Memory — Archived Outcomes"
ARCHIVE_DESCRIPTION = (
    "Pruned records from OUTCOMES.md. Preserved for historical reference.",
    "Records archived by memory-manager prune operation. Do not edit manually.",
)


def kind_named(name: str) -> Kind:
    """Look a kind up by plural or singular name (`outcomes`, `outcome`)."""
    for kind in KINDS.values():
        if name in (kind.name, kind.singular):
            return kind
    raise InputError(f"unknown memory kind {quoted(name)}", hint=f"use one of {', '.join(KINDS)}")


def kind_of_filename(filename: str) -> Kind | None:
    """The kind a memory file's name names (`OUTCOMES.md`, `legacy-OUTCOMES.md`), or None."""
    upper = filename.upper()
    for kind in KINDS.values():
        if kind.filename.upper().removesuffix(".MD") in upper:
            return kind
    return None


def kind_of_id(record_id: str) -> Kind | None:
    prefix = record_id.split("-", 1)[0]
    return next((kind for kind in KINDS.values() if kind.prefix == prefix), None)


def archive_template() -> str:
    lines = [
        f"# {ARCHIVE_TITLE}",
        "",
        *ARCHIVE_DESCRIPTION,
        "",
        f"## {OUTCOME.archive_section}",
        "",
    ]
    return "\n".join([*lines, *OUTCOME.header_lines()]) + "\n"


def archive_section_lines(kind: Kind) -> list[str]:
    """A kind's archive table, appended to ARCHIVE.md the first time that kind is archived."""
    return [f"## {kind.archive_section}", "", *kind.header_lines()]


def check_value(kind: Kind, key: str, value: str) -> str | None:
    """What is wrong with one field value, or None."""
    column = kind.column(key)
    return None if column is None else column_problem(column, value)


def column_problem(column: Column, value: str) -> str | None:
    """What is wrong with a value of `column`, or None (`check_value` once the column is known)."""
    if not value:
        return "is required" if column.required else None
    return column.rule(value)


def problems(record: Record) -> list[str]:
    """Every field problem of a record read from a file, as `Column 'value' what is wrong`; a
    value that looks like a secret is named by its kind, never quoted."""
    found = []
    for column in record.kind.columns:
        if column.key not in record.values:
            continue
        value = record[column.key]
        kind = secret_kind(value)
        if kind is not None:
            found.append(secret_message(column.name, kind))
            continue
        problem = check_value(record.kind, column.key, value)
        if problem:
            found.append(f"{column.name} '{value}' {problem}")
    return found


def require_valid(kind: Kind, key: str, value: str) -> None:
    """InputError when a caller's value is a secret or breaks its column's rule. The secret check
    comes first: only a value it cleared is ever quoted back."""
    column = kind.column(key)
    name = column.name if column else key
    refuse_secrets(name, value)
    control = control_character(value)
    if control:
        raise InputError(
            f"{name} holds a control character ({control})", hint="remove it and retry"
        )
    if not_text(value):
        raise InputError(
            f"{name} holds bytes that are not UTF-8 text", hint="pass the value as UTF-8 and retry"
        )
    problem = check_value(kind, key, value)
    if problem:
        shown = f" '{value}'" if value else ""
        raise InputError(f"{name}{shown} {problem}", hint="fix the value and retry")


def new_record(kind: Kind, values: Mapping[str, str]) -> Record:
    """Validate caller-supplied values (no ID yet) into a record; InputError on a bad one."""
    clean: dict[str, str] = {}
    for column in kind.columns:
        if column.key == "id":
            continue
        cell = escape(values.get(column.key, ""), single_line=column.single_line, field=column.name)
        # The value as it will read back (CRLF and a typed `<br>` become a line break), so the
        # check that re-reads the written file compares like with like.
        value = unescape(cell)
        require_valid(kind, column.key, value)
        clean[column.key] = value
    return Record(kind, {"id": "", **clean})


def row_for(record: Record, columns: tuple[str, ...]) -> list[str]:
    """The escaped cells of a record in the order of an existing table's columns."""
    multiline = {c.key for c in record.kind.columns if not c.single_line}
    cells = []
    for name in columns:
        key = column_key(name)
        cells.append(escape(record[key], single_line=key not in multiline, field=name))
    return cells

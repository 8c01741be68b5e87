"""The pattern, error-fix and preference commands (`store|recall pattern(s)|error(s)|
preference(s)`, `score preferences`): parse -> one call into `operations.knowledge` -> print.

No typer here: the lean dispatcher and the typer app call these alike, through `hot_commands.run`,
with the options by their names in `operations/option_spec.py`, which are the operations' keyword
arguments.
"""

from __future__ import annotations

from typing import Any

from legion_memory.cli.actions.knowledge_output import (
    print_recalled_errors,
    print_recalled_rows,
    print_stored,
)
from legion_memory.cli.context import Context
from legion_memory.cli.output import emit, markdown_table
from legion_memory.operations import knowledge
from legion_memory.schema.kinds import PATTERN, PREFERENCE


def store_pattern(context: Context, **options: Any) -> None:
    print_stored(context, knowledge.store_pattern(context, **options))


def store_error(context: Context, **options: Any) -> None:
    print_stored(context, knowledge.store_error(context, **options))


def store_preference(context: Context, **options: Any) -> None:
    print_stored(context, knowledge.store_preference(context, **options))


def recall_patterns(context: Context, **options: Any) -> None:
    print_recalled_rows(context, PATTERN, knowledge.recall_patterns(context, **options))


def recall_errors(context: Context, **options: Any) -> None:
    print_recalled_errors(context, knowledge.recall_errors(context, **options))


def recall_preferences(context: Context, **options: Any) -> None:
    print_recalled_rows(context, PREFERENCE, knowledge.recall_preferences(context, **options))


def score_preferences(context: Context, **options: Any) -> None:
    found = knowledge.score_preferences(context, **options)
    rows = [(t.agent, f"{t.boost:g}", t.positive, t.corrective, t.negative) for t in found.tallies]
    headers = ("Agent", "Boost", "Positive", "Corrective", "Negative")
    scores = markdown_table(headers, rows) if rows else ""
    human = "\n\n".join(part for part in (scores, "\n".join(found.advice)) if part)
    emit(context, found.to_json(), human)

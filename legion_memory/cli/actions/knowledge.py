"""The pattern, error-fix and preference commands (`store|recall pattern(s)|error(s)|
preference(s)`, `score preferences`): parse -> one call into `operations.knowledge` -> print.

No typer here: the lean dispatcher and the typer app call these alike, through `hot_commands.run`.
"""

from __future__ import annotations

from collections.abc import Sequence

from legion_memory.cli.actions.knowledge_output import (
    print_recalled_errors,
    print_recalled_rows,
    print_stored,
)
from legion_memory.cli.context import Context
from legion_memory.cli.output import emit, markdown_table
from legion_memory.knowledge import preferences
from legion_memory.knowledge.filters import ALL_BRANCHES
from legion_memory.operations import knowledge
from legion_memory.schema.kinds import PATTERN, PREFERENCE
from legion_memory.storage import scopes


def store_pattern(
    context: Context,
    *,
    pattern: str,
    situation: str,
    reuse: str,
    source: str = "",
    tags: str = "",
    scope: str = scopes.PROJECT,
) -> None:
    print_stored(context, knowledge.store_pattern(
        context, pattern=pattern, situation=situation, reuse=reuse, source=source, tags=tags,
        scope=scope,
    ))  # fmt: skip


def store_error(
    context: Context,
    *,
    signature: str,
    fix: str,
    agent: str,
    resolved: bool,
    tags: str = "",
    scope: str = scopes.PROJECT,
) -> None:
    print_stored(context, knowledge.store_error(
        context, signature=signature, fix=fix, agent=agent, resolved=resolved, tags=tags,
        scope=scope,
    ))  # fmt: skip


def store_preference(
    context: Context,
    *,
    decision_point: str,
    situation: str,
    proposed: str,
    choice: str,
    signal: str,
    agent: str,
    tags: str = "",
    scope: str = scopes.PROJECT,
) -> None:
    print_stored(context, knowledge.store_preference(
        context, decision_point=decision_point, situation=situation, proposed=proposed,
        choice=choice, signal=signal, agent=agent, tags=tags, scope=scope,
    ))  # fmt: skip


def recall_patterns(
    context: Context,
    *,
    tag: Sequence[str] | None = None,
    branch: str = ALL_BRANCHES,
    limit: int = 10,
    scope: str = scopes.PROJECT,
) -> None:
    recalled = knowledge.recall_patterns(context, tag=tag, branch=branch, limit=limit, scope=scope)
    print_recalled_rows(context, PATTERN, recalled)


def recall_errors(
    context: Context,
    *,
    error_text: str | None = None,
    tag: Sequence[str] | None = None,
    branch: str = ALL_BRANCHES,
    limit: int = 5,
    scope: str = scopes.PROJECT,
) -> None:
    print_recalled_errors(context, knowledge.recall_errors(
        context, error_text=error_text, tag=tag, branch=branch, limit=limit, scope=scope
    ))  # fmt: skip


def recall_preferences(
    context: Context,
    *,
    signal: str = preferences.ALL,
    decision_point: str = preferences.ALL,
    tag: Sequence[str] | None = None,
    agent: str | None = None,
    branch: str = ALL_BRANCHES,
    limit: int = 10,
    scope: str = scopes.PROJECT,
) -> None:
    recalled = knowledge.recall_preferences(
        context, signal=signal, decision_point=decision_point, tag=tag, agent=agent,
        branch=branch, limit=limit, scope=scope,
    )  # fmt: skip
    print_recalled_rows(context, PREFERENCE, recalled)


def score_preferences(
    context: Context, *, agent: Sequence[str] | None = None, include_global: bool = False
) -> None:
    found = knowledge.score_preferences(context, agent=agent, include_global=include_global)
    rows = [(t.agent, f"{t.boost:g}", t.positive, t.corrective, t.negative) for t in found.tallies]
    headers = ("Agent", "Boost", "Positive", "Corrective", "Negative")
    scores = markdown_table(headers, rows) if rows else ""
    human = "\n\n".join(part for part in (scores, "\n".join(found.advice)) if part)
    emit(context, found.to_json(), human)

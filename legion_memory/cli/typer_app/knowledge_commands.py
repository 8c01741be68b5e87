"""`store|recall pattern(s)|error(s)|preference(s)` and `score preferences`.

Typer wiring only: each command hands all its options to its action in `knowledge_actions`.
"""

from __future__ import annotations

from typing import Annotated

import typer

from legion_memory.cli.typer_app.groups import recall_app, run_hot, score_app, store_app
from legion_memory.cli.typer_app.scope_option import (
    IncludeGlobalOption,
    ScopeOption,
    WriteScopeOption,
)
from legion_memory.knowledge import preferences
from legion_memory.knowledge.filters import ALL_BRANCHES
from legion_memory.schema.fields import DECISION_POINTS, SIGNALS
from legion_memory.storage import scopes

TagsOption = Annotated[str, typer.Option(help="Comma-separated keywords.")]
TagFilter = Annotated[
    list[str] | None, typer.Option("--tag", help="Keep records with this tag (repeatable).")
]
BranchFilter = Annotated[
    str, typer.Option("--branch", help="all, current (the checked-out branch) or a branch name.")
]


def register(app: typer.Typer) -> None:
    store_app.command("pattern")(_store_pattern)
    store_app.command("error")(_store_error)
    store_app.command("preference")(_store_preference)
    recall_app.command("patterns")(_recall_patterns)
    recall_app.command("errors")(_recall_errors)
    recall_app.command("preferences")(_recall_preferences)
    score_app.command("preferences")(_score_preferences)


def _store_pattern(
    ctx: typer.Context,
    pattern: Annotated[str, typer.Option(help="What was done that worked.")],
    situation: Annotated[str, typer.Option("--context", help="The situation where it worked.")],
    reuse: Annotated[str, typer.Option(help="When future agents should apply it again.")],
    source: Annotated[
        str, typer.Option(help="The outcome it came from (O-NNN) or a description.")
    ] = "",
    tags: TagsOption = "",
    scope: WriteScopeOption = scopes.PROJECT,
) -> None:
    """Store a pattern in PATTERNS.md."""
    run_hot(ctx, "store pattern", locals())


def _store_error(
    ctx: typer.Context,
    signature: Annotated[str, typer.Option(help="The error message or pattern, enough to match.")],
    fix: Annotated[str, typer.Option(help="What resolved the error (specific actions).")],
    agent: Annotated[str, typer.Option(help="The agent that resolved it.")],
    resolved: Annotated[
        bool, typer.Option("--resolved/--unresolved", help="Whether the fix was verified to work.")
    ],
    tags: TagsOption = "",
    scope: WriteScopeOption = scopes.PROJECT,
) -> None:
    """Store an error fix in ERRORS.md; a duplicate is skipped (resolved) or updated in place."""
    run_hot(ctx, "store error", locals())


def _store_preference(
    ctx: typer.Context,
    decision_point: Annotated[str, typer.Option(help=f"One of {', '.join(DECISION_POINTS)}.")],
    situation: Annotated[str, typer.Option("--context", help="Phase, plan, cycle and situation.")],
    proposed: Annotated[str, typer.Option(help="What the agent or system proposed.")],
    choice: Annotated[str, typer.Option(help="What the user actually did.")],
    signal: Annotated[str, typer.Option(help=f"One of {', '.join(SIGNALS)}.")],
    agent: Annotated[str, typer.Option(help="The agent whose proposal was judged, or system.")],
    tags: TagsOption = "",
    scope: WriteScopeOption = scopes.PROJECT,
) -> None:
    """Store a user preference signal in PREFERENCES.md."""
    run_hot(ctx, "store preference", locals())


def _recall_patterns(
    ctx: typer.Context,
    tag: TagFilter = None,
    branch: BranchFilter = ALL_BRANCHES,
    limit: Annotated[int, typer.Option(help="At most this many patterns.")] = 10,
    scope: ScopeOption = scopes.PROJECT,
) -> None:
    """Recall patterns, most recent first."""
    run_hot(ctx, "recall patterns", locals())


def _recall_errors(
    ctx: typer.Context,
    error_text: Annotated[str | None, typer.Option(help="The error message to match.")] = None,
    tag: TagFilter = None,
    branch: BranchFilter = ALL_BRANCHES,
    limit: Annotated[int, typer.Option(help="At most this many fixes.")] = 5,
    scope: ScopeOption = scopes.PROJECT,
) -> None:
    """Recall known fixes: resolved first, then by keywords shared with --error-text."""
    run_hot(ctx, "recall errors", locals())


def _recall_preferences(
    ctx: typer.Context,
    signal: Annotated[str, typer.Option(help=f"{', '.join(SIGNALS)} or all.")] = preferences.ALL,
    decision_point: Annotated[str, typer.Option(help="A decision point or all.")] = preferences.ALL,
    tag: TagFilter = None,
    agent: Annotated[str | None, typer.Option(help="Only signals about this agent.")] = None,
    branch: BranchFilter = ALL_BRANCHES,
    limit: Annotated[int, typer.Option(help="At most this many signals.")] = 10,
    scope: ScopeOption = scopes.PROJECT,
) -> None:
    """Recall preference signals, most recent first."""
    run_hot(ctx, "recall preferences", locals())


def _score_preferences(
    ctx: typer.Context,
    agent: Annotated[
        list[str] | None, typer.Option("--agent", help="Agents to score (default: every agent).")
    ] = None,
    include_global: IncludeGlobalOption = False,
) -> None:
    """Preference boosts as {"agent-id": boost} plus advisory notes on corrective clusters."""
    run_hot(ctx, "score preferences", locals())

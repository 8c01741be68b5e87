"""`store|recall pattern(s)|error(s)|preference(s)` and `score preferences`.

Typer wiring only: each command hands all its options to its action in `knowledge_actions`.
"""

from __future__ import annotations

from typing import Annotated

import typer

from legion_memory.cli.typer_app.choices import (
    DecisionPoint,
    DecisionPointFilter,
    Signal,
    SignalFilter,
)
from legion_memory.cli.typer_app.groups import recall_app, run_hot, score_app, store_app
from legion_memory.cli.typer_app.scope_option import (
    IncludeGlobalOption,
    ScopeOption,
    WriteScopeOption,
)
from legion_memory.cli.typer_app.shared_options import (
    BranchFilter,
    TagFilter,
    TagsOption,
    agent_filter,
    limit_option,
)
from legion_memory.knowledge.filters import ALL_BRANCHES


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
    pattern: Annotated[str, typer.Option(metavar="TEXT", help="What was done that worked.")],
    situation: Annotated[
        str, typer.Option("--context", metavar="TEXT", help="The situation where it worked.")
    ],
    reuse: Annotated[
        str, typer.Option(metavar="TEXT", help="When future agents should apply it again.")
    ],
    source: Annotated[
        str,
        typer.Option(metavar="ID", help="The outcome it came from (O-NNN) or a description."),
    ] = "",
    tags: TagsOption = "",
    scope: WriteScopeOption = "project",
) -> None:
    """Store a pattern in PATTERNS.md."""
    run_hot(ctx, "store pattern", locals())


def _store_error(
    ctx: typer.Context,
    signature: Annotated[
        str,
        typer.Option(metavar="TEXT", help="The error message or pattern, enough to match."),
    ],
    fix: Annotated[
        str, typer.Option(metavar="TEXT", help="What resolved the error (specific actions).")
    ],
    agent: Annotated[str, typer.Option(metavar="AGENT", help="The agent that resolved it.")],
    resolved: Annotated[
        bool, typer.Option("--resolved/--unresolved", help="Whether the fix was verified to work.")
    ],
    tags: TagsOption = "",
    scope: WriteScopeOption = "project",
) -> None:
    """Store an error fix in ERRORS.md; a duplicate is skipped (resolved) or updated in place."""
    run_hot(ctx, "store error", locals())


def _store_preference(
    ctx: typer.Context,
    decision_point: Annotated[DecisionPoint, typer.Option(help="Where the user decided.")],
    situation: Annotated[
        str,
        typer.Option("--context", metavar="TEXT", help="Phase, plan, cycle and situation."),
    ],
    proposed: Annotated[
        str, typer.Option(metavar="TEXT", help="What the agent or system proposed.")
    ],
    choice: Annotated[str, typer.Option(metavar="TEXT", help="What the user actually did.")],
    signal: Annotated[Signal, typer.Option(help="How the user judged the proposal.")],
    agent: Annotated[
        str,
        typer.Option(metavar="AGENT", help="The agent whose proposal was judged, or system."),
    ],
    tags: TagsOption = "",
    scope: WriteScopeOption = "project",
) -> None:
    """Store a user preference signal in PREFERENCES.md."""
    run_hot(ctx, "store preference", locals())


def _recall_patterns(
    ctx: typer.Context,
    tag: TagFilter = None,
    branch: BranchFilter = ALL_BRANCHES,
    limit: Annotated[int, limit_option("patterns")] = 10,
    scope: ScopeOption = "project",
) -> None:
    """Recall patterns, most recent first."""
    run_hot(ctx, "recall patterns", locals())


def _recall_errors(
    ctx: typer.Context,
    error_text: Annotated[
        str | None, typer.Option(metavar="TEXT", help="The error message to match.")
    ] = None,
    tag: TagFilter = None,
    branch: BranchFilter = ALL_BRANCHES,
    limit: Annotated[int, limit_option("fixes")] = 5,
    scope: ScopeOption = "project",
) -> None:
    """Recall known fixes: resolved first, then by keywords shared with --error-text."""
    run_hot(ctx, "recall errors", locals())


def _recall_preferences(
    ctx: typer.Context,
    signal: Annotated[SignalFilter, typer.Option(help="Only this signal.")] = "all",
    decision_point: Annotated[
        DecisionPointFilter, typer.Option(help="Only this decision point.")
    ] = "all",
    tag: TagFilter = None,
    agent: Annotated[str | None, agent_filter("Only signals about this agent.")] = None,
    branch: BranchFilter = ALL_BRANCHES,
    limit: Annotated[int, limit_option("signals")] = 10,
    scope: ScopeOption = "project",
) -> None:
    """Recall preference signals, most recent first."""
    run_hot(ctx, "recall preferences", locals())


def _score_preferences(
    ctx: typer.Context,
    agent: Annotated[
        list[str] | None,
        typer.Option("--agent", metavar="AGENT", help="Agents to score (default: every agent)."),
    ] = None,
    include_global: IncludeGlobalOption = False,
) -> None:
    """Preference boosts as {"agent-id": boost} plus advisory notes on corrective clusters."""
    run_hot(ctx, "score preferences", locals())

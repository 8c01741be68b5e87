"""`store outcome`, `recall outcomes`, `score agents|archetypes`, `briefing` and `migrate`.

Typer wiring only: each hot command hands all its options to its action in `outcome_actions`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from legion_memory.cli.typer_app.groups import recall_app, run_hot, score_app, store_app
from legion_memory.cli.typer_app.scope_option import (
    IncludeGlobalOption,
    ScopeOption,
    WriteScopeOption,
)
from legion_memory.knowledge.filters import ALL_BRANCHES
from legion_memory.storage import scopes


def register(app: typer.Typer) -> None:
    store_app.command("outcome")(store_outcome)
    recall_app.command("outcomes")(recall_outcomes)
    score_app.command("agents")(score_agents)
    score_app.command("archetypes")(score_archetypes)
    app.command()(briefing)
    app.command()(migrate)


# --- store outcome ---------------------------------------------------------------------------


_TASK_TYPE = typer.Option(help="Task type (default: the agent's first in CATALOG.md).")
_IMPORTANCE = typer.Option(help="1-5; skips the importance calculation.")
_EVENT = typer.Option(
    help="plan-success, plan-partial, plan-failed, review-pass, review-multi-cycle, "
    "review-escalated or trivial: the base of the importance."
)
_BLOCKERS = typer.Option(help="Blockers the review found (3 or more add one).")
_FROM_SUMMARY = typer.Option(help="Fill plan, phase, agent, outcome, summary from a SUMMARY file.")


def store_outcome(
    ctx: typer.Context,
    phase: Annotated[str | None, typer.Option(help="Phase number, or N/A.")] = None,
    plan: Annotated[str | None, typer.Option(help="Plan ID NN-PP, board or -.")] = None,
    agent: Annotated[str | None, typer.Option(help="Agent ID, or a comma-separated list.")] = None,
    outcome: Annotated[str | None, typer.Option(help="success, partial or failed.")] = None,
    summary: Annotated[str | None, typer.Option(help="One line on what happened.")] = None,
    task_type: Annotated[str | None, _TASK_TYPE] = None,
    tags: Annotated[str, typer.Option(help="Comma-separated keywords.")] = "",
    importance: Annotated[int | None, _IMPORTANCE] = None,
    event: Annotated[str | None, _EVENT] = None,
    blockers: Annotated[int, _BLOCKERS] = 0,
    from_summary: Annotated[Path | None, _FROM_SUMMARY] = None,
    dry_run: Annotated[bool, typer.Option(help="Show the record without storing it.")] = False,
    scope: WriteScopeOption = scopes.PROJECT,
) -> None:
    """Store one outcome with the next free ID; prints the stored row."""
    run_hot(ctx, "store outcome", locals())


# --- recall, scores, briefing ------------------------------------------------------------------


def recall_outcomes(
    ctx: typer.Context,
    tag: Annotated[
        list[str] | None, typer.Option(help="Keep records with any of these tags (repeatable).")
    ] = None,
    agent: Annotated[str | None, typer.Option(help="Keep records crediting this agent.")] = None,
    task_type: Annotated[str | None, typer.Option(help="Keep records of this task type.")] = None,
    branch: Annotated[str, typer.Option(help="all, current, or a branch name.")] = ALL_BRANCHES,
    limit: Annotated[int, typer.Option(min=1, help="At most this many records.")] = 20,
    scope: ScopeOption = scopes.PROJECT,
) -> None:
    """Outcomes best first by importance x recency; those scoring under 0.2 are left out."""
    run_hot(ctx, "recall outcomes", locals())


def score_agents(
    ctx: typer.Context,
    task_type: Annotated[
        list[str], typer.Option(help="Task types to score on (repeatable, or comma-separated).")
    ],
    include_global: IncludeGlobalOption = False,
) -> None:
    """Legion's memoryScores: {"agent-id": score} for agents with at least two matching tasks."""
    run_hot(ctx, "score agents", locals())


def score_archetypes(
    ctx: typer.Context,
    task_type: Annotated[
        list[str] | None, typer.Option(help="Only these task types (default: all).")
    ] = None,
    include_global: IncludeGlobalOption = False,
    keyspace: Annotated[
        str,
        typer.Option(
            help="catalog (the records' Task Types) or engine (the recommendation engine's "
            "task types, which /legion:plan passes as archetypeScores)."
        ),
    ] = "catalog",
) -> None:
    """Legion's archetypeScores: per task type, its agents, success rate and top agent."""
    run_hot(ctx, "score archetypes", locals())


def briefing(ctx: typer.Context) -> None:
    """The `## Memory` block of /legion:status; prints nothing when there is no memory."""
    run_hot(ctx, "briefing", locals())


# --- migrate ---------------------------------------------------------------------------------


def migrate(
    ctx: typer.Context,
    dry_run: Annotated[bool, typer.Option(help="Show the diff without changing anything.")] = False,
) -> None:
    """Add the spec's missing columns (Branch first) to legacy memory tables."""
    from legion_memory.cli.typer_app.migrate_command import run_migrate

    run_migrate(ctx.obj, dry_run)

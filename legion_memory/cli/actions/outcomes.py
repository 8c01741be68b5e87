"""The outcome commands (`store outcome`, `recall outcomes`, `score agents|archetypes`,
`briefing`): parse -> one call into `operations.outcomes` -> print.

No typer here: the lean dispatcher and the typer app call these alike, through `hot_commands.run`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from legion_memory.cli.context import Context
from legion_memory.cli.output import emit, markdown_table
from legion_memory.cli.tiers import marked, scoped_cells
from legion_memory.operations import outcomes
from legion_memory.operations.common import Recalled
from legion_memory.schema.records import Record, column_key
from legion_memory.storage import scopes


def store_outcome(
    context: Context,
    phase: str | None,
    plan: str | None,
    agent: str | None,
    outcome: str | None,
    summary: str | None,
    task_type: str | None,
    tags: str,
    importance: int | None,
    event: str | None,
    blockers: int,
    from_summary: Path | None,
    dry_run: bool,
    scope: str = scopes.PROJECT,
) -> None:
    stored = outcomes.store_outcome(
        context, phase=phase, plan=plan, agent=agent, outcome=outcome, summary=summary,
        task_type=task_type, tags=tags, importance=importance, event=event, blockers=blockers,
        from_summary=from_summary, dry_run=dry_run, scope=scope,
    )  # fmt: skip
    print_stored(context, stored)


def print_stored(context: Context, stored: outcomes.StoredOutcome) -> None:
    if stored.record is not None:
        emit(context, stored.to_json(), _row_table(stored.scope, stored.record, stored.columns))


def _row_table(scope: str, record: Record, columns: Sequence[str]) -> str:
    """The row as a table; a Scope column first when it went to the global tier."""
    show = marked(scope)
    headers = scoped_cells(show, "Scope", list(columns))
    return markdown_table(
        headers, [scoped_cells(show, scope, [record[column_key(name)] for name in columns])]
    )


def recall_outcomes(
    context: Context,
    tag: Sequence[str] | None,
    agent: str | None,
    task_type: str | None,
    branch: str,
    limit: int,
    scope: str = scopes.PROJECT,
) -> None:
    recalled = outcomes.recall_outcomes(
        context, tag=tag, agent=agent, task_type=task_type, branch=branch, limit=limit, scope=scope
    )
    emit(context, recalled.to_json(), _recalled_table(recalled))


def _recalled_table(recalled: Recalled) -> str:
    if not recalled.results:
        return ""
    show = marked(recalled.scope)
    headers = ["ID", "Date", "Branch", "Agent", "Task Type", "Outcome", "Importance"]
    rows = [
        scoped_cells(show, m.scope, [*(m.item.record[column_key(h)] for h in headers),
                                     f"{m.item.decay_score:g}", m.item.record["summary"]])
        for m in recalled.results
    ]  # fmt: skip
    return markdown_table(scoped_cells(show, "Scope", [*headers, "Decay", "Summary"]), rows)


def score_agents(context: Context, task_type: Sequence[str], include_global: bool = False) -> None:
    scores = outcomes.score_agents(context, task_type=task_type, include_global=include_global)
    rows = [[agent, f"{score:g}"] for agent, score in scores.scores.items()]
    emit(context, scores.to_json(), markdown_table(["Agent", "Score"], rows) if rows else "")


def score_archetypes(
    context: Context, task_type: Sequence[str] | None, include_global: bool = False
) -> None:
    scores = outcomes.score_archetypes(context, task_type=task_type, include_global=include_global)
    headers = ["Task Type", "Outcomes", "Success Rate", "Avg Importance", "Top Agent", "Agents"]
    rows = [
        [
            name,
            data["totalOutcomes"],
            f"{data['successRate']:g}",
            f"{data['avgImportance']:g}",
            data["topAgent"] or "-",
            ", ".join(data["agents"]),
        ]
        for name, data in scores.scores.items()
    ]
    emit(context, scores.to_json(), markdown_table(headers, rows) if rows else "")


def briefing(context: Context) -> None:
    from legion_memory.knowledge.scoring import briefing_markdown

    data = outcomes.memory_briefing(context)
    emit(context, data.to_json(), briefing_markdown(data))

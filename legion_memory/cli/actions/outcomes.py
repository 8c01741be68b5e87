"""The outcome commands (`store outcome`, `recall outcomes`, `score agents|archetypes`,
`briefing`): parse -> one call into `operations.outcomes` -> print.

No typer here: the lean dispatcher and the typer app call these alike, through `hot_commands.run`.
"""

from __future__ import annotations

from collections.abc import Sequence

from legion_memory.cli.context import Context
from legion_memory.cli.output import emit, markdown_table
from legion_memory.cli.tiers import marked, scoped_cells
from legion_memory.operations import outcomes
from legion_memory.schema.records import Record, column_key

TYPE_CHECKING = False  # not typing's: docs/decisions.md#hot-paths-without-typing
if TYPE_CHECKING:
    from typing import Any

    from legion_memory.operations.common import Recalled


def store_outcome(context: Context, **options: Any) -> None:
    print_stored(context, outcomes.store_outcome(context, **options))


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


def recall_outcomes(context: Context, **options: Any) -> None:
    recalled = outcomes.recall_outcomes(context, **options)
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


def score_agents(context: Context, **options: Any) -> None:
    scores = outcomes.score_agents(context, **options)
    rows = [[agent, f"{score:g}"] for agent, score in scores.scores.items()]
    emit(context, scores.to_json(), markdown_table(["Agent", "Score"], rows) if rows else "")


def score_archetypes(context: Context, **options: Any) -> None:
    scores = outcomes.score_archetypes(context, **options)
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

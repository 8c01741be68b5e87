"""What `store outcome`, `recall outcomes`, `score agents|archetypes` and `briefing` do.

Plain functions of the Context and the command's options (no typer here): the lean dispatcher and
the typer app call them alike, through `hot.run`. The core modules only some of them need
(catalog, importance, scoring) are imported inside those: a cold start pays for every import.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING

from legion_memory.cli.context import Context
from legion_memory.cli.output import emit, markdown_table, note
from legion_memory.cli.tiers import marked, scoped_cells, scoped_json, unreadable_warning
from legion_memory.errors import InputError, ParseError
from legion_memory.knowledge.decay import Scored
from legion_memory.knowledge.filters import ALL_BRANCHES, CURRENT_BRANCH, on_branch
from legion_memory.project.root import confine
from legion_memory.schema.kinds import OUTCOME
from legion_memory.schema.records import Record, TableRows, column_key, read_records, split_list
from legion_memory.storage import reading, scopes, writing

if TYPE_CHECKING:
    from legion_memory.knowledge.outcomes import BuiltOutcome, OutcomeInput
    from legion_memory.project.catalog import Catalog

DISABLED = "Note: memory is disabled (memory.enabled is false in settings.json)"


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
    tier = context.target(scope)
    if not context.settings.enabled:
        note(f"{DISABLED}; nothing was stored")
        return
    from legion_memory.knowledge.outcomes import OutcomeInput

    values = {"phase": phase, "plan": plan, "agent": agent, "outcome": outcome, "summary": summary}
    if from_summary is not None:
        required, tags = _with_summary_facts(context, from_summary, values, event, tags)
    else:
        required = _required(values)
    given = OutcomeInput(**required, task_type=task_type, tags=tags, importance=importance,
                         event=event, blockers=blockers)  # fmt: skip
    store_given(context, given, dry_run, tier)


def store_given(
    context: Context, given: OutcomeInput, dry_run: bool, tier: scopes.Scoped | None = None
) -> None:
    """Infer, validate and store (or only show) one outcome, in the project unless `tier` says
    otherwise (importance then counts that tier's history)."""
    from legion_memory.knowledge.outcomes import build_outcome

    tier = tier or scopes.Scoped(scopes.PROJECT, context.memory)
    agents = split_list(given.agent) if given.importance is None else None
    seen, history, columns = _history(tier.memory, agents)
    built = build_outcome(
        given,
        today=context.today,
        branch=context.branch,
        catalog=_catalog(context),
        history=history,
    )
    for line in built.notes:
        note(line)
    if dry_run:
        _preview(context, tier, built, columns)
        return
    stored = writing.append(tier.memory, built.record, seen)
    _report_stored(context, tier.scope, stored, columns)
    if tier.scope == scopes.PROJECT:
        _auto_prune(context)  # the settings and the current phase are the project's


def _auto_prune(context: Context) -> None:
    """After a stored outcome, and only then (docs/decisions.md#auto-prune-after-store-outcome).
    Its report goes to stderr; it never raises, so a failed prune leaves the store it follows a
    success."""
    if not context.settings.auto_prune:
        return  # the usual case asks neither git nor STATE.md anything
    from legion_memory.project.root import current_phase, milestone_start
    from legion_memory.upkeep.prune import auto_prune

    phase = current_phase(context.root)
    memory, settings, today = context.memory, context.settings, context.today
    since = milestone_start(context.root) if phase is not None else None
    report = auto_prune(
        memory, settings, today, phase, default_branch=context.default_branch, phase_since=since
    )
    if report:
        note(report)


def _with_summary_facts(
    context: Context, path: Path, values: dict[str, str | None], event: str | None, tags: str
) -> tuple[dict[str, str], str]:
    """The SUMMARY's facts under the flags given; its tags unless --tags was given."""
    from legion_memory.project.summary_outcome import merged_values, read_summary_facts

    facts = read_summary_facts(confine(context.root, path.absolute()), _catalog(context))
    return merged_values(facts, values, event, str(path)), tags or facts.tags


def _required(values: dict[str, str | None]) -> dict[str, str]:
    missing = [key for key, value in values.items() if value is None]
    if missing:
        flags = ", ".join(f"--{key}" for key in missing)
        them = "them" if len(missing) > 1 else "it"
        raise InputError(f"missing {flags}", hint=f"add {them}, or use --from-summary PATH")
    return {key: value or "" for key, value in values.items()}


def _history(
    memory: reading.Memory, agents: tuple[str, ...] | None
) -> tuple[reading.Checked | None, Iterable[Record], tuple[str, ...]]:
    """OUTCOMES.md as read and checked (the store reuses it when the file has not changed since),
    the stored outcomes (live and archived) that credit one of `agents` when importance needs
    them (`agents` not None), and the columns of the live table. A malformed OUTCOMES.md stops
    the store here (ParseError, exit 1).

    Only rows that mention one of the agents are split into records, and they are read as they
    are consumed: importance stops reading as soon as it has seen every agent of the new outcome.
    """
    seen = reading.load_checked(memory.path(OUTCOME), OUTCOME)
    columns = tuple(column.name for column in OUTCOME.columns)
    if seen is not None:
        columns = seen.table.columns
    if agents is None:
        return seen, (), columns
    live: Iterable[Record] = ()
    if seen is not None:
        live = read_records(seen.document, seen.table, OUTCOME, mentioning=agents)
    return seen, chain(live, reading.load_archived(memory, OUTCOME, mentioning=agents)), columns


def _catalog(context: Context) -> Catalog | None:
    from legion_memory.project.catalog import catalog_path, load_catalog

    path = catalog_path(context.catalog_option, context.root)
    return None if path is None else load_catalog(path)


def _shown(record: Record, columns: Sequence[str]) -> Record:
    """The record as the table holds it: a legacy table without a column did not store it."""
    keys = {column_key(name) for name in columns}
    return Record(record.kind, {k: v for k, v in record.values.items() if k in keys}, record.line)


def _row_table(scope: str, record: Record, columns: Sequence[str]) -> str:
    """The row as a table; a Scope column first when it went to the global tier."""
    show = marked(scope)
    headers = scoped_cells(show, "Scope", list(columns))
    return markdown_table(
        headers, [scoped_cells(show, scope, [record[column_key(name)] for name in columns])]
    )


def _report_stored(context: Context, scope: str, stored: Record, columns: tuple[str, ...]) -> None:
    from legion_memory.knowledge.outcomes import unstored_fields

    unstored = unstored_fields(stored, columns)
    if unstored:
        note(
            f"Note: {OUTCOME.filename} has no {', '.join(unstored)} column, so that was not "
            "stored (run `legion-memory migrate` to add the missing columns)"
        )
    shown = _shown(stored, columns)
    data = scoped_json(marked(scope), scope, shown.to_json())
    emit(context, data, _row_table(scope, shown, columns))


def _preview(
    context: Context, tier: scopes.Scoped, built: BuiltOutcome, columns: tuple[str, ...]
) -> None:
    document = reading.load(tier.memory.path(OUTCOME))
    number = reading.max_id_number(tier.memory, OUTCOME, document) + 1
    record = Record(OUTCOME, {**built.record.values, "id": f"O-{number:03d}"})
    if built.importance is not None:
        note(f"Importance {built.importance.explain()}")
    note(f"Dry run: nothing was stored ({record.id} is the ID it would get now)")
    shown = _shown(record, columns)
    data = scoped_json(marked(tier.scope), tier.scope, shown.to_json())
    emit(context, data, _row_table(tier.scope, shown, columns))


def _outcomes(
    context: Context, tier: scopes.Scoped | None = None
) -> tuple[list[Record], list[str]]:
    """Live outcomes of a tier (the project's by default) for reading commands, and the notes
    already shown on stderr. Memory that is disabled, missing or unreadable reads as empty:
    workflows never block on memory."""
    rows, notes = _outcome_rows(context, tier)
    return ([] if rows is None else rows.records()), notes


def _outcome_rows(
    context: Context, tier: scopes.Scoped | None = None
) -> tuple[TableRows | None, list[str]]:
    """`_outcomes`, the rows read on demand (None for none)."""
    if not context.settings.enabled:
        return None, []
    tier = tier or scopes.Scoped(scopes.PROJECT, context.memory)
    try:
        rows = reading.load_rows(tier.memory, OUTCOME)
    except ParseError:
        warning = unreadable_warning(tier, OUTCOME)
        note(warning)
        return None, [warning]
    return rows, []


def _scored_outcomes(context: Context, include_global: bool) -> list[Record]:
    """The outcomes the scores count: the project's, and the global tier's when asked."""
    tiers = context.score_tiers(include_global)
    return [record for tier in tiers for record in _outcomes(context, tier)[0]]


def recall_outcomes(
    context: Context,
    tag: Sequence[str] | None,
    agent: str | None,
    task_type: str | None,
    branch: str,
    limit: int,
    scope: str = scopes.PROJECT,
) -> None:
    from legion_memory.knowledge.scoring import recall

    tags, keep = _split_all(tag or ()), _branch_filter(context, branch)
    groups: list[tuple[str, list[Scored]]] = []
    notes: list[str] = []
    for tier in context.tiers(scope):
        rows, tier_notes = _outcome_rows(context, tier)
        notes += tier_notes
        if tier.scope == scopes.PROJECT:  # prune and its threshold are the project's
            notes += _too_many(context, 0 if rows is None else len(rows))
        found = [] if rows is None else recall(
            rows, context.today, tags=tags, agent=agent, task_type=task_type, keep=keep,
            limit=limit,
        )  # fmt: skip
        groups.append((tier.scope, found))
    results = scopes.merge(groups, limit)
    show = marked(scope)
    records_json = [scoped_json(show, m.scope, m.item.to_json()) for m in results]
    emit(context, {"records": records_json, "notes": notes}, _recalled_table(show, results))


def _too_many(context: Context, count: int) -> list[str]:
    from legion_memory.knowledge.scoring import too_many_note

    too_many = too_many_note(count, context.settings.prune_threshold)
    if too_many is None:
        return []
    note(too_many)
    return [too_many]


def _recalled_table(show: bool, results: Sequence[scopes.Marked[Scored]]) -> str:
    if not results:
        return ""
    headers = ["ID", "Date", "Branch", "Agent", "Task Type", "Outcome", "Importance"]
    rows = [
        scoped_cells(show, m.scope, [*(m.item.record[column_key(h)] for h in headers),
                                     f"{m.item.decay_score:g}", m.item.record["summary"]])
        for m in results
    ]  # fmt: skip
    return markdown_table(scoped_cells(show, "Scope", [*headers, "Decay", "Summary"]), rows)


def _branch_filter(context: Context, wanted: str) -> Callable[[Record], bool] | None:
    """Git is asked only for what the filter needs: nothing for `all`, the current branch for
    `current`, the default branch only when a legacy row without a branch is met."""
    if wanted == ALL_BRANCHES:
        return None
    current = context.branch if wanted == CURRENT_BRANCH else ""

    def keep(record: Record) -> bool:
        default = "" if record["branch"] else context.default_branch
        return on_branch(record, wanted, current, default)

    return keep


def _split_all(values: Sequence[str]) -> list[str]:
    """Repeated options, each possibly comma-separated: `--tag a --tag b,c`."""
    return [item for value in values for item in split_list(value)]


def score_agents(context: Context, task_type: Sequence[str], include_global: bool = False) -> None:
    from legion_memory.knowledge.scoring import agent_scores

    task_types = task_type
    records = _scored_outcomes(context, include_global)
    scores = agent_scores(records, _split_all(task_types), context.today)
    rows = [[agent, f"{score:g}"] for agent, score in scores.items()]
    emit(context, scores, markdown_table(["Agent", "Score"], rows) if rows else "")


KEYSPACES = ("catalog", "engine")


def score_archetypes(
    context: Context,
    task_type: Sequence[str] | None,
    include_global: bool = False,
    keyspace: str = "catalog",
) -> None:
    from legion_memory.knowledge.scoring import archetype_scores

    if keyspace not in KEYSPACES:
        raise InputError(
            f"unknown keyspace {keyspace!r}", where="--keyspace", hint="use catalog or engine"
        )
    keys_of: Callable[[Record], Iterable[str]] | None = None
    if keyspace == "engine":
        from legion_memory.knowledge import engine_keys

        keys_of = engine_keys.engine_keys
    task_types = task_type or ()
    records = _scored_outcomes(context, include_global)
    scores = archetype_scores(records, _split_all(task_types), context.today, keys_of)
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
        for name, data in scores.items()
    ]
    emit(context, scores, markdown_table(headers, rows) if rows else "")


def briefing(context: Context) -> None:
    from legion_memory.knowledge.scoring import EMPTY_BRIEFING, briefing_markdown
    from legion_memory.knowledge.scoring import briefing as briefing_of

    records, _ = _outcomes(context)
    data = briefing_of(records, context.today) if records else EMPTY_BRIEFING
    emit(context, data.to_json(), briefing_markdown(data))

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

from .. import store
from ..errors import InputError, ParseError
from ..filters import ALL_BRANCHES, CURRENT_BRANCH, on_branch
from ..project import confine
from ..schema import OUTCOME, Record, column_key, read_records, split_list
from .context import Context
from .output import emit, markdown_table, note

if TYPE_CHECKING:
    from ..catalog import Catalog
    from ..outcomes import BuiltOutcome, OutcomeInput

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
) -> None:
    if not context.settings.enabled:
        note(f"{DISABLED}; nothing was stored")
        return
    from ..outcomes import OutcomeInput

    values = {"phase": phase, "plan": plan, "agent": agent, "outcome": outcome, "summary": summary}
    if from_summary is not None:
        values = _with_summary_facts(context, from_summary, values)
    required = _required(values, from_summary is not None)
    given = OutcomeInput(**required, task_type=task_type, tags=tags, importance=importance,
                         event=event, blockers=blockers)  # fmt: skip
    store_given(context, given, dry_run)


def store_given(context: Context, given: OutcomeInput, dry_run: bool) -> None:
    """Infer, validate and store (or only show) one outcome."""
    from ..outcomes import build_outcome

    seen, history, columns = _history(context, needed=given.importance is None)
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
        _preview(context, built, columns)
        return
    stored = store.append(context.memory, built.record, seen)
    _report_stored(context, stored, columns)
    # Auto-prune (memory.auto_prune) runs here, after a successful store and only then.


def _with_summary_facts(
    context: Context, path: Path, values: dict[str, str | None]
) -> dict[str, str | None]:
    from ..summary_outcome import read_summary_facts

    facts = read_summary_facts(confine(context.root, path.absolute()))
    found = {
        "phase": facts.phase,
        "plan": facts.plan,
        "agent": facts.agent,
        "outcome": facts.outcome,
        "summary": facts.summary,
    }
    if values["outcome"] is None and facts.status and facts.outcome is None:
        raise InputError(
            f"the SUMMARY's status '{facts.status}' is not success, partial or failed",
            where=str(path),
            hint="give --outcome",
        )
    return {key: value if value is not None else found[key] for key, value in values.items()}


def _required(values: dict[str, str | None], from_summary: bool) -> dict[str, str]:
    missing = [key for key, value in values.items() if value is None]
    if missing:
        flags = ", ".join(f"--{key}" for key in missing)
        them = "them" if len(missing) > 1 else "it"
        hint = f"the SUMMARY does not say; add {them}" if from_summary else f"add {them}"
        raise InputError(f"missing {flags}", hint=f"{hint}, or use --from-summary PATH")
    return {key: value or "" for key, value in values.items()}


def _history(
    context: Context, *, needed: bool
) -> tuple[store.Checked | None, Iterable[Record], tuple[str, ...]]:
    """OUTCOMES.md as read and checked (the store reuses it when the file has not changed since),
    every stored outcome (live and archived) when importance needs them, and the columns of the
    live table. A malformed OUTCOMES.md stops the store here (ParseError, exit 1).

    The live records are read as they are consumed: importance stops reading as soon as it has
    seen every agent of the new outcome, which on a large file is long before its last row.
    """
    memory = context.memory
    seen = store.load_checked(memory.path(OUTCOME), OUTCOME)
    live: Iterable[Record] = ()
    columns = tuple(column.name for column in OUTCOME.columns)
    if seen is not None:
        columns = seen.table.columns
        live = read_records(seen.document, seen.table, OUTCOME)
    return seen, (chain(live, store.load_archived(memory, OUTCOME)) if needed else ()), columns


def _catalog(context: Context) -> Catalog | None:
    from ..catalog import catalog_path, load_catalog

    path = catalog_path(context.catalog_option, context.root)
    return None if path is None else load_catalog(path)


def _shown(record: Record, columns: Sequence[str]) -> Record:
    """The record as the table holds it: a legacy table without a column did not store it."""
    keys = {column_key(name) for name in columns}
    return Record(record.kind, {k: v for k, v in record.values.items() if k in keys}, record.line)


def _row_table(record: Record, columns: Sequence[str]) -> str:
    return markdown_table(list(columns), [[record[column_key(name)] for name in columns]])


def _report_stored(context: Context, stored: Record, columns: tuple[str, ...]) -> None:
    from ..outcomes import unstored_fields

    unstored = unstored_fields(stored, columns)
    if unstored:
        note(
            f"Note: {OUTCOME.filename} has no {', '.join(unstored)} column, so that was not "
            "stored (run `legion-memory migrate` to add the missing columns)"
        )
    shown = _shown(stored, columns)
    emit(context, shown.to_json(), _row_table(shown, columns))


def _preview(context: Context, built: BuiltOutcome, columns: tuple[str, ...]) -> None:
    document = store.load(context.memory.path(OUTCOME))
    number = store.max_id_number(context.memory, OUTCOME, document) + 1
    record = Record(OUTCOME, {**built.record.values, "id": f"O-{number:03d}"})
    if built.importance is not None:
        note(f"Importance {built.importance.explain()}")
    note(f"Dry run: nothing was stored ({record.id} is the ID it would get now)")
    shown = _shown(record, columns)
    emit(context, shown.to_json(), _row_table(shown, columns))


def _outcomes(context: Context) -> tuple[list[Record], list[str]]:
    """Live outcomes for reading commands, and the notes already shown on stderr. Memory that
    is disabled, missing or unreadable reads as empty: workflows never block on memory."""
    from ..scoring import UNPARSEABLE_WARNING

    if not context.settings.enabled:
        return [], []
    try:
        records = store.load_records(context.memory, OUTCOME)
    except ParseError:
        note(UNPARSEABLE_WARNING)
        return [], [UNPARSEABLE_WARNING]
    return records, []


def recall_outcomes(
    context: Context,
    tag: Sequence[str] | None,
    agent: str | None,
    task_type: str | None,
    branch: str,
    limit: int,
) -> None:
    from ..scoring import recall, too_many_note

    tags = tag or ()
    records, notes = _outcomes(context)
    too_many = too_many_note(len(records), context.settings.prune_threshold)
    if too_many:
        note(too_many)
        notes.append(too_many)
    results = recall(
        records,
        context.today,
        tags=_split_all(tags),
        agent=agent,
        task_type=task_type,
        keep=_branch_filter(context, branch),
        limit=limit,
    )
    headers = ["ID", "Date", "Branch", "Agent", "Task Type", "Outcome", "Importance"]
    rows = [
        [*(s.record[column_key(h)] for h in headers), f"{s.decay_score:g}", s.record["summary"]]
        for s in results
    ]
    human = markdown_table([*headers, "Decay", "Summary"], rows) if rows else ""
    emit(context, {"records": [s.to_json() for s in results], "notes": notes}, human)


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


def score_agents(context: Context, task_type: Sequence[str]) -> None:
    from ..scoring import agent_scores

    task_types = task_type
    records, _ = _outcomes(context)
    scores = agent_scores(records, _split_all(task_types), context.today)
    rows = [[agent, f"{score:g}"] for agent, score in scores.items()]
    emit(context, scores, markdown_table(["Agent", "Score"], rows) if rows else "")


def score_archetypes(context: Context, task_type: Sequence[str] | None) -> None:
    from ..scoring import archetype_scores

    task_types = task_type or ()
    records, _ = _outcomes(context)
    scores = archetype_scores(records, _split_all(task_types), context.today)
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
    from ..scoring import EMPTY_BRIEFING, briefing_markdown
    from ..scoring import briefing as briefing_of

    records, _ = _outcomes(context)
    data = briefing_of(records, context.today) if records else EMPTY_BRIEFING
    emit(context, data.to_json(), briefing_markdown(data))

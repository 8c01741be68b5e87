"""The outcome operations: store one outcome, recall outcomes, agent and archetype scores and the
status briefing, each reading what it needs once and returning plain values."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from itertools import chain
from pathlib import Path

from legion_memory.errors import InputError, ParseError
from legion_memory.named_tuple import NamedTuple
from legion_memory.operations.project import Project, project_of
from legion_memory.schema.kinds import OUTCOME
from legion_memory.schema.records import Record, column_key, read_records, split_list
from legion_memory.storage import reading, scopes
from legion_memory.storage.scopes import marked, scoped_json

TYPE_CHECKING = False  # not typing's: docs/decisions.md#hot-paths-without-typing
if TYPE_CHECKING:
    from typing import Any

    from legion_memory.knowledge.decay import Scored
    from legion_memory.knowledge.outcomes import BuiltOutcome, OutcomeInput
    from legion_memory.knowledge.scoring import Briefing
    from legion_memory.operations.common import Recalled

DISABLED = "Note: memory is disabled (memory.enabled is false in settings.json)"


class StoredOutcome(NamedTuple):
    """A stored (or, on a dry run, previewed) outcome as its table holds it, the tier it went to
    and that table's columns; no record when memory is disabled and nothing was stored."""

    scope: str
    record: Record | None
    columns: tuple[str, ...]
    dry_run: bool

    def to_json(self) -> dict[str, object] | None:
        if self.record is None:
            return None
        return scoped_json(marked(self.scope), self.scope, self.record.to_json())


class Scores(NamedTuple):
    """Scores by agent or task type, in Legion's shape."""

    scores: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return self.scores


def store_outcome(
    target: Project | Path | str,
    *,
    phase: str | None = None,
    plan: str | None = None,
    agent: str | None = None,
    outcome: str | None = None,
    summary: str | None = None,
    task_type: str | None = None,
    tags: str = "",
    importance: int | None = None,
    event: str | None = None,
    blockers: int = 0,
    from_summary: Path | None = None,
    dry_run: bool = False,
    scope: str = scopes.PROJECT,
) -> StoredOutcome:
    """Store one outcome with the next free ID (its missing fields read from a SUMMARY file when
    given), then auto-prune when the settings ask for it."""
    project = project_of(target)
    tier = project.target(scope)
    if not project.settings.enabled:
        project.notice(f"{DISABLED}; nothing was stored")
        return StoredOutcome(tier.scope, None, (), dry_run)
    from legion_memory.knowledge.outcomes import OutcomeInput

    values = {"phase": phase, "plan": plan, "agent": agent, "outcome": outcome, "summary": summary}
    if from_summary is not None:
        required, tags = _with_summary_facts(project, from_summary, values, event, tags)
    else:
        required = _required(values)
    given = OutcomeInput(**required, task_type=task_type, tags=tags, importance=importance,
                         event=event, blockers=blockers)  # fmt: skip
    return store_given(project, given, dry_run, tier)


def store_given(
    project: Project, given: OutcomeInput, dry_run: bool, tier: scopes.Scoped | None = None
) -> StoredOutcome:
    """Infer, validate and store (or only preview) one outcome, in the project unless `tier` says
    otherwise (importance then counts that tier's history). OUTCOMES.md is parsed once: the
    write reuses the parse when the file has not changed since."""
    from legion_memory.knowledge.outcomes import build_outcome, unstored_fields

    tier = tier or scopes.Scoped(scopes.PROJECT, project.memory)
    agents = split_list(given.agent) if given.importance is None else None
    seen, history, columns = _history(tier.memory, agents)
    built = build_outcome(given, today=project.today_text, branch=project.branch,
                          catalog=project.catalog, history=history)  # fmt: skip
    for line in built.notes:
        project.notice(line)
    if dry_run:
        preview = _preview(project, tier, built, seen, columns)
        return StoredOutcome(tier.scope, preview, columns, True)
    from legion_memory.storage import writing  # a store's alone: recall and scores never write

    # A retried store finds its first run's record in the history: an importance worked out
    # from it (an agent's first of a task type) would differ, the record would not.
    inferred = frozenset({"importance"}) if given.importance is None else frozenset()
    stored, written = writing.append_once(tier.memory, built.record, seen, inferred)
    if not written:  # docs/decisions.md#store-once
        project.notice(
            f"Note: {OUTCOME.filename} already holds this outcome as {stored.id} (line "
            f"{stored.line}); nothing was stored"
        )
        return StoredOutcome(tier.scope, _shown(stored, columns), columns, False)
    unstored = unstored_fields(stored, columns)
    if unstored:
        project.notice(
            f"Note: {OUTCOME.filename} has no {', '.join(unstored)} column, so that was not "
            "stored (run `legion-memory migrate` to add the missing columns)"
        )
    if tier.scope == scopes.PROJECT:
        _auto_prune(project)  # the settings and the current phase are the project's
    return StoredOutcome(tier.scope, _shown(stored, columns), columns, False)


def _auto_prune(project: Project) -> None:
    """After a stored outcome, and only then (docs/decisions.md#auto-prune-after-store-outcome).
    Its report is a notice; it never raises, so a failed prune leaves the store it follows a
    success."""
    if not project.settings.auto_prune:
        return  # the usual case asks neither git nor STATE.md anything
    from legion_memory.project.root import current_phase, milestone_start
    from legion_memory.upkeep.prune import auto_prune

    phase = current_phase(project.root)
    memory, settings, today = project.memory, project.settings, project.today
    since = milestone_start(project.root) if phase is not None else None
    report = auto_prune(
        memory, settings, today, phase, default_branch=project.default_branch, phase_since=since
    )
    if report:
        project.notice(report)


def _with_summary_facts(
    project: Project, path: Path, values: dict[str, str | None], event: str | None, tags: str
) -> tuple[dict[str, str], str]:
    """The SUMMARY's facts (inside the project) under the flags given; its tags unless --tags was
    given."""
    from legion_memory.project.summary_outcome import merged_values, read_summary_facts

    # An input, read wherever the user keeps it (docs/decisions.md#inputs-anywhere).
    facts = read_summary_facts(path.expanduser().absolute(), project.catalog)
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
    """OUTCOMES.md as read and checked, the stored outcomes (live and archived) that credit one
    of `agents` when importance needs them (`agents` not None), and the columns of the live
    table. A malformed OUTCOMES.md stops the store here (ParseError, exit 1).

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
        live = read_records(seen.document, seen.table, OUTCOME, mentioning=agents, data=seen.data)
    return seen, chain(live, reading.load_archived(memory, OUTCOME, mentioning=agents)), columns


def _shown(record: Record, columns: Sequence[str]) -> Record:
    """The record as the table holds it: a legacy table without a column did not store it."""
    keys = {column_key(name) for name in columns}
    return Record(record.kind, {k: v for k, v in record.values.items() if k in keys}, record.line)


def _preview(
    project: Project,
    tier: scopes.Scoped,
    built: BuiltOutcome,
    seen: reading.Checked | None,
    columns: tuple[str, ...],
) -> Record:
    document = None if seen is None else seen.document
    number = reading.max_id_number(tier.memory, OUTCOME, document) + 1
    record = Record(OUTCOME, {**built.record.values, "id": f"O-{number:03d}"})
    if built.importance is not None:
        project.notice(f"Importance {built.importance.explain()}")
    project.notice(f"Dry run: nothing was stored ({record.id} is the ID it would get now)")
    return _shown(record, columns)


def recall_outcomes(
    target: Project | Path | str,
    *,
    tag: Sequence[str] | None = None,
    agent: str | None = None,
    task_type: str | None = None,
    branch: str = "all",  # knowledge.filters.ALL_BRANCHES, imported by a recall alone
    limit: int = 20,
    scope: str = scopes.PROJECT,
) -> Recalled:
    """Outcomes best first by importance x recency, each tier ranked on its own, project first."""
    from legion_memory.knowledge.scoring import recall
    from legion_memory.operations.common import Recalled, live_rows, split_all, unreadable

    project = project_of(target)
    tags, keep = split_all(tag or ()), _branch_filter(project, branch)
    groups: list[tuple[str, list[Scored]]] = []
    notes: list[str] = []
    for tier in project.tiers(scope):
        # The rows are checked as they are ranked, in the same pass: a ragged one is warned of as
        # at loading, before anything else is said (docs/decisions.md#rows-checked-as-read).
        rows, tier_notes = live_rows(project, OUTCOME, tier, checked=False)
        found: list[Scored] = []
        if rows is not None:
            try:
                found = recall(
                    rows, project.today, tags=tags, agent=agent, task_type=task_type, keep=keep,
                    limit=limit,
                )  # fmt: skip
            except ParseError:
                rows, tier_notes = None, [unreadable(project, tier, OUTCOME)]
        notes += tier_notes
        if tier.scope == scopes.PROJECT:  # prune and its threshold are the project's
            notes += _too_many(project, 0 if rows is None else len(rows))
        groups.append((tier.scope, found))
    return Recalled(scope, scopes.merge(groups, limit), notes)


def _too_many(project: Project, count: int) -> list[str]:
    from legion_memory.knowledge.scoring import too_many_note

    too_many = too_many_note(count, project.settings.prune_threshold)
    if too_many is None:
        return []
    project.notice(too_many)
    return [too_many]


def _branch_filter(project: Project, wanted: str) -> Callable[[Record], bool] | None:
    """Git is asked only for what the filter needs: nothing for `all`, the current branch for
    `current`, the default branch only when a legacy row without a branch is met."""
    from legion_memory.knowledge.filters import ALL_BRANCHES, CURRENT_BRANCH, on_branch

    if wanted == ALL_BRANCHES:
        return None
    current = project.branch if wanted == CURRENT_BRANCH else ""

    def keep(record: Record) -> bool:
        default = "" if record["branch"] else project.default_branch
        return on_branch(record, wanted, current, default)

    return keep


def _scored_outcomes(project: Project, include_global: bool) -> Iterable[Record]:
    """The outcomes the scores count: the project's, and the global tier's when asked. Each
    tier is read (and warned about) at once; its records are built one at a time as they are
    counted, never all held (docs/decisions.md#lazy-rows)."""
    from legion_memory.operations.common import live_rows

    tiers = [live_rows(project, OUTCOME, tier)[0] for tier in project.score_tiers(include_global)]
    return chain.from_iterable(
        map(rows.record, range(len(rows))) for rows in tiers if rows is not None
    )


def score_agents(
    target: Project | Path | str, *, task_type: Sequence[str], include_global: bool = False
) -> Scores:
    """Legion's memoryScores: {agent: score} for agents with at least two matching tasks."""
    from legion_memory.knowledge.scoring import agent_scores
    from legion_memory.operations.common import split_all

    project = project_of(target)
    records = _scored_outcomes(project, include_global)
    return Scores(agent_scores(records, split_all(task_type), project.today))


KEYSPACES = ("catalog", "engine")


def score_archetypes(
    target: Project | Path | str,
    *,
    task_type: Sequence[str] | None = None,
    include_global: bool = False,
    keyspace: str = "catalog",
) -> Scores:
    """Legion's archetypeScores: per task type, its agents, success rate and top agent; keyed by
    the records' Task Types (`catalog`) or by the recommendation engine's task types (`engine`)."""
    from legion_memory.knowledge.scoring import archetype_scores
    from legion_memory.operations.common import split_all

    if keyspace not in KEYSPACES:
        raise InputError(
            f"unknown keyspace {keyspace!r}", where="--keyspace", hint="use catalog or engine"
        )
    keys_of: Callable[[Record], Iterable[str]] | None = None
    if keyspace == "engine":
        from legion_memory.knowledge import engine_keys

        keys_of = engine_keys.engine_keys
    project = project_of(target)
    records = _scored_outcomes(project, include_global)
    task_types = split_all(task_type or ())
    return Scores(archetype_scores(records, task_types, project.today, keys_of))


def memory_briefing(target: Project | Path | str) -> Briefing:
    """The `## Memory` block of /legion:status (empty when there is no memory)."""
    from legion_memory.knowledge.scoring import EMPTY_BRIEFING
    from legion_memory.knowledge.scoring import briefing as briefing_of
    from legion_memory.operations.common import live_rows

    project = project_of(target)
    rows, _ = live_rows(project, OUTCOME, scopes.Scoped(scopes.PROJECT, project.memory))
    if rows is None or not len(rows):
        return EMPTY_BRIEFING
    return briefing_of(map(rows.record, range(len(rows))), project.today)

"""What `store|recall pattern(s)|error(s)|preference(s)` and `score preferences` do.

Plain functions of the Context and the command's options (no typer here): the lean dispatcher and
the typer app call them alike, through `hot.run`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TypeVar

from legion_memory.cli.actions.knowledge_output import (
    emit_recall,
    error_block,
    recalled_table,
    report_duplicate,
    report_recalled,
    report_stored,
)
from legion_memory.cli.context import Context
from legion_memory.cli.output import emit, markdown_table, note
from legion_memory.cli.tiers import marked, scoped_json, unreadable_warning
from legion_memory.errors import InputError, ParseError
from legion_memory.knowledge import error_fixes, preferences
from legion_memory.knowledge.filters import ALL_BRANCHES, CURRENT_BRANCH, has_any_tag, on_branch
from legion_memory.knowledge.recency import by_recency
from legion_memory.schema.fields import DECISION_POINTS, SIGNALS
from legion_memory.schema.kinds import ERROR_FIX, OUTCOME, PATTERN, PREFERENCE, Kind, new_record
from legion_memory.schema.records import Record
from legion_memory.storage import reading, scopes, writing

_OUTCOME_ID = re.compile(r"^O-\d{3,}$")
_RESERVED_KEY = "notes"
DISABLED_NOTICE = "memory is disabled (memory.enabled is false in settings.json); nothing stored"
T = TypeVar("T")


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
    """Append one pattern to PATTERNS.md (of the project, or of the global tier)."""
    values = {"pattern": pattern, "context": situation, "reuse_criteria": reuse, "source": source}
    record = _new(context, PATTERN, {**values, "tags": tags})
    tier = context.target(scope)
    if not _enabled(context):
        return
    stored = writing.append(tier.memory, record)
    notes = [n for n in (_unknown_outcome(tier.memory, stored["source"]),) if n]
    report_stored(context, tier, stored, notes)


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
    """Append one error fix to ERRORS.md, unless it duplicates a stored one of the same tier
    (docs/decisions.md#error-duplicates)."""
    values = {"error_signature": signature, "fix": fix, "agent": agent, "tags": tags}
    record = _new(context, ERROR_FIX, {**values, "resolved": "true" if resolved else "false"})
    tier = context.target(scope)
    if not _enabled(context):
        return
    check = error_fixes.dedupe(record, context.settings.error_similarity)
    before, after = writing.append_or_update(tier.memory, record, check)
    if before is None:
        report_stored(context, tier, after, [])
        return
    alike = error_fixes.similarity(record["error_signature"], before["error_signature"])
    report_duplicate(context, tier, before, after, alike)


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
    """Append one preference signal to PREFERENCES.md (of the project, or of the global tier)."""
    values = {"decision_point": decision_point, "context": situation, "proposed": proposed}
    more = {"user_choice": choice, "signal": signal, "agent": agent, "tags": tags}
    record = _new(context, PREFERENCE, {**values, **more})
    tier = context.target(scope)
    if not _enabled(context):
        return
    report_stored(context, tier, writing.append(tier.memory, record), [])


def recall_patterns(
    context: Context,
    *,
    tag: Sequence[str] | None = None,
    branch: str = ALL_BRANCHES,
    limit: int = 10,
    scope: str = scopes.PROJECT,
) -> None:
    """Patterns with any of the tags on `branch`, most recent first (project ones first)."""
    keep = _keep(context, tag or (), branch, limit)
    ranked, notes = _recall(
        context, scope, PATTERN, lambda records: by_recency(filter(keep, records), context.today)
    )
    ranked = ranked[:limit]
    show = marked(scope)
    columns = [column.name for column in PATTERN.columns]
    human = recalled_table(PATTERN, columns, ranked, show)
    report_recalled(context, show, ranked, human, notes)


def recall_errors(
    context: Context,
    *,
    error_text: str | None = None,
    tag: Sequence[str] | None = None,
    branch: str = ALL_BRANCHES,
    limit: int = 5,
    scope: str = scopes.PROJECT,
) -> None:
    """Stored fixes for an error: resolved first, then by keywords shared with `error_text`."""
    keep = _keep(context, tag or (), branch, limit)
    text = error_text if error_text and error_text.strip() else None
    matches, notes = _recall(
        context, scope, ERROR_FIX, lambda records: error_fixes.rank(filter(keep, records), text)
    )
    if text is not None and not error_fixes.keywords(text):
        notes.append("--error-text has no keywords to match (only stopwords or punctuation)")
    matches, show = matches[:limit], marked(scope)
    records = [scoped_json(show, m.scope, m.item.to_json()) for m in matches]
    human = "\n\n".join(error_block(m.item, m.scope if show else None) for m in matches)
    emit_recall(context, {"records": records, "notes": notes}, human, notes)


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
    """Preference signals matching every filter, most recent first (project ones first)."""
    preferences.require_choice("--signal", signal, SIGNALS)
    preferences.require_choice("--decision-point", decision_point, DECISION_POINTS)
    keep = _keep(context, tag or (), branch, limit)
    wanted = _split(agent) if agent else None

    def kept(record: Record) -> bool:
        return (
            keep(record)
            and preferences.credits_any(record, wanted)
            and preferences.matches(record, signal=signal, decision_point=decision_point)
        )

    ranked, notes = _recall(
        context, scope, PREFERENCE, lambda records: by_recency(filter(kept, records), context.today)
    )
    ranked, show = ranked[:limit], marked(scope)
    columns = [column.name for column in PREFERENCE.columns]
    human = recalled_table(PREFERENCE, columns, ranked, show)
    report_recalled(context, show, ranked, human, notes)


def score_preferences(
    context: Context, *, agent: Sequence[str] | None = None, include_global: bool = False
) -> None:
    """Each agent's preference boost (+1 positive, +0.5 corrective, -1 negative, times 0.5) and
    an advisory note per tag on which corrective signals cluster."""
    wanted = _agent_names(agent or ())
    records: list[Record] = []
    notes: list[str] = []
    for tier in context.score_tiers(include_global):
        tier_records, tier_notes = _live(context, PREFERENCE, tier)
        records += tier_records
        notes += tier_notes
    scoped = [record for record in records if preferences.credits_any(record, wanted)]
    found = preferences.tallies(scoped, wanted)
    if any(tally.agent == _RESERVED_KEY for tally in found):
        notes.append(f"agent '{_RESERVED_KEY}' is not scored: its ID is the JSON notes key")
        found = [tally for tally in found if tally.agent != _RESERVED_KEY]
    advice = [cluster.note() for cluster in preferences.corrective_clusters(scoped)]
    data: dict[str, object] = {**preferences.boosts(found), _RESERVED_KEY: [*notes, *advice]}
    rows = [(t.agent, f"{t.boost:g}", t.positive, t.corrective, t.negative) for t in found]
    headers = ("Agent", "Boost", "Positive", "Corrective", "Negative")
    scores = markdown_table(headers, rows) if rows else ""
    emit(context, data, "\n\n".join(part for part in (scores, "\n".join(advice)) if part))


# ---- helpers -----------------------------------------------------------------------------------


def _new(context: Context, kind: Kind, values: dict[str, str]) -> Record:
    dated = {"date": context.today.isoformat(), "branch": context.branch}
    return new_record(kind, {**dated, **values, "tags": tags_cell(values.get("tags", ""))})


def tags_cell(tags: str) -> str:
    """`a,b , a` -> `a, b`: trimmed, empty and repeated tags dropped, the spec's separator."""
    return ", ".join(dict.fromkeys(tag.strip() for tag in tags.split(",") if tag.strip()))


def _enabled(context: Context) -> bool:
    if context.settings.enabled:
        return True
    note(DISABLED_NOTICE)
    emit(context, {"action": "disabled"}, "")
    return False


def _live(
    context: Context, kind: Kind, tier: scopes.Scoped | None = None
) -> tuple[list[Record], list[str]]:
    """A kind's live records of a tier (the project's by default) for reading: none when memory
    is disabled or the file is missing; none plus the spec's one-line warning (stderr and notes)
    when the file cannot be parsed."""
    if not context.settings.enabled:
        return [], []
    tier = tier or scopes.Scoped(scopes.PROJECT, context.memory)
    try:
        return reading.load_records(tier.memory, kind), []
    except ParseError:
        warning = unreadable_warning(tier, kind)
        note(warning)
        return [], [warning]


def _recall(
    context: Context, scope: str, kind: Kind, rank: Callable[[list[Record]], list[T]]
) -> tuple[list[scopes.Marked[T]], list[str]]:
    """Each tier of `scope` ranked on its own, project first, marked with its tier; the notes of
    every tier. The caller cuts the merged list to its limit."""
    groups: list[tuple[str, list[T]]] = []
    notes: list[str] = []
    for tier in context.tiers(scope):
        records, tier_notes = _live(context, kind, tier)
        groups.append((tier.scope, rank(records)))
        notes += tier_notes
    return scopes.merge(groups), notes


def _keep(
    context: Context, tags: Sequence[str], branch: str, limit: int
) -> Callable[[Record], bool]:
    """The tag and branch filters shared by the recalls, after checking `--limit` and `--branch`."""
    if limit < 1:
        raise InputError(f"--limit {limit} must be at least 1", hint="give a positive number")
    if not branch.strip():
        raise InputError("--branch is empty", hint="use all, current or a branch name")
    wanted = [tag for value in tags for tag in value.split(",")]
    if branch == ALL_BRANCHES:
        return lambda record: has_any_tag(record, wanted)
    current = context.branch if branch == CURRENT_BRANCH else branch
    default = context.default_branch
    return lambda record: (
        has_any_tag(record, wanted) and on_branch(record, branch, current, default)
    )


def _split(value: str) -> list[str]:
    return [part.strip() for part in value.split(",") if part.strip()]


def _agent_names(agents: Sequence[str]) -> list[str] | None:
    names = [name for value in agents for name in _split(value)]
    if _RESERVED_KEY in names:
        raise InputError(
            f"agent ID '{_RESERVED_KEY}' would clash with the notes key of the JSON output",
            hint="score preferences cannot report an agent with that name",
        )
    return names or None


def _unknown_outcome(memory: reading.Memory, source: str) -> str | None:
    """A notice when Source names an outcome ID that OUTCOMES.md and ARCHIVE.md (of the tier the
    pattern goes to) do not hold; nothing to say when there is no outcome memory to check."""
    if not _OUTCOME_ID.match(source) or not memory.exists(OUTCOME):
        return None
    try:
        known = reading.load_records(memory, OUTCOME)
        known += reading.load_archived(memory, OUTCOME)
    except ParseError:
        return None
    if any(record.id == source for record in known):
        return None
    return f"Source {source} is not an outcome in OUTCOMES.md or ARCHIVE.md (stored as given)"

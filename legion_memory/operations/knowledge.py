"""The pattern, error-fix and preference operations: store one, recall them, and score agents'
preference signals, each reading what it needs once and returning plain values."""

import re
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from legion_memory.errors import InputError, ParseError
from legion_memory.knowledge import error_fixes, preferences
from legion_memory.knowledge.filters import ALL_BRANCHES
from legion_memory.knowledge.recency import by_recency
from legion_memory.operations.common import (
    Recalled,
    live_records,
    marked,
    ranked_tiers,
    relative_to_root,
    scoped_json,
    tag_and_branch_filter,
)
from legion_memory.operations.project import Project, project_of
from legion_memory.schema.fields import DECISION_POINTS, SIGNALS
from legion_memory.schema.kinds import ERROR_FIX, OUTCOME, PATTERN, PREFERENCE, Kind, new_record
from legion_memory.schema.records import Record, split_list
from legion_memory.storage import reading, scopes, writing

_OUTCOME_ID = re.compile(r"^O-\d{3,}$")
RESERVED_KEY = "notes"
DISABLED_NOTICE = "memory is disabled (memory.enabled is false in settings.json); nothing stored"
DISABLED = "disabled"
STORED = "stored"
UNCHANGED = "unchanged"
Target = Project | Path | str


class StoredRecord(NamedTuple):
    """What a store did (`stored`, or for a duplicate error fix `skipped`, `unchanged` or
    `updated`; `disabled` when memory is off), where, the record as it now stands and, for a
    duplicate, the stored one it matched and how alike their signatures are."""

    scope: str
    action: str
    where: str = ""
    record: Record | None = None
    notes: list[str] = []  # noqa: RUF012 - a NamedTuple default, never mutated
    previous: Record | None = None
    similarity: float = 0.0

    def to_json(self) -> dict[str, object]:
        if self.record is None:
            return {"action": self.action}
        data: dict[str, object] = {"action": self.action, "where": self.where}
        if self.previous is not None:
            data["similarity"] = round(self.similarity, 6)
        data["record"] = self.record.to_json()
        if self.previous is not None:
            data["previous"] = self.previous.to_json()
        data["notes"] = self.notes
        return scoped_json(marked(self.scope), self.scope, data)


class PreferenceScores(NamedTuple):
    """Each agent's preference tally and the advice on clustering corrective signals."""

    tallies: list[preferences.Tally]
    advice: list[str]
    notes: list[str]

    def to_json(self) -> dict[str, object]:
        return {**preferences.boosts(self.tallies), RESERVED_KEY: [*self.notes, *self.advice]}


def store_pattern(
    target: Target,
    *,
    pattern: str,
    situation: str,
    reuse: str,
    source: str = "",
    tags: str = "",
    scope: str = scopes.PROJECT,
) -> StoredRecord:
    """Append one pattern to PATTERNS.md (of the project, or of the global tier)."""
    project = project_of(target)
    values = {"pattern": pattern, "context": situation, "reuse_criteria": reuse, "source": source}
    record = _new(project, PATTERN, {**values, "tags": tags})
    tier = project.target(scope)
    if not _enabled(project):
        return StoredRecord(tier.scope, DISABLED)
    stored, written = writing.append_once(tier.memory, record)
    if not written:
        return _held(project, tier, stored)
    notes = [n for n in (_unknown_outcome(tier.memory, stored["source"]),) if n]
    return _stored(project, tier, stored, notes)


def store_error(
    target: Target,
    *,
    signature: str,
    fix: str,
    agent: str,
    resolved: bool = False,
    tags: str = "",
    scope: str = scopes.PROJECT,
) -> StoredRecord:
    """Append one error fix to ERRORS.md, unless it duplicates a stored one of the same tier:
    then that one is kept, or updated in place (docs/decisions.md#error-duplicates)."""
    project = project_of(target)
    values = {"error_signature": signature, "fix": fix, "agent": agent, "tags": tags}
    record = _new(project, ERROR_FIX, {**values, "resolved": "true" if resolved else "false"})
    tier = project.target(scope)
    if not _enabled(project):
        return StoredRecord(tier.scope, DISABLED)
    check = error_fixes.dedupe(record, project.settings.error_similarity)
    before, after = writing.append_or_update(tier.memory, record, check)
    if before is None:
        return _stored(project, tier, after, [])
    alike = error_fixes.similarity(record["error_signature"], before["error_signature"])
    if error_fixes.is_resolved(before):
        action = "skipped"
    else:
        action = UNCHANGED if before is after else "updated"
    where = _location(project, tier, after)
    return StoredRecord(tier.scope, action, where, after, [], before, alike)


def store_preference(
    target: Target,
    *,
    decision_point: str,
    situation: str,
    proposed: str,
    choice: str,
    signal: str,
    agent: str,
    tags: str = "",
    scope: str = scopes.PROJECT,
) -> StoredRecord:
    """Append one preference signal to PREFERENCES.md (of the project, or of the global tier)."""
    project = project_of(target)
    values = {"decision_point": decision_point, "context": situation, "proposed": proposed}
    more = {"user_choice": choice, "signal": signal, "agent": agent, "tags": tags}
    record = _new(project, PREFERENCE, {**values, **more})
    tier = project.target(scope)
    if not _enabled(project):
        return StoredRecord(tier.scope, DISABLED)
    stored, written = writing.append_once(tier.memory, record)
    return _stored(project, tier, stored, []) if written else _held(project, tier, stored)


def recall_patterns(
    target: Target,
    *,
    tag: Sequence[str] | None = None,
    branch: str = ALL_BRANCHES,
    limit: int = 10,
    scope: str = scopes.PROJECT,
) -> Recalled:
    """Patterns with any of the tags on `branch`, most recent first (project ones first)."""
    project = project_of(target)
    keep = tag_and_branch_filter(project, tag or (), branch, limit)
    ranked, notes = ranked_tiers(
        project, scope, PATTERN, lambda records: by_recency(filter(keep, records), project.today)
    )
    return Recalled(scope, ranked[:limit], notes)


def recall_errors(
    target: Target,
    *,
    error_text: str | None = None,
    tag: Sequence[str] | None = None,
    branch: str = ALL_BRANCHES,
    limit: int = 5,
    scope: str = scopes.PROJECT,
) -> Recalled:
    """Stored fixes for an error: resolved first, then by keywords shared with `error_text`."""
    project = project_of(target)
    keep = tag_and_branch_filter(project, tag or (), branch, limit)
    text = error_text if error_text and error_text.strip() else None
    matches, notes = ranked_tiers(
        project, scope, ERROR_FIX, lambda records: error_fixes.rank(filter(keep, records), text)
    )
    if text is not None and not error_fixes.keywords(text):
        notes.append("--error-text has no keywords to match (only stopwords or punctuation)")
    return Recalled(scope, matches[:limit], notes)


def recall_preferences(
    target: Target,
    *,
    signal: str = preferences.ALL,
    decision_point: str = preferences.ALL,
    tag: Sequence[str] | None = None,
    agent: str | None = None,
    branch: str = ALL_BRANCHES,
    limit: int = 10,
    scope: str = scopes.PROJECT,
) -> Recalled:
    """Preference signals matching every filter, most recent first (project ones first)."""
    project = project_of(target)
    preferences.require_choice("--signal", signal, SIGNALS)
    preferences.require_choice("--decision-point", decision_point, DECISION_POINTS)
    keep = tag_and_branch_filter(project, tag or (), branch, limit)
    wanted = list(split_list(agent)) if agent else None

    def kept(record: Record) -> bool:
        return (
            keep(record)
            and preferences.credits_any(record, wanted)
            and preferences.matches(record, signal=signal, decision_point=decision_point)
        )

    ranked, notes = ranked_tiers(
        project, scope, PREFERENCE, lambda records: by_recency(filter(kept, records), project.today)
    )
    return Recalled(scope, ranked[:limit], notes)


def score_preferences(
    target: Target, *, agent: Sequence[str] | None = None, include_global: bool = False
) -> PreferenceScores:
    """Each agent's preference boost (+1 positive, +0.5 corrective, -1 negative, times 0.5) and
    an advisory note per tag on which corrective signals cluster."""
    project = project_of(target)
    wanted = _agent_names(agent or ())
    records: list[Record] = []
    notes: list[str] = []
    for tier in project.score_tiers(include_global):
        tier_records, tier_notes = live_records(project, PREFERENCE, tier)
        records += tier_records
        notes += tier_notes
    scoped = [record for record in records if preferences.credits_any(record, wanted)]
    found = preferences.tallies(scoped, wanted)
    if any(tally.agent == RESERVED_KEY for tally in found):
        notes.append(f"agent '{RESERVED_KEY}' is not scored: its ID is the JSON notes key")
        found = [tally for tally in found if tally.agent != RESERVED_KEY]
    advice = [cluster.note() for cluster in preferences.corrective_clusters(scoped)]
    return PreferenceScores(found, advice, notes)


# ---- helpers -----------------------------------------------------------------------------------


def _new(project: Project, kind: Kind, values: dict[str, str]) -> Record:
    dated = {"date": project.today.isoformat(), "branch": project.branch}
    return new_record(kind, {**dated, **values, "tags": tags_cell(values.get("tags", ""))})


def tags_cell(tags: str) -> str:
    """`a,b , a` -> `a, b`: trimmed, empty and repeated tags dropped, the spec's separator."""
    return ", ".join(dict.fromkeys(tag.strip() for tag in tags.split(",") if tag.strip()))


def _enabled(project: Project) -> bool:
    if project.settings.enabled:
        return True
    project.notice(DISABLED_NOTICE)
    return False


def _location(project: Project, tier: scopes.Scoped, record: Record) -> str:
    """`.planning/memory/FILE.md:LINE`, relative to the project root (a global file in full)."""
    return f"{relative_to_root(project.root, tier.memory.path(record.kind))}:{record.line}"


def _stored(
    project: Project, tier: scopes.Scoped, record: Record, notes: list[str]
) -> StoredRecord:
    for message in notes:
        project.notice(message)
    return StoredRecord(tier.scope, STORED, _location(project, tier, record), record, notes)


def _held(project: Project, tier: scopes.Scoped, record: Record) -> StoredRecord:
    """A store of a record memory holds already: nothing written (docs/decisions.md#store-once)."""
    return StoredRecord(tier.scope, UNCHANGED, _location(project, tier, record), record)


def _agent_names(agents: Sequence[str]) -> list[str] | None:
    names = [name for value in agents for name in split_list(value)]
    if RESERVED_KEY in names:
        raise InputError(
            f"agent ID '{RESERVED_KEY}' would clash with the notes key of the JSON output",
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

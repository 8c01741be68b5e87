"""Recall, agent scores, archetype scores and the session briefing (the skill's Section 4). Pure.

The JSON shapes are the ones Legion's recommendation engine reads: agent scores are a plain
`{"agent-id": score}` object (its `memoryScores`), archetypes are `archetypeScores`.
"""

from __future__ import annotations

import datetime as dt
import heapq
from collections.abc import Callable, Iterable, Iterator, Sequence

from legion_memory.knowledge.decay import Scored, newest_first, rank, rank_rows, scored
from legion_memory.knowledge.filters import by_agent, has_any_tag
from legion_memory.markdown.cells import escape
from legion_memory.named_tuple import NamedTuple
from legion_memory.schema.kinds import GENERAL
from legion_memory.schema.records import Record
from legion_memory.schema.table_rows import TableRows
from legion_memory.wording import count_of

DEFAULT_LIMIT = 20
MIN_TASKS = 2
MAX_SCORE = 5.0
BRIEFING_RECENT = 5
BRIEFING_AGENTS = 3
ROUNDING = 6  # enough to drop float noise (0.7 * 3 = 2.0999999999999996) and nothing more
UNPARSEABLE_WARNING = "Warning: OUTCOMES.md could not be parsed. Proceeding without memory."


def too_many_note(count: int, threshold: int) -> str | None:
    """The spec's informational note when OUTCOMES.md holds more records than the threshold."""
    if count <= threshold:
        return None
    return (
        f"OUTCOMES.md has {count_of(count, 'record')}. Run `/legion:learn --prune` to archive "
        "old entries, "
        "or enable `memory.auto_prune` in settings.json."
    )


def task_type_of(record: Record) -> str:
    """A record's task type; rows written before task types existed count as `general`."""
    return record["task_type"].strip() or GENERAL


def is_success(record: Record) -> bool:
    """Legacy tables wrote `Success`; the outcome is compared without case."""
    return record["outcome"].strip().casefold() == "success"


def _folded(values: Iterable[str]) -> set[str]:
    return {value.strip().casefold() for value in values if value.strip()}


def recall(
    records: Iterable[Record] | TableRows,
    today: dt.date,
    *,
    tags: Sequence[str] = (),
    agent: str | None = None,
    task_type: str | None = None,
    keep: Callable[[Record], bool] | None = None,
    limit: int = DEFAULT_LIMIT,
) -> list[Scored]:
    """Filters AND-combined, decay-scored, under-0.2 dropped, best first, at most `limit`.
    Rows read on demand, without a filter (a workflow's usual recall), build the records of the
    results alone (docs/decisions.md#lazy-rows)."""
    if isinstance(records, TableRows):
        if not (tags or agent is not None or task_type or keep is not None or limit < 0):
            return rank_rows(records, today, limit)
        records = records.records()
    wanted_type = task_type.strip().casefold() if task_type else None
    # An absent filter is not called at all: a recall may go through 100,000 records.
    chosen = [
        record
        for record in records
        if (not tags or has_any_tag(record, tags))
        and (agent is None or by_agent(record, agent))
        and (wanted_type is None or task_type_of(record).casefold() == wanted_type)
        and (keep is None or keep(record))
    ]
    return rank(chosen, today, limit=limit)


class _Tally:
    """Outcomes credited to one agent (or one task type)."""

    __slots__ = ("importance", "successes", "tasks", "weight")

    def __init__(self) -> None:
        self.tasks = 0
        self.successes = 0
        self.importance = 0
        self.weight = 0.0

    def add(self, result: Scored) -> None:
        self.tasks += 1
        self.successes += is_success(result.record)
        self.importance += result.record.importance
        self.weight += result.recency_weight

    @property
    def success_rate(self) -> float:
        return self.successes / self.tasks

    @property
    def avg_importance(self) -> float:
        return self.importance / self.tasks


def _by_agent(results: Iterable[Scored]) -> dict[str, _Tally]:
    """A comma-separated Agent cell credits every agent it lists."""
    tallies: dict[str, _Tally] = {}
    for result in results:
        for agent in result.record.agents:
            tallies.setdefault(agent, _Tally()).add(result)
    return tallies


def agent_scores(
    records: Iterable[Record], task_types: Sequence[str], today: dt.date
) -> dict[str, float]:
    """memoryScores: records whose Task Type or Tags match any of `task_types`, all of them,
    decay-excluded; per agent with at least two tasks, `(success_rate * 3 + avg_importance * 0.5)
    * avg_recency_weight` clamped to [0, 5]; best first, then by name."""
    wanted = _folded(task_types)
    matching = [
        record
        for record in records
        if task_type_of(record).casefold() in wanted or _folded(record.tags) & wanted
    ]
    scores = {}
    for agent, tally in _by_agent(rank(matching, today)).items():
        if tally.tasks < MIN_TASKS:
            continue
        score = (tally.success_rate * 3.0 + tally.avg_importance * 0.5) * (
            tally.weight / tally.tasks
        )
        scores[agent] = round(min(MAX_SCORE, max(0.0, score)), ROUNDING)
    return dict(sorted(scores.items(), key=lambda item: (-item[1], item[0])))


TYPE_CHECKING = False  # not typing's: docs/decisions.md#hot-paths-without-typing
if TYPE_CHECKING:
    from typing import TypedDict

    class Archetype(TypedDict):
        """One task type of archetypeScores, with the keys Legion's recommendation engine
        reads (a plain dict at run time)."""

        agents: list[str]
        successRate: float
        totalOutcomes: int
        avgImportance: float
        topAgent: str | None


def archetype_scores(
    records: Iterable[Record],
    task_types: Sequence[str],
    today: dt.date,
    keys_of: Callable[[Record], Iterable[str]] | None = None,
) -> dict[str, Archetype]:
    """archetypeScores: per Task Type (all of them when `task_types` is empty), decay-excluded;
    most outcomes first, then by name. `keys_of` files a record under other keys (the engine's
    task types), possibly several; `task_types` still filters by the record's own Task Type."""
    wanted = _folded(task_types)
    chosen = [r for r in records if not wanted or task_type_of(r).casefold() in wanted]
    groups: dict[str, list[Scored]] = {}
    for result in rank(chosen, today):
        for key in keys_of(result.record) if keys_of else (task_type_of(result.record),):
            groups.setdefault(key, []).append(result)
    ordered = sorted(groups.items(), key=lambda item: (-len(item[1]), item[0]))
    return {name: _archetype(results) for name, results in ordered}


def _archetype(results: list[Scored]) -> Archetype:
    total = _Tally()
    for result in results:
        total.add(result)
    per_agent = _by_agent(results)
    return {
        "agents": sorted(per_agent),
        "successRate": round(total.success_rate, ROUNDING),
        "totalOutcomes": total.tasks,
        "avgImportance": round(total.avg_importance, ROUNDING),
        "topAgent": _top_agent(per_agent),
    }


def _top_agent(per_agent: dict[str, _Tally]) -> str | None:
    """Highest success rate among agents with at least two outcomes; ties: more outcomes, name."""
    eligible = [(agent, t) for agent, t in per_agent.items() if t.tasks >= MIN_TASKS]
    if not eligible:
        return None
    return min(eligible, key=lambda item: (-item[1].success_rate, -item[1].tasks, item[0]))[0]


class AgentSummary(NamedTuple):
    agent: str
    tasks: int
    successes: int
    avg_importance: float

    @property
    def success_percent(self) -> int:
        """Rounded half up, exactly (2 of 3 is 67%)."""
        return (self.successes * 200 + self.tasks) // (2 * self.tasks)

    def to_json(self) -> dict[str, object]:
        return {
            "agent": self.agent,
            "tasks": self.tasks,
            "success_rate": round(self.successes / self.tasks, ROUNDING),
            "avg_importance": round(self.avg_importance, ROUNDING),
        }


class Briefing(NamedTuple):
    recent_outcomes: list[Scored]
    top_agents: list[AgentSummary]
    total_records: int

    def to_json(self) -> dict[str, object]:
        return {
            "total_records": self.total_records,
            "recent_outcomes": [result.to_json() for result in self.recent_outcomes],
            "top_agents": [summary.to_json() for summary in self.top_agents],
        }


EMPTY_BRIEFING = Briefing([], [], 0)


def briefing(records: Iterable[Record], today: dt.date) -> Briefing:
    """The 5 most recent outcomes (date desc, ID desc) and the 3 most experienced agents over
    every record (most tasks, then best success rate, then name). The records are read once, in
    one pass: they may be built one at a time from the rows (docs/decisions.md#lazy-rows)."""
    tallies: dict[str, _Tally] = {}
    total = 0

    def tallied() -> Iterator[Record]:
        nonlocal total
        for record in records:
            total += 1
            result = scored(record, today)
            for agent in record.agents:
                tallies.setdefault(agent, _Tally()).add(result)
            yield record

    recent = heapq.nlargest(BRIEFING_RECENT, tallied(), key=newest_first)  # sorted()[:5], faster
    summaries = [
        AgentSummary(agent, t.tasks, t.successes, t.avg_importance) for agent, t in tallies.items()
    ]
    summaries.sort(key=lambda s: (-s.tasks, -s.successes / s.tasks, s.agent))
    return Briefing(
        [scored(record, today) for record in recent], summaries[:BRIEFING_AGENTS], total
    )


def briefing_markdown(data: Briefing) -> str:
    """The `## Memory` block exactly as Legion's `/legion:status` lays it out; "" when empty."""
    if not data.total_records:
        return ""
    lines = [
        "## Memory",
        f"**Outcomes**: {data.total_records} recorded | **Recent** (last 5):",
        "| Date | Agent | Outcome | Summary |",
        "|------|-------|---------|---------|",
    ]
    for result in data.recent_outcomes:
        record = result.record
        cells = (record["date"], record["agent"], record["outcome"], record["summary"])
        lines.append("| " + " | ".join(escape(cell) for cell in cells) + " |")
    lines += [
        "",
        "**Top Agents** (by experience):",
        "| Agent | Tasks | Success Rate |",
        "|-------|-------|-------------|",
    ]
    for summary in data.top_agents:
        lines.append(f"| {escape(summary.agent)} | {summary.tasks} | {summary.success_percent}% |")
    return "\n".join(lines) + "\n"

"""Building an outcome record from what the caller knows (the skill's Section 3). Pure: no I/O.

The caller resolves today, the branch, the catalog and the existing records, then stores the
result with `store.append`. Task type and importance are inferred here exactly as the design says
(decisions 3.5 and 3.6); anything worth telling the user comes back as notes, never printed here.
"""

from collections.abc import Iterable

from legion_memory.errors import InputError
from legion_memory.knowledge.importance import Facts, Importance, importance
from legion_memory.named_tuple import NamedTuple
from legion_memory.project.catalog import GENERAL, Catalog
from legion_memory.schema.kinds import OUTCOME, new_record, require_valid
from legion_memory.schema.records import Record, column_key, split_list

TYPE_CHECKING = False  # not typing's: docs/decisions.md#hot-paths-without-typing
if TYPE_CHECKING:
    import datetime as dt

NO_CATALOG_NOTE = (
    "Note: no CATALOG.md found (--catalog, $LEGION_CATALOG, skills/agent-registry/CATALOG.md, "
    "$CLAUDE_PLUGIN_ROOT); task type falls back to 'general' and cross-division work is not scored"
)


class OutcomeInput(NamedTuple):
    """The values a workflow passes to `store outcome`; None means "work it out"."""

    phase: str
    plan: str
    agent: str
    outcome: str
    summary: str
    task_type: str | None = None
    tags: str = ""
    importance: int | None = None
    event: str | None = None
    blockers: int = 0


class BuiltOutcome(NamedTuple):
    record: Record
    importance: Importance | None
    """How the importance was worked out; None when the caller gave it."""
    notes: tuple[str, ...]


def build_outcome(
    given: OutcomeInput,
    *,
    today: "dt.date | str",
    branch: str,
    catalog: Catalog | None,
    history: Iterable[Record] = (),
) -> BuiltOutcome:
    """A validated record without an ID; InputError on any bad value (nothing is half-built).

    `history` holds every outcome already stored (live and archived, all branches): an agent's
    first outcome of a task type is worth more. `catalog` None means no CATALOG.md was found.
    `today` is a date or its text (YYYY-MM-DD), which a store has without importing datetime.
    """
    if given.importance is not None and given.event is not None:
        raise InputError("give --importance or --event, not both", hint="--importance skips events")
    _require("outcome", given.outcome)
    _require("agent", given.agent)
    agents = split_list(given.agent)
    task_type, notes = resolve_task_type(given.task_type, agents, catalog)
    calculated = None
    if given.importance is None:
        newcomers = new_to_task_type(agents, task_type, history)
        facts = Facts(
            outcome=given.outcome,
            event=given.event,
            first_for_agent=bool(newcomers),
            cross_division=cross_division(agents, task_type, catalog),
            blockers=given.blockers,
        )
        calculated = importance(facts, agents=", ".join(newcomers), task_type=task_type)
    value = given.importance if calculated is None else calculated.value
    record = new_record(OUTCOME, _values(given, today, branch, task_type, value))
    if catalog is None and (given.task_type is None or given.importance is None):
        notes = (NO_CATALOG_NOTE, *notes)
    return BuiltOutcome(record, calculated, notes)


def _values(
    given: OutcomeInput, today: "dt.date | str", branch: str, task_type: str, value: int | None
) -> dict[str, str]:
    return {
        "date": today if isinstance(today, str) else today.isoformat(),
        "branch": branch,
        "phase": given.phase.strip(),
        "plan": given.plan.strip(),
        "agent": ", ".join(split_list(given.agent)),
        "task_type": task_type,
        "outcome": given.outcome.strip(),
        "importance": "" if value is None else str(value),
        "tags": ", ".join(split_list(given.tags)),
        "summary": given.summary,
    }


def _require(key: str, value: str) -> None:
    require_valid(OUTCOME, key, value.strip())


def resolve_task_type(
    given: str | None, agents: tuple[str, ...], catalog: Catalog | None
) -> tuple[str, tuple[str, ...]]:
    """The given task type, else the first listed agent's first catalog Task Type, else
    `general`; with a warning when a given value is unknown to the catalog."""
    if given is not None and given.strip():
        value = given.strip()
        if catalog is not None and not catalog.knows_task_type(value):
            where = catalog.path.name if catalog.path else "CATALOG.md"
            return value, (f"Warning: task type '{value}' is not in {where}; stored as given",)
        return value, ()
    if catalog is not None:
        for agent in agents:
            first = catalog.first_task_type(agent)
            if first:
                return first, ()
    return GENERAL, ()


def new_to_task_type(
    agents: tuple[str, ...], task_type: str, history: Iterable[Record]
) -> list[str]:
    """The listed agents with no earlier outcome of this task type: their first is worth more."""
    wanted = task_type.casefold()
    seen: set[str] = set()
    for record in history:
        if record["task_type"].casefold() == wanted:
            seen.update(record.agents)
            if seen.issuperset(agents):
                break  # the answer is known: the rest of a long history need not be read
    return [agent for agent in agents if agent not in seen]


def cross_division(agents: tuple[str, ...], task_type: str, catalog: Catalog | None) -> bool:
    """True when the task type's divisions are known and a listed agent's division is not one of
    them; unknown task types and agents outside the catalog add nothing."""
    if catalog is None:
        return False
    divisions = catalog.divisions_for(task_type)
    if not divisions:
        return False
    return any(
        (division := catalog.division_of(agent)) is not None and division not in divisions
        for agent in agents
    )


def unstored_fields(record: Record, columns: Iterable[str]) -> list[str]:
    """Names of the record's non-empty fields that a legacy table has no column for."""
    present = {column_key(name) for name in columns}
    return [
        column.name
        for column in record.kind.columns
        if column.key not in present and record[column.key]
    ]

"""How significant an outcome is, 1 to 5. Pure.

The table is the skill's (docs/memory-manager-SKILL.md, Section 2); the events are
docs/decisions.md#importance-events.

The base comes from the event that produced the outcome; without an event, from the outcome
itself. Each modifier adds one, and the total is capped at 5.
"""

from legion_memory.errors import InputError
from legion_memory.named_tuple import NamedTuple

MAX_IMPORTANCE = 5
BLOCKERS_THAT_COUNT = 3

EVENTS: dict[str, int] = {
    "plan-failed": 5,
    "review-escalated": 4,
    "plan-partial": 3,
    "review-multi-cycle": 3,
    "plan-success": 2,
    "review-pass": 2,
    "trivial": 1,
}
OUTCOME_BASE: dict[str, int] = {"failed": 5, "partial": 3, "success": 2}
# A plan event says how the plan ended, so it must agree with the outcome it is stored with.
_PLAN_EVENT_OUTCOME = {
    "plan-failed": "failed",
    "plan-partial": "partial",
    "plan-success": "success",
}


class Facts(NamedTuple):
    """What the importance of one outcome depends on."""

    outcome: str
    event: str | None = None
    first_for_agent: bool = False
    cross_division: bool = False
    blockers: int = 0


class Importance(NamedTuple):
    value: int
    base: int
    reasons: tuple[str, ...]

    def explain(self) -> str:
        """`4 = base 2 (plan-success) + 1 (first ...) + 1 (cross-division)`."""
        text = f"{self.value} = base {self.reasons[0]}"
        extra = "".join(f" + 1 ({reason})" for reason in self.reasons[1:])
        capped = (
            f", capped at {MAX_IMPORTANCE}"
            if self.value < self.base + len(self.reasons) - 1
            else ""
        )
        return text + extra + capped


def check_event(event: str | None, outcome: str) -> None:
    """InputError for an unknown event, or a plan event that contradicts the outcome."""
    if event is None:
        return
    if event not in EVENTS:
        raise InputError(f"unknown event '{event}'", hint=f"use one of {', '.join(EVENTS)}")
    expected = _PLAN_EVENT_OUTCOME.get(event)
    if expected is not None and outcome != expected:
        raise InputError(
            f"event '{event}' contradicts outcome '{outcome}'",
            hint=f"use --outcome {expected}, or another event",
        )


def check_blockers(blockers: int) -> None:
    if blockers < 0:
        raise InputError(f"--blockers {blockers} is negative", hint="give the number of blockers")


def base_of(event: str | None, outcome: str) -> tuple[int, str]:
    """The base score and where it came from."""
    if event is not None:
        return EVENTS[event], event
    base = OUTCOME_BASE.get(outcome, OUTCOME_BASE["success"])
    return base, f"outcome {outcome}"


def importance(facts: Facts, *, agents: str = "agent", task_type: str = "task type") -> Importance:
    """The calculated importance with every reason that went into it."""
    check_event(facts.event, facts.outcome)
    check_blockers(facts.blockers)
    base, source = base_of(facts.event, facts.outcome)
    reasons = [f"{base} ({source})"]
    if facts.first_for_agent:
        reasons.append(f"first {task_type} outcome for {agents}")
    if facts.cross_division:
        reasons.append("cross-division work")
    if facts.blockers >= BLOCKERS_THAT_COUNT:
        reasons.append(f"review found {facts.blockers} blockers")
    value = min(MAX_IMPORTANCE, base + len(reasons) - 1)
    return Importance(value, base, tuple(reasons))

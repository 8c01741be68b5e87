"""Importance: every base event, the outcome-only bases, every modifier, the cap, the override."""

from __future__ import annotations

import datetime as dt

import pytest
from support.processes import FIXTURES

from legion_memory.errors import InputError
from legion_memory.knowledge.importance import Facts, importance
from legion_memory.knowledge.outcomes import OutcomeInput, build_outcome
from legion_memory.project.catalog import load_catalog
from legion_memory.schema.kinds import OUTCOME
from legion_memory.schema.records import Record

TODAY = dt.date(2026, 3, 31)


@pytest.mark.parametrize(
    ("event", "outcome", "expected"),
    [
        ("plan-failed", "failed", 5),
        ("review-escalated", "partial", 4),
        ("plan-partial", "partial", 3),
        ("review-multi-cycle", "success", 3),
        ("plan-success", "success", 2),
        ("review-pass", "success", 2),
        ("trivial", "success", 1),
    ],
)
def test_base_of_every_event(event: str, outcome: str, expected: int) -> None:
    result = importance(Facts(outcome=outcome, event=event))
    assert (result.value, result.base, result.reasons) == (
        expected,
        expected,
        (f"{expected} ({event})",),
    )


@pytest.mark.parametrize(("outcome", "expected"), [("failed", 5), ("partial", 3), ("success", 2)])
def test_base_from_the_outcome_without_an_event(outcome: str, expected: int) -> None:
    assert importance(Facts(outcome=outcome)).value == expected


def test_each_modifier_adds_one() -> None:
    base = Facts(outcome="success", event="review-pass")
    assert importance(base).value == 2
    assert importance(base._replace(first_for_agent=True)).value == 3
    assert importance(base._replace(cross_division=True)).value == 3
    assert importance(base._replace(blockers=3)).value == 3
    assert importance(base._replace(blockers=2)).value == 2
    every = Facts("success", "review-pass", first_for_agent=True, cross_division=True, blockers=4)
    result = importance(every, agents="testing-api-tester", task_type="backend")
    assert result.value == 5
    assert result.explain() == (
        "5 = base 2 (review-pass) + 1 (first backend outcome for testing-api-tester) "
        "+ 1 (cross-division work) + 1 (review found 4 blockers)"
    )


def test_the_total_is_capped_at_five() -> None:
    facts = Facts("partial", "review-escalated", first_for_agent=True, cross_division=True)
    result = importance(facts, agents="a", task_type="t")
    assert result.value == 5
    assert result.explain() == (
        "5 = base 4 (review-escalated) + 1 (first t outcome for a) + 1 (cross-division work), "
        "capped at 5"
    )


@pytest.mark.parametrize(
    ("facts", "message"),
    [
        (Facts("success", "plan-great"), "unknown event 'plan-great'"),
        (Facts("success", "plan-failed"), "event 'plan-failed' contradicts outcome 'success'"),
        (Facts("failed", "plan-success"), "event 'plan-success' contradicts outcome 'failed'"),
        (Facts("success", blockers=-1), "--blockers -1 is negative"),
    ],
)
def test_bad_events_and_blockers_are_refused(facts: Facts, message: str) -> None:
    with pytest.raises(InputError) as raised:
        importance(facts)
    assert raised.value.message == message
    assert raised.value.exit_code == 2


def _given(**changes: object) -> OutcomeInput:
    values: dict[str, object] = {
        "phase": "5",
        "plan": "05-01",
        "agent": "testing-api-tester",
        "outcome": "success",
        "summary": "Contract tests",
        "task_type": "backend",
        "event": "plan-success",
    }
    return OutcomeInput(**{**values, **changes})  # type: ignore[arg-type]


def _earlier(agent: str, task_type: str) -> Record:
    return Record(OUTCOME, {"id": "O-001", "agent": agent, "task_type": task_type})


def test_first_time_and_cross_division_from_history_and_catalog() -> None:
    catalog = load_catalog(FIXTURES / "catalog" / "CATALOG.md")
    # backend belongs to Engineering; testing-api-tester is Testing; no earlier backend outcome.
    built = build_outcome(_given(), today=TODAY, branch="main", catalog=catalog)
    assert built.record["importance"] == "4"
    # An earlier backend outcome of this agent (from any branch, live or archived) removes +1.
    history = [_earlier("testing-api-tester, engineering-backend-architect", "Backend")]
    built = build_outcome(_given(), today=TODAY, branch="main", catalog=catalog, history=history)
    assert built.record["importance"] == "3"
    # security-testing is listed by Engineering and Testing agents: not cross-division.
    given = _given(task_type="security-testing")
    built = build_outcome(given, today=TODAY, branch="main", catalog=catalog)
    assert built.record["importance"] == "3"


def test_unknown_task_types_agents_and_a_missing_catalog_add_no_cross_division() -> None:
    catalog = load_catalog(FIXTURES / "catalog" / "CATALOG.md")
    for given in (_given(task_type="quality-review"), _given(agent="autonomous")):
        built = build_outcome(given, today=TODAY, branch="main", catalog=catalog)
        assert built.record["importance"] == "3"  # 2 + first time only
    built = build_outcome(_given(), today=TODAY, branch="main", catalog=None)
    assert built.record["importance"] == "3"


def test_a_reviewer_list_is_first_time_when_any_reviewer_is_new() -> None:
    given = _given(agent="testing-api-tester, engineering-security-engineer", task_type="owasp")
    history = [_earlier("engineering-security-engineer", "owasp")]
    catalog = load_catalog(FIXTURES / "catalog" / "CATALOG.md")
    built = build_outcome(given, today=TODAY, branch="main", catalog=catalog, history=history)
    # 2 + 1 (testing-api-tester's first owasp outcome) + 1 (a Testing agent on Engineering work)
    assert built.record["importance"] == "4"
    assert built.importance is not None
    assert built.importance.explain() == (
        "4 = base 2 (plan-success) + 1 (first owasp outcome for testing-api-tester) "
        "+ 1 (cross-division work)"
    )


def test_an_explicit_importance_bypasses_the_calculation() -> None:
    catalog = load_catalog(FIXTURES / "catalog" / "CATALOG.md")
    given = _given(event=None, outcome="failed", importance=1, blockers=5)
    built = build_outcome(given, today=TODAY, branch="main", catalog=catalog)
    assert (built.record["importance"], built.importance) == ("1", None)


def test_importance_and_event_together_are_refused() -> None:
    with pytest.raises(InputError) as raised:
        build_outcome(_given(importance=3), today=TODAY, branch="main", catalog=None)
    assert (
        raised.value.line() == "give --importance or --event, not both (--importance skips events)"
    )

"""Record filters shared by every recall: AND-combined by the caller, each pure."""

from __future__ import annotations

from collections.abc import Iterable

from legion_memory.schema.records import Record

ALL_BRANCHES = "all"
CURRENT_BRANCH = "current"


def branch_of(record: Record, default_branch: str) -> str:
    """A record's branch; rows of legacy tables without a Branch cell belong to the default one."""
    return record["branch"] or default_branch


def on_branch(record: Record, wanted: str, current: str, default_branch: str) -> bool:
    """`--branch all|current|NAME`."""
    if wanted == ALL_BRANCHES:
        return True
    target = current if wanted == CURRENT_BRANCH else wanted
    return branch_of(record, default_branch) == target


def has_any_tag(record: Record, tags: Iterable[str]) -> bool:
    """True when no tags are asked for, or any of the record's tags is one of them."""
    wanted = {tag.strip().lower() for tag in tags if tag.strip()}
    return not wanted or any(tag.lower() in wanted for tag in record.tags)


def by_agent(record: Record, agent: str | None) -> bool:
    """A comma-separated Agent cell matches each agent it lists."""
    return agent is None or agent in record.agents

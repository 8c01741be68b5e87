"""What the operations share: reading a tier's live records the way every reading command does,
the tag and branch filters, and marking results with their tier."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from legion_memory.errors import InputError, ParseError
from legion_memory.knowledge.filters import ALL_BRANCHES, CURRENT_BRANCH, has_any_tag, on_branch
from legion_memory.named_tuple import NamedTuple
from legion_memory.operations.project import Project
from legion_memory.schema.kinds import Kind
from legion_memory.schema.records import Record, split_list
from legion_memory.schema.table_rows import TableRows
from legion_memory.storage import reading, scopes
from legion_memory.storage.scopes import marked, scoped_json

__all__ = ["marked", "scoped_json"]  # with the rest: at home in `storage.scopes`

TYPE_CHECKING = False  # not typing's: docs/decisions.md#hot-paths-without-typing
if TYPE_CHECKING:
    from typing import Any, TypeVar

    T = TypeVar("T")


def relative_to_root(root: Path, path: Path) -> str:
    """A path relative to the project root when it is inside it (global files stay absolute)."""
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)


class Recalled(NamedTuple):
    """What a recall found, best first, each result marked with its tier; the recall's notes."""

    scope: str
    results: list[scopes.Marked[Any]]
    notes: list[str]

    def to_json(self) -> dict[str, object]:
        show = marked(self.scope)
        records = [scoped_json(show, m.scope, m.item.to_json()) for m in self.results]
        return {"records": records, "notes": self.notes}


def unreadable_warning(tier: scopes.Scoped, kind: Kind) -> str:
    """The one-line warning for a file that cannot be parsed; the global tier's file is named in
    full, since it lives outside the project."""
    name = kind.filename if tier.scope == scopes.PROJECT else str(tier.memory.path(kind))
    return f"Warning: {name} could not be parsed. Proceeding without memory."


def live_records(
    project: Project, kind: Kind, tier: scopes.Scoped | None = None
) -> tuple[list[Record], list[str]]:
    """A kind's live records of a tier (the project's by default) for reading, and the warnings
    already given as notices. Memory that is disabled, missing or unreadable reads as empty:
    workflows never block on memory."""
    if not project.settings.enabled:
        return [], []
    tier = tier or scopes.Scoped(scopes.PROJECT, project.memory)
    try:
        return reading.load_records(tier.memory, kind), []
    except ParseError:
        return [], [unreadable(project, tier, kind)]


def live_rows(
    project: Project, kind: Kind, tier: scopes.Scoped, *, checked: bool = True
) -> tuple[TableRows | None, list[str]]:
    """`live_records`, the rows read on demand (docs/decisions.md#lazy-rows); None for none.
    Not `checked`, the caller reads them through `read_rows`, which warns of a ragged row."""
    if not project.settings.enabled:
        return None, []
    try:
        return reading.load_rows(tier.memory, kind, checked=checked), []
    except ParseError:
        return None, [unreadable(project, tier, kind)]


def unreadable(project: Project, tier: scopes.Scoped, kind: Kind) -> str:
    """The warning for a file that cannot be parsed, given as a notice."""
    warning = unreadable_warning(tier, kind)
    project.notice(warning)
    return warning


def ranked_tiers(
    project: Project, scope: str, kind: Kind, rank: Callable[[list[Record]], list[T]]
) -> tuple[list[scopes.Marked[T]], list[str]]:
    """Each tier of `scope` ranked on its own, project first, marked with its tier; the notes of
    every tier. The caller cuts the merged list to its limit."""
    groups: list[tuple[str, list[T]]] = []
    notes: list[str] = []
    for tier in project.tiers(scope):
        records, tier_notes = live_records(project, kind, tier)
        groups.append((tier.scope, rank(records)))
        notes += tier_notes
    return scopes.merge(groups), notes


def tag_and_branch_filter(
    project: Project, tags: Sequence[str], branch: str, limit: int
) -> Callable[[Record], bool]:
    """The tag and branch filters shared by the recalls, after checking `--limit` and `--branch`."""
    if limit < 1:
        raise InputError(f"--limit {limit} must be at least 1", hint="give a positive number")
    if not branch.strip():
        raise InputError("--branch is empty", hint="use all, current or a branch name")
    wanted = [tag for value in tags for tag in value.split(",")]
    if branch == ALL_BRANCHES:
        return lambda record: has_any_tag(record, wanted)
    current = project.branch if branch == CURRENT_BRANCH else branch
    default = project.default_branch
    return lambda record: (
        has_any_tag(record, wanted) and on_branch(record, branch, current, default)
    )


def split_all(values: Sequence[str]) -> list[str]:
    """Repeated options, each possibly comma-separated: `--tag a --tag b,c`."""
    return [item for value in values for item in split_list(value)]

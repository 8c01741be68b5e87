"""Memory scopes: the project's own memory, the user's global memory, or both (project first).

The global tier lives in `$LEGION_MEMORY_HOME` (default `~/.legion/memory/`) and holds the same five
files, in the same format, directly in that directory. When both tiers are read, project results
come before global ones: project facts are the more specific, so they take priority; each group
keeps its own ranking and every result carries the name of the tier it came from.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from legion_memory.errors import InputError
from legion_memory.named_tuple import NamedTuple
from legion_memory.storage.reading import Memory

PROJECT = "project"
GLOBAL = "global"
ALL = "all"
SCOPES = (PROJECT, GLOBAL, ALL)
HOME_VARIABLE = "LEGION_MEMORY_HOME"
DEFAULT_HOME = Path("~") / ".legion" / "memory"


class Scoped(NamedTuple):
    """One tier to read or write: its name (`project` or `global`) and its memory directory."""

    scope: str
    memory: Memory


TYPE_CHECKING = False  # not typing's: docs/decisions.md#hot-paths-without-typing
if TYPE_CHECKING:
    from typing import Generic, TypeVar

    T = TypeVar("T")

    class Marked(NamedTuple, Generic[T]):
        """A result marked with the tier it came from."""

        scope: str
        item: T

else:

    class Marked(NamedTuple):
        """A result marked with the tier it came from (generic in its item to type checkers;
        at run time, where no one asks its type, built without `typing`)."""

        scope: str
        item: object


def marked(scope: str) -> bool:
    """Whether results of an operation run with `scope` carry their tier's name: whenever it was
    asked for anything but the project alone, so the project's own output stays as it was."""
    return scope != PROJECT


def scoped_json(show: bool, scope: str, data: Mapping[str, object]) -> dict[str, object]:
    """`data` with the tier's name first, when results are marked."""
    return {"scope": scope, **data} if show else dict(data)


def require_scope(value: str, *, allowed: Sequence[str] = SCOPES) -> str:
    """A valid `--scope` value; InputError (exit 2) otherwise."""
    if value in allowed:
        return value
    raise InputError(f"--scope '{value}' is not valid", hint=f"use one of {', '.join(allowed)}")


def global_home(environ: Mapping[str, str]) -> Path:
    """`$LEGION_MEMORY_HOME`, else `~/.legion/memory`; `~` expands, an empty value is unset."""
    value = environ.get(HOME_VARIABLE, "").strip()
    return Path(value).expanduser() if value else DEFAULT_HOME.expanduser()


def global_memory(environ: Mapping[str, str]) -> Memory:
    return Memory(global_home(environ))


def memories(scope: str, project: Memory, environ: Mapping[str, str]) -> list[Scoped]:
    """The tiers a read in `scope` covers, project first."""
    require_scope(scope)
    tiers = []
    if scope in (PROJECT, ALL):
        tiers.append(Scoped(PROJECT, project))
    if scope in (GLOBAL, ALL):
        tiers.append(Scoped(GLOBAL, global_memory(environ)))
    return tiers


def single(scope: str, project: Memory, environ: Mapping[str, str]) -> Scoped:
    """The one tier a write goes to: `project` or `global` (a write to `all` is ambiguous)."""
    require_scope(scope, allowed=(PROJECT, GLOBAL))
    return memories(scope, project, environ)[0]


def for_scores(
    project: Memory, environ: Mapping[str, str], *, include_global: bool
) -> list[Scoped]:
    """Agent, archetype and preference scores read the project alone unless asked otherwise:
    Legion's recommendations are scoped to the project."""
    return memories(ALL if include_global else PROJECT, project, environ)


def merge(groups: Iterable[tuple[str, Sequence[T]]], limit: int | None = None) -> list[Marked[T]]:
    """Already-ranked groups, in the order given (project first), marked, cut to `limit` overall."""
    merged = [Marked(scope, item) for scope, items in groups for item in items]
    return merged if limit is None else merged[:limit]

"""How the hot commands name the memory tier (`project`, `global`) a result came from or went to.

A result is marked with its tier whenever the command was asked for anything but the project
alone (`--scope global|all`): the project's own output, without `--scope`, stays as it always was.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TypeVar

from legion_memory.schema.kinds import Kind
from legion_memory.storage import scopes

T = TypeVar("T")


def marked(scope: str) -> bool:
    """Whether results of a command run with `--scope scope` carry their tier's name."""
    return scope != scopes.PROJECT


def scoped_json(show: bool, scope: str, data: Mapping[str, object]) -> dict[str, object]:
    """`data` with the tier's name first, when results are marked."""
    return {"scope": scope, **data} if show else dict(data)


def scoped_cells(show: bool, scope: str, cells: Sequence[T]) -> list[T | str]:
    """A human table row with the tier's name as its first cell, when results are marked."""
    return [scope, *cells] if show else list(cells)


def shown(root: Path, path: Path) -> str:
    """A path relative to the project root when it is inside it (global files stay absolute)."""
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)


def unreadable_warning(tier: scopes.Scoped, kind: Kind) -> str:
    """The spec's one-line warning for a file that cannot be parsed; the global tier's file is
    named in full, since it lives outside the project."""
    name = kind.filename if tier.scope == scopes.PROJECT else str(tier.memory.path(kind))
    return f"Warning: {name} could not be parsed. Proceeding without memory."

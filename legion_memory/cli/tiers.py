"""How the commands name the memory tier (`project`, `global`) a result came from or went to.

A result is marked with its tier whenever the command was asked for anything but the project
alone (`--scope global|all`): the project's own output, without `--scope`, stays as it always was.
"""

from __future__ import annotations

from collections.abc import Sequence

from legion_memory.storage.scopes import marked, scoped_json

TYPE_CHECKING = False  # not typing's: docs/decisions.md#hot-paths-without-typing
if TYPE_CHECKING:
    from typing import TypeVar

    T = TypeVar("T")
__all__ = ["marked", "scoped_cells", "scoped_json"]


def scoped_cells(show: bool, scope: str, cells: Sequence[T]) -> list[T | str]:
    """A human table row with the tier's name as its first cell, when results are marked."""
    return [scope, *cells] if show else list(cells)

"""Where a project's memory may be read and written: inside the project's real path, and only
through regular files (see docs/decisions.md#memory-confinement)."""

from __future__ import annotations

import os
from pathlib import Path

from legion_memory.errors import UnsafePathError

_LINK_HINT = (
    "memory lives inside the project: replace the link with the real directory or file "
    "(memory kept elsewhere is the global tier, --scope global)"
)


def project_of(directory: Path) -> Path | None:
    """The project root of a project memory directory (`ROOT/.planning/memory`), else None (the
    global tier, a source file's directory): only a project's memory is confined to it."""
    if directory.name == "memory" and directory.parent.name == ".planning":
        return directory.parent.parent
    return None


def require_inside(path: Path, directory: Path | None = None) -> None:
    """UnsafePathError when `path` (in the memory directory `directory`, its parent by default),
    or the memory directory itself, resolves outside the project through a symbolic link."""
    root = project_of(path.parent if directory is None else directory)
    if root is None:
        return
    real_root = os.path.realpath(root)
    real = os.path.realpath(path)
    if real != real_root and not real.startswith(real_root.rstrip(os.sep) + os.sep):
        raise UnsafePathError(
            f"resolves outside the project (to {real}); refusing to follow it",
            where=str(path),
            hint=_LINK_HINT,
        )

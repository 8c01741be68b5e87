"""Command line entry point: the git hooks' quiet `doctor` on clean memory answered by one scan,
before anything else is imported; every other call goes through `cli.routing`."""

from __future__ import annotations

import os
import sys

from legion_memory.cli.lean.hook import clean_exit
from legion_memory.cli.lean.pathlib_import import import_pathlib

TYPE_CHECKING = False  # not typing's: docs/decisions.md#hot-paths-without-typing
if TYPE_CHECKING:
    from collections.abc import MutableMapping


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    pin_the_work_tree()
    code = clean_exit(args)  # the git hooks' usual call: the dispatcher is not even imported
    if code is not None:
        return code
    import gc  # not before: the hooks' usual call above needs nothing more

    # Importing the dispatcher builds no garbage: the collector's passes over the objects it
    # creates would cost a hot command about 1% (docs/decisions.md#speed-of-the-hot-paths).
    collecting = gc.isenabled()
    gc.disable()
    try:
        import_pathlib()
        from legion_memory.cli.routing import route
    finally:
        if collecting:
            gc.freeze()  # what the imports made is old: no pass over it at the next object made
            gc.unfreeze()
            gc.enable()
    return route(args)


def pin_the_work_tree(env: MutableMapping[str, str] = os.environ, here: str = "") -> None:
    """`GIT_DIR` without `GIT_WORK_TREE` tells git that the working directory is the top of the
    work tree, and a relative `GIT_DIR` is relative to it. Git runs hooks so in a linked worktree
    (`git worktree add`), from that top; a git this process starts in a subdirectory (the memory
    folder) would take the subdirectory for it, and read no memory in any commit. So both are
    made to name, for every git started from here, what they name for this process."""
    git_dir = env.get("GIT_DIR")
    if git_dir:
        here = here or os.getcwd()
        env["GIT_DIR"] = os.path.join(here, git_dir)  # unchanged when already absolute
        env.setdefault("GIT_WORK_TREE", here)

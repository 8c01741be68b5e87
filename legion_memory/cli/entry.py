"""Command line entry point: the git hooks' quiet `doctor` on clean memory answered by one scan,
before anything else is imported; every other call goes through `cli.routing`."""

from __future__ import annotations

import sys

from legion_memory.cli.lean.hook import clean_exit
from legion_memory.cli.lean.pathlib_import import import_pathlib


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
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

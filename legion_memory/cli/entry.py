"""Command line entry point: the git hooks' quiet `doctor` on clean memory answered by one scan,
before anything else is imported; every other call goes through `cli.routing`."""

from __future__ import annotations

import sys

from legion_memory.cli.lean.hook import clean_exit


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    code = clean_exit(args)  # the git hooks' usual call: the dispatcher is not even imported
    if code is not None:
        return code
    from legion_memory.cli.routing import route

    return route(args)

"""The git hooks' `doctor --fix --quiet` on clean memory, answered before anything else loads.

Those hooks run after every pull, merge, rebase and `commit --amend`; on clean memory (almost
always) doctor has nothing to say, so the process proves it with one scan and exits 0 without
importing the dispatcher, pathlib or typing. Anything else returns None: the dispatcher (or the
typer app) runs the full doctor, with the same output it would give here.
"""

from __future__ import annotations

import os

# `doctor --quiet` prints nothing and exits 0 on clean memory, with or without --fix.
QUIET_FORMS = (
    ["doctor", "--fix", "--quiet"],
    ["doctor", "--quiet", "--fix"],
    ["doctor", "--quiet"],
)


def clean_exit(argv: list[str]) -> int | None:
    """0 when `argv` is a quiet doctor and memory is clean; None when it must really run."""
    if argv not in QUIET_FORMS:
        return None
    # Imported only here: its `re` patterns would cost every other command their compilation.
    from legion_memory.upkeep import clean_scan

    root, git_dir = clean_scan.project_of(os.getcwd())
    memory = os.path.join(root, *clean_scan.MEMORY_DIR)
    return 0 if clean_scan.is_clean(memory, git_dir) else None

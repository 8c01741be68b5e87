"""The git hooks' `doctor --fix --quiet` on clean memory, answered before anything else loads.

Those hooks run after every pull, merge, rebase and `commit --amend`; on clean memory (almost
always) doctor has nothing to say, so the process proves it with one scan and exits 0 without
importing the dispatcher, pathlib or typing. Anything else returns None: the dispatcher (or the
typer app) runs the full doctor, with the same output it would give here.
"""

from __future__ import annotations

import os
import sys

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
    if git_dir is not None and _hooks_outdated(os.path.join(git_dir, "hooks")):
        sys.stderr.write(OUTDATED_HOOKS)
    memory = os.path.join(root, *clean_scan.MEMORY_DIR)
    return 0 if clean_scan.is_clean(memory, git_dir) else None


# `gitops.install.HOOKS`, `HOOK_MARK` and `HOOK_FORMAT` (tests/test_git_install.py holds them
# equal): importing
# that module would cost every hook run its imports.
HOOK_NAMES = (
    "post-merge",
    "post-rewrite",
    "post-commit",
    "post-applypatch",
    "pre-push",
    "post-checkout",
)
HOOK_MARK = b"# legion-memory hook"
HOOK_FORMAT = b"# legion-memory hook format 21"
OUTDATED_HOOKS = (
    "legion-memory: this clone's git hooks are out of date; run: legion-memory git install\n"
)


def _hooks_outdated(hooks: str) -> bool:
    """Whether an older install left some of the hooks out or in an older form: one of ours is
    there, and another is not, or not in this format."""
    heads = [_head(os.path.join(hooks, name)) for name in HOOK_NAMES]
    return any(HOOK_MARK in head for head in heads) and not all(HOOK_FORMAT in h for h in heads)


def _head(hook: str) -> bytes:
    try:
        with open(hook, "rb") as handle:
            return handle.read(4096)
    except OSError:
        return b""

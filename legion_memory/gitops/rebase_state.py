"""What git's state of the rebase whose post-rewrite hook runs names (`rebase-merge/`, or
`rebase-apply/` for the apply backend; still there while the hook runs)."""

import os
from collections.abc import Mapping
from pathlib import Path

from legion_memory.gitops.branch import find_git_dir, read_stripped, run_git
from legion_memory.gitops.hook_env import REBASE_ONTO_ENV, REBASE_STARTED_ENV

_STATES = ("rebase-merge", "rebase-apply")


def rebase_onto(start: Path, env: Mapping[str, str] | None = None) -> str | None:
    """What the rebase was replayed onto: its state's, else what its hook names for a branch it
    moved along the stack. The parent of the first commit written is no stand-in: a first
    commit git dropped as already upstream is "rewritten" as the tip it was replayed onto,
    whose parent lies before it."""
    return _named(start, env, "onto") or _named_by_hook(env, REBASE_ONTO_ENV) or None


def rebase_started_from(start: Path, env: Mapping[str, str] | None = None) -> str | None:
    """The tip the rebase started from: its state's, else what its hook names for a branch it
    moved along the stack, else ORIG_HEAD. Not ORIG_HEAD inside a rebase's state: a merge made
    by hand where the rebase stopped (one it could not replay) moves it on."""
    named = _named(start, env, "orig-head")
    if named:
        return named
    moved = _named_by_hook(env, REBASE_STARTED_ENV)
    return moved or run_git(["rev-parse", "-q", "--verify", "ORIG_HEAD^{commit}"], start)


def _named(start: Path, env: Mapping[str, str] | None, name: str) -> str | None:
    git_dir = find_git_dir(start, env)
    return state_file(git_dir, name) if git_dir is not None else None


def _named_by_hook(env: Mapping[str, str] | None, variable: str) -> str:
    return (os.environ if env is None else env).get(variable, "").strip()


def state_held(git_dir: Path) -> bool:
    """Whether a rebase's state is there (`git am` keeps its own in `rebase-apply/` too)."""
    return any((git_dir / state).is_dir() for state in _STATES)


def state_file(git_dir: Path, name: str) -> str | None:
    """A file of the rebase in progress (`orig-head`, `onto`), in whichever backend's state."""
    for state in _STATES:
        named = read_stripped(git_dir / state / name)
        if named:
            return named
    return None


def dropped_as_upstream(start: Path, onto: str, started: str) -> set[str]:
    """The commits of the branch from `started` a rebase onto `onto` drops as previously applied:
    their diff is one of the upstream's commits' since they parted (equal patch ids). Empty when
    git cannot say."""
    listed = run_git(
        ["rev-list", "--cherry-mark", "--right-only", "--no-merges", f"{onto}...{started}"], start
    )
    return {line[1:] for line in (listed or "").split() if line.startswith("=")}


def merges_remade(start: Path, env: Mapping[str, str] | None = None) -> tuple[str, ...] | None:
    """The merges a rebase that keeps merges (`--rebase-merges`) made again, as its done list
    names them (`merge -C <commit>`, the commit as written there, perhaps abbreviated); None
    for a rebase that flattens merges (its list holds no `label`), or no rebase's state."""
    git_dir = find_git_dir(start, env)
    done = state_file(git_dir, "done") if git_dir is not None else None
    if done is None:
        return None
    lines = [line.split() for line in done.splitlines()]
    if not any(words[:1] in (["label"], ["l"]) for words in lines):
        return None
    return tuple(
        words[2]
        for words in lines
        if len(words) > 2 and words[0] in ("merge", "m") and words[1] in ("-C", "-c")
    )

"""A sequence of picks that ended with picks git skipped, whose repair no hook has made yet.

`git cherry-pick A..B` runs the post-commit hook after each pick, but only the last pick's may
repair (git holds the sequence's index until then), and when git finds the last picks applied
already the user ends the sequence with `cherry-pick --skip`, after which no hook runs. The hooks
note the sequence (`hook_env.PICK_SEQUENCE_NAME`) so that the next commit's hook repairs it; this
reads that note for a `doctor` run before any such commit, so that it weighs the picks as that
hook would (docs/decisions.md#post-commit-hook).
"""

import os
from collections.abc import Mapping
from pathlib import Path

from legion_memory.gitops.branch import find_git_dir, run_git
from legion_memory.gitops.hook_env import (
    PICK_SEQUENCE_NAME,
    PICKED_ENV,
    PICKED_ONTO_ENV,
    PICKED_TIP_ENV,
)


def ended_pick_sequence(start: Path, env: Mapping[str, str] | None = None) -> dict[str, str]:
    """What the hook of the next commit would tell doctor of a sequence of picks that ended at
    HEAD unrepaired: where it started, the last commit it picked and the last commit it wrote.
    {} when a hook names an integration already, a sequence is still under way, or HEAD has
    moved on from the sequence's last commit."""
    env = os.environ if env is None else env
    git_dir = find_git_dir(start, env)
    if git_dir is None or env.get(PICKED_ENV, "").strip() or (git_dir / "sequencer").exists():
        return {}
    try:
        lines = (git_dir / PICK_SEQUENCE_NAME).read_text(encoding="utf-8").split("\n")
    except (OSError, UnicodeDecodeError):
        return {}
    noted = [line.strip() for line in lines if line.strip()]
    last = noted[-1].split() if len(noted) > 1 else []
    head = (run_git(["rev-parse", "-q", "--verify", "HEAD"], start) or "").strip()
    if len(last) != 2 or not head or last[1] != head:
        return {}
    return {PICKED_ONTO_ENV: noted[0], PICKED_ENV: last[0], PICKED_TIP_ENV: last[1]}

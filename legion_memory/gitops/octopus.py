"""`git-merge-legion-memory`: an octopus merge whose memory files the driver merges.

Git's own octopus strategy merges each file with `git merge-one-file`, which never runs a merge
driver: two branches that both stored memory stop it. `git install` names this strategy in
`pull.octopus`, which `git merge` and `git pull` use for more than one branch. It merges the
branches one after the other, as `git merge A` and then `git merge B` would, each step a two-head
`git merge-recursive` that runs the driver, and leaves the result in the index for git to commit
with every branch as a parent. As in git's octopus, only the last branch may leave conflicts for
a person to resolve; a conflict before it puts the index and the work tree back and says to merge
one branch at a time (docs/decisions.md#octopus-merges).

Git runs it as `git-merge-legion-memory BASE... -- HEAD BRANCH...`, each branch named in
`GITHEAD_<sha>`; exit 0 merged, 1 conflicts left, 2 not merged (nothing changed).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

from legion_memory.gitops.hook_env import OURS_ENV, RECHECK_ENV
from legion_memory.schema.kinds import ARCHIVE_FILENAME, KINDS

MERGED, CONFLICTS, NOT_MERGED = 0, 1, 2
STRATEGY = "legion-memory"
PROGRAM = f"git-merge-{STRATEGY}"
MEMORY = ".planning/memory"
MEMORY_FILES = (*(kind.filename for kind in KINDS.values()), ARCHIVE_FILENAME)
_NAMED = "GITHEAD_"


class Arguments(NamedTuple):
    head: str
    branches: list[str]


def parse(argv: Sequence[str]) -> Arguments | None:
    """What git passes a strategy: the bases (recomputed here for each step), `--`, HEAD and the
    branches; None unless there are two branches or more (an octopus)."""
    if "--" not in argv:
        return None
    sides = list(argv[list(argv).index("--") + 1 :])
    return Arguments(sides[0], sides[1:]) if len(sides) >= 3 else None


def main(argv: Sequence[str] | None = None) -> int:
    arguments = parse(sys.argv[1:] if argv is None else argv)
    if arguments is None:
        return NOT_MERGED
    if _git(["diff-index", "--quiet", "--cached", "HEAD", "--"]).returncode != 0:
        print(
            "legion-memory: the index holds uncommitted changes: commit them first", file=sys.stderr
        )
        return NOT_MERGED
    try:
        return merge_each(arguments, os.environ)
    except (OSError, subprocess.SubprocessError, _StepFailed) as failed:
        _put_back()
        print(f"legion-memory: the octopus merge could not run ({failed})", file=sys.stderr)
        return NOT_MERGED


def merge_each(arguments: Arguments, env: Mapping[str, str]) -> int:
    """Each branch merged into the result of the ones before it, fast-forwarding while no branch
    has yet needed a merge, as git's octopus does."""
    current = _output(["rev-parse", "--verify", arguments.head])
    merged = [current]  # the commits whose merge `current` is: HEAD and the branches so far
    fast_forward = True
    for number, branch in enumerate(arguments.branches, start=1):
        bases = _output(["merge-base", "--all", branch, current]).split()
        if branch in bases:  # already merged
            continue
        merged.append(branch)
        if fast_forward and bases == [current]:
            _output(["read-tree", "-u", "-m", current, branch])
            current = branch
            continue
        fast_forward = False
        step_env = _step_env(env, current, branch)
        step = _git(["merge-recursive", *bases, "--", current, branch], step_env, capture=False)
        if step.returncode == CONFLICTS and number == len(arguments.branches):
            return CONFLICTS
        if step.returncode != MERGED:
            _put_back()
            print(_one_at_a_time(env, arguments.branches, branch), file=sys.stderr)
            return NOT_MERGED
        _weigh_files_taken_whole(current, branch, merged, env)
        tree = _output(["write-tree"])
        step_commit = ["commit-tree", "--no-gpg-sign", tree, "-p", current, "-p", branch]
        current = _output([*step_commit, "-m", "legion-memory: octopus step"])
    return MERGED


def _weigh_files_taken_whole(
    current: str, branch: str, merged: Sequence[str], env: Mapping[str, str]
) -> None:
    """What the post-merge hook does for a two-head merge, done for this step, whose sides no
    hook sees: when a memory file one side's commits changed ends as their merge base had it
    (a forget undone by a restore), git took the other side's file whole, and doctor weighs the
    records the sides hold in different states; its repairs are staged with the step. The
    sides weighed are the commits `merged` so far, as the post-merge hook weighs every parent:
    the step's own commit of the ones before may hold a record live and archived at once, which
    says nothing of which state is later."""
    base = _git(["merge-base", current, branch]).stdout.strip()
    if not base or not any(_ended_as_base(base, side) for side in (current, branch)):
        return
    weigh = {**env, RECHECK_ENV: " ".join(merged)}
    doctor = [sys.executable, "-m", "legion_memory", "doctor", "--fix", "--quiet"]
    subprocess.run(doctor, env=weigh, check=False)
    top = Path(_output(["rev-parse", "--show-toplevel"]))
    repaired = [f"{MEMORY}/{name}" for name in MEMORY_FILES if (top / MEMORY / name).is_file()]
    _output(["-C", str(top), "add", "--", *repaired])  # the memory files only, never a user's


def _ended_as_base(base: str, side: str) -> bool:
    """Whether a memory file `side`'s commits since `base` changed is as `base` has it."""
    differ = _output(["diff", "--name-only", base, side, "--", f":/{MEMORY}"]).split()
    log = ["log", "--full-history", "--format=", "--name-only", f"{base}..{side}", "--",
           f":/{MEMORY}"]  # fmt: skip
    return bool(set(_output(log).split()) - set(differ))


def _step_env(env: Mapping[str, str], current: str, branch: str) -> dict[str, str]:
    """The environment of one step: git names only its branch, and ours is the step's own."""
    step = {key: value for key, value in env.items() if not key.startswith(_NAMED)}
    step[f"{_NAMED}{branch}"] = env.get(f"{_NAMED}{branch}", branch)
    step[OURS_ENV] = current
    return step


def _one_at_a_time(env: Mapping[str, str], branches: Sequence[str], stopped: str) -> str:
    names = [env.get(f"{_NAMED}{sha}", sha) for sha in branches]
    merges = "; ".join(f"git merge {name}" for name in names)
    return (
        f"legion-memory: the octopus merge stopped at a conflict with "
        f"{env.get(_NAMED + stopped, stopped)}, before its last branch, and changed nothing: "
        f"merge one branch at a time ({merges})"
    )


def _put_back() -> None:
    """The index and the work tree as HEAD has them, unmerged entries dropped."""
    _git(["read-tree", "--reset", "-u", "HEAD"])


class _StepFailed(Exception):
    pass


def _output(args: list[str]) -> str:
    done = _git(args)
    if done.returncode != 0:
        raise _StepFailed(f"git {args[0]} failed: {done.stderr.strip()}")
    return done.stdout.strip()


def _git(
    args: list[str], env: Mapping[str, str] | None = None, *, capture: bool = True
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", *args],
        env=dict(os.environ if env is None else env),
        capture_output=capture,
        text=True,
        check=False,
    )


if __name__ == "__main__":
    raise SystemExit(main())

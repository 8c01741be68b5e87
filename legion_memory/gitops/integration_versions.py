"""The three versions a rebase, a pick or a concluded merge just done integrated: their base
and its two sides.

The hooks name what git just did (`post-rewrite` the commits a rebase wrote, `post-commit` the
commit a cherry-pick replayed, or the sides of a stopped merge or squash concluded); from that,
git says where the two sides parted.
"""

import os
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

from legion_memory.gitops.hook_env import (
    CONCLUDED_ENV,
    PICKED_ENV,
    REPLAYED_AS_ENV,
    REWRITTEN_ENV,
)
from legion_memory.gitops.rebase_state import merges_remade, rebase_started_from
from legion_memory.gitops.record_history import commits_since_changing
from legion_memory.gitops.repository import replay_of_rebase, run_git


class Sides(NamedTuple):
    """Revisions of the base and the two sides, each side with the words that name it."""

    base: str
    ours: str
    theirs: str
    ours_name: str
    theirs_name: str
    replayed: tuple[str, ...] = ()  # a rebase's: the commits of ours it replayed
    replayed_as: tuple[str, ...] = ()  # and what it wrote for each, in the same order


class BranchMerge(NamedTuple):
    """A merge commit of the branch a rebase replayed, with its parents and its subject."""

    commit: str
    parents: tuple[str, ...]
    subject: str


def integration_just_done(start: Path, env: Mapping[str, str] | None = None) -> Sides | None:
    """A pick just committed: its parent, HEAD^ and the picked commit; a rebase just done: the
    branch as it was, the commit it was replayed onto, and their merge base. None
    when the hooks name neither or git cannot say."""
    env = os.environ if env is None else env
    picked = env.get(PICKED_ENV, "").strip()
    if picked:
        return Sides(f"{picked}^", "HEAD^", picked, "ours", "the picked commit")
    # What git's rebase state names: the first commit "written" may be one git dropped as
    # already upstream, rewritten as the tip it was replayed onto.
    replay = replay_of_rebase(start, env)
    before = rebase_started_from(start, env)
    if replay is None or before is None:
        return None
    onto = replay.onto
    base = run_git(["merge-base", before, onto], start)
    if base is None:
        return None
    replayed = tuple(env.get(REWRITTEN_ENV, "").split())
    written = tuple(env.get(REPLAYED_AS_ENV, "").split())
    named = ("the branch before the rebase", "the upstream")
    return Sides(base, before, onto, *named, replayed, written)


def merge_just_concluded(start: Path, env: Mapping[str, str] | None = None) -> Sides | None:
    """A stopped merge or squash just concluded by a commit: where its two sides parted, and the
    sides the post-commit hook names. None when it names none, or more than two (an octopus
    merge)."""
    env = os.environ if env is None else env
    sides = env.get(CONCLUDED_ENV, "").split()
    base = run_git(["merge-base", *sides], start) if len(sides) == 2 else None
    return None if base is None else Sides(base, sides[0], sides[1], "ours", "theirs")


def left_out_by_rebase(start: Path, sides: Sides, path: Path, row_text: str) -> bool:
    """Whether a rebase left out on purpose the commits of the branch that stored `row_text`
    (`schema.identity.history_text`) in the file `path`: every branch commit that changed how
    often the file holds it is one the rebase did not replay (a `drop`, or `--onto` past it), or
    replayed where HEAD does not reach it (a merge's line deleted from the todo list of a rebase
    that keeps merges: the merged branch's commits are replayed, and merged nowhere).
    False for a pick, or when git finds no such commit (a row a merge commit made)."""
    if not sides.replayed or not row_text:
        return False
    commits = set(commits_since_changing(start, sides.base, sides.ours, path, row_text) or ())
    return bool(commits) and not commits & _replayed_into_head(start, sides, commits)


def _replayed_into_head(start: Path, sides: Sides, commits: set[str]) -> set[str]:
    """Of `commits`, those the rebase replayed whose copy HEAD reaches (the tip it was replayed
    onto stands for a commit git dropped as already upstream), or every one replayed when no
    merge of the branch was left out of the rebase's todo list: a merge git gave up on
    (`rebase --continue` past an octopus merge its strategy could not make) is not the user's
    choice. One `git rev-list`, only when a replayed commit is asked of."""
    if len(sides.replayed_as) != len(sides.replayed):  # no copies named: every one counts
        return commits & set(sides.replayed)
    copies = zip(sides.replayed, sides.replayed_as, strict=True)
    asked = [(old, new) for old, new in copies if old in commits]
    if not asked:
        return set()
    reached = run_git(["rev-list", "HEAD", f"^{sides.theirs}"], start)
    if reached is None:
        return {old for old, _ in asked}
    held = {*reached.split(), sides.theirs}
    if all(new in held for _, new in asked) or not _merge_left_out(start, sides):
        return {old for old, _ in asked}
    return {old for old, new in asked if new in held}


def _merge_left_out(start: Path, sides: Sides) -> bool:
    """Whether a rebase that keeps merges left a merge of the branch out of its todo list (its
    line deleted): its done list names every merge it made again or tried to."""
    remade = merges_remade(start)
    merges = _merges_of(start, sides)
    if remade is None or merges is None:
        return False
    return any(not _named(merge, remade) for merge in merges)


def _named(merge: BranchMerge, names: tuple[str, ...]) -> bool:
    return any(merge.commit.startswith(name) for name in names)


def branch_merges(
    start: Path, sides: Sides, env: Mapping[str, str] | None = None
) -> list[BranchMerge] | None:
    """The merge commits of a rebase's branch that its upstream does not hold, newest first:
    a rebase that flattens merges drops each, and `--rebase-merges` merges its parents again,
    so either way what a merge commit changed beyond its parents is lost. A merge that a
    rebase keeping merges did not make again was left out on purpose (its line deleted from
    the todo list), and is not one. None when git cannot say, or for a pick."""
    merges = _merges_of(start, sides)
    remade = merges_remade(start, env)
    if merges is None or remade is None:
        return merges
    return [merge for merge in merges if _named(merge, remade)]


def _merges_of(start: Path, sides: Sides) -> list[BranchMerge] | None:
    """Every merge commit of a rebase's branch that its upstream does not hold, newest first."""
    if not sides.replayed:
        return None
    args = ["rev-list", "--merges", "--parents", "--format=%s", sides.ours, f"^{sides.theirs}"]
    listed = run_git(args, start)
    if listed is None:
        return None
    merges: list[BranchMerge] = []
    lines = iter(listed.splitlines())
    for header in lines:  # "commit <merge> <parent>...", then its subject
        words = header.split()
        if words[:1] != ["commit"] or len(words) < 4:
            return None
        merges.append(BranchMerge(words[1], tuple(words[2:]), next(lines, "")))
    return merges

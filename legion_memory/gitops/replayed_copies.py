"""Whether the commit a rebase or a pick is replaying is one ours's history already holds a
copy of (docs/decisions.md#replays-upstream-holds).

Git drops a replayed commit whose patch the upstream already has, but a record's ID in the copy
may differ (it was renumbered where it landed), so git replays it: a forget applied again over
the restore that followed its copy upstream, or over a later fix, looks like two people changing
one record. A copy keeps the commit's author, author date and message, and changes the same
memory rows (their cells after the ID) in the same files: with both, the replayed change is one
ours has seen, and ours's version of each record it touches stands. So is a commit ours's history
holds itself (picked again), and a commit that a squash of ours names (git's own message after
`merge --squash`). Asked of git only when a merge step would otherwise leave a conflict.
"""

import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from legion_memory.gitops.branch import run_git
from legion_memory.gitops.commit_copies import HASH_AND_COPY_KEY, copy_keys_listed, squashes_of
from legion_memory.gitops.record_history import parting

MemoryChange = tuple[tuple[str, str], ...]
"""(file and sign, the row after its ID cell) of each record row changed, sorted."""


def replay_held(start: Path, directory: Path, replayed: str, ours: str) -> Callable[[], bool]:
    """The question, asked of git once at the first call."""
    answer: list[bool] = []

    def held() -> bool:
        if not answer:
            answer.append(_held(start, directory, replayed, ours))
        return answer[0]

    return held


def _held(start: Path, directory: Path, replayed: str, ours: str) -> bool:
    shown = run_git(["log", "-1", f"--format={HASH_AND_COPY_KEY}", replayed], start)
    found = copy_keys_listed(shown)
    base = parting(start, [ours, replayed])
    if not found or base is None:
        return False
    [(commit, key)] = found.items()
    if base == commit:  # ours holds the very commit: picked again, it is one ours has seen
        return True
    where = directory.resolve().as_posix()
    # Before the sides parted too: a replay of a copy their common past holds (a branch's
    # rebased copies, mailed or flattened again) makes again a change both sides have seen.
    listed = run_git(
        ["log", "--full-history", "--no-merges", f"--format={HASH_AND_COPY_KEY}", ours,
         "--", where],
        start,
    )  # fmt: skip
    copies = [copy for copy, copy_key in copy_keys_listed(listed).items() if copy_key == key]
    if copies:
        change = _memory_change(start, commit, where)
        if change and any(_memory_change(start, copy, where) == change for copy in copies):
            return True
    return _named_by_squash(start, commit, f"{base}..{ours}")


def _named_by_squash(start: Path, commit: str, commits: str) -> bool:
    """Whether a squash among the `commits` names the replayed commit itself: ours then holds
    its change, folded with the others the squash names. A branch squash-merged and then merged
    too is flattened by a rebase into the squash and, after it, the branch's own commits, whose
    changes the squash already made (seed 4058)."""
    squashes = squashes_of(start, commits) or {}
    return any(commit in named for named in squashes.values())


def _memory_change(start: Path, commit: str, where: str) -> MemoryChange:
    """The commit's changed lines in the memory files, each without its first cell (a row's
    ID), so that a copy whose records were renumbered where it landed changes the same. A row
    the commit only moved within its file (removed and added there alike) is no change: the
    merge that made a copy lays out in its own order the section a forget's row landed in."""
    patch = run_git(["diff-tree", "-p", "--no-commit-id", "-r", "-U0", commit, "--", where], start)
    added: Counter[tuple[str, str]] = Counter()
    removed: Counter[tuple[str, str]] = Counter()
    name = ""
    for line in (patch or "").splitlines():
        if line.startswith("diff --git "):
            name = line.rsplit("/", 1)[-1]
        elif line[:1] in "+-" and _RECORD_ROW.match(line, 1):
            row = (name, line[1:].strip()[1:].partition("|")[2])
            (added if line[0] == "+" else removed)[row] += 1
    found = [(f"{name} +", row) for (name, row) in (added - removed).elements()]
    found += [(f"{name} -", row) for (name, row) in (removed - added).elements()]
    return tuple(sorted(found))


# A record's row: what a commit changes of a record. Headings, headers and blank lines a forget
# adds with the first row of an archive section, or a restore removes with the last, are not.
_RECORD_ROW = re.compile(r"\s*\|\s*[A-Z]-\d{3,}\s*\|")

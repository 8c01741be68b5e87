"""How one commit moved a record between ARCHIVE.md and the live files, read from its diff
against each parent (`git log -m -p`, as `gitops.record_history` lists them).

A forget or a restore is a move; a merge's own (made before committing a `merge --no-commit`)
is a move of the side that holds the merge (docs/decisions.md#archive-moves). When no parent
holds the record where the merge does, its diff against every parent shows the move. But a
merge of a parent that restored a record with one that still holds it archived, as where the
two parted, would keep the restore; a merge that holds it archived, as that other parent does,
undid the restore itself, and git lists its diff against the restoring parent only.
"""

from pathlib import Path

from legion_memory.gitops.repository import files_of_commits, run_git
from legion_memory.schema.kinds import ARCHIVE_FILENAME, KINDS

Placement = tuple[int, int]
"""How often a record's row occurs in ARCHIVE.md, and in the live files."""


def way_moved(
    start: Path,
    commit: tuple[str, list[str]],
    against: list[tuple[int, int]],
    path: Path,
    row_text: str,
) -> str | None:
    """How a commit (its hash, its parents) moved the record, by its changes against each parent
    (`count_change`): "archived", "restored", or None. A merge whose diff git lists against some
    parents only (it holds the record as the others do) moved it when it undid their moves
    since the parents parted."""
    sha, parents = commit
    way = _way(against, len(parents))
    if way is not None or not 0 < len(against) < len(parents):
        return way
    undid = _way(against, len(against))
    return undid if undid and _undid_a_parent(start, sha, parents, path, row_text) else None


def count_change(patch: str, row_text: str, archive: str) -> tuple[int, int]:
    """How a commit's diff against one parent changed the count of the record's rows: in
    ARCHIVE.md, and in the live files."""
    into_archive, change = False, {True: 0, False: 0}
    for line in patch.splitlines():
        if line.startswith("diff --git "):
            into_archive = line.endswith(f"/{archive}")
        elif line[:1] in "+-" and not line.startswith(("+++ ", "--- ")) and row_text in line:
            change[into_archive] += 1 if line[0] == "+" else -1
    return change[True], change[False]


def _way(against: list[tuple[int, int]], parents: int) -> str | None:
    """How a commit moved the record, by its changes against each parent (archived, live):
    "archived", "restored", or None for a commit that did not move it: a store, or a repair that
    dropped an archived copy of a record a merge left live and archived at once (the record
    stays where it was: seed 5207 of the collaboration simulation's --stash-kinds counted it as
    a restore). A merge moved it itself only when its result holds the record where no parent
    does and one parent at least held it in the other file (seed 16020 of `--merge-change-kinds`
    counted no restore made inside a merge); against a parent it did not change the count for,
    git lists no diff, and the merge holds the record as that parent does (a move of its own
    only when it undid the others' since the parents parted, which `way_moved` asks)."""
    if len(against) < max(parents, 1):
        return None
    for way, into, out_of in (("archived", 0, 1), ("restored", 1, 0)):
        if all(change[into] > 0 >= change[out_of] for change in against) and any(
            change[out_of] < 0 for change in against
        ):
            return way
    return None


def _undid_a_parent(start: Path, merge: str, parents: list[str], path: Path, row_text: str) -> bool:
    """Whether the merge holds the record (its row after the ID, `row_text`) where its parents
    parted do, in ARCHIVE.md (`path`) and the live files beside it: the parents it differs from
    moved it since, and the merge moved it back itself. One `git merge-base` and one `git
    cat-file --batch`, asked only of a merge whose diff against some parent moved the record."""
    parted = run_git(["merge-base", "--octopus", *parents], start)
    if not parted:
        return False
    names = [ARCHIVE_FILENAME, *(kind.filename for kind in KINDS.values())]
    found = files_of_commits(start, path.parent, [merge, parted.split()[0]], names, keep_empty=True)
    if len(found) != 2:
        return False
    made, before = (_placement(files, row_text) for files in found)
    return made == before


def _placement(files: dict[str, str | None], row_text: str) -> Placement:
    counts = {name: (text or "").count(row_text) for name, text in files.items()}
    archived = counts.pop(ARCHIVE_FILENAME)
    return archived, sum(counts.values())

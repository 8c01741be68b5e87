"""Versions of a row that a merge commit replaced itself, beyond what any of its parents held.

The history of a record's versions is asked of git's pickaxe, which leaves merges out: a merge's
changes are the commits it merges. But a merge commit can change a file itself (an update made
during `merge --no-commit`, or one a `rebase -i` folded into a merge), and a rebase that drops
the merge then replays the branch's later commits onto the version from before it: ours holds
that older version, theirs a later one, and base the merge's own (docs/decisions.md#merge-changes).
"""

from pathlib import Path

from legion_memory.gitops.record_history import LaterVersion, later_in_series, parting
from legion_memory.gitops.repository import files_of_commits, run_git
from legion_memory.markdown.document import parse, row_cells
from legion_memory.schema.identity import Identity, history_text, identity_of_cells
from legion_memory.schema.kinds import Kind, kind_of_filename
from legion_memory.schema.records import column_key, records_table


def replaced_by_own_merge(start: Path, base: str, side: str, path: Path, row_text: str) -> bool:
    """Whether one of `side`'s merges since `base` replaced `row_text` (a row after its ID,
    `schema.identity.history_text`) in `path` itself: the merge holds it fewer times than each
    of its parents that holds the record in some version. A parent that holds no version of it
    (a branch that parted before it was stored) gave the merge nothing in its place. One `git
    rev-list`, and one `git cat-file --batch` when there are merges."""
    listed = run_git(["rev-list", "--merges", "--parents", f"{base}..{side}"], start)
    merges = [line.split() for line in (listed or "").splitlines()]
    revs = [rev for merge in merges for rev in merge]
    if not revs:
        return False
    found = files_of_commits(start, path.parent, revs, [path.name], keep_empty=True)
    if len(found) != len(revs):
        return False
    texts = iter([files[path.name] or "" for files in found])
    kind = kind_of_filename(path.name)
    for merge in merges:
        held, *parents = (_versions(next(texts), kind) for _ in merge)
        every = [held, *parents]
        record = {identity for rows in every for text, identity in rows if text == row_text}
        holding = [versions for versions in parents if _holds(versions, record, kind)]
        count = _count(held, row_text)
        if holding and all(count < _count(versions, row_text) for versions in holding):
            return True
    return False


Versions = list[tuple[str, Identity | None]]
"""Each row of a file: its text after the ID, and its record's identity (None when the file
names no kind)."""


def _versions(text: str, kind: Kind | None) -> Versions:
    document = parse(text)
    table = records_table(document, kind) if kind is not None else None
    if kind is None or table is None:
        return [(line, None) for line in text.splitlines()]
    columns = tuple(column_key(cell) for cell in table.columns)
    found: Versions = []
    for index in table.rows:
        raw = document.text(index)
        cells = row_cells(document, index)
        found.append((history_text(raw, columns), identity_of_cells(kind, columns, cells)))
    return found


def _holds(versions: Versions, record: set[Identity | None], kind: Kind | None) -> bool:
    """Whether a parent holds the record in some version; in a file that names no kind (ARCHIVE.md)
    every parent counts, as a merge's own change is not asked of it."""
    return kind is None or any(identity in record for _, identity in versions)


def _count(versions: Versions, row_text: str) -> int:
    return sum(text.count(row_text) for text, _ in versions)


def later_by_own_merges(
    later: LaterVersion, start: Path, path: Path, ours: str, replayed: str
) -> LaterVersion:
    """`later`, and where it cannot say, in a replay of one commit (a rebase step, a pick of
    several, a patch of a series): the side one of whose merges since the sides parted replaced
    the other side's version itself saw that version and changed it since, when only one did.
    Asked only where a conflict would be left."""

    def found(ours_text: str, theirs_text: str) -> str | None:
        said = later(ours_text, theirs_text)
        if said is not None or not (ours_text and theirs_text):
            return said
        base = parting(start, [ours, replayed])
        if base is None:
            return None
        replaced = {
            "ours": replaced_by_own_merge(start, base, ours, path, theirs_text),
            "theirs": replaced_by_own_merge(start, base, replayed, path, ours_text),
        }
        sides = [side for side, did in replaced.items() if did]
        return sides[0] if len(sides) == 1 else None

    return found


def later_in_replay(
    later: LaterVersion, start: Path, path: Path, ours: str, replayed: str
) -> LaterVersion:
    """`later` for a replay of one commit of a series (a rebase step, a pick of several, a
    patch of a `git am` series): the series' end says too which version is later, and so do the
    merges of either side that replaced the other's version themselves."""
    in_series = later_in_series(later, start, path, replayed)
    return later_by_own_merges(in_series, start, path, ours, replayed)

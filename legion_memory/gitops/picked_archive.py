"""In one pick of a sequence, whether a record's archived row may be left out of ARCHIVE.md
because the other side restored the record after that very forget
(docs/decisions.md#archive-moves).

Git runs the merge driver only on a file both sides changed since the merge's base (for a pick:
the picked commit's parent); a file one side left as base had it is taken whole from the other.
So the archive's merge may leave a side's archived row out only when the keeping side's live
file reaches the result: when git does not take the other side's live file whole instead.
Otherwise the record would be in neither file; the row stays, and the hook after the last pick
(or doctor) weighs the record held twice. For the same reason an archived row the pick removed
stays when the commit only dropped a copy of a record it holds live, and ours holds it only
there (docs/decisions.md#dropped-copies).
"""

from collections.abc import Callable, Sequence
from pathlib import Path

from legion_memory.gitops.archived_versions import ArchivedAs
from legion_memory.gitops.branch import run_git
from legion_memory.gitops.repository import files_of_commits

Dropped = Callable[[str], bool]
Blobs = tuple[str, str, str] | None
"""A live file's blobs at the pick's base, ours and theirs; None when git cannot say."""


def live_in_pick(archive: Path, live_names: Sequence[str], picked: str) -> ArchivedAs:
    """(a record's row text, a side) -> whether that side holds the record live in exactly that
    version, in a live file that reaches the pick's result. Ours's live files are read from the
    work tree, theirs's from `picked`, each at the first ask."""
    texts: dict[str, list[str]] = {}
    blobs: dict[str, Blobs] = {}

    def read(side: str) -> list[str]:
        if side not in texts:
            texts[side] = (
                _ours(archive, live_names)
                if side == "ours"
                else _theirs(archive, live_names, picked)
            )
        return texts[side]

    def live_as(text: str, side: str) -> bool:
        held = [name for name, live in zip(live_names, read(side), strict=True) if text in live]
        if not held:
            return False
        if held[0] not in blobs:
            blobs[held[0]] = _blobs(archive.parent, held[0], picked)
        return _reaches_result(side, blobs[held[0]])

    return live_as


def copy_dropped_in_pick(archive: Path, live_names: Sequence[str], picked: str) -> Dropped:
    """(an archived row's text the picked commit removed) -> whether the pick dropped only a
    copy of a record held twice: the commit and its parent hold the record live in that very
    version, and ours's live files (the work tree) hold it nowhere. Applied, the removal would
    leave ours the record in no file (docs/decisions.md#dropped-copies). Read at the first ask."""
    texts: list[list[str]] = []

    def copy_dropped(text: str) -> bool:
        if not texts:
            names = [f"{picked}^", picked]
            found = files_of_commits(Path.cwd(), archive.parent, names, live_names, keep_empty=True)
            sides = [[by_name.get(name) or "" for name in live_names] for by_name in found]
            texts.extend([*sides, _ours(archive, live_names)] if len(sides) == 2 else [[], [], []])
        parent, commit, ours = texts
        return _holds(parent, text) and _holds(commit, text) and not _holds(ours, text)

    return copy_dropped


def _holds(files: list[str], text: str) -> bool:
    return any(text in live for live in files)


def _ours(archive: Path, names: Sequence[str]) -> list[str]:
    """Ours's live files from the work tree (git writes a pick's results only at its end)."""
    found = []
    for name in names:
        try:
            found.append((archive.parent / name).read_bytes().decode("utf-8", "surrogateescape"))
        except OSError:
            found.append("")
    return found


def _theirs(archive: Path, names: Sequence[str], picked: str) -> list[str]:
    found = files_of_commits(Path.cwd(), archive.parent, [picked], names, keep_empty=True)
    by_name = found[0] if found else {}
    return [by_name.get(name) or "" for name in names]


def _blobs(directory: Path, name: str, picked: str) -> Blobs:
    top = run_git(["rev-parse", "--show-toplevel"], directory)
    if top is None:
        return None
    relative = (directory / name).resolve().relative_to(Path(top).resolve()).as_posix()
    revs = [f"{picked}^:{relative}", f"HEAD:{relative}", f"{picked}:{relative}"]
    found = (run_git(["rev-parse", *revs], directory) or "").split()
    return (found[0], found[1], found[2]) if len(found) == 3 else None


def _reaches_result(side: str, blobs: Blobs) -> bool:
    """Whether the side's live file reaches the result: unless the side left it as base had it
    and the other side changed it (then git takes the other side's whole)."""
    if blobs is None:
        return False
    base, ours, theirs = blobs
    keeper, other = (ours, theirs) if side == "ours" else (theirs, ours)
    return not keeper == base != other

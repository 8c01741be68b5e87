"""How often a side's history moved a record into or out of ARCHIVE.md, asked of git's pickaxe.

A merge or pick can leave one record live and archived at once, each copy from one side. Which
copy is the record's later state is in the history: the side whose commits forgot and restored
it more often has seen the other side's moves and made one more (docs/decisions.md#archive-moves).
"""

from pathlib import Path

from legion_memory.gitops.repository import run_git


def archive_moves(start: Path, rev: str, archive: Path, row_text: str) -> int | None:
    """The commits reachable from `rev` that changed how often `row_text` (a row's cells after
    its ID, which a forget or restore carries unchanged) occurs in `archive`; merges are not
    counted (their moves are the commits they merge). None when git cannot say."""
    listed = run_git(
        ["log", "--format=%H", f"-S{row_text}", rev, "--", archive.resolve().as_posix()], start
    )
    return None if listed is None else len(listed.split())

"""Shared setup of the prune tests: projects built from the golden fixtures, failing writes."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

from legion_memory.errors import WriteError
from legion_memory.markdown.cells import split_cells
from legion_memory.storage import reading, writing
from support.processes import FIXTURES, git

PRUNE_FIXTURES = FIXTURES / "prune"
TODAY = "2026-06-30"
LOCK = ".planning/memory/.legion-memory.lock"


def project_from(repo: Path, name: str) -> reading.Memory:
    """`repo` with the fixture's STATE.md and its OUTCOMES/ARCHIVE `before` files."""
    source = PRUNE_FIXTURES / name
    memory = reading.Memory.of_project(repo)
    memory.directory.mkdir(parents=True)
    shutil.copyfile(source / "STATE.md", repo / ".planning" / "STATE.md")
    shutil.copyfile(source / "OUTCOMES.before.md", memory.directory / "OUTCOMES.md")
    if (source / "ARCHIVE.before.md").exists():
        shutil.copyfile(source / "ARCHIVE.before.md", memory.archive)
    git(repo, "config", "init.defaultBranch", "main")
    return memory


def golden(name: str, file: str) -> bytes:
    return (PRUNE_FIXTURES / name / file).read_bytes()


def listing(name: str, ids: list[str]) -> str:
    """The table header and the raw rows of `ids`, as they are in a fixture's OUTCOMES.before.md."""
    lines = golden(name, "OUTCOMES.before.md").decode("utf-8").split("\n")
    header = next(i for i, line in enumerate(lines) if line.startswith("| ID |"))
    rows = [line for line in lines[header + 2 :] if "|" in line and split_cells(line)[0] in ids]
    return "\n".join([lines[header], lines[header + 1], *rows])


def without_lock(files: dict[str, bytes]) -> dict[str, bytes]:
    """A directory's files minus the lock file, which any writing command may create."""
    return {name: data for name, data in files.items() if name != LOCK}


class Disk:
    """Stands in for `store.atomic_write`: counts writes and fails the ones it is told to.

    `fail` holds the 1-based write numbers that raise as a full disk does; `damage` those that
    write only half the text (so the store's read-back check fails); `kill` those that raise
    `Killed`, which the store does not catch, leaving what a killed process leaves.
    """

    def __init__(
        self,
        fail: set[int] | None = None,
        damage: set[int] | None = None,
        kill: set[int] | None = None,
    ) -> None:
        self.real: Callable[[Path, str], None] = writing.atomic_write
        self.fail, self.damage, self.kill = fail or set(), damage or set(), kill or set()
        self.calls: list[str] = []

    def __call__(self, path: Path, text: str) -> None:
        self.calls.append(path.name)
        number = len(self.calls)
        if number in self.kill:
            raise Killed(path.name)
        if number in self.fail:
            raise WriteError("could not write: No space left on device", where=str(path))
        self.real(path, text[: len(text) // 2] if number in self.damage else text)


class Killed(BaseException):
    """What a SIGKILL would be at that point: nothing after it runs, no cleanup, no rollback."""

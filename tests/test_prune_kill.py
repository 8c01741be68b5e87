"""SIGKILL a real `prune` process at random moments on a large file, then run the next command.

Whatever moment the kill lands on, after the next command every record exists exactly once across
OUTCOMES.md and ARCHIVE.md, both files parse, and each file is byte-identical either to its state
before the prune or to its state after an uninterrupted one.
"""

from __future__ import annotations

import datetime as dt
import os
import random
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
from support.processes import CLI, REPO_ROOT, run_process

from legion_memory.schema.kinds import OUTCOME
from legion_memory.storage import reading

pytestmark = pytest.mark.slow

ROWS = 2000
ARCHIVED = 50
KILLS = 51
TODAY = "2026-06-30"
HEADER = (
    "| ID | Date | Branch | Phase | Plan | Agent | Task Type | Outcome | Importance | Tags "
    "| Summary |\n"
    "|----|------|--------|-------|------|-------|-----------|---------|------------|------"
    "|---------|\n"
)


def row(number: int) -> str:
    day = dt.date(2024, 1, 1) + dt.timedelta(days=number * 900 // (ROWS + ARCHIVED))
    return (
        f"| O-{number:04d} | {day} | main | {number % 10} | 0{number % 10}-01 | agent-{number % 7} "
        f"| backend | success | {1 + number % 5} | t{number % 3} | Outcome number {number} |\n"
    )


def large_project(root: Path) -> reading.Memory:
    memory = reading.Memory.of_project(root)
    memory.directory.mkdir(parents=True)
    (root / ".planning" / "STATE.md").write_text("- **Phase**: 9 of 9\n", encoding="utf-8")
    live = "".join(row(n) for n in range(ARCHIVED + 1, ARCHIVED + ROWS + 1))
    memory.path(OUTCOME).write_text(f"# Memory — Outcome Log\n\n## Records\n\n{HEADER}{live}")
    archived = "".join(row(n) for n in range(1, ARCHIVED + 1))
    memory.archive.write_text(
        f"# Memory — Archived Outcomes\n\n## Archived Records\n\n{HEADER}{archived}"
    )
    return memory


def files(memory: reading.Memory) -> tuple[bytes, bytes]:
    return memory.path(OUTCOME).read_bytes(), memory.archive.read_bytes()


def ids(memory: reading.Memory) -> Counter[str]:
    records = [*reading.load_records(memory, OUTCOME), *reading.load_archived(memory, OUTCOME)]
    return Counter(record.id for record in records)


def start_prune(root: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "legion_memory",
            "--root",
            str(root),
            "--today",
            TODAY,
            "prune",
            "--yes",
        ],
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def watch(process: subprocess.Popen[bytes], journal: Path) -> tuple[float, float]:
    """Run to the end: (seconds the run took, seconds its journal existed, as seen by polling)."""
    begin = time.monotonic()
    seen: list[float] = []
    while process.poll() is None:
        if journal.exists():
            seen.append(time.monotonic())
        time.sleep(0.0005)
    assert process.returncode == 0
    window = seen[-1] - seen[0] if seen else 0.0
    return time.monotonic() - begin, window


def wait_for(ready: Callable[[], bool], process: subprocess.Popen[bytes]) -> None:
    while process.poll() is None and not ready():
        time.sleep(0.0003)


def replaced(path: Path) -> Callable[[], bool]:
    """True once `path` is another file than now (an atomic replace gives it a new inode)."""
    inode = path.stat().st_ino
    return lambda: path.stat().st_ino != inode


def test_sigkill_at_random_moments_never_loses_or_duplicates_a_record(cli: CLI, repo: Path) -> None:
    memory = large_project(repo)
    before = files(memory)
    expected = ids(memory)
    assert len(expected) == ROWS + ARCHIVED and set(expected.values()) == {1}
    # One uninterrupted run: the state after, and how long a run and its journal last.
    duration, window = watch(start_prune(repo), memory.journal_path)
    after = files(memory)
    assert after != before and ids(memory) == expected
    chance = random.Random(20260630)
    landed: Counter[str] = Counter()
    for kill in range(KILLS):
        memory.path(OUTCOME).write_bytes(before[0])
        memory.archive.write_bytes(before[1])
        archive_replaced = replaced(memory.archive)
        process = start_prune(repo)
        # A third of the kills land anywhere in the run; the others aim at the writes: from the
        # journal's appearance, or from ARCHIVE.md's replacement, on.
        if kill % 3 == 1:
            wait_for(memory.journal_path.exists, process)
        elif kill % 3 == 2:
            wait_for(archive_replaced, process)
        delay = duration * 1.1 if kill % 3 == 0 else window * 1.2 + 0.001
        time.sleep(chance.uniform(0, delay))
        process.kill()
        process.wait()
        landed[_where(memory, before, after)] += 1
        # The next command: mostly `init` in this process (it only takes the lock), every fifth
        # `init` as a process of its own, every fifth a prune again (which must then complete).
        if kill % 5 == 4:
            result = cli("--root", str(repo), "--today", TODAY, "prune", "--yes")
        elif kill % 5 == 2:
            result = run_process("--root", str(repo), "init", cwd=repo)
        else:
            result = cli("--root", str(repo), "init")
        assert result.code == 0, result.stderr
        assert not memory.journal_path.exists()
        assert ids(memory) == expected
        if kill % 5 == 4:
            assert files(memory) == after
        else:
            assert files(memory) in (before, after)
    strays = len(list(memory.directory.glob(".legion-memory-*.tmp")))
    print(f"kills landed: {dict(landed)}; temporary files left by kills: {strays}")


def _where(memory: reading.Memory, before: tuple[bytes, bytes], after: tuple[bytes, bytes]) -> str:
    """Where a kill landed, judged from what it left (reported, never asserted: timing varies)."""
    state = files(memory)
    journal = "journal" if memory.journal_path.exists() else "no journal"
    if state == before:
        return f"before, {journal}"
    if state == after:
        return f"after, {journal}"
    return f"half done, {journal}"

"""Multi-file writers (every importer, forget, restore) stopped dead at every write (as SIGKILL
stops them), and killed for real at random moments: after the next command and a rerun, the
memory equals the uninterrupted run's, with no record lost, none doubled and the ledger whole."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
from support.interop import INTEROP, MEMORY, TODAY, copy_source, seed_memory
from support.processes import CLI, REPO_ROOT, read_bytes_of, run_process
from support.prune import Disk, Killed

from legion_memory.cli.entry import main
from legion_memory.schema.kinds import KINDS
from legion_memory.storage import reading, writing

JOURNAL = ".legion-memory.journal"


def _bullpen(repo: Path) -> list[str]:
    seed_memory(repo)
    copy_source(repo, "bullpen")
    return ["import", "bullpen", "bullpen/memory.json"]


def _json(repo: Path) -> list[str]:
    (repo / MEMORY).mkdir(parents=True)
    copy_source(repo, "json/export.json", "export.json")
    return ["import", "json", "export.json"]


def _memory_system(repo: Path) -> list[str]:
    seed_memory(repo)
    copy_source(repo, "memory-system")
    return ["import", "memory-system", "memory-system"]


def _memory_broker(repo: Path) -> list[str]:
    seed_memory(repo)
    copy_source(repo, "memory-broker")
    return ["import", "memory-broker", "memory-broker"]


def _learn_move(repo: Path) -> list[str]:
    shutil.copytree(INTEROP / "learn", repo / MEMORY)
    return ["import", "learn", "--move"]


def _forget(repo: Path) -> list[str]:
    seed_memory(repo)
    return ["forget", "P-001"]


def _restore(repo: Path) -> list[str]:
    seed_memory(repo)
    assert main(["--root", str(repo), "forget", "D-001"]) == 0
    return ["restore", "D-001"]


WRITERS: dict[str, Callable[[Path], list[str]]] = {
    "bullpen": _bullpen,
    "json": _json,
    "memory-system": _memory_system,
    "memory-broker": _memory_broker,
    "learn --move": _learn_move,
    "forget": _forget,
    "restore": _restore,
}


def _run(cli: CLI, repo: Path, args: list[str]) -> None:
    result = cli("--today", TODAY, "--branch", "main", *args, cwd=repo)
    assert result.code == 0, result.stderr


def _memory(repo: Path) -> dict[str, bytes]:
    """The memory files; not the journal, nor the temporary files a kill can leave (never read,
    removed by `doctor --fix`)."""
    files = read_bytes_of(repo / MEMORY).items()
    return {name: data for name, data in files if name != JOURNAL and not _temporary(name)}


def _temporary(name: str) -> bool:
    return name.startswith(".legion-memory-") and name.endswith(".tmp")


def _ids(repo: Path) -> Counter[str]:
    memory = reading.Memory.of_project(repo)
    found: Counter[str] = Counter()
    for kind in KINDS.values():
        records = [*reading.load_records(memory, kind), *reading.load_archived(memory, kind)]
        found.update(record.id for record in records)
    return found


def _project(
    tmp_path: Path, name: str, make: Callable[[Path], list[str]]
) -> tuple[Path, list[str]]:
    project = tmp_path / name
    (project / ".git").mkdir(parents=True)
    return project, make(project)


def _after_init(cli: CLI, project: Path) -> dict[str, bytes]:
    """The memory once `init` has added the files it creates (it never changes one)."""
    assert cli("init", cwd=project).code == 0
    return _memory(project)


def _states(
    cli: CLI, tmp_path: Path, make: Callable[[Path], list[str]]
) -> tuple[dict[str, bytes], dict[str, bytes]]:
    """The memory before the import and after an uninterrupted one, each after `init`."""
    untouched, _ = _project(tmp_path, "untouched", make)
    project, args = _project(tmp_path, "uninterrupted", make)
    _run(cli, project, args)
    return _after_init(cli, untouched), _after_init(cli, project)


def _write_count(
    cli: CLI, tmp_path: Path, make: Callable[[Path], list[str]], mp: pytest.MonkeyPatch
) -> int:
    project, args = _project(tmp_path, "counted", make)
    disk = Disk()
    mp.setattr(writing, "atomic_write", disk)
    _run(cli, project, args)
    mp.undo()
    return len(disk.calls)


@pytest.mark.parametrize("writer", WRITERS)
def test_a_writer_killed_at_each_write_recovers_to_the_uninterrupted_result(
    cli: CLI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, writer: str
) -> None:
    make = WRITERS[writer]
    initial, expected = _states(cli, tmp_path, make)
    writes = _write_count(cli, tmp_path, make, monkeypatch)
    assert writes >= 3  # the journal, then at least two files
    for at in range(1, writes + 1):
        project, args = _project(tmp_path, f"killed-{at}", make)
        before = _memory(project)
        monkeypatch.setattr(writing, "atomic_write", Disk(kill={at}))
        with pytest.raises(Killed):
            cli("--today", TODAY, "--branch", "main", *args, cwd=project)
        monkeypatch.undo()
        # Until a writer rolls it back, readers see the memory as it was before the import.
        assert _memory_as_read(project) == _as_read(before), at
        assert _after_init(cli, project) == initial, at  # the next command rolls back
        assert not (project / MEMORY / JOURNAL).exists()
        _run(cli, project, args)  # the rerun completes the import
        assert _after_init(cli, project) == expected, at
        assert set(_ids(project).values()) == {1}, at


def _memory_as_read(project: Path) -> dict[str, str | None]:
    directory = project / MEMORY
    names = [kind.filename for kind in KINDS.values()] + ["ARCHIVE.md", "IMPORTED.txt"]
    return {name: reading.read_text(directory / name) for name in names}


def _as_read(state: dict[str, bytes]) -> dict[str, str | None]:
    names = [kind.filename for kind in KINDS.values()] + ["ARCHIVE.md", "IMPORTED.txt"]
    return {name: state[name].decode() if name in state else None for name in names}


KILLS = 40


def _landed(project: Path, expected: dict[str, bytes]) -> str:
    """Where a kill landed, judged from what it left (reported, never asserted: timing varies);
    `expected` also holds the files `init` adds."""
    if (project / MEMORY / JOURNAL).exists():
        return "journal left"
    state = _memory(project)
    done = bool(state) and all(expected.get(name) == data for name, data in state.items())
    return "after" if done else "before the journal"


def _start(repo: Path, args: list[str]) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "legion_memory", "--root", str(repo), "--today", TODAY]
    return subprocess.Popen(
        [*command, "--branch", "main", *args],
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


@pytest.mark.slow
@pytest.mark.parametrize("writer", ["bullpen", "learn --move", "json", "forget"])
def test_sigkill_at_random_moments_then_rerun_equals_the_uninterrupted_run(
    cli: CLI, tmp_path: Path, capsys: pytest.CaptureFixture[str], writer: str
) -> None:
    make = WRITERS[writer]
    _, expected = _states(cli, tmp_path, make)
    timing, args = _project(tmp_path, "timing", make)
    begin = time.monotonic()
    assert _start(timing, args).wait() == 0
    duration = time.monotonic() - begin
    chance = random.Random(20261201)
    landed: Counter[str] = Counter()
    for kill in range(KILLS):
        project, args = _project(tmp_path, f"kill-{kill}", make)
        process = _start(project, args)
        if kill % 2:
            # Half the kills aim at the writes: from the journal's appearance on, within a few
            # milliseconds (the writes take about that long).
            while process.poll() is None and not (project / MEMORY / JOURNAL).exists():
                time.sleep(0.0002)
            time.sleep(chance.uniform(0, 0.004))
        else:
            time.sleep(chance.uniform(duration * 0.3, duration * 1.05))
        process.kill()
        process.wait()
        landed[_landed(project, expected)] += 1
        # The next command, a process of its own, rolls back whatever the kill left half done;
        # then the writer runs again unless the killed run had finished.
        assert run_process("--root", str(project), "init", cwd=project).code == 0
        if _memory(project) != expected:
            result = run_process("--root", str(project), "--today", TODAY, "--branch", "main",
                                 *args, cwd=project)  # fmt: skip
            assert result.code == 0, result.stderr
        assert _memory(project) == expected, kill
        assert set(_ids(project).values()) == {1}, kill
    with capsys.disabled():
        print(f"\n{writer}: {KILLS} kills, {dict(landed)}")

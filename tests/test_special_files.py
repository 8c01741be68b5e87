"""Something else committed under a memory file's name (a FIFO, a directory, a link to a device or
to nothing): `validate` reports it, and the git hook's `doctor --fix --quiet` answers at once
with one line instead of waiting forever on a FIFO, each leaving every file as it was."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from support.processes import REPO_ROOT, read_bytes_of

ERRORS = Path(".planning/memory/ERRORS.md")


def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _directory(path: Path) -> None:
    path.mkdir()


def _device_link(path: Path) -> None:
    path.symlink_to("/dev/zero")


def _dangling_link(path: Path) -> None:
    path.symlink_to("nowhere.md")


PLANTED: list[tuple[Callable[[Path], None], str]] = [
    (_fifo, "is not a regular file but a FIFO; it is not read"),
    (_directory, "is not a regular file but a directory; it is not read"),
    (_device_link, "resolves outside the project (to /dev/zero); refusing to follow it"),
    (_dangling_link, "is a link to a missing file"),
]


def _run(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "legion_memory", *args], cwd=cwd, env=env, capture_output=True,
        text=True, timeout=60, check=False,
    )  # fmt: skip


@pytest.fixture
def memory(repo: Path) -> Path:
    stored = _run(repo, "store", "pattern", "--pattern", "p", "--context", "c", "--reuse", "r")
    assert stored.returncode == 0, stored.stderr
    return repo


@pytest.mark.parametrize(("plant", "message"), PLANTED, ids=lambda v: getattr(v, "__name__", ""))
def test_validate_reports_what_stands_in_a_memory_file_place(
    memory: Path, plant: Callable[[Path], None], message: str
) -> None:
    plant(memory / ERRORS)
    before = read_bytes_of(memory)
    done = _run(memory, "validate")
    assert (done.returncode, done.stderr) == (1, "")
    assert done.stdout == f"{ERRORS}:0: error: {message}\n2 files checked, 1 error, 0 other\n"
    assert read_bytes_of(memory) == before


@pytest.mark.parametrize("plant", [_fifo, _directory], ids=lambda v: v.__name__)
def test_the_hook_answers_at_once_with_one_line(
    memory: Path, plant: Callable[[Path], None]
) -> None:
    plant(memory / ERRORS)
    before = read_bytes_of(memory)
    kind = "FIFO" if plant is _fifo else "directory"
    for args in (("doctor", "--fix", "--quiet"), ("doctor",)):
        done = _run(memory, *args)  # a FIFO read would block: the timeout fails the test
        assert (done.returncode, done.stdout) == (1, "")
        assert done.stderr == (
            f"Error: {memory / ERRORS}: is not a regular file but a {kind}; it is not read "
            "(replace it with a memory file, or remove it)\n"
        )
    assert read_bytes_of(memory) == before

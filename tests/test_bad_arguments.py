"""Arguments no shell user means: bytes that are not UTF-8 and paths that are symlink loops get
one line and an exit code from a real process, never a traceback, and change nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.processes import REPO_ROOT, read_bytes_of

NOT_UTF8 = b"\xff\xfe"


def _run(cwd: Path, *args: bytes | str) -> tuple[int, str, str]:
    """The CLI as a real process, with raw bytes in its argv as a shell passes them."""
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "legion_memory", *args], cwd=cwd, env=env, capture_output=True,
        check=False,
    )  # fmt: skip
    return done.returncode, done.stdout.decode(), done.stderr.decode()


COMMANDS = [
    ("store", "outcome", "--phase", "1", "--plan", "01-01", "--agent", NOT_UTF8, "--outcome",
     "success", "--summary", "s"),
    ("store", "pattern", "--pattern", b"p" + NOT_UTF8, "--context", "c", "--reuse", "r"),
    ("context", "--agent", b"a" + NOT_UTF8, "--task", "fix the build"),
    ("forget", b"O-" + NOT_UTF8),
    ("--root", NOT_UTF8, "recall", "outcomes"),
]  # fmt: skip


@pytest.mark.parametrize("args", COMMANDS, ids=lambda args: " ".join(map(str, args[:2])))
def test_an_argument_that_is_not_utf8_is_refused_before_anything_runs(
    repo: Path, args: tuple[bytes | str, ...]
) -> None:
    stored = _run(repo, "store", "pattern", "--pattern", "p", "--context", "c", "--reuse", "r")
    assert stored[0] == 0, stored[2]
    before = read_bytes_of(repo)
    given = next(arg for arg in args if isinstance(arg, bytes))
    shown = given.decode("utf-8", "surrogateescape").replace("\udcff", "\\udcff")
    shown = shown.replace("\udcfe", "\\udcfe")
    assert _run(repo, *args) == (
        2,
        "",
        f"Error: the argument '{shown}' is not UTF-8 text (pass it as UTF-8)\n",
    )
    assert read_bytes_of(repo) == before


@pytest.fixture
def loop(repo: Path) -> Path:
    (repo / "loop-a").symlink_to("loop-b")
    (repo / "loop-b").symlink_to("loop-a")
    return repo / "loop-a"


@pytest.mark.parametrize("source", ["json", "bullpen", "memory-system", "memory-broker", "learn"])
def test_an_import_from_a_symlink_loop_is_one_line(repo: Path, loop: Path, source: str) -> None:
    before = read_bytes_of(repo)
    code, stdout, stderr = _run(repo, "import", source, "loop-a")
    assert (code, stdout) == (2, "")
    assert len(stderr.splitlines()) == 1 and stderr.startswith("Error: ")
    assert "Traceback" not in stderr and str(loop) in stderr
    assert read_bytes_of(repo) == before

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


STORES = [
    ("outcome", "Agent", ("--agent", NOT_UTF8, "--outcome", "success", "--summary", "s")),
    ("outcome", "Summary", ("--agent", "a", "--outcome", "success", "--summary", b"s" + NOT_UTF8)),
    ("pattern", "Pattern", ("--pattern", NOT_UTF8, "--context", "c", "--reuse", "r")),
]


@pytest.mark.parametrize(("kind", "field", "options"), STORES, ids=lambda v: str(v)[:20])
def test_a_value_that_is_not_utf8_is_refused(
    repo: Path, kind: str, field: str, options: tuple[bytes | str, ...]
) -> None:
    before = read_bytes_of(repo)
    plan = ("--phase", "1", "--plan", "01-01") if kind == "outcome" else ()
    code, stdout, stderr = _run(repo, "store", kind, *plan, *options)
    assert (code, stdout) == (2, "")
    assert stderr.splitlines()[-1] == (
        f"Error: {field} holds bytes that are not UTF-8 text (pass the value as UTF-8 and retry)"
    )
    assert read_bytes_of(repo) == before


def test_an_id_that_is_not_utf8_is_shown_escaped(repo: Path) -> None:
    code, stdout, stderr = _run(repo, "forget", b"O-" + NOT_UTF8)
    assert (code, stdout) == (2, "")
    assert stderr.startswith("Error: 'O-\\udcff\\udcfe' is not a record ID")


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

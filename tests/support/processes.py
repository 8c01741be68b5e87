"""Test helpers: the CLI run as a real process, real git, and the bytes of a directory tree."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
FIXTURES = REPO_ROOT / "fixtures"
SAMPLES = REPO_ROOT.parent / "shared" / "legion-samples"


@dataclass(frozen=True)
class Result:
    code: int
    stdout: str
    stderr: str


CLI = Callable[..., Result]


def run_process(
    *args: str,
    cwd: Path,
    env: dict[str, str] | None = None,
    check: bool = False,
    stdin: str | None = None,
    program: tuple[str, ...] = ("-m", "legion_memory"),
) -> Result:
    """Run `python -m legion_memory ARGS` (or `python PROGRAM ARGS`) as a real process, with
    `stdin` as its standard input."""
    full_env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), **(env or {})}
    done = subprocess.run(
        [sys.executable, *program, *args],
        cwd=cwd,
        env=full_env,
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
    )
    if check and done.returncode != 0:
        raise AssertionError(f"exit {done.returncode}: {done.stderr}")
    return Result(done.returncode, done.stdout, done.stderr)


def git(cwd: Path, *args: str) -> str:
    """Run real git in `cwd`; fails the test on a non-zero exit."""
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {done.stderr}")
    return done.stdout


def git_version() -> tuple[int, int]:
    """The installed git's major and minor version ((0, 0) when it says none)."""
    said = subprocess.run(["git", "--version"], capture_output=True, text=True, check=True)
    found = re.search(r"(\d+)\.(\d+)", said.stdout)
    return (int(found.group(1)), int(found.group(2))) if found else (0, 0)


LOCK_FILE = ".legion-memory.lock"


def read_bytes_of(directory: Path) -> dict[str, bytes]:
    """Every file under `directory` (recursively) with its bytes: to assert nothing changed.

    The empty lock file a writer creates holds no data, so it is not part of the comparison."""
    return {
        str(p.relative_to(directory)): p.read_bytes()
        for p in sorted(directory.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(directory).parts and p.name != LOCK_FILE
    }


# What `python -m legion_memory ARGS` does, then the names of every module loaded, on one line.
PROBE = (
    "import sys\n"
    "from legion_memory.cli.entry import main\n"
    "code = main(sys.argv[1:])\n"
    "print(' '.join(sorted(sys.modules)))\n"
    "sys.exit(code)\n"
)


def probe(*args: str, cwd: Path, stdin: str | None = None) -> tuple[Result, set[str]]:
    """Run the command line in a fresh process: its exit code and output (the module line taken
    off), and the names of the modules it had loaded when it finished."""
    done = run_process(*args, cwd=cwd, stdin=stdin, program=("-c", PROBE))
    output, _, modules = done.stdout.rstrip("\n").rpartition("\n")
    shown = output + "\n" if output else ""
    return Result(done.code, shown, done.stderr), set(modules.split())

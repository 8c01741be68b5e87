"""One clone of the collaboration simulation: its git, its memory and the truth of its branches.

Every clone is made as a user makes one: cloned from the shared origin, its hooks and merge
driver installed by the CLI of the code under test (`git install`), on an environment that runs
that code, not whatever is installed.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

from bench.collab_model import Model
from bench.strategy_bin import on_path, strategy_bin
from legion_memory.storage.reading import Memory


class SteadyClock:
    """The time both clones' git runs at when the simulation keeps its own clock: a minute later
    at every command, as a person works. Without it git dates commits by the wall clock, and the
    simulation makes several in one second: commits of one author, one subject and one second
    are copies of one another by every key a rebase keeps (the documented look-alike limit),
    and whether two fall in one second changes a run from one time to the next."""

    def __init__(self, start: int = 1_796_083_200) -> None:  # 2026-12-01T00:00:00Z
        self.now = start

    def dates(self) -> dict[str, str]:
        self.now += 60
        stamp = f"@{self.now} +0000"
        return {"GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}


class Clone:
    def __init__(
        self, name: str, path: Path, env: dict[str, str], clock: SteadyClock | None = None
    ) -> None:
        self.name, self.path, self.env, self.clock = name, path, env, clock
        self.memory = Memory.of_project(path)
        self.models: dict[str, Model] = {"main": {}}

    def git(self, *args: str) -> subprocess.CompletedProcess[str]:
        env = {**self.env, **self.clock.dates()} if self.clock else self.env
        return subprocess.run(
            ["git", *args], cwd=self.path, env=env, capture_output=True, text=True, check=False
        )

    def must(self, *args: str) -> str:
        done = self.git(*args)
        if done.returncode:
            raise RuntimeError(f"{self.name}: git {' '.join(args)}: {done.stderr}")
        return done.stdout

    def repair(self) -> str:
        """`doctor --fix` of the code under test, as the docs tell a user to run it: what it
        says is left to the user."""
        return subprocess.run(
            [sys.executable, "-m", "legion_memory", "doctor", "--fix", "--quiet"],
            cwd=self.path,
            env=self.env,
            capture_output=True,
            text=True,
            check=False,
        ).stdout

    @property
    def branch(self) -> str:
        return self.must("rev-parse", "--abbrev-ref", "HEAD").strip()

    def checkout(self, branch: str) -> None:
        self.must("checkout", "-q", branch)


def environment(root: Path, code: Path) -> dict[str, str]:
    """The environment the clones' git and CLI run in: `code` importable and its octopus
    strategy on PATH, a home of their own, no git variables of the caller's repository, and
    no editor: a message git would ask for is taken as git wrote it (`rebase --skip` between
    squashes, say), as a run with no terminal must."""
    env = {**os.environ, "PYTHONPATH": str(code), "HOME": str(root), "GIT_EDITOR": "true"}
    env = on_path(env, strategy_bin(root / "bin", code))
    for key in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        env.pop(key, None)
    return env


def clone_origin(
    name: str,
    origin: Path,
    path: Path,
    env: dict[str, str],
    *,
    first: bool = False,
    clock: SteadyClock | None = None,
) -> Clone:
    """A clone of `origin` at `path`, its hooks installed and `main` checked out; the first
    clone initialises the memory and pushes it as the origin's `main`."""
    subprocess.run(
        ["git", "clone", "-q", str(origin), str(path)],
        check=True,
        env=env,
        capture_output=True,
    )
    clone = Clone(name, path, env, clock)
    for key, value in (
        ("user.email", f"{name}@sim"),
        ("user.name", name),
        ("merge.conflictStyle", "merge"),
        ("pull.rebase", "false"),
    ):
        clone.must("config", key, value)
    command = f"{shlex.quote(sys.executable)} -m legion_memory"
    _run_tool(clone, "git", "install", "--command", command)
    if first:
        _run_tool(clone, "init")
        clone.must("checkout", "-q", "-b", "main")
        clone.must("add", "-A")
        clone.must("commit", "-q", "-m", "memory")
        clone.must("push", "-q", "origin", "main")
    else:
        clone.must("checkout", "-q", "main")
    return clone


def _run_tool(clone: Clone, *args: str) -> None:
    subprocess.run(
        [sys.executable, "-m", "legion_memory", *args],
        cwd=clone.path,
        env=clone.env,
        check=True,
        capture_output=True,
    )

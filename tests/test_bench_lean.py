"""The benchmark's lean scripts print (and write) exactly what the commands they stand for do, so
that the ratio of a command to its lean script compares the same work."""

from __future__ import annotations

import datetime as dt
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support.processes import REPO_ROOT, git, read_bytes_of

from bench.cases import (
    FIRST_AGENT,
    TODAY,
    lean_recall_args,
    lean_store_args,
    store_args,
)
from bench.generate import write_project

# Above the prune threshold (200), so that the recall's note is compared too.
ROWS = 300
TOOL = [sys.executable, "-m", "legion_memory", "--today", TODAY]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    write_project(root, ROWS, dt.date.fromisoformat(TODAY))
    return root


def _run(args: list[str], cwd: Path) -> tuple[int, str, str]:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    return done.returncode, done.stdout, done.stderr


def test_lean_recall_prints_the_commands_bytes(project: Path) -> None:
    lean = _run(lean_recall_args(), project)
    assert lean == _run([*TOOL, "--json", "recall", "outcomes"], project)
    assert lean[0] == 0 and '"id": "O-' in lean[1] and "has 300 records" in lean[2]


@pytest.mark.parametrize("agent", ["engineering-senior-developer", FIRST_AGENT])
def test_lean_store_prints_and_writes_the_commands_bytes(project: Path, agent: str) -> None:
    copy = project.parent / "copy"
    shutil.copytree(project, copy)
    lean = _run(lean_store_args(agent), project)
    command = _run([*TOOL, *store_args(agent)], copy)
    assert lean == command
    assert lean[0] == 0 and f"| O-{ROWS + 1:03d} |" in lean[1]
    assert read_bytes_of(project) == read_bytes_of(copy)

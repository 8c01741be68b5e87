"""The benchmark's lean scripts print (and write) exactly what the commands they stand for do, so
that the ratio of a command to its lean script compares the same work."""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support.processes import REPO_ROOT, git, read_bytes_of

from bench import sequence
from bench.cases import (
    FIRST_AGENT,
    TODAY,
    lean_recall_args,
    lean_store_args,
    store_args,
)
from bench.generate import write_project
from bench.sequence import write_lines

# Above the prune threshold (200), so that the recall's note is compared too.
ROWS = 300
PROGRAM = [sys.executable, "-m", "legion_memory"]
TOOL = [*PROGRAM, "--today", TODAY]


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


def _sequence_copies(project: Path) -> list[Path]:
    write_lines(project)
    copies = [project.parent / name for name in ("batch", "processes")]
    for copy in copies:
        shutil.copytree(project, copy)
    return [project, *copies]


def test_the_ten_call_sequence_gives_the_same_results_in_every_form(project: Path) -> None:
    """One process calling the library, one `batch`, and ten `--json` processes: the same ten
    results, the same two outcomes stored, the same bytes on disk."""
    library, batched, separate = _sequence_copies(project)
    code, out, _ = _run(sequence.one_process_args(), library)
    assert code == 0
    from_library = [json.loads(line) for line in out.splitlines()]
    code, out, _ = _run(sequence.batch_args(), batched)
    lines = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and [line["exit_code"] for line in lines] == [0] * len(sequence.CALLS)
    from_batch = [line["result"] for line in lines]
    from_processes = []
    for call in sequence.CALLS:
        code, out, _ = _run([*PROGRAM, *sequence.GLOBAL, "--json", *sequence.argv(call)],
                            separate)  # fmt: skip
        assert code == 0
        from_processes.append(json.loads(out))
    assert from_library == from_batch == from_processes
    assert [result["id"] for result in from_library[-2:]] == [
        f"O-{ROWS + 1:03d}",
        f"O-{ROWS + 2:03d}",
    ]
    assert read_bytes_of(library) == read_bytes_of(batched) == read_bytes_of(separate)


def test_the_sequence_lines_name_each_call_once() -> None:
    """The process form's words come from the batch line's options: a list repeats its flag, a
    true boolean is the flag alone, a false one is left out."""
    options = {"task_type": ["backend", "api"], "include_global": True, "limit": 3, "x": False}
    assert sequence.argv((["score", "agents"], options)) == [
        "score", "agents", "--task-type", "backend", "--task-type", "api", "--include-global",
        "--limit", "3",
    ]  # fmt: skip

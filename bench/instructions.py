"""Instructions a cold process executes, counted by valgrind's callgrind.

Wall and CPU time move with the machine's load and clock (runs here differ by a fifth); the number
of instructions a process executes does not, so two runs, or a change and its parent, compare to
the percent. The count is taken for the hot commands at the smallest size only: under callgrind a
process runs some fifty times slower.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from bench.cases import Case
from bench.timing import BenchError, environment

_COLLECTED = re.compile(r"Collected : (\d+)")


def available() -> bool:
    return shutil.which("valgrind") is not None


def count(case: Case, project: Path) -> int:
    """Instructions executed by one run of `case` (its files put back first and after)."""
    if case.reset is not None:
        case.reset(project)
    args = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *case.args]
    done = subprocess.run(args, cwd=project, env=environment(), capture_output=True, check=False)
    case.finish(project)
    stderr = done.stderr.decode("utf-8", "replace")
    found = _COLLECTED.search(stderr)
    if done.returncode != 0 or found is None:
        raise BenchError(f"{case.name} under callgrind: exit {done.returncode}: {stderr[-2000:]}")
    return int(found.group(1))

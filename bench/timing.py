"""Cold processes, timed: wall time and CPU time (user + system) of each, as medians.

On a shared, loaded machine the wall time includes waiting for a core; the CPU time does not, so
it is the steadier of the two. Both are reported, next to the floors measured in the same run.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from bench.cases import Case

REPO_ROOT = Path(__file__).resolve().parent.parent
SLOW_MS = 5000.0
"""A command slower than this (validate on 100,000 rows) is timed over at most three runs."""


class BenchError(Exception):
    """A measured command failed or did not do what its row names: its timing would be a lie."""


@dataclass(frozen=True)
class Timing:
    wall_ms: float
    cpu_ms: float
    runs: int


def environment() -> dict[str, str]:
    """The tool from this checkout. Bytecode caches are allowed, as an installed package has
    them; the first (checked, unmeasured) run of each case writes them."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(REPO_ROOT)
    return env


def _run(case: Case, project: Path, env: dict[str, str]) -> tuple[Timing, str, str]:
    if case.reset is not None:
        case.reset(project)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(case.args, cwd=project, env=env, capture_output=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    stdout = done.stdout.decode("utf-8", "replace")
    stderr = done.stderr.decode("utf-8", "replace")
    if done.returncode != 0:
        raise BenchError(f"{case.name}: exit {done.returncode}: {stderr.strip()[-2000:]}")
    return Timing(wall * 1000, cpu * 1000, 1), stdout, stderr


def measure(case: Case, project: Path, runs: int) -> Timing:
    """Medians of `runs` cold processes, after one checked run that is not counted."""
    env = environment()
    first, stdout, stderr = _run(case, project, env)
    problem = case.check(project, stdout, stderr)
    if problem is not None:
        raise BenchError(f"{case.name}: {problem}")
    if first.wall_ms > SLOW_MS:
        runs = min(runs, 3)
    timings = [_run(case, project, env)[0] for _ in range(runs)]
    if case.reset is not None:
        case.reset(project)
    return Timing(
        statistics.median(t.wall_ms for t in timings),
        statistics.median(t.cpu_ms for t in timings),
        runs,
    )

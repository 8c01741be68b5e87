"""Cold processes, timed: wall time and CPU time (user + system) of each, as medians.

On a shared, loaded machine the wall time includes waiting for a core; the CPU time does not, so
it is the steadier of the two. Both are reported, next to the floors measured in the same run.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from bench.cases import Case

REPO_ROOT = Path(__file__).resolve().parent.parent
GNU_TIME = "/usr/bin/time"
SLOW_MS = 5000.0
"""A command slower than this (validate on 100,000 rows) is timed over at most three runs."""


class BenchError(Exception):
    """A measured command failed or did not do what its row names: its timing would be a lie."""


@dataclass(frozen=True)
class Timing:
    wall_ms: float
    cpu_ms: float
    runs: int
    max_rss_kb: int = 0
    """The command's maximum resident set, from its first (checked, unmeasured) run."""


def environment() -> dict[str, str]:
    """The tool from this checkout. Bytecode caches are allowed, as an installed package has
    them; the first (checked, unmeasured) run of each case writes them."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(REPO_ROOT)
    return env


def _run(
    case: Case, project: Path, env: dict[str, str], prefix: Sequence[str] = ()
) -> tuple[Timing, str, str]:
    if case.reset is not None:
        case.reset(project)
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        args = [*prefix, *case.args]
        process = subprocess.Popen(args, cwd=project, env=env, stdout=out, stderr=err)
        # The process's own usage (CPU and max RSS), not the sum or maximum over all children.
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        process.returncode = code = os.waitstatus_to_exitcode(status)
        stdout, stderr = (_text(stream) for stream in (out, err))
    if code != 0:
        raise BenchError(f"{case.name}: exit {code}: {stderr.strip()[-2000:]}")
    cpu = usage.ru_utime + usage.ru_stime
    return Timing(wall * 1000, cpu * 1000, 1), stdout, stderr


def _max_rss_kb(case: Case, project: Path, env: dict[str, str]) -> tuple[int, str, str]:
    """The command's maximum resident set in kB, by GNU time, and its output. Not from this
    process's `wait4`: on Linux a child's max RSS starts at its parent's size at the fork, and the
    benchmark holds large parsed files. GNU time is small when it forks the command."""
    if not Path(GNU_TIME).is_file():
        _, stdout, stderr = _run(case, project, env)
        return 0, stdout, stderr
    with tempfile.NamedTemporaryFile(mode="r", suffix=".rss") as report:
        _, stdout, stderr = _run(case, project, env, (GNU_TIME, "-o", report.name, "-f", "%M"))
        return int(report.read().split()[-1]), stdout, stderr


def _text(stream: IO[bytes]) -> str:
    stream.seek(0)
    return stream.read().decode("utf-8", "replace")


def measure(case: Case, project: Path, runs: int) -> Timing:
    """Medians of `runs` cold processes, after one checked run that is not counted (and gives
    the maximum resident set)."""
    env = environment()
    rss, stdout, stderr = _max_rss_kb(case, project, env)
    problem = case.check(project, stdout, stderr)
    if problem is not None:
        raise BenchError(f"{case.name}: {problem}")
    timings = [_run(case, project, env)[0]]
    if timings[0].wall_ms > SLOW_MS:
        runs = min(runs, 3)
    timings += [_run(case, project, env)[0] for _ in range(runs - 1)]
    case.finish(project)
    return Timing(
        statistics.median(t.wall_ms for t in timings),
        statistics.median(t.cpu_ms for t in timings),
        runs,
        rss,
    )

"""Benchmark: the merge driver as git runs it, a cold process per file, on 1,000-row sides.

Prints medians in milliseconds and ratios against the floor measured in the same run (`python -c
pass`), so numbers from a busy machine can still be compared. Budget: 80 ms median (DESIGN §7).

    .venv/bin/python bench/merge_driver.py [RUNS]
"""

from __future__ import annotations

import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from legion_memory.schema import OUTCOME  # noqa: E402

ROWS = 1_000
LEAN = (
    "import sys\n"
    "from legion_memory.cli.merge_driver import run_merge_driver\n"
    "sys.exit(run_merge_driver(*sys.argv[1:4], int(sys.argv[4]), sys.argv[5]))\n"
)


def row(number: int, branch: str) -> str:
    return (
        f"| O-{number:04d} | 2026-03-01 | {branch} | 3 | 03-01 | engineering-backend-architect "
        f"| backend | success | 2 | api, merge | Row {number} of the benchmark |\n"
    )


def sides(directory: Path) -> list[str]:
    base = OUTCOME.template() + "".join(row(n, "main") for n in range(1, ROWS + 1))
    ours = base + "".join(row(n, "main") for n in range(ROWS + 1, ROWS + 11))
    theirs = base + "".join(row(n, "feature") for n in range(ROWS + 1, ROWS + 11))
    for name, text in (("base", base), ("ours", ours), ("theirs", theirs)):
        (directory / name).write_text(text, encoding="utf-8")
    return ["base", "ours", "theirs", "7", ".planning/memory/OUTCOMES.md"]


def medians_ms(command: list[str], directory: Path, runs: int) -> tuple[float, float]:
    """Median wall time and median CPU time (user + system) of a cold process, in ms.

    CPU time is what to compare on a shared machine: waiting for a core does not count.
    """
    # Bytecode caches as installed code has them (a first, unmeasured run writes them).
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(ROOT)
    subprocess.run(command, cwd=directory, env=env, capture_output=True, check=False)
    walls, cpus = [], []
    for _ in range(runs):
        shutil.copy(directory / "ours", directory / "ours.orig")
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(command, cwd=directory, env=env, capture_output=True, check=False)
        walls.append((time.perf_counter() - start) * 1000)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        cpus.append(cpu * 1000)
        shutil.copy(directory / "ours.orig", directory / "ours")
    return statistics.median(walls), statistics.median(cpus)


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 21
    with tempfile.TemporaryDirectory() as temp:
        directory = Path(temp)
        args = sides(directory)
        python = sys.executable
        cases = {
            "floor: python -c pass": [python, "-c", "pass"],
            "driver via the full CLI": [
                python,
                "-m",
                "legion_memory",
                "git",
                "merge-driver",
                *args,
            ],
            "driver via run_merge_driver": [python, "-c", LEAN, *args],
        }
        floor = 0.0
        print(f"merge driver, two sides of {ROWS} rows + 10 new each, {runs} cold runs")
        print(f"{'':32} {'wall':>9}  {'cpu':>9}  cpu vs floor")
        for name, command in cases.items():
            wall, cpu = medians_ms(command, directory, runs)
            floor = floor or cpu
            print(f"{name:32} {wall:6.1f} ms  {cpu:6.1f} ms  {cpu / floor:5.1f}x")


if __name__ == "__main__":
    main()

"""Cold-process timings of the outcome hot paths on a 1,000-row OUTCOMES.md.

Run: `.venv/bin/python bench/outcomes.py [--runs N]`. Prints the median wall time of each command
as a fresh `python -m legion_memory` process, next to the floor measured in the same run
(`python -c pass`), and their ratio. A benchmark, never a test: nothing here asserts.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))

from legion_memory.schema import OUTCOME  # noqa: E402

AGENTS = ("engineering-backend-architect", "testing-api-tester", "engineering-frontend-developer")
TYPES = ("backend", "api-testing", "frontend")
BUDGET_MS = 80.0
# The same recall without the command-line layer (typer): what a lean dispatcher would pay.
CORE_RECALL = """
import datetime, json, pathlib
from legion_memory import store
from legion_memory.schema import OUTCOME
from legion_memory.scoring import recall
records = store.load_records(store.Memory.of_project(pathlib.Path.cwd()), OUTCOME)
found = recall(records, datetime.date(2026, 3, 31))
print(json.dumps({"records": [s.to_json() for s in found], "notes": []}))
"""


def outcomes_file(rows: int) -> str:
    lines = [OUTCOME.template().rstrip("\n")]
    for n in range(1, rows + 1):
        month, day = 1 + n % 12, 1 + n % 28
        lines.append(
            f"| O-{n:03d} | 2025-{month:02d}-{day:02d} | main | {n % 40} | {n % 40:02d}-01 "
            f"| {AGENTS[n % 3]} | {TYPES[n % 3]} | {('success', 'partial', 'failed')[n % 3]} "
            f"| {1 + n % 5} | api, bench | Outcome number {n} of the benchmark |"
        )
    return "\n".join(lines) + "\n"


def timed(args: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """Wall time and CPU time (user + system) of one process, in ms. On a shared machine the
    CPU time is the steadier of the two."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(args, cwd=cwd, env=env, check=True, capture_output=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall * 1000, cpu * 1000


def median_ms(args: list[str], cwd: Path, env: dict[str, str], runs: int) -> tuple[float, float]:
    timed(args, cwd, env)  # warm the file system cache, as every later run is
    samples = [timed(args, cwd, env) for _ in range(runs)]
    return statistics.median(s[0] for s in samples), statistics.median(s[1] for s in samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=15)
    runs = parser.parse_args().runs
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    with tempfile.TemporaryDirectory() as temp:
        project = Path(temp)
        subprocess.run(["git", "init", "-q", "-b", "main"], cwd=project, check=True)
        memory = project / ".planning" / "memory"
        memory.mkdir(parents=True)
        (memory / "OUTCOMES.md").write_text(outcomes_file(1000), encoding="utf-8")
        tool = [sys.executable, "-m", "legion_memory", "--today", "2026-03-31"]
        catalog = str(REPO_ROOT / "fixtures" / "catalog" / "CATALOG.md")
        commands = {
            "store outcome": [*tool, "--catalog", catalog, "store", "outcome", "--phase", "5",
                              "--plan", "05-01", "--agent", "testing-api-tester", "--outcome",
                              "success", "--summary", "benchmark run"],
            "recall outcomes --json": [*tool, "--json", "recall", "outcomes"],
            "score agents --json": [*tool, "--json", "score", "agents", "--task-type", "backend"],
            "briefing": [*tool, "briefing"],
            "recall, core only": [sys.executable, "-c", CORE_RECALL],
        }  # fmt: skip
        floor, floor_cpu = median_ms([sys.executable, "-c", "pass"], project, env, runs)
        print(f"medians of {runs} cold processes; the floor is `python -c pass`")
        print(f"{'python -c pass':24s} {floor:6.1f} ms wall {floor_cpu:6.1f} ms cpu")
        for name, args in commands.items():
            wall, cpu = median_ms(args, project, env, runs)
            verdict = "within" if wall <= BUDGET_MS else "OVER"
            print(
                f"{name:24s} {wall:6.1f} ms wall {cpu:6.1f} ms cpu  {wall / floor:5.1f}x floor "
                f"(cpu {cpu / floor_cpu:4.1f}x)  {verdict} the {BUDGET_MS:.0f} ms budget"
            )


if __name__ == "__main__":
    main()

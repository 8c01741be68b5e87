"""`make bench`: cold-process medians of the hot commands, their floors, and how they scale.

Every number is a median of several fresh processes, because workflows and git hooks start a new
process for every memory call: cold start is the product's speed. Floors are measured in the same
run (`python -c pass`, Python reading the file, `grep -ri`), and each command is shown as a ratio to
them, so that results from different machines can be compared.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tabulate import tabulate

from bench.generate import table_text, write_memory
from legion_memory.schema import OUTCOME
from legion_memory.table import parse

TODAY = dt.date(2026, 11, 29)
HOT_BUDGET_MS = 80.0
SEARCH_BUDGET_MS = 200.0
SCALE_BUDGET_MS = {"recall outcomes --json": 1500.0, "store outcome": 1000.0}
PARSE_BUDGET_MB_S = 40.0
REPO_ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Case:
    name: str
    args: list[str]
    budget_ms: float | None = None
    prepare: Callable[[Path], None] | None = None


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "legion_memory", "--today", TODAY.isoformat(), *args]


def cases(project: Path) -> list[Case]:
    merge = project / "merge"
    store = [
        "store", "outcome", "--phase", "7", "--plan", "07-01", "--agent",
        "engineering-senior-developer", "--outcome", "success", "--task-type", "backend",
        "--summary", "Benchmark run: stored one outcome",
    ]  # fmt: skip
    return [
        Case("store outcome", cli(*store), HOT_BUDGET_MS),
        Case("recall outcomes --json", cli("--json", "recall", "outcomes"), HOT_BUDGET_MS),
        Case("score agents", cli("score", "agents", "--task-type", "backend"), HOT_BUDGET_MS),
        Case("briefing", cli("briefing"), HOT_BUDGET_MS),
        Case(
            "git merge-driver",
            cli("git", "merge-driver", *(str(merge / n) for n in ("O", "A", "B")), "7", "x.md"),
            HOT_BUDGET_MS,
            prepare=lambda _: _restore(merge),
        ),
        Case("search", cli("search", "cache migration"), SEARCH_BUDGET_MS),
        Case(
            "context",
            cli(
                "context",
                "--agent",
                "engineering-senior-developer",
                "--task",
                "fix the cache migration",
            ),
            SEARCH_BUDGET_MS,
        ),
        Case("validate", cli("validate")),
        Case("prune --dry-run", cli("prune", "--dry-run")),
    ]


def _restore(merge: Path) -> None:
    # The driver writes its result over %A: every run starts from the same "ours".
    shutil.copyfile(merge / "A.orig", merge / "A")


def floors(project: Path) -> list[Case]:
    outcomes = project / ".planning" / "memory" / "OUTCOMES.md"
    read = f"open({str(outcomes)!r}, 'rb').read()"
    return [
        Case("floor: python -c pass", [sys.executable, "-c", "pass"]),
        Case("floor: python reads the file", [sys.executable, "-c", read]),
        Case("floor: grep -ri", ["grep", "-ri", "cache migration", str(outcomes.parent)]),
    ]


def median_ms(case: Case, project: Path, runs: int) -> float:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    times = []
    for _ in range(runs):
        if case.prepare:
            case.prepare(project)
        start = time.perf_counter()
        subprocess.run(case.args, cwd=project, env=env, capture_output=True, check=False)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def make_project(root: Path, rows: int) -> Path:
    project = root / f"project-{rows}"
    project.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=project, check=True)
    write_memory(project / ".planning" / "memory", rows, max(rows // 10, 10), TODAY)
    merge = project / "merge"
    merge.mkdir()
    base = table_text(OUTCOME, 1000, TODAY)
    ours = table_text(OUTCOME, 1005, TODAY, seed=7)
    theirs = base + "".join(table_text(OUTCOME, 1005, TODAY, seed=8).splitlines(True)[-5:])
    (merge / "O").write_text(base, encoding="utf-8")
    (merge / "A.orig").write_text(ours, encoding="utf-8")
    (merge / "B").write_text(theirs, encoding="utf-8")
    return project


def parse_throughput(project: Path) -> float:
    """MB/s of parse() plus reading every record's cells, best of three."""
    text = (project / ".planning" / "memory" / "OUTCOMES.md").read_text(encoding="utf-8")
    size_mb = len(text.encode("utf-8")) / 1e6
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        parse(text)
        best = min(best, time.perf_counter() - start)
    return size_mb / best


def measure(sizes: list[int], runs: int) -> tuple[list[list[object]], list[list[object]]]:
    results: dict[str, dict[int, float]] = {}
    rows: list[list[object]] = []
    with tempfile.TemporaryDirectory() as temp:
        for size in sizes:
            project = make_project(Path(temp), size)
            floor = {c.name: median_ms(c, project, runs) for c in floors(project)}
            python_floor = floor["floor: python -c pass"]
            for name, value in floor.items():
                rows.append([name, size, f"{value:.1f}", f"{value / python_floor:.2f}", "", ""])
            for case in cases(project):
                value = median_ms(case, project, runs)
                results.setdefault(case.name, {})[size] = value
                budget = SCALE_BUDGET_MS.get(case.name) if size >= 100_000 else case.budget_ms
                rows.append(_row(case.name, size, value, python_floor, budget))
            mb_s = parse_throughput(project)
            verdict = "ok" if mb_s >= PARSE_BUDGET_MB_S else "OVER"
            rows.append(["parse throughput (MB/s)", size, f"{mb_s:.1f}", "", "≥ 40", verdict])
    return rows, _scaling(results, sizes)


def _row(name: str, size: int, value: float, floor: float, budget: float | None) -> list[object]:
    verdict = "" if budget is None or size not in (1000, 100_000) else _verdict(value, budget)
    shown_budget = "" if budget is None else f"≤ {budget:.0f}"
    return [name, size, f"{value:.1f}", f"{value / floor:.2f}", shown_budget, verdict]


def _verdict(value: float, budget: float) -> str:
    return "ok" if value <= budget else "OVER"


def _scaling(results: dict[str, dict[int, float]], sizes: list[int]) -> list[list[object]]:
    table: list[list[object]] = []
    for name, by_size in results.items():
        first = by_size[sizes[0]]
        table.append([name, *(f"{by_size[s]:.1f} ({by_size[s] / first:.1f}x)" for s in sizes)])
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10_000, 100_000])
    parser.add_argument("--runs", type=int, default=7, help="cold processes per median")
    options = parser.parse_args()
    rows, scaling = measure(options.sizes, options.runs)
    headers = ["benchmark", "rows", "median ms", "x python", "budget ms", ""]
    print(tabulate(rows, headers=headers, tablefmt="github"))
    print()
    scale_headers = ["command", *(f"{size} rows: ms (x smallest)" for size in options.sizes)]
    print(tabulate(scaling, headers=scale_headers, tablefmt="github"))


if __name__ == "__main__":
    main()

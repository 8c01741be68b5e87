"""`make bench`: cold-process medians of the hot commands, their floors, and how they scale.

Workflows and git hooks start a new process for every memory call, so cold start is the product's
speed: every number is a median of several fresh processes. The floors are measured in the same
run (`python -c pass`, Python reading OUTCOMES.md, `grep -ri` over the memory files) and every
command is shown as a ratio to them, so that runs on a loaded or a different machine compare.
A command that exits non-zero or does not do what its row names stops the benchmark.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from tabulate import tabulate

from bench.cases import (
    GREP_FLOOR,
    OUTCOMES,
    PARSE_BUDGET_MB_S,
    PASS_FLOOR,
    READ_FLOOR,
    TODAY,
    budget_ms,
    commands,
    floors,
    keep_originals,
)
from bench.generate import write_merge_sides, write_project
from bench.timing import BenchError, Timing, measure
from legion_memory import store
from legion_memory.schema import OUTCOME
from legion_memory.table import parse

HEADERS = ["benchmark", "rows", "wall ms", "cpu ms", "x pass", "x read", "x grep", "budget", ""]
GREP_COMPARED = ("search", "context")
Row = list[object]


def make_project(parent: Path, rows: int) -> Path:
    project = parent / f"project-{rows}"
    project.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=project, check=True)
    today = dt.date.fromisoformat(TODAY)
    write_project(project, rows, today)
    write_merge_sides(project / "merge", rows, today)
    keep_originals(project)
    return project


def _best_seconds(call: Callable[[], object], repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - start)
    return best


def throughput_rows(project: Path, rows: int) -> list[Row]:
    """MB/s of OUTCOMES.md text -> Document (`parse`), and -> checked records (what every read
    command does after reading the file), in process: best of three."""
    path = project / OUTCOMES
    text = path.read_text(encoding="utf-8")
    megabytes = len(text.encode("utf-8")) / 1e6
    parse_s = _best_seconds(lambda: parse(text))
    records_s = _best_seconds(lambda: store.records_of(path, parse(text), OUTCOME))
    result = []
    for name, seconds in (("parse (MB/s)", parse_s), ("parse + records (MB/s)", records_s)):
        speed = megabytes / seconds
        verdict = "ok" if speed >= PARSE_BUDGET_MB_S else "OVER"
        result.append(
            [name, rows, f"{speed:.1f}", "", "", "", "", f">= {PARSE_BUDGET_MB_S:g}", verdict]
        )
    return result


def _ratio(value: float, floor: float | None) -> str:
    return "" if floor is None else f"{value / floor:.1f}"


def _row(name: str, rows: int, timing: Timing, found: dict[str, Timing]) -> Row:
    budget = budget_ms(name, rows)
    grep = found[GREP_FLOOR].wall_ms if name in GREP_COMPARED else None
    return [
        name,
        rows,
        f"{timing.wall_ms:.1f}",
        f"{timing.cpu_ms:.1f}",
        _ratio(timing.wall_ms, found[PASS_FLOOR].wall_ms),
        _ratio(timing.wall_ms, found[READ_FLOOR].wall_ms),
        _ratio(timing.wall_ms, grep),
        "" if budget is None else f"<= {budget:g}",
        "" if budget is None else ("ok" if timing.wall_ms <= budget else "OVER"),
    ]


def measure_size(parent: Path, rows: int, runs: int) -> tuple[list[Row], dict[str, Timing]]:
    project = make_project(parent, rows)
    found: dict[str, Timing] = {}
    for case in [*floors(), *commands(rows)]:
        found[case.name] = measure(case, project, runs)
        print(f"  {rows} rows: {case.name}: {found[case.name].wall_ms:.1f} ms", file=sys.stderr)
    table = [_row(name, rows, timing, found) for name, timing in found.items()]
    return table + throughput_rows(project, rows), found


def scaling_rows(by_size: dict[int, dict[str, Timing]]) -> list[Row]:
    sizes = sorted(by_size)
    smallest = by_size[sizes[0]]
    return [
        [name, *(f"{by_size[s][name].wall_ms:.1f}" for s in sizes),
         f"{by_size[sizes[-1]][name].wall_ms / smallest[name].wall_ms:.1f}x"]
        for name in smallest
    ]  # fmt: skip


def report(sizes: Sequence[int], runs: int) -> str:
    load = os.getloadavg()[0]
    table: list[Row] = []
    by_size: dict[int, dict[str, Timing]] = {}
    with tempfile.TemporaryDirectory(prefix="legion-memory-bench-") as temp:
        for rows in sizes:
            size_rows, by_size[rows] = measure_size(Path(temp), rows, runs)
            table += size_rows
    scale_headers = ["command", *(f"{s} rows ms" for s in sorted(by_size)), "growth"]
    return "\n".join([
        f"Python {platform.python_version()}, {os.cpu_count()} cores, load average "
        f"{load:.1f} -> {os.getloadavg()[0]:.1f}; medians of {runs} cold processes",
        "",
        tabulate(table, headers=HEADERS, tablefmt="github", disable_numparse=True),
        "",
        tabulate(scaling_rows(by_size), headers=scale_headers, tablefmt="github",
                 disable_numparse=True),
    ])  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--sizes",
        type=int,
        nargs="+",
        default=[1000, 10_000, 100_000],
        help="OUTCOMES.md rows (the three other files get a tenth each)",
    )
    parser.add_argument("--runs", type=int, default=7, help="cold processes per median")
    options = parser.parse_args(argv)  # fmt: skip
    try:
        print(report(options.sizes, options.runs))
    except BenchError as failure:
        print(f"bench: FAILED: {failure}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

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
    HOOK,
    LEAN_RECALL,
    LEAN_STORE,
    LEAN_STORE_FIRST,
    OUTCOMES,
    PARSE_BUDGET_MB_S,
    PASS_FLOOR,
    READ_FLOOR,
    RECALL,
    REFERENCE_PYTHON_MS,
    STORE,
    STORE_FIRST,
    TODAY,
    budget_ms,
    commands,
    commit_project,
    floors,
    hook,
    keep_originals,
    lean_floors,
    restore_original,
    tool,
    typer_costs,
    typer_path,
)
from bench.generate import write_merge_sides, write_project
from bench.instructions import available, count
from bench.mcp_timing import available as mcp_available
from bench.mcp_timing import measure_mcp
from bench.sequence import SEQUENCE_BATCH, SEQUENCE_ONE_PROCESS, SEQUENCE_PROCESSES, write_lines
from bench.sequence import cases as sequence_cases
from bench.timing import BenchError, Timing, measure
from legion_memory.markdown.document import parse
from legion_memory.project.compaction import compact
from legion_memory.schema.kinds import OUTCOME
from legion_memory.storage import reading

HEADERS = [
    "benchmark", "rows", "runs", "wall ms", "cpu ms", "x pass", "x read", "x grep",
    "budget", "ok (ms)", "ok (x pass)", "max RSS MB", "RSS x file",
]  # fmt: skip
GREP_COMPARED = ("search", "context")
NOT_HOT = ("prune --dry-run",)
INSTRUCTION_HEADERS = ["benchmark", "rows", "M instructions", "x pass"]
COMPARISON_HEADERS = ["comparison", "rows", "x (cpu)", "x (instructions)", "target", "ok"]
# Each command against the lean script that prints the same bytes, counted at every size.
AGAINST_LEAN = {RECALL: LEAN_RECALL, STORE: LEAN_STORE, STORE_FIRST: LEAN_STORE_FIRST}
LEAN_TARGET = 1.5
WORKFLOW_TARGET = 6.0  # x pass at the smallest size, for every command a workflow or hook runs
HOOK_TARGET = 3.0
BATCH_TARGET = 1.5  # the ten calls through one `batch` against one process calling the library
RSS_TARGET = 4.0  # x the size of OUTCOMES.md, at the largest size
VALIDATE_TARGET_MS = 2000.0  # CPU, at 100,000 rows
TARGET_ROWS = (1000, 100_000)
Row = list[object]


def make_project(parent: Path, rows: int) -> Path:
    project = parent / f"project-{rows}"
    project.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=project, check=True)
    today = dt.date.fromisoformat(TODAY)
    write_project(project, rows, today)
    compact(project, "42", today, force=True)
    commit_project(project)
    write_merge_sides(project / "merge", rows, today)
    write_lines(project)
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
    """MB/s of OUTCOMES.md text -> Document (`parse`: the lossless model, which the budget is
    for), and -> checked records (what every reading command then does), in process, best of 3."""
    path = project / OUTCOMES
    text = path.read_text(encoding="utf-8")
    megabytes = len(text.encode("utf-8")) / 1e6
    speed = megabytes / _best_seconds(lambda: parse(text))
    records = megabytes / _best_seconds(lambda: reading.records_of(path, parse(text), OUTCOME))
    verdict = "ok" if speed >= PARSE_BUDGET_MB_S else "OVER"
    budget = f">= {PARSE_BUDGET_MB_S:g} MB/s"
    return [
        ["parse (MB/s)", rows, 3, f"{speed:.1f}", "", "", "", "", budget, verdict, "", "", ""],
        ["parse + records (MB/s)", rows, 3, f"{records:.1f}", *[""] * 9],
    ]


def _ratio(value: float, floor: float | None) -> str:
    return "" if floor is None else f"{value / floor:.1f}"


def _verdicts(budget: float | None, wall: float, ratio: float) -> list[str]:
    if budget is None:
        return ["", "", ""]
    scaled = budget / REFERENCE_PYTHON_MS
    return [
        f"<= {budget:g} ms = {scaled:.0f}x",
        "ok" if wall <= budget else "OVER",
        "ok" if ratio <= scaled else "OVER",
    ]


def _row(name: str, rows: int, timing: Timing, found: dict[str, Timing], size: int) -> Row:
    python = found[PASS_FLOOR].wall_ms
    grep = found[GREP_FLOOR].wall_ms if name in GREP_COMPARED else None
    return [
        name,
        rows,
        timing.runs,
        f"{timing.wall_ms:.1f}",
        f"{timing.cpu_ms:.1f}" if timing.cpu_ms else "",
        _ratio(timing.wall_ms, python),
        _ratio(timing.wall_ms, found[READ_FLOOR].wall_ms),
        _ratio(timing.wall_ms, grep),
        *_verdicts(budget_ms(name, rows), timing.wall_ms, timing.wall_ms / python),
        f"{timing.max_rss_kb / 1024:.1f}",
        f"{timing.max_rss_kb * 1024 / size:.1f}",
    ]


def measure_size(
    parent: Path, rows: int, runs: int, *, typer: bool
) -> tuple[list[Row], dict[str, Timing], int]:
    """The main table's rows at one size, each case's timing, and the size of OUTCOMES.md."""
    project = make_project(parent, rows)
    found: dict[str, Timing] = {}
    typer_cases = [*typer_costs(), *typer_path()] if typer else []
    sequences = sequence_cases(rows, restore_original(OUTCOMES)) if typer else []
    for case in [*floors(), *lean_floors(rows), hook(), *typer_cases, *commands(rows), *sequences]:
        found[case.name] = measure(case, project, runs)
        print(f"  {rows} rows: {case.name}: {found[case.name].wall_ms:.1f} ms", file=sys.stderr)
    if mcp_available():  # the optional extra: skipped, as its tests are, when it is absent
        for name, timing in measure_mcp(project, runs).items():
            found[name] = timing
            print(f"  {rows} rows: {name}: {timing.wall_ms:.1f} ms", file=sys.stderr)
    size = (project / OUTCOMES).stat().st_size
    table = [_row(name, rows, timing, found, size) for name, timing in found.items()]
    return table + throughput_rows(project, rows), found, size


def instruction_rows(parent: Path, rows: int, *, smallest: bool) -> list[Row]:
    """Instructions of `python -c pass` and, at the smallest size, of each hot command (not the
    typer commands, such as `prune`), the hook and the lean scripts; at the other sizes of recall
    and store and their lean scripts only. Each with its ratio to `python -c pass`."""
    project = parent / f"project-{rows}"
    python_floor = next(case for case in floors() if case.name == PASS_FLOOR)
    lean = lean_floors(rows)
    hot = [case for case in commands(rows) if case.name not in NOT_HOT]
    if not smallest:
        hot = [case for case in hot if case.name in AGAINST_LEAN]
    counted: list[tuple[str, int]] = []
    # The hook before the commands: the merge driver leaves a merge log, which the hook repairs.
    for case in [python_floor, hook(), *hot, *lean]:
        counted.append((case.name, count(case, project)))
        print(
            f"  {rows} rows: {case.name}: {counted[-1][1] / 1e6:.1f} M instructions",
            file=sys.stderr,
        )
    python = counted[0][1]
    return [[name, rows, f"{n / 1e6:.1f}", f"{n / python:.1f}"] for name, n in counted]


def _instructions(counted: list[Row]) -> dict[tuple[str, int], float]:
    return {(str(row[0]), int(str(row[1]))): float(str(row[2])) for row in counted}


def _comparison(
    name: str, rows: int, cpu: float | None, instructions: float | None, target: float
) -> Row:
    """One ratio row: ok when the instruction ratio (else the CPU one) is within the target,
    judged only at the sizes the targets are set for."""
    judged = instructions if instructions is not None else cpu
    ok = "" if rows not in TARGET_ROWS and target != LEAN_TARGET else (
        "ok" if judged is not None and judged <= target else "OVER"
    )  # fmt: skip
    shown = [f"{value:.2f}" if value is not None else "" for value in (cpu, instructions)]
    return [name, rows, *shown, f"<= {target:g}x", ok]


def comparison_rows(
    by_size: dict[int, dict[str, Timing]], counted: dict[tuple[str, int], float], file_size: int
) -> list[Row]:
    """Every ratio a target is set for, in one table. A workflow sequence run as separate
    processes against one `batch` process belongs here too, as one more pair."""
    sizes = sorted(by_size)
    table: list[Row] = []
    smallest, largest = sizes[0], sizes[-1]
    for rows in sizes:
        found = by_size[rows]

        def ratio(name: str, floor: str, found: dict[str, Timing] = found) -> float:
            return found[name].cpu_ms / found[floor].cpu_ms

        def counted_ratio(name: str, floor: str, rows: int = rows) -> float | None:
            if (name, rows) not in counted or (floor, rows) not in counted:
                return None
            return counted[(name, rows)] / counted[(floor, rows)]

        hook_ratio = _comparison(f"{HOOK} vs pass", rows, ratio(HOOK, PASS_FLOOR),
                                 counted_ratio(HOOK, PASS_FLOOR), HOOK_TARGET)  # fmt: skip
        # The hook's target is set at the smallest size; larger ones are shown for scale.
        table.append(hook_ratio if rows == smallest else [*hook_ratio[:4], "", ""])
        for name, lean in AGAINST_LEAN.items():
            table.append(_comparison(f"{name} vs {lean}", rows, ratio(name, lean),
                                     counted_ratio(name, lean), LEAN_TARGET))  # fmt: skip
        if rows == smallest:
            # The MCP rows are wall times taken by a client: no process CPU or RSS of their own.
            skipped = ("floor:", "lean:", "typer:", "mcp:", "sequence:", HOOK)
            workflow = [n for n in found if not n.startswith(skipped)]
            table += [
                _comparison(f"{name} vs pass", rows, ratio(name, PASS_FLOOR), None,
                            WORKFLOW_TARGET)
                for name in workflow
            ]  # fmt: skip
            table += _sequence_rows(found, rows)
    return table + _largest_rows(by_size[largest], largest, file_size)


def _sequence_rows(found: dict[str, Timing], rows: int) -> list[Row]:
    """The ten calls through `batch` against one process calling the library (the target),
    and the ten processes a workflow would otherwise start against that `batch` (what it saves)."""
    if SEQUENCE_BATCH not in found:
        return []
    batch = found[SEQUENCE_BATCH].cpu_ms
    one_process = batch / found[SEQUENCE_ONE_PROCESS].cpu_ms
    processes = found[SEQUENCE_PROCESSES].cpu_ms / batch
    return [
        _comparison(f"{SEQUENCE_BATCH} vs {SEQUENCE_ONE_PROCESS}", rows, one_process, None,
                    BATCH_TARGET),
        [f"{SEQUENCE_PROCESSES} vs {SEQUENCE_BATCH}", rows, f"{processes:.2f}", "", "", ""],
    ]  # fmt: skip


def _largest_rows(found: dict[str, Timing], rows: int, file_size: int) -> list[Row]:
    """validate's CPU time against its 2 s, and each command's max RSS against the size of
    OUTCOMES.md (the floors and lean scripts aside)."""
    validate = found["validate"].cpu_ms / VALIDATE_TARGET_MS
    table = [_comparison("validate cpu vs 2 s", rows, validate, None, 1.0)]
    for name, timing in found.items():
        if not name.startswith(("floor:", "lean:", "typer:", "mcp:", "sequence:")):
            rss = timing.max_rss_kb * 1024 / file_size
            table.append(_comparison(f"{name}: max RSS vs file", rows, rss, None, RSS_TARGET))
    return table


def scaling_rows(by_size: dict[int, dict[str, Timing]]) -> list[Row]:
    """Each command's median at every size, and how much the largest size costs over the
    smallest (the commands' own work grows with the rows; start-up does not)."""
    sizes = sorted(by_size)
    largest = by_size[sizes[-1]]
    return [
        [name, *(f"{by_size[s][name].wall_ms:.1f}" for s in sizes),
         f"{largest[name].wall_ms / by_size[sizes[0]][name].wall_ms:.1f}x"]
        for name in largest
    ]  # fmt: skip


def report(requested: Sequence[int], runs: int, *, instructions: bool = False) -> str:
    sizes = sorted(set(requested))
    load = os.getloadavg()[0]
    table: list[Row] = []
    by_size: dict[int, dict[str, Timing]] = {}
    counted: list[Row] = []
    file_size = 0
    with tempfile.TemporaryDirectory(prefix="legion-memory-bench-") as temp:
        for rows in sizes:
            size_rows, by_size[rows], file_size = measure_size(
                Path(temp), rows, runs, typer=rows == sizes[0]
            )
            table += size_rows
        if instructions:
            for rows in sizes:
                counted += instruction_rows(Path(temp), rows, smallest=rows == sizes[0])
    lines = [
        f"Python {platform.python_version()} ({Path(tool()[0]).name}), {os.cpu_count()} cores, "
        f"load average {load:.1f} -> {os.getloadavg()[0]:.1f}; medians of {runs} cold processes",
        "",
        tabulate(table, headers=HEADERS, tablefmt="github", disable_numparse=True),
    ]
    if len(sizes) > 1:
        growth = f"{sizes[0]} -> {sizes[-1]}"
        headers = ["command", *(f"{s} rows ms" for s in sizes), growth]
        scaling = tabulate(
            scaling_rows(by_size), headers=headers, tablefmt="github", disable_numparse=True
        )
        lines += ["", scaling]
    if counted:
        instruction_table = tabulate(
            counted, headers=INSTRUCTION_HEADERS, tablefmt="github", disable_numparse=True
        )
        lines += ["", instruction_table]
    comparisons = comparison_rows(by_size, _instructions(counted), file_size)
    lines += ["", tabulate(comparisons, headers=COMPARISON_HEADERS, tablefmt="github",
                           disable_numparse=True)]  # fmt: skip
    return "\n".join(lines)  # fmt: skip


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
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="also count the instructions of each hot command at the smallest size, with "
        "valgrind's callgrind: unlike time, the count does not vary with the machine's load",
    )
    options = parser.parse_args(argv)  # fmt: skip
    if options.instructions and not available():
        parser.error("--instructions needs valgrind on PATH (Debian: apt install valgrind)")
    try:
        print(report(options.sizes, options.runs, instructions=options.instructions))
    except BenchError as failure:
        print(f"bench: FAILED: {failure}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

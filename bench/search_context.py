"""Benchmark: `search` and `context` on 10,000 records, as cold processes.

Prints the median wall time of each command and its ratio to floors measured in the same run:
`python -c pass` (interpreter start) and `grep -ri` over the same memory files (the lexical floor
agent-memory benchmarks use as their baseline). Budget: search and context <= 200 ms median.

    .venv/bin/python bench/search_context.py [--records 10000] [--runs 11]
"""

from __future__ import annotations

import argparse
import datetime as dt
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from legion_memory.schema import KINDS, OUTCOME, PATTERN, PREFERENCE, Kind, Record, row_for
from legion_memory.table import RowStyle

# Record text follows a Zipf law over 3,000 words, as prose does: the query's words are at ranks
# 60, 150 and 400, each found in a few percent of the records (a 40-word vocabulary would make
# every query match most records, which no real memory does).
SYLLABLES = "ka lo mi ne ru sa ti vo pe da fi gu ho ja ze".split()
VOCABULARY = [a + b + c for a in SYLLABLES for b in SYLLABLES for c in SYLLABLES][:3000]
ZIPF_WEIGHTS = [1 / rank for rank in range(1, len(VOCABULARY) + 1)]
QUERY = " ".join(VOCABULARY[rank - 1] for rank in (60, 150, 400))
AGENTS = ["engineering-senior-developer", "testing-qa-engineer", "design-ui-designer", "ops"]
TODAY = dt.date(2026, 5, 1)


def sentence(rng: random.Random, length: int) -> str:
    return " ".join(rng.choices(VOCABULARY, ZIPF_WEIGHTS, k=length)).capitalize()


def values(kind: Kind, number: int, rng: random.Random) -> dict[str, str]:
    day = (TODAY - dt.timedelta(days=rng.randint(0, 400))).isoformat()
    common = {"id": f"{kind.prefix}-{number:03d}", "date": day, "branch": "main"}
    tags = ", ".join(rng.choices(VOCABULARY, ZIPF_WEIGHTS, k=2))
    agent = rng.choice(AGENTS)
    if kind is OUTCOME:
        return {
            **common, "phase": "1", "plan": "01-01", "agent": agent, "task_type": "code",
            "outcome": rng.choice(["success", "partial", "failed"]),
            "importance": str(rng.randint(1, 5)), "tags": tags, "summary": sentence(rng, 14),
        }  # fmt: skip
    if kind is PATTERN:
        return {
            **common, "pattern": sentence(rng, 8), "context": sentence(rng, 10),
            "reuse_criteria": sentence(rng, 6), "source": "-", "tags": tags,
        }  # fmt: skip
    if kind is PREFERENCE:
        return {
            **common, "decision_point": "review-verdict", "context": sentence(rng, 8),
            "proposed": sentence(rng, 4), "user_choice": sentence(rng, 4),
            "signal": "positive", "agent": agent, "tags": tags,
        }  # fmt: skip
    return {
        **common, "error_signature": sentence(rng, 8), "fix": sentence(rng, 10),
        "agent": agent, "resolved": "true", "tags": tags,
    }  # fmt: skip


def build(directory: Path, records: int) -> None:
    memory = directory / ".planning" / "memory"
    memory.mkdir(parents=True)
    rng = random.Random(7)
    style = RowStyle()
    per_kind = records // len(KINDS)
    for kind in KINDS.values():
        columns = tuple(column.name for column in kind.columns)
        rows = [
            style.format(row_for(Record(kind, values(kind, n, rng)), columns))
            for n in range(1, per_kind + 1)
        ]
        (memory / kind.filename).write_text(kind.template() + "".join(rows), encoding="utf-8")


def median_ms(command: list[str], cwd: Path, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, cwd=cwd, stdout=subprocess.DEVNULL, check=True)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def in_process_ms(root: Path, runs: int) -> dict[str, float]:
    """The library calls alone (read, parse, rank, render), without interpreter or CLI start-up."""
    from legion_memory import context_block
    from legion_memory.corpus import gather
    from legion_memory.schema import KINDS
    from legion_memory.scopes import Scoped
    from legion_memory.search import search
    from legion_memory.store import Memory

    tiers = [Scoped("project", Memory.of_project(root))]

    def run_search() -> None:
        search(tiers, QUERY, "all", today=TODAY, limit=10)

    def run_context() -> None:
        corpus, _ = gather(tiers[0].memory, KINDS.values(), retro=False)
        context_block.build([("project", corpus)], "ops", f"fix {QUERY}", today=TODAY)

    timings = {}
    for name, call in (("search", run_search), ("context", run_context)):
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            call()
            times.append((time.perf_counter() - start) * 1000)
        timings[name] = statistics.median(times)
    return timings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=11)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp)
        (root / ".git").mkdir()
        build(root, args.records)
        empty = root / "empty"
        empty.mkdir()
        tool = [sys.executable, "-m", "legion_memory", "--today", TODAY.isoformat()]
        floors = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "grep -ri": ["grep", "-ri", QUERY.split()[0], ".planning/memory"],
        }
        commands = {
            "search": [*tool, "search", QUERY],
            "context": [*tool, "context", "--agent", "ops", "--task", f"fix {QUERY}"],
        }
        measured = {name: median_ms(cmd, root, args.runs) for name, cmd in floors.items()}
        frame = median_ms([*tool, "--root", str(empty), "search", QUERY], root, args.runs)
        print(f"{args.records} records, query {QUERY!r}, median of {args.runs} cold runs")
        for name, value in measured.items():
            print(f"  {name:<16} {value:8.1f} ms")
        print(f"  {'CLI, no memory':<16} {frame:8.1f} ms  (interpreter + imports + typer)")
        library = in_process_ms(root, args.runs)
        for name, command in commands.items():
            value = median_ms(command, root, args.runs)
            ratios = ", ".join(f"{value / floor:.1f}x {label}" for label, floor in measured.items())
            verdict = "ok" if value <= 200 else "OVER the 200 ms budget"
            print(f"  {name:<16} {value:8.1f} ms  ({ratios})  {verdict}")
            print(f"    of which the library call, in process: {library[name]:.1f} ms")


if __name__ == "__main__":
    main()

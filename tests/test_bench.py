"""The benchmark script runs (so it cannot rot): at two tiny sizes, one run each, every row there.

Nothing here looks at a timing: speed is what `make bench` reports, never what a test asserts.
Every measured command is checked by the script itself (exit 0 and the output its row names), so
the script exiting 0 means each row measured a command that did its work.
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parent.parent
SIZES = (200, 400)
FLOORS = ["floor: python -c pass", "floor: python reads OUTCOMES.md", "floor: grep -ri"]
LEAN = [
    "lean: recall outcomes --json",
    "lean: store outcome",
    "lean: store outcome, agent's first of its type",
]
HOOK = "hook: doctor --fix --quiet, clean memory"
TYPER = [
    "typer: import typer",
    "typer: recall outcomes --json via the app",
    "typer path: compact --list-uncompacted",
    "typer path: phase-context",
    "typer path: detect-edits",
    "typer path: export",
    "typer path: doctor",
    "typer path: compact --check",
    "typer path: forget",
    "typer path: restore",
    "typer path: diff HEAD",
]
COMMANDS = [
    "store outcome",
    "store outcome, agent's first of its type",
    "recall outcomes --json",
    "score agents",
    "briefing",
    "git merge-driver",
    "search",
    "context",
    "validate",
    "prune --dry-run",
]
# A workflow's ten calls three ways, at the smallest size only.
SEQUENCES = [
    "sequence: 10 calls, 10 processes",
    "sequence: 10 calls, one batch",
    "sequence: 10 calls, one process (library)",
]
THROUGHPUT = ["parse (MB/s)", "parse + records (MB/s)"]
# The MCP server's rows, measured when the optional extra is installed (as `make setup` does).
MCP = (
    ["mcp: server start to first tool list", "mcp: recall_outcomes call"]
    if importlib.util.find_spec("mcp") is not None
    else []
)


def tables(output: str) -> list[list[list[str]]]:
    """The markdown tables of the output, each as its body rows' cells (header and rule left)."""
    found: list[list[list[str]]] = []
    current: list[list[str]] | None = None
    for line in output.splitlines():
        if not line.startswith("|"):
            current = None
            continue
        if current is None:
            current = []
            found.append(current)
        current.append([cell.strip() for cell in line.strip("|").split("|")])
    return [rows[2:] for rows in found]


def test_bench_produces_every_row_at_every_size() -> None:
    """With valgrind on the machine, the instruction counts too (one table more)."""
    counting = shutil.which("valgrind") is not None
    args = [sys.executable, "-m", "bench.run", "--sizes", *map(str, SIZES), "--runs", "1"]
    done = subprocess.run(
        [*args, *(["--instructions"] if counting else [])],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    main, scaling, *counted, comparisons = tables(done.stdout)
    smallest, largest = SIZES
    if counting:
        hot = [name for name in COMMANDS if name != "prune --dry-run"]
        against_lean = [name for name in hot if name.startswith(("store", "recall"))]
        assert [(row[0], row[1]) for row in counted[0]] == [
            *((name, str(smallest)) for name in [FLOORS[0], HOOK, *hot, *LEAN]),
            *((name, str(largest)) for name in [FLOORS[0], HOOK, *against_lean, *LEAN]),
        ]
        assert counted[0][0][3] == "1.0"  # python -c pass is its own unit
    assert len(counted) == counting
    expected = [
        *(
            (name, str(smallest))
            for name in [*FLOORS, *LEAN, HOOK, *TYPER, *COMMANDS, *SEQUENCES, *MCP, *THROUGHPUT]
        ),
        *((name, str(largest)) for name in [*FLOORS, *LEAN, HOOK, *COMMANDS, *MCP, *THROUGHPUT]),
    ]
    assert [(row[0], row[1]) for row in main] == expected
    assert [row[0] for row in scaling] == [*FLOORS, *LEAN, HOOK, *COMMANDS, *MCP]
    budgeted = [row for row in main if row[8]]
    assert [row[0] for row in budgeted] == ["parse (MB/s)"] * 2  # no budget at these sizes
    compared = [row[0] for row in comparisons]
    assert f"{HOOK} vs pass" in compared
    assert "recall outcomes --json vs lean: recall outcomes --json" in compared
    assert "validate cpu vs 2 s" in compared
    assert f"{SEQUENCES[1]} vs {SEQUENCES[2]}" in compared
    assert f"{SEQUENCES[0]} vs {SEQUENCES[1]}" in compared
    assert "store outcome: max RSS vs file" in compared
    assert all(float(row[2]) > 0 for row in comparisons)
    assert done.stdout.startswith("Python 3.")

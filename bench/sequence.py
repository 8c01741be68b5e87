"""A workflow's ten memory calls (`/legion:plan` reading scores, patterns, preferences, error fixes
and outcomes and building two agents' context blocks, then `/legion:build` storing two outcomes),
made three ways: ten `legion-memory` processes, one `legion-memory batch`, and one Python process
calling the library's operations itself (`bench/lean_sequence.py`), the floor `batch` is held to.

Each call is written once, as a batch line's command and options; the argv of the process form
is derived from it (option `task_type` is `--task-type`, a list repeats its flag, a true
boolean is the flag alone).
"""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Callable
from pathlib import Path

from bench.cases import BENCH_DIR, CATALOG, STORED_SUMMARY, TODAY, Case, Check, tool
from bench.generate import QUERY

SEQUENCE_PROCESSES = "sequence: 10 calls, 10 processes"
SEQUENCE_BATCH = "sequence: 10 calls, one batch"
SEQUENCE_ONE_PROCESS = "sequence: 10 calls, one process (library)"
LINES_FILE = "sequence.jsonl"  # the batch's stdin, and the calls bench/lean_sequence.py makes

Call = tuple[list[str], dict[str, object]]


def _stored(agent: str) -> Call:
    facts = {"phase": "41", "plan": "41-01", "agent": agent, "outcome": "success"}
    return ["store", "outcome"], {**facts, "summary": STORED_SUMMARY}


CALLS: list[Call] = [
    (["score", "agents"], {"task_type": ["backend"]}),
    (["score", "archetypes"], {}),
    (["recall", "patterns"], {"limit": 5}),
    (["recall", "preferences"], {}),
    (["recall", "errors"], {"error_text": f"TypeError: {QUERY} is undefined"}),
    (["recall", "outcomes"], {"limit": 10}),
    (["context"], {"agent": "testing-api-tester", "task": f"fix the {QUERY}"}),
    (["context"], {"agent": "engineering-senior-developer", "task": f"build the {QUERY}"}),
    _stored("engineering-senior-developer"),
    _stored("testing-api-tester"),
]
GLOBAL = ["--today", TODAY, "--catalog", str(CATALOG)]


def argv(call: Call) -> list[str]:
    """The call as a command line's words after the global options."""
    words, options = call
    flags: list[str] = []
    for name, value in options.items():
        flag = "--" + name.replace("_", "-")
        if isinstance(value, bool):
            flags += [flag] if value else []
            continue
        for one in value if isinstance(value, list) else [value]:
            flags += [flag, str(one)]
    return [*words, *flags]


def batch_lines() -> str:
    return "".join(json.dumps({"command": w, "options": o}) + "\n" for w, o in CALLS)


def processes_args() -> list[str]:
    """One shell running the ten processes one after another, stopping at the first failure (the
    shell's own start is a few per cent of one of them)."""
    commands = [shlex.join([*tool(), *GLOBAL, "--json", *argv(call)]) for call in CALLS]
    return ["sh", "-c", " && ".join(commands)]


def batch_args() -> list[str]:
    return ["sh", "-c", f"exec {shlex.join([*tool(), *GLOBAL, 'batch'])} < {LINES_FILE}"]


def one_process_args() -> list[str]:
    return [sys.executable, str(BENCH_DIR / "lean_sequence.py"), TODAY, str(CATALOG)]


def write_lines(project: Path) -> None:
    (project / LINES_FILE).write_text(batch_lines(), encoding="utf-8")


def _stores_both(rows: int) -> Check:
    def check(_: Path, stdout: str, __: str) -> str | None:
        stored = [f"O-{rows + 1:03d}", f"O-{rows + 2:03d}"]
        missing = [number for number in stored if number not in stdout]
        return f"expected {missing} stored" if missing else None

    return check


def cases(rows: int, restore: Callable[[Path], None]) -> list[Case]:
    """The three forms, each checked to have stored both outcomes; `restore` puts OUTCOMES.md
    back before and after every run."""
    check = _stores_both(rows)
    return [
        Case(name, args, check, restore)
        for name, args in (
            (SEQUENCE_PROCESSES, processes_args()),
            (SEQUENCE_BATCH, batch_args()),
            (SEQUENCE_ONE_PROCESS, one_process_args()),
        )
    ]

"""What the benchmark runs: the floors, the commands, their budgets, and how each run is checked.

A timing is only worth reporting when the command did what its row names, so every case carries a
check of its output: the store really stored the next ID, the merge driver really merged both
sides' rows, search really found something. The first run of each case is checked; every run
must exit 0.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bench.generate import GREP_WORD, QUERY
from legion_memory.gitops.merge_log import LOG_NAME as MERGE_LOG
from legion_memory.markdown.document import parse
from legion_memory.schema.kinds import OUTCOME
from legion_memory.schema.records import records_table
from legion_memory.storage.reading import Memory
from legion_memory.upkeep.forgetting import forget

TODAY = "2026-11-29"
MEMORY = Path(".planning") / "memory"
OUTCOMES = MEMORY / "OUTCOMES.md"
ARCHIVE = MEMORY / "ARCHIVE.md"
CATALOG = Path(__file__).resolve().parent.parent / "fixtures" / "catalog" / "CATALOG.md"
MERGE_DIR = Path("merge")
STORE = "store outcome"
STORE_FIRST = "store outcome, agent's first of its type"
RECALL = "recall outcomes --json"
# Named budgets, in ms (docs/decisions.md#budgets-on-a-slower-machine, and the search budget),
# each at the one size it is set for.
HOT_MS = 80.0
BUDGETS_MS: dict[tuple[str, int], float] = {
    **{(name, 1000): HOT_MS for name in (
        STORE, STORE_FIRST, RECALL, "score agents", "briefing", "git merge-driver",
    )},
    ("search", 10_000): 200.0,
    ("context", 10_000): 200.0,
    (STORE, 100_000): 1000.0,
    (STORE_FIRST, 100_000): 1000.0,
    (RECALL, 100_000): 1500.0,
}  # fmt: skip
# The budgets were set where Python alone starts in ~9 ms: a budget is also that many times
# `python -c pass`, the ratio that still holds on a slower or busier machine.
REFERENCE_PYTHON_MS = 9.0
PARSE_BUDGET_MB_S = 40.0
PASS_FLOOR = "floor: python -c pass"
LEAN_RECALL = f"lean: {RECALL}"
LEAN_STORE = f"lean: {STORE}"
LEAN_STORE_FIRST = f"lean: {STORE_FIRST}"
HOOK = "hook: doctor --fix --quiet, clean memory"
BENCH_DIR = Path(__file__).resolve().parent
READ_FLOOR = "floor: python reads OUTCOMES.md"
GREP_FLOOR = "floor: grep -ri"

Check = Callable[[Path, str, str], str | None]
"""Given the project, stdout and stderr of a run: what is wrong with it, or None."""


@dataclass(frozen=True)
class Case:
    name: str
    args: list[str]
    check: Check
    reset: Callable[[Path], None] | None = None
    """Puts back what the command changes: called before every run and after the last."""
    cleanup: Callable[[Path], None] | None = None
    """Called after the last run instead of `reset`, when the state a run starts from is not the
    project's own (the archived record `restore` brings back)."""

    def finish(self, project: Path) -> None:
        """Leave the project as the other cases expect it."""
        done = self.cleanup or self.reset
        if done is not None:
            done(project)


def tool() -> list[str]:
    """What workflows and hooks run: the installed `legion-memory` script (no `runpy`, unlike
    `python -m`), else `python -m legion_memory`. Either imports this checkout (PYTHONPATH)."""
    script = Path(sys.executable).with_name("legion-memory")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "legion_memory"]


def _tool(*args: str) -> list[str]:
    return [*tool(), "--today", TODAY, *args]


def _expect(text: str) -> Check:
    def check(_: Path, stdout: str, __: str) -> str | None:
        return None if text in stdout else f"expected {text!r} in stdout"

    return check


def floors() -> list[Case]:
    read = f"open({str(OUTCOMES)!r}, 'rb').read()"
    grep = ["grep", "-ri", GREP_WORD, str(MEMORY)]
    return [
        Case(PASS_FLOOR, [sys.executable, "-c", "pass"], lambda *_: None),
        Case(READ_FLOOR, [sys.executable, "-c", read], lambda *_: None),
        Case(GREP_FLOOR, grep, _expect(GREP_WORD)),
    ]


STORED_SUMMARY = "Benchmark run: stored one outcome | with a pipe"
FIRST_AGENT = "lsp-index-engineer"
"""An agent with no outcome of its task type yet: its store reads every row."""


def store_args(agent: str) -> list[str]:
    return [
        "--catalog", str(CATALOG), "store", "outcome", "--phase", "41", "--plan", "41-01",
        "--agent", agent, "--outcome", "success", "--summary", STORED_SUMMARY,
    ]  # fmt: skip


def _store(name: str, agent: str, rows: int) -> Case:
    """`store outcome` with the importance inferred, as workflows store: it reads the history."""
    return Case(
        name, _tool(*store_args(agent)), _expect(f"O-{rows + 1:03d}"), restore_original(OUTCOMES)
    )


def lean_recall_args() -> list[str]:
    return [sys.executable, str(BENCH_DIR / "lean_recall.py"), TODAY]


def lean_store_args(agent: str) -> list[str]:
    script = str(BENCH_DIR / "lean_store.py")
    facts = [str(CATALOG), agent, "41", "41-01", "success", STORED_SUMMARY]
    return [sys.executable, script, TODAY, *facts]


def lean_floors(rows: int) -> list[Case]:
    """Hand-written scripts printing (and writing) the same bytes as recall and store: what those
    commands would cost written for the one call (tests/test_bench_lean.py holds them equal)."""
    stored = _expect(f"O-{rows + 1:03d}")
    return [
        Case(LEAN_RECALL, lean_recall_args(), _recalled),
        Case(LEAN_STORE, lean_store_args("engineering-senior-developer"), stored,
             restore_original(OUTCOMES)),
        Case(LEAN_STORE_FIRST, lean_store_args(FIRST_AGENT), stored, restore_original(OUTCOMES)),
    ]  # fmt: skip


def hook() -> Case:
    """What the post-merge and post-rewrite hooks run, exactly (no global option), on the clean
    memory the benchmark generates: it must print nothing."""
    args = [*tool(), "doctor", "--fix", "--quiet"]
    return Case(HOOK, args, lambda _, out, err: None if out + err == "" else f"printed {out}{err}")


def commands(rows: int) -> list[Case]:
    merge = [str(MERGE_DIR / name) for name in ("O", "A", "B")]
    task = f"fix the {QUERY}"
    return [
        _store(STORE, "engineering-senior-developer", rows),
        # An agent's first outcome of its task type: the only store that reads every row.
        _store(STORE_FIRST, FIRST_AGENT, rows),
        Case(RECALL, _tool("--json", "recall", "outcomes"), _recalled),
        Case("score agents", _tool("score", "agents", "--task-type", "backend"), _expect("| eng")),
        Case("briefing", _tool("briefing"), _expect(f"{rows} recorded")),
        Case(
            "git merge-driver",
            _tool("git", "merge-driver", *merge, "7", str(OUTCOMES)),
            _merged(rows),
            _unmerge,
        ),
        Case("search", _tool("search", QUERY), _expect("| OUTCOMES.md:")),
        Case(
            "context",
            _tool("context", "--agent", "testing-api-tester", "--task", task),
            _expect("<legion-memory role="),
        ),
        Case("validate", _tool("validate"), _expect("0 errors, 0 other")),
        Case("prune --dry-run", _tool("prune", "--dry-run"), _expect("Would prune")),
    ]


def typer_costs() -> list[Case]:
    """What the typer app costs: importing typer alone, and a hot command run through the app
    instead of the lean dispatcher (the numbers behind the choice of the dispatcher)."""
    through_typer = (
        "import sys; from legion_memory.cli.routing import run_typer; "
        "sys.exit(run_typer(sys.argv[1:]))"
    )
    args = ["--today", TODAY, "--json", "recall", "outcomes"]
    return [
        Case("typer: import typer", [sys.executable, "-c", "import typer"], lambda *_: None),
        Case(
            f"typer: {RECALL} via the app", [sys.executable, "-c", through_typer, *args], _recalled
        ),
    ]


def typer_path() -> list[Case]:
    """Commands workflows run that go through the typer app (`prune --dry-run` is measured with
    the hot commands, at every size)."""
    return [
        Case("typer path: compact --list-uncompacted", _tool("compact", "--list-uncompacted"),
             _expect("uncompacted")),
        Case("typer path: phase-context", _tool("phase-context", "41"), _expect("41-01-SUMMARY")),
        Case("typer path: detect-edits", _tool("detect-edits", "--phase", "41"),
             _expect("phase 41")),
        Case("typer path: export", _tool("export", "--format", "jsonl", "--file", "outcomes"),
             _expect('"id": "O-001"')),
        Case("typer path: doctor", _tool("doctor"), _expect("memory is healthy")),
        Case("typer path: compact --check", _tool("compact", "--check", "42"),
             _expect("check passed")),
        Case("typer path: forget", _tool("forget", FORGOTTEN), _expect(f"archived {FORGOTTEN}"),
             _unarchive),
        Case("typer path: restore", _tool("restore", FORGOTTEN),
             _expect(f"restored {FORGOTTEN}"), _archived, _unarchive),
        Case("typer path: diff HEAD", _tool("diff", "HEAD"), _expect("**Added (5)**")),
    ]  # fmt: skip


FORGOTTEN = "O-003"
"""The record `forget` archives and `restore` brings back."""
COMMITTED_ROWS_LESS = 5
"""HEAD holds OUTCOMES.md without its last rows: what `diff HEAD` then reports as added."""


def commit_project(project: Path) -> None:
    """Commit the phases and memory, OUTCOMES.md without its last rows, so that `diff HEAD`
    compares the working tree with a revision (the project's files are left as they were)."""
    outcomes = project / OUTCOMES
    text = outcomes.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    outcomes.write_text("".join(lines[:-COMMITTED_ROWS_LESS]), encoding="utf-8")
    identity = ["-c", "user.name=bench", "-c", "user.email=bench@example.invalid"]
    subprocess.run(["git", "add", ".planning"], cwd=project, check=True)
    subprocess.run(["git", *identity, "commit", "-q", "-m", "bench"], cwd=project, check=True)
    outcomes.write_text(text, encoding="utf-8")


def _archived(project: Path) -> None:
    """The memory with FORGOTTEN archived, as `forget` leaves it."""
    for name in ("OUTCOMES.md", "ARCHIVE.md"):
        shutil.copyfile(project / MEMORY / f"{name}.forgotten", project / MEMORY / name)


def _unarchive(project: Path) -> None:
    restore_original(OUTCOMES)(project)
    (project / ARCHIVE).unlink(missing_ok=True)


def keep_originals(project: Path) -> None:
    """Copies of the files a command changes, so that every run starts from the same bytes, and
    of the two files as they are with FORGOTTEN archived (made in a copy of the memory)."""
    for path in (OUTCOMES, MERGE_DIR / "A"):
        shutil.copyfile(project / path, project / f"{path}.orig")
    with tempfile.TemporaryDirectory(prefix="legion-memory-bench-forget-") as temp:
        memory = Path(temp) / "memory"
        memory.mkdir()
        shutil.copyfile(project / OUTCOMES, memory / OUTCOMES.name)
        forget(Memory(memory), FORGOTTEN)
        for name in ("OUTCOMES.md", "ARCHIVE.md"):
            shutil.copyfile(memory / name, project / MEMORY / f"{name}.forgotten")


def restore_original(path: Path) -> Callable[[Path], None]:
    def restore(project: Path) -> None:
        shutil.copyfile(project / f"{path}.orig", project / path)

    return restore


def _unmerge(project: Path) -> None:
    """Put back `ours`, and drop the merge log the driver leaves in the git directory: the hook
    that runs after it would repair that log instead of finding clean memory."""
    restore_original(MERGE_DIR / "A")(project)
    (project / ".git" / MERGE_LOG).unlink(missing_ok=True)


def _recalled(_: Path, stdout: str, __: str) -> str | None:
    records = json.loads(stdout)["records"]
    return None if 0 < len(records) <= 20 else f"expected 1 to 20 records, got {len(records)}"


def _merged(rows: int) -> Check:
    """The driver wrote `ours` with the base rows and both sides' five new rows, no conflict."""

    def check(project: Path, _: str, stderr: str) -> str | None:
        document = parse((project / MERGE_DIR / "A").read_text(encoding="utf-8"))
        table = records_table(document, OUTCOME)
        merged = 0 if table is None else len(table.rows)
        if merged != rows + 10 or "5 new rows from ours, 5 from theirs" not in stderr:
            return f"expected {rows + 10} merged rows, got {merged}: {stderr.strip()}"
        return None

    return check


def budget_ms(name: str, rows: int) -> float | None:
    return BUDGETS_MS.get((name, rows))

"""Helpers for the git collaboration tests: memory rows, and records on branches of real repos."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.strategy_bin import on_path, strategy_bin
from legion_memory.schema.kinds import ERROR_FIX, KINDS, OUTCOME, PATTERN, new_record
from legion_memory.storage import reading, writing
from support.processes import REPO_ROOT, git, run_process

# The driver and hooks run this interpreter on this checkout, whatever is on PATH.
COMMAND = f"{shlex.quote(sys.executable)} -m legion_memory"
# git finds the octopus strategy on PATH, and `git install` names it only when it is there.
os.environ.update(on_path(os.environ, strategy_bin(Path(tempfile.mkdtemp()), REPO_ROOT)))
GIT_ENV = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}


def outcome_row(number: int, summary: str, branch: str = "main", date: str = "2026-03-01") -> str:
    return (
        f"| O-{number:03d} | {date} | {branch} | 1 | 01-01 | coder | workflow | success | 2 "
        f"| git | {summary} |\n"
    )


def pattern_row(number: int, summary: str, source: str, branch: str = "main") -> str:
    return (
        f"| P-{number:03d} | 2026-03-01 | {branch} | {summary} | ctx | reuse | {source} | git |\n"
    )


def error_row(number: int, signature: str, fix: str = "retry", resolved: str = "false") -> str:
    return (
        f"| E-{number:03d} | 2026-03-01 | main | {signature} | {fix} | coder | {resolved} | git |\n"
    )


def memory_of(repo: Path) -> reading.Memory:
    return reading.Memory.of_project(repo)


def add_outcome(repo: Path, summary: str, branch: str, date: str = "2026-03-02") -> str:
    values = {
        "date": date,
        "branch": branch,
        "phase": "1",
        "plan": "01-01",
        "agent": "coder",
        "task_type": "workflow",
        "outcome": "success",
        "importance": "2",
        "tags": "git",
        "summary": summary,
    }
    return writing.append(memory_of(repo), new_record(OUTCOME, values)).id


def add_pattern(repo: Path, summary: str, source: str, branch: str) -> str:
    values = {
        "date": "2026-03-02",
        "branch": branch,
        "pattern": summary,
        "context": "ctx",
        "reuse_criteria": "reuse",
        "source": source,
        "tags": "git",
    }
    return writing.append(memory_of(repo), new_record(PATTERN, values)).id


def add_error(repo: Path, signature: str, branch: str) -> str:
    values = {
        "date": "2026-03-02",
        "branch": branch,
        "error_signature": signature,
        "fix": "retry",
        "agent": "coder",
        "resolved": "false",
        "tags": "git",
    }
    return writing.append(memory_of(repo), new_record(ERROR_FIX, values)).id


def fix_error(repo: Path, error: str, fix: str) -> None:
    """The error's fix updated to `fix` (resolved), in a commit of its own."""
    writing.update(memory_of(repo), ERROR_FIX, error, {"fix": fix, "resolved": "true"})
    commit(repo, f"fix {fix}")


def rows(repo: Path, kind: str = "outcomes") -> list[tuple[str, str, str]]:
    """(ID, Branch, the kind's text field) of each live record, in file order."""
    field = {"outcomes": "summary", "patterns": "pattern", "errors": "fix"}[kind]
    records = reading.load_records(memory_of(repo), KINDS[kind])
    return [(r.id, r["branch"], r[field]) for r in records]


def sources(repo: Path) -> dict[str, str]:
    records = reading.load_records(memory_of(repo), PATTERN)
    return {record["pattern"]: record["source"] for record in records}


def commit(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)


def commit_without_hooks(repo: Path, message: str) -> None:
    """A commit as a clone without `git install` makes it: no post-commit hook repairs it."""
    git(repo, "add", "-A")
    git(repo, "-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", message)


def run_git(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Real git that may fail (a merge with conflicts), with the driver importable."""
    return subprocess.run(
        ["git", *args], cwd=repo, env=GIT_ENV, capture_output=True, text=True, check=False
    )


def init_memory(repo: Path, *, driver: bool) -> None:
    """Memory files committed on main; with `driver`, `git install` run first (as a user would)."""
    git(repo, "config", "merge.conflictStyle", "merge")
    if driver:
        run_process("git", "install", "--command", COMMAND, cwd=repo, check=True)
    run_process("init", cwd=repo, check=True)
    commit(repo, "memory")


def text_of(repo: Path, name: str) -> str:
    return (repo / ".planning" / "memory" / name).read_text(encoding="utf-8")


def archived_outcomes(repo: Path) -> list[str]:
    """The outcome rows of ARCHIVE.md, whole."""
    return [line for line in text_of(repo, "ARCHIVE.md").splitlines() if line.startswith("| O-")]


def assert_healthy(repo: Path) -> None:
    """doctor and validate call the memory clean, and git sees nothing left to commit."""
    assert run_process("doctor", cwd=repo).stdout == "memory is healthy\n"
    assert run_process("validate", cwd=repo).code == 0
    assert git(repo, "status", "--porcelain") == ""


def feature_outcome_and_pattern(repo: Path, outcome_branch: str = "feature") -> None:
    """feature: an outcome (its Branch `outcome_branch`), then a pattern citing it, a commit
    each; feature checked out."""
    init_memory(repo, driver=True)
    git(repo, "checkout", "-q", "-b", "feature")
    cited = add_outcome(repo, "branch record", outcome_branch)
    commit(repo, "branch outcome")
    add_pattern(repo, "branch pattern", cited, "feature")
    commit(repo, "branch pattern")


def feature_pattern_and_main_outcome(repo: Path, then_on_feature: str = "") -> None:
    """feature: an outcome, then a pattern citing it (then another outcome), a commit each; main,
    meanwhile, an outcome of its own (so the branch's is renumbered there), checked out."""
    feature_outcome_and_pattern(repo)
    if then_on_feature:
        add_outcome(repo, then_on_feature, "feature")
        commit(repo, "later outcome")
    git(repo, "checkout", "-q", "main")
    add_outcome(repo, "main record", "main", date="2026-03-01")
    commit(repo, "main outcome")

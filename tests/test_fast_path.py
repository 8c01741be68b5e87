"""The lean dispatcher: the hot commands it runs behave exactly as through the typer app."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from support.processes import CLI, FIXTURES, read_bytes_of

from legion_memory.cli.lean.dispatcher import dispatch
from legion_memory.cli.lean.hot_commands import ACTIONS
from legion_memory.cli.lean.spec import HELP_PATH, SPEC_PATH, render_help, render_spec
from legion_memory.cli.routing import run_typer
from legion_memory.storage import scopes

TODAY = ("--today", "2026-03-10")
STORE_OUTCOME = (
    "store", "outcome", "--phase", "1", "--plan", "01-01", "--agent",
    "engineering-senior-developer", "--outcome", "success", "--summary", "ran `a | b`",
)  # fmt: skip
INVOCATIONS = [
    (*TODAY, *STORE_OUTCOME, "--tags", "api,db"),
    (*TODAY, *STORE_OUTCOME[:-1], "--summary=equals form", "--dry-run"),
    ("--json", *TODAY, "recall", "outcomes", "--tag", "api", "--tag", "db", "--limit", "5"),
    (*TODAY, "recall", "outcomes", "--branch", "main"),
    (*TODAY, "score", "agents", "--task-type", "general"),
    ("--json", *TODAY, "score", "archetypes"),
    (*TODAY, "briefing"),
    (*TODAY, "store", "pattern", "--pattern", "p | q", "--context", "c", "--reuse", "r"),
    (*TODAY, "store", "error", "--signature", "boom", "--fix", "f", "--agent", "a", "--unresolved"),
    (*TODAY, "store", "error", "--signature", "boom", "--fix", "g", "--agent", "a", "--resolved"),
    (*TODAY, "store", "preference", "--decision-point", "review-verdict", "--context", "c",
     "--proposed", "p", "--choice", "accepted", "--signal", "positive", "--agent", "a"),
    ("--json", *TODAY, "recall", "patterns"),
    (*TODAY, "recall", "errors", "--error-text", "boom"),
    (*TODAY, "recall", "preferences", "--signal", "all"),
    ("--json", *TODAY, "score", "preferences"),
    (*TODAY, "search", "ran"),
    (*TODAY, "context", "--agent", "a", "--task", "ran the pattern"),
    (*TODAY, "store", "outcome", "--phase", "x", "--plan", "01-01", "--agent", "a",
     "--outcome", "success", "--summary", "bad phase"),
    (*TODAY, *STORE_OUTCOME, "--scope", "global"),
    ("--json", *TODAY, *STORE_OUTCOME, "--scope=global", "--dry-run"),
    (*TODAY, "store", "pattern", "--pattern", "g", "--context", "c", "--reuse", "r",
     "--scope", "global"),
    ("--json", *TODAY, "store", "error", "--signature", "boom", "--fix", "h", "--agent", "a",
     "--resolved", "--scope", "global"),
    (*TODAY, "store", "preference", "--decision-point", "review-verdict", "--context", "c",
     "--proposed", "p", "--choice", "accepted", "--signal", "negative", "--agent", "a",
     "--scope", "global"),
    (*TODAY, "recall", "outcomes", "--scope", "all"),
    ("--json", *TODAY, "recall", "outcomes", "--scope", "global", "--limit", "1"),
    (*TODAY, "recall", "patterns", "--scope", "all"),
    ("--json", *TODAY, "recall", "errors", "--error-text", "boom", "--scope", "all"),
    (*TODAY, "recall", "errors", "--scope", "global"),
    (*TODAY, "recall", "preferences", "--scope=all"),
    (*TODAY, "score", "agents", "--task-type", "general", "--include-global"),
    ("--json", *TODAY, "score", "archetypes", "--include-global"),
    (*TODAY, "score", "preferences", "--include-global"),
    ("validate",),
    (*TODAY, "forget", "P-001"),
    ("--json", *TODAY, "restore", "P-001"),
    (*TODAY, "forget", "E-009"),
    ("doctor",),
    ("doctor", "--fix", "--quiet"),
    ("--json", "doctor", "--fix"),
    (*TODAY, "compact", "--list-uncompacted"),
    (*TODAY, "compact", "--list-uncompacted", "--exclude-current"),
    (*TODAY, "compact", "1", "--check"),
    (*TODAY, "compact", "1", "--dry-run"),
    (*TODAY, "compact", "--check"),
    ("phase-context", "1"),
    ("--json", "detect-edits", "--phase", "1"),
    (*TODAY, "prune", "--dry-run"),
    ("--json", *TODAY, "prune", "--yes", "--age-days", "0"),
    ("export",),
    ("export", "--format", "csv", "--file", "outcomes", "--include-archive"),
    ("--json", "diff", "HEAD"),
    ("diff", "HEAD", "HEAD"),
    ("--json", "validate", "--"),
    ("validate", ".planning/memory/OUTCOMES.md", ".planning/memory/ARCHIVE.md", "missing.md"),
    ("--json", "validate", "--", ".planning/memory/PATTERNS.md"),
    ("validate", str(FIXTURES / "validate" / "OUTCOMES.md")),
    # Global options after the command, or on both sides of it.
    ("validate", "--json"),
    ("recall", "outcomes", "--json", *TODAY, "--limit", "5"),
    ("--json", "search", "ran", "--today=2026-03-10"),
    ("store", "pattern", "--pattern", "after", "--context", "c", "--reuse", "r", *TODAY),
    ("context", "--agent", "a", "--task", "ran", "--format", "markdown", "--json"),
]  # fmt: skip
FALLBACKS = [
    ("recall", "outcomes", "--help"),
    ("recall", "outcomes", "--bogus"),
    ("recall", "outcomes", "--limit", "0"),
    ("recall", "outcomes", "--limit", "many"),
    ("store", "outcome", "--phase"),
    ("score", "agents"),
    ("validate", "--bogus"),
    ("doctor", "--bogus"),
    ("diff", "--bogus"),
    ("validate", "-h"),
    ("recall", "outcomes", "--json", "--root"),
    ("store", "pattern", "--pattern", "g", "--context", "c", "--reuse", "r", "--scope", "all"),
    ("recall", "preferences", "--signal", "happy"),
    (),
]


def test_the_committed_hot_spec_is_what_the_typer_app_declares() -> None:
    assert SPEC_PATH.read_text(encoding="utf-8") == render_spec()
    assert HELP_PATH.read_text(encoding="utf-8") == render_help()


def test_every_hot_command_has_a_spec_entry_and_an_invocation_here() -> None:
    covered = {" ".join(w for w in args if not w.startswith("-"))[:40] for args in INVOCATIONS}
    for name in ACTIONS:
        # The merge driver runs under git (test_merge_git.py), batch on stdin (test_batch.py).
        if name not in ("git merge-driver", "batch"):
            assert any(text.split("2026-03-10 ")[-1].startswith(name) for text in covered), name


@pytest.fixture
def project(cli: CLI, repo: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    # The global tier inside the project, so both paths' writes to it are compared too.
    monkeypatch.setenv(scopes.HOME_VARIABLE, str(repo / "global-memory"))
    assert cli("init", cwd=repo).code == 0
    return repo


Outcome = tuple[int, str, str, dict[str, bytes]]


def run_both(
    cli: CLI, project: Path, args: tuple[str, ...], capsys: pytest.CaptureFixture[str]
) -> tuple[Outcome, Outcome]:
    """Run `args` on the fast path, then on a restored copy through typer: both results."""
    backup = project.parent / "backup"
    shutil.copytree(project, backup)
    fast = cli(*args, cwd=project)
    fast_files = read_bytes_of(project)
    os.chdir(project.parent)
    shutil.rmtree(project)
    shutil.copytree(backup, project)
    shutil.rmtree(backup)
    os.chdir(project)
    capsys.readouterr()
    code = run_typer(list(args))
    captured = capsys.readouterr()
    return (fast.code, fast.stdout, fast.stderr, fast_files), (
        code,
        captured.out,
        captured.err,
        read_bytes_of(project),
    )


def test_hot_commands_give_the_same_output_and_files_on_both_paths(
    cli: CLI, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for args in INVOCATIONS:
        fast, typed = run_both(cli, project, args, capsys)
        assert fast == typed, args
        cli(*args, cwd=project)  # keep the state moving, so later commands see records
    written = sorted(path.name for path in (project / "global-memory").glob("*.md"))
    assert written == ["ERRORS.md", "OUTCOMES.md", "PATTERNS.md", "PREFERENCES.md"]


def test_hot_invocations_are_handled_by_the_dispatcher(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project)
    for args in INVOCATIONS:
        assert dispatch(list(args)) is not None, args


@pytest.mark.parametrize("args", FALLBACKS)
def test_help_and_usage_errors_go_to_the_typer_app(
    project: Path, monkeypatch: pytest.MonkeyPatch, args: tuple[str, ...]
) -> None:
    monkeypatch.chdir(project)
    before = read_bytes_of(project)
    assert dispatch(list(args)) is None
    assert read_bytes_of(project) == before

"""The front door: --version, -h, a bare invocation, global options anywhere, usage errors that
name the command's help, and every way a run ends (closed pipe, OS error, Ctrl-C), through both
dispatchers and as real processes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest
from support.processes import CLI, REPO_ROOT, Result, git, read_bytes_of, run_process

from legion_memory.cli.lean.dispatcher import dispatch
from legion_memory.cli.routing import run_typer

VERSION = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
    "version"
]
TODAY = ("--today", "2026-03-10")
STORE_PATTERN = ("store", "pattern", "--pattern", "p", "--context", "c", "--reuse", "r")
ENV = {"LEGION_CATALOG": "", "CLAUDE_PLUGIN_ROOT": ""}


def triple(result: Result) -> tuple[int, str, str]:
    return result.code, result.stdout, result.stderr


@pytest.fixture
def project(cli: CLI, repo: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("LEGION_MEMORY_HOME", str(repo.parent / "global-memory"))
    assert cli("init", cwd=repo).code == 0
    return repo


def test_version_is_pyprojects_on_both_paths(cli: CLI, tmp_path: Path) -> None:
    assert cli("--version", cwd=tmp_path).stdout == f"legion-memory {VERSION}\n"
    assert cli("recall", "outcomes", "--version", cwd=tmp_path).stdout == (
        f"legion-memory {VERSION}\n"
    )
    assert run_typer(["--version"]) == 0
    import legion_memory

    assert legion_memory.__version__ == VERSION


def test_version_as_a_process_imports_no_typer(tmp_path: Path) -> None:
    probe = (
        "import sys\nfrom legion_memory.cli.entry import main\ncode = main(['--version'])\n"
        "print('typer' in sys.modules, 'importlib.metadata' in sys.modules)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    printed = subprocess.check_output([sys.executable, "-c", probe], cwd=tmp_path, env=env)
    assert printed == f"legion-memory {VERSION}\nFalse True\n".encode()


def test_a_bare_invocation_and_a_bare_group_print_help_on_stdout(cli: CLI, tmp_path: Path) -> None:
    bare = cli(cwd=tmp_path)
    assert (bare.code, bare.stderr) == (0, "")
    assert bare.stdout.startswith("Usage: legion-memory [OPTIONS] COMMAND [ARGS]...\n")
    assert "  --version " in bare.stdout and "  --install-completion " in bare.stdout
    group = cli("store", cwd=tmp_path)
    assert (group.code, group.stderr) == (0, "")
    assert group.stdout.startswith("Usage: legion-memory store [OPTIONS] COMMAND [ARGS]...\n")


def test_dash_h_is_dash_dash_help_for_every_command(cli: CLI, tmp_path: Path) -> None:
    from legion_memory.cli.typer_app.reference import command_words

    for words in command_words():
        short, long = cli(*words, "-h", cwd=tmp_path), cli(*words, "--help", cwd=tmp_path)
        assert (short.code, short.stderr) == (0, ""), words
        assert short.stdout == long.stdout, words
        assert short.stdout.startswith(f"Usage: {' '.join(['legion-memory', *words])} "), words
        assert dispatch([*words, "-h"]) is None  # the lean dispatcher leaves help to typer


def test_completion_goes_through_typer(tmp_path: Path) -> None:
    # typer finds the shell to write a script for among the process's parents: run from bash,
    # as a user typing the command would, whatever shell runs the test suite.
    command = f"{sys.executable} -m legion_memory --show-completion; exit $?"
    shown = subprocess.run(
        ["bash", "-c", command], cwd=tmp_path, capture_output=True, text=True, check=False,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
    )  # fmt: skip
    assert shown.returncode == 0, shown.stderr
    assert "_LEGION_MEMORY_COMPLETE=complete_bash" in shown.stdout
    env = {"_LEGION_MEMORY_COMPLETE": "complete_bash", "COMP_WORDS": "legion-memory rec",
           "COMP_CWORD": "1"}  # fmt: skip
    completed = run_process(cwd=tmp_path, env=env)
    assert (completed.code, completed.stdout) == (0, "recall\n")


# Global options after the command (or split around it) answer as they do before it.
SAME = [
    (("--json", *TODAY, "recall", "outcomes"), ("recall", "outcomes", "--json", *TODAY)),
    (("--json", "validate"), ("validate", "--json")),
    (("--json", "score", "archetypes"), ("score", "--json", "archetypes")),
    (("--json", "export", "--file", "patterns"), ("export", "--file", "patterns", "--json")),
    (("--json", "doctor"), ("doctor", "--json=")),
    (("--json", "search", "p", "--limit", "3"), ("search", "--json", "p", "--limit=3")),
]


@pytest.mark.parametrize(("before", "after"), SAME)
def test_global_options_after_the_command(
    cli: CLI, project: Path, before: tuple[str, ...], after: tuple[str, ...]
) -> None:
    assert cli(*STORE_PATTERN, cwd=project).code == 0
    if after[-1] == "--json=":  # `--json=` is a flag given a value: refused like click does
        refused = cli(*after, cwd=project)
        assert (refused.code, refused.stderr) == (
            2,
            "Error: Option '--json' does not take a value. (see `legion-memory --help`)\n",
        )
        return
    expected = cli(*before, cwd=project)
    assert expected.code == 0 and expected.stdout.startswith(("{", "["))
    assert cli(*after, cwd=project) == expected
    assert run_typer(list(after)) == 0


def test_a_commands_own_option_wins_after_the_command(cli: CLI, project: Path) -> None:
    pattern = ("--pattern", "Contract tests before API handlers", "--context", "orders API work")
    stored = cli("store", "pattern", *pattern, "--reuse", "any endpoint", cwd=project)
    assert stored.code == 0
    task = ("--agent", "a", "--task", "contract tests for the orders API handlers")
    block = cli("context", *task, "--format", "markdown", cwd=project)
    assert block.stdout.startswith("## Legion memory: a\n")
    as_global = cli("--format", "markdown", "context", *task, cwd=project)
    assert as_global.stdout.startswith('<legion-memory role="a">\n')


def test_a_value_is_never_taken_for_a_global_option(cli: CLI, project: Path) -> None:
    stored = cli(*TODAY, "store", "pattern", "--pattern", "--json", "--context", "c", "--reuse",
                 "r", cwd=project)  # fmt: skip
    assert (stored.code, stored.stdout) == (0, "Stored P-001 in .planning/memory/PATTERNS.md:10\n")
    rows = (project / ".planning/memory/PATTERNS.md").read_text(encoding="utf-8").splitlines()
    assert rows[-1] == "| P-001 | 2026-03-10 | main | --json | c | r |  |  |"


USAGE = [
    (("recall", "outcomes", "--bogus"),
     "Error: No such option: --bogus (see `legion-memory recall outcomes --help`)\n"),
    (("recall", "outcomes", "--json", "--bogus"),
     "Error: No such option: --bogus (see `legion-memory recall outcomes --help`)\n"),
    (("store", "outcome", "--phase"),
     "Error: Option '--phase' requires an argument. (see `legion-memory store outcome --help`)\n"),
    (("score", "agents"),
     "Error: Missing option '--task-type'. (see `legion-memory score agents --help`)\n"),
    (("store", "--bogus"), "Error: No such option: --bogus (see `legion-memory store --help`)\n"),
    (("nonsense",), "Error: No such command 'nonsense'. (see `legion-memory --help`)\n"),
    (("recall", "outcomes", "--root"),
     "Error: Option '--root' requires an argument. (see `legion-memory --help`)\n"),
]  # fmt: skip


@pytest.mark.parametrize(("args", "message"), USAGE)
def test_usage_errors_name_the_commands_help(
    cli: CLI, project: Path, args: tuple[str, ...], message: str
) -> None:
    before = read_bytes_of(project)
    assert triple(cli(*args, cwd=project)) == (2, "", message)
    assert dispatch(list(args)) is None
    assert read_bytes_of(project) == before


# One mistake, one message, whichever command and dispatcher meets it.
BAD_VALUES = [
    (("recall", "outcomes", "--limit", "0"), "--limit 0 is not valid (use a number of 1 or more)"),
    (("recall", "patterns", "--limit", "0"), "--limit 0 is not valid (use a number of 1 or more)"),
    (("search", "q", "--limit=0"), "--limit 0 is not valid (use a number of 1 or more)"),
    (("context", "--agent", "a", "--task", "t", "--limit", "0"),
     "--limit 0 is not valid (use a number of 1 or more)"),
    (("recall", "errors", "--limit", "many"), "--limit 'many' is not valid (use a whole number)"),
    (("store", "outcome", "--outcome", "won"),
     "--outcome 'won' is not valid (use one of success, partial, failed)"),
    (("recall", "outcomes", "--scope", "team"),
     "--scope 'team' is not valid (use one of project, global, all)"),
    (("store", *STORE_PATTERN[1:], "--scope", "all"),
     "--scope 'all' is not valid (use one of project, global)"),
    (("export", "--format", "xml"), "--format 'xml' is not valid (use one of json, jsonl, csv)"),
    (("--format", "html", "briefing"),
     "--format 'html' is not valid (use one of table, markdown)"),
    (("git", "merge-driver", "o", "a", "b", "seven"),
     "SIZE 'seven' is not valid (use a whole number)"),
]  # fmt: skip


@pytest.mark.parametrize(("args", "message"), BAD_VALUES)
def test_a_bad_value_gets_one_message(
    cli: CLI,
    project: Path,
    capsys: pytest.CaptureFixture[str],
    args: tuple[str, ...],
    message: str,
) -> None:
    before = read_bytes_of(project)
    assert triple(cli(*args, cwd=project)) == (2, "", f"Error: {message}\n")
    capsys.readouterr()
    assert run_typer(list(args)) == 2
    assert capsys.readouterr().err == f"Error: {message}\n"
    assert read_bytes_of(project) == before


def _many_outcomes(project: Path, count: int) -> None:
    path = project / ".planning/memory/OUTCOMES.md"
    rows = "".join(
        f"| O-{n:04d} | 2026-03-09 | main | 1 | 01-01 | a | general | success | 4 | t "
        f"| outcome number {n} with a summary long enough to fill the pipe quickly |\n"
        for n in range(1, count + 1)
    )
    path.write_text(path.read_text(encoding="utf-8") + rows, encoding="utf-8")


# The command line as `legion-memory` runs it, or with the lean dispatcher turned off, so that
# the same command goes through the typer app (behind the same entry point).
LEAN = "import sys\nfrom legion_memory.cli import entry\nsys.exit(entry.main(sys.argv[1:]))\n"
TYPER = (
    "import sys\nfrom legion_memory.cli import entry\n"
    "entry.dispatch_hoisted = lambda *args: None\nsys.exit(entry.main(sys.argv[1:]))\n"
)


def _piped_to_head(program: str, args: list[str], cwd: Path) -> tuple[int, bytes, bytes]:
    """`legion-memory ARGS | head -1` through a real pipe: the tool's exit code and stderr, and
    what head printed."""
    env = {**os.environ, **ENV, "PYTHONPATH": str(REPO_ROOT)}
    tool = subprocess.Popen(
        [sys.executable, "-c", program, *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert tool.stdout is not None and tool.stderr is not None
    head = subprocess.run(["head", "-1"], stdin=tool.stdout, capture_output=True, check=True)
    tool.stdout.close()
    error = tool.stderr.read()
    tool.stderr.close()
    return tool.wait(), head.stdout, error


@pytest.mark.slow
@pytest.mark.parametrize("program", [LEAN, TYPER], ids=["lean", "typer"])
def test_a_closed_pipe_ends_quietly(project: Path, program: str) -> None:
    _many_outcomes(project, 3000)
    args = ["--today", "2026-03-10", "recall", "outcomes", "--limit", "3000"]
    whole = subprocess.run(
        [sys.executable, "-c", program, *args],
        cwd=project,
        env={**os.environ, **ENV, "PYTHONPATH": str(REPO_ROOT)},
        capture_output=True,
        check=True,
    )
    codes = set()
    for _ in range(12):
        code, first, error = _piped_to_head(program, args, project)
        assert error == whole.stderr  # the notes a full run prints, and nothing else
        assert first == whole.stdout.splitlines(keepends=True)[0]
        codes.add(code)
    assert codes <= {0, 141}
    assert 141 in codes  # the output is far larger than a pipe holds: the reader leaves early


def test_a_directory_where_a_memory_file_should_be_is_one_line(cli: CLI, project: Path) -> None:
    outcomes = project / ".planning/memory/OUTCOMES.md"
    outcomes.unlink()
    outcomes.mkdir()
    before = read_bytes_of(project)
    warning = "Warning: OUTCOMES.md could not be parsed. Proceeding without memory.\n"
    assert triple(cli("recall", "outcomes", cwd=project)) == (0, "", warning)  # reads never block
    message = (
        f"Error: {outcomes}: is not a regular file but a directory; it is not read "
        "(replace it with a memory file, or remove it)\n"
    )
    args = ["store", "outcome", "--phase", "1", "--plan", "01-01", "--agent", "a", "--outcome",
            "success", "--summary", "s"]  # fmt: skip
    assert triple(cli(*args, cwd=project)) == (1, "", message)
    assert triple(cli("export", cwd=project)) == (1, "", message)  # through the typer app
    assert read_bytes_of(project) == before


def test_a_refused_write_echoes_the_record_on_both_paths(
    cli: CLI, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lock = project / ".planning/memory/.legion-memory.lock"
    lock.unlink(missing_ok=True)
    lock.mkdir()
    before = read_bytes_of(project)
    record = (
        "The record was not stored. Here it is in full, to add by hand:\n"
        "ID: \nDate: 2026-03-10\nBranch: main\nPattern: p\nContext: c\nReuse Criteria: r\n"
        "Source: \nTags: \n"
    )
    message = (
        f"Error: {lock}: cannot open the memory lock: Is a directory; nothing was written "
        "(remove it (no legion-memory command may be running) and retry)\n"
    )
    assert triple(cli(*TODAY, *STORE_PATTERN, cwd=project)) == (3, record, message)
    capsys.readouterr()
    assert run_typer([*TODAY, *STORE_PATTERN]) == 3
    assert capsys.readouterr() == (record, message)
    assert read_bytes_of(project) == before
    assert lock.is_dir()


def test_ctrl_c_is_one_line_and_exit_130(project: Path) -> None:
    before = read_bytes_of(project)
    env = {**os.environ, **ENV, "PYTHONPATH": str(REPO_ROOT)}
    # A shell running the suite in the background ignores SIGINT, and a process inherits that,
    # Python then installing no handler: the command starts with the disposition a user's has.
    previous = signal.signal(signal.SIGINT, signal.SIG_DFL)
    try:
        waiting = subprocess.Popen(  # `import json -` waits for standard input
            [sys.executable, "-m", "legion_memory", "import", "json", "-"],
            cwd=project,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
    finally:
        signal.signal(signal.SIGINT, previous)
    time.sleep(1.5)  # long enough for the interpreter to start and block on the read
    waiting.send_signal(signal.SIGINT)
    out, err = waiting.communicate(timeout=30)
    assert (waiting.returncode, out, err) == (
        130,
        "",
        "Interrupted: every file is as it was or fully written (writes are atomic)\n",
    )
    assert read_bytes_of(project) == before


def test_outside_a_git_repository_a_store_refuses(
    cli: CLI, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    message = (
        f"Error: no project here: {plain} is not inside a git repository "
        "(run `git init` to make it one, or pass --root PATH)\n"
    )
    assert triple(cli(*STORE_PATTERN, cwd=plain)) == (2, "", message)
    capsys.readouterr()
    assert run_typer(list(STORE_PATTERN)) == 2
    assert capsys.readouterr().err == message
    assert triple(cli("init", cwd=plain)) == (2, "", message)
    assert list(plain.iterdir()) == []
    assert triple(cli("recall", "patterns", cwd=plain)) == (0, "", "")  # reading is fine
    git(plain, "init", "-q", "-b", "main")
    stored = cli(*STORE_PATTERN, cwd=plain)
    assert (stored.code, stored.stdout) == (0, "Stored P-001 in .planning/memory/PATTERNS.md:10\n")


def test_an_existing_planning_directory_or_root_is_a_project(cli: CLI, tmp_path: Path) -> None:
    planned = tmp_path / "planned"
    (planned / ".planning").mkdir(parents=True)
    assert cli(*STORE_PATTERN, cwd=planned).code == 0
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    another = (*STORE_PATTERN[:-1], "r2")  # another pattern: the same one is stored once
    assert cli("--root", str(planned), *another, cwd=elsewhere).code == 0
    assert (planned / ".planning/memory/PATTERNS.md").read_text(encoding="utf-8").count("| P-") == 2


SUMMARY = (
    "# Plan 02-01 Summary: Orders API\n\n## Status: Complete\n\n## Agent: backend-dev\n\n"
    "## What was done\n\nPaginated the orders API.\n"
)


def test_input_files_are_read_wherever_they_are(cli: CLI, project: Path, tmp_path: Path) -> None:
    inputs = tmp_path / "inputs"
    inputs.mkdir()
    (inputs / "02-01-SUMMARY.md").write_text(SUMMARY, encoding="utf-8")
    args = ("--root", str(project), *TODAY, "store", "outcome", "--from-summary",
            "02-01-SUMMARY.md", "--dry-run")  # fmt: skip
    dry = cli(*args, cwd=inputs)  # relative to the working directory, not to --root
    assert dry.code == 0, dry.stderr
    assert "| 2 | 02-01 | backend-dev | general | success |" in dry.stdout
    exported = cli("export", cwd=project).stdout
    (inputs / "export.json").write_text(exported, encoding="utf-8")
    imported = cli("--root", str(project), "import", "json", "export.json", cwd=inputs)
    assert (imported.code, imported.stderr) == (0, "")


def test_learn_stays_inside_the_project(cli: CLI, project: Path, tmp_path: Path) -> None:
    outside = tmp_path / "learned"
    outside.mkdir()
    result = cli("import", "learn", str(outside), cwd=project)
    assert triple(result) == (
        2, "", f"Error: path '{outside}' is outside the project (use a path under {project})\n"
    )  # fmt: skip

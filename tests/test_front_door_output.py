"""Output for people: aligned tables on a real terminal (a pseudo-terminal here), markdown when
piped or asked for, progress on stderr only at a terminal, and counts in correct English."""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest
from support.phases import planning_project
from support.processes import CLI, REPO_ROOT, run_process

from legion_memory.cli.terminal_table import aligned_table, column_widths

SUMMARY = "Paginated the orders API with cursor tokens and documented every endpoint"
STORE = ("--today", "2026-01-02", "store", "outcome", "--phase", "1", "--plan", "01-01",
         "--agent", "backend-dev", "--outcome", "success", "--importance", "2",
         "--summary", SUMMARY)  # fmt: skip
RECALL = ("--today", "2026-01-05", "recall", "outcomes")
ALIGNED = (
    "| ID    | Date       | Branch | Agent       | Task Type | Outcome | Importance | Decay "
    "| Summary                       |\n"
    "|-------|------------|--------|-------------|-----------|---------|------------|-------"
    "|-------------------------------|\n"
    "| O-001 | 2026-01-02 | main   | backend-dev | general   | success | 2          | 2     "
    "| Paginated the orders API with |\n"
    "|       |            |        |             |           |         |            |       "
    "| cursor tokens and documented  |\n"
    "|       |            |        |             |           |         |            |       "
    "| every endpoint                |\n"
)
MARKDOWN = (
    "| ID | Date | Branch | Agent | Task Type | Outcome | Importance | Decay | Summary |\n"
    "|---|---|---|---|---|---|---|---|---|\n"
    f"| O-001 | 2026-01-02 | main | backend-dev | general | success | 2 | 2 | {SUMMARY} |\n"
)


def on_terminal(
    *args: str, cwd: Path, columns: int, stream: str = "stdout"
) -> tuple[int, str, str]:
    """Run the command line with `stream` (stdout or stderr) on a pseudo-terminal `columns`
    wide and the other piped: exit code, the terminal's text (line ends as written), the pipe's."""
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    attributes = termios.tcgetattr(follower)
    attributes[1] &= ~termios.ONLCR  # keep "\n" as written, not "\r\n"
    termios.tcsetattr(follower, termios.TCSANOW, attributes)
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    env.update(PYTHONPATH=str(REPO_ROOT), LEGION_CATALOG="", CLAUDE_PLUGIN_ROOT="")
    terminal_out = stream == "stdout"
    process = subprocess.Popen(
        [sys.executable, "-m", "legion_memory", *args],
        cwd=cwd,
        env=env,
        stdout=follower if terminal_out else subprocess.PIPE,
        stderr=subprocess.PIPE if terminal_out else follower,
    )
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the terminal closes once the process has exited
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    piped = process.stderr if terminal_out else process.stdout
    assert piped is not None
    other = piped.read().decode()
    return process.wait(), b"".join(chunks).decode(), other


@pytest.fixture
def project(cli: CLI, repo: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("LEGION_MEMORY_HOME", str(repo.parent / "global-memory"))
    assert cli("init", cwd=repo).code == 0
    assert cli(*STORE, cwd=repo).code == 0
    return repo


def test_a_terminal_gets_a_table_aligned_to_its_width(project: Path) -> None:
    code, shown, err = on_terminal(*RECALL, cwd=project, columns=120)
    assert (code, shown, err) == (0, ALIGNED, "")
    assert max(len(line) for line in shown.splitlines()) <= 120


def test_a_pipe_or_format_markdown_gets_markdown(project: Path) -> None:
    assert run_process(*RECALL, cwd=project).stdout == MARKDOWN
    code, shown, _ = on_terminal("--format", "markdown", *RECALL, cwd=project, columns=120)
    assert (code, shown) == (0, MARKDOWN)
    aligned = run_process(*RECALL, "--format", "table", cwd=project, env={"COLUMNS": "120"})
    assert aligned.stdout == ALIGNED


def test_a_narrow_terminal_wraps_between_words_and_never_inside_one(project: Path) -> None:
    code, shown, _ = on_terminal(*RECALL, cwd=project, columns=60)
    assert code == 0
    lines = shown.splitlines()
    body = lines[[line.startswith("|-") for line in lines].index(True) + 1 :]
    summary_cells = [line.rsplit("|", 2)[1].strip() for line in body]
    assert " ".join(summary_cells) == SUMMARY  # every word whole, in order


def test_column_widths_stop_at_the_longest_word() -> None:
    headers, rows = ["Name", "Text"], [["a", "internationalisation is long"]]
    assert column_widths(headers, rows, 20) == [4, 20]  # cannot fit: the longest word stays
    assert column_widths(headers, rows, 40) == [4, 28]  # fits as it is
    assert aligned_table(headers, rows, width=24) == (
        "| Name | Text                 |\n"
        "|------|----------------------|\n"
        "| a    | internationalisation |\n"
        "|      | is long              |"
    )


def test_pipes_in_cells_stay_escaped_on_a_terminal(cli: CLI, project: Path) -> None:
    assert cli("store", "pattern", "--pattern", "run `a | b`", "--context", "c", "--reuse", "r",
               cwd=project).code == 0  # fmt: skip
    code, shown, _ = on_terminal("recall", "patterns", cwd=project, columns=200)
    assert code == 0
    assert "| run `a \\| b` |" in shown


def test_progress_goes_to_a_terminal_and_never_to_a_pipe(project: Path) -> None:
    code, status, out = on_terminal("validate", cwd=project, stream="stderr", columns=80)
    assert (code, out) == (0, "5 files checked, 0 errors, 0 other\n")
    names = ["OUTCOMES", "PATTERNS", "ERRORS", "PREFERENCES", "ARCHIVE"]
    assert status == "".join(
        f"\r\x1b[Kvalidate: checking .planning/memory/{name}.md ({number} of 5)…\r\x1b[K"
        for number, name in enumerate(names, 1)
    )
    piped = run_process("validate", cwd=project)
    assert (piped.code, piped.stderr) == (0, "")
    code, status, _ = on_terminal("doctor", cwd=project, stream="stderr", columns=80)
    assert (code, status) == (0, "\r\x1b[Kdoctor: checking the memory files…\r\x1b[K")


def test_counts_are_in_the_singular_for_one(cli: CLI, project: Path) -> None:
    pruned = cli("--today", "2026-06-01", "prune", "--yes", cwd=project)
    assert pruned.stdout == (
        "Pruned 1 record → .planning/memory/ARCHIVE.md\n"
        "Remaining: 0 active records\n"
        "Preserved: 0 high-importance (4-5), 0 current-phase\n"
        "Archive total: 1 record\n"
    )
    planning_project(project, "01-project-skeleton")
    (project / ".planning/phases/01-project-skeleton/01-02-SUMMARY.md").unlink()
    listed = cli("compact", "--list-uncompacted", cwd=project)
    assert listed.stdout.endswith("Phase 1 has 1 uncompacted summary. Compact now?\n"), listed

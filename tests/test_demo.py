"""`demo`: the whole tour as a real process in a temp directory, no `legion-memory` on PATH."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from support.processes import CLI, read_bytes_of, run_process

pytestmark = pytest.mark.slow

HEADINGS = [
    "==> 1/13 A Legion project in a fresh git repository",
    "==> 2/13 init: the memory files",
    "==> 3/13 git install: the merge driver and the repair hooks",
    "==> 4/13 store outcome: importance and task type worked out",
    "==> 5/13 store pattern, error and preference",
    "==> 6/13 recall: best first, with recency decay",
    "==> 7/13 score: what Legion's agent recommendation reads",
    "==> 8/13 briefing: the ## Memory block of /legion:status",
    "==> 9/13 A merge: two branches, one new ID each, merged by the driver",
    "==> 10/13 prune: old, low-importance outcomes move to ARCHIVE.md",
    "==> 11/13 search: one query over every memory file",
    "==> 12/13 context: the memory block for an agent's prompt",
    "==> 13/13 compact: a finished phase in one file, then checked",
]

BRIEFING = """\
$ legion-memory --today 2026-03-02 briefing
## Memory
**Outcomes**: 5 recorded | **Recent** (last 5):
| Date | Agent | Outcome | Summary |
|------|-------|---------|---------|
| 2026-03-02 | testing-qa-verification-specialist | success | Loans review passed in cycle 2 \
after 3 blockers on due dates |
| 2026-03-02 | engineering-backend-architect | success | Loan checkout and return endpoints \
with a per-book lock |
| 2025-11-02 | engineering-backend-architect | failed | Search reindex failed on duplicate ISBNs |
| 2025-11-02 | testing-api-tester | success | Catalog review passed on the first cycle |
| 2025-11-02 | engineering-backend-architect | success | Catalog endpoints with cursor pagination |

**Top Agents** (by experience):
| Agent | Tasks | Success Rate |
|-------|-------|-------------|
| engineering-backend-architect | 3 | 67% |
| testing-api-tester | 1 | 100% |
| testing-qa-verification-specialist | 1 | 100% |
"""

MERGE_REPORT = [
    "legion-memory: merged .planning/memory/OUTCOMES.md: 1 new row from ours, 1 from theirs, "
    "0 identical on both sides",
    "legion-memory: .planning/memory/OUTCOMES.md: ours O-006 renumbered to O-007",
]

COMPACT_CHECK = """\
$ legion-memory --today 2026-03-02 compact --check 1
checked .planning/phases/01-catalog-api/01-COMPACTED.md
requirement IDs: 2/2 present
file paths: 3/3 present
length: 43% of the original summaries (1090 of 2521 characters)
check passed
"""


def _path_without_the_tool() -> str:
    """PATH minus every directory holding a `legion-memory`: git must start the driver anyway."""
    kept = [
        d
        for d in os.environ.get("PATH", "").split(os.pathsep)
        if d and shutil.which("legion-memory", path=d) is None
    ]
    return os.pathsep.join(kept)


def _table_ids(transcript: str, command: str) -> list[str]:
    """The IDs in the first column of the table a command printed."""
    output = transcript.split(f"$ {command}\n")[1].split("\n$ ", maxsplit=1)[0]
    return [line.split(" | ")[0].removeprefix("| ") for line in output.splitlines()[2:]]


def test_demo_runs_every_step_in_a_temporary_project_and_removes_it(tmp_path: Path) -> None:
    path = _path_without_the_tool()
    assert shutil.which("legion-memory", path=path) is None
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    done = run_process(
        "--today",
        "2026-03-02",
        "demo",
        cwd=tmp_path,
        env={"PATH": path, "TMPDIR": str(temporary)},
    )
    assert done.code == 0, done.stdout[-3000:] + done.stderr
    assert done.stderr == ""
    lines = done.stdout.splitlines()
    project = lines[0].removeprefix("legion-memory demo: a throw-away Legion project in ")
    assert Path(project).parent == temporary.resolve()
    assert [line for line in lines if line.startswith("==> ")] == HEADINGS
    assert lines[-1] == (
        f"Done. Removed {project}; `legion-memory demo --dir PATH` keeps the project."
    )
    assert list(temporary.iterdir()) == []

    transcript = done.stdout
    assert BRIEFING in transcript
    assert COMPACT_CHECK in transcript
    assert (
        "--outcome done --summary 'Reminder e-mails'\n"
        "Error: --outcome 'done' is not valid (use one of success, partial, failed)\n"
        "[exit 2]\n"
    ) in transcript
    assert "Skipped: E-001 already holds a resolved fix for this error" in transcript

    merge_output = transcript.split("$ git merge --no-edit loans-reminders\n")[1]
    merge_lines = merge_output.split("\n$ ")[0].splitlines()
    # Git buffers its own stdout: the driver's stderr lines come before or after it, in order.
    assert [line for line in merge_lines if line.startswith("legion-memory:")] == MERGE_REPORT
    merged = _table_ids(transcript, "legion-memory --today 2026-03-02 recall outcomes --branch all")
    assert sorted(merged) == ["O-001", "O-002", "O-003", "O-004", "O-005", "O-006", "O-007"]
    assert "| O-006 | 2026-03-02 | loans-reminders |" in merge_output
    assert "Pruned 2 records → .planning/memory/ARCHIVE.md\nRemaining: 5 active records\n" in (
        transcript
    )


def test_dir_that_is_not_empty_is_refused_and_left_alone(tmp_path: Path, cli: CLI) -> None:
    (tmp_path / "notes.txt").write_text("mine\n", encoding="utf-8")
    before = read_bytes_of(tmp_path)
    done = cli("demo", "--dir", str(tmp_path))
    assert done.code == 2
    assert done.stdout == ""
    assert done.stderr == (
        f"Error: --dir '{tmp_path}' is not empty (give a new or empty directory)\n"
    )
    assert read_bytes_of(tmp_path) == before


def test_dir_that_is_a_file_is_refused(tmp_path: Path, cli: CLI) -> None:
    target = tmp_path / "file.md"
    target.write_text("x\n", encoding="utf-8")
    done = cli("demo", "--dir", str(target))
    assert done.code == 2
    assert done.stderr == f"Error: --dir '{target}' is not a directory (give a new or empty one)\n"
    assert target.read_text(encoding="utf-8") == "x\n"


def test_json_is_refused_before_anything_is_built(tmp_path: Path, cli: CLI) -> None:
    target = tmp_path / "tour"
    done = cli("--json", "demo", "--dir", str(target))
    assert done.code == 2
    assert done.stderr == "Error: demo prints a transcript, not JSON (run it without --json)\n"
    assert not target.exists()


def test_a_step_that_fails_stops_the_tour_and_keeps_the_project(tmp_path: Path) -> None:
    """Without git on PATH the first step fails: exit 1, one line naming the kept project."""
    project = tmp_path / "tour"
    done = run_process("demo", "--dir", str(project), cwd=tmp_path, env={"PATH": ""})
    assert done.code == 1
    assert done.stdout == (
        f"legion-memory demo: a throw-away Legion project in {project}\n"
        "\n"
        "==> 1/13 A Legion project in a fresh git repository\n"
    )
    assert done.stderr.startswith(f"Error: {project}: could not run git init: ")
    assert done.stderr.endswith(f" (the project is kept in {project})\n")
    assert done.stderr.count("\n") == 1
    assert project.is_dir()
    assert list(project.iterdir()) == []

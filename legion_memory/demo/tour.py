"""`demo`: a guided tour of the tool on a throw-away Legion project, one step at a time.

The tour runs the real command line as separate processes, exactly what a person or a Legion
workflow types, and real git, including a merge that git itself routes through the merge driver.
It yields what there is to show (step headings, each command with its output, remarks) and the
command line prints them as they come; nothing here prints. A command that exits with another code
than the tour expects stops it with an error, after its output has been shown.
"""

import datetime as dt
import os
import shlex
import subprocess
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import NamedTuple

from legion_memory.demo.project import PROJECT_FILES
from legion_memory.errors import LegionMemoryError
from legion_memory.gitops.repository import run_git_shown
from legion_memory.project.catalog import CATALOG_ENV, PLUGIN_ROOT_ENV

PACKAGE = "legion_memory"
PROGRAM = "legion-memory"
BRANCH = "loans-reminders"
# Old enough for prune (memory.prune_age_days defaults to 90), recent enough to still be recalled.
BACKDATE_DAYS = 120
_COMMAND_TIMEOUT_SECONDS = 120


class Heading(NamedTuple):
    number: int
    total: int
    title: str


class Shown(NamedTuple):
    """A command as typed (`legion-memory ...` or `git ...`) and what it printed: stdout and
    stderr together, in the order a terminal shows them."""

    command: str
    output: str
    code: int


class Remark(NamedTuple):
    text: str


Event = Heading | Shown | Remark


def demo_environment(base: Mapping[str, str]) -> dict[str, str]:
    """The environment of every process the tour starts: the user's, minus what would make the
    demo depend on their setup (git configuration, a catalog elsewhere, the git variables a hook
    sets), plus what makes this copy of the tool importable by any process git starts."""
    skipped = {CATALOG_ENV, PLUGIN_ROOT_ENV}
    env = {k: v for k, v in base.items() if not k.startswith("GIT_") and k not in skipped}
    package_parent = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_parent, base.get("PYTHONPATH")) if p)
    env["PYTHONIOENCODING"] = "utf-8"
    env.update(
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_AUTHOR_NAME="Demo",
        GIT_AUTHOR_EMAIL="demo@example.com",
        GIT_COMMITTER_NAME="Demo",
        GIT_COMMITTER_EMAIL="demo@example.com",
    )
    return env


class Tour(NamedTuple):
    """Where the tour runs and how it starts the tool. With `pinned`, every command runs on
    `today` (`--today`), so two runs print the same records."""

    directory: Path
    python: str
    env: Mapping[str, str]
    today: dt.date
    pinned: bool = False

    @property
    def tool_command(self) -> str:
        """How git and the hooks start this very copy of the tool, with no need for PATH."""
        return f"{shlex.quote(self.python)} -m {PACKAGE}"

    @property
    def months_ago(self) -> dt.date:
        return self.today - dt.timedelta(days=BACKDATE_DAYS)

    def tool(self, *args: str, expect: int = 0, on: dt.date | None = None) -> Iterator[Event]:
        day = on or (self.today if self.pinned else None)
        arguments = [*(["--today", day.isoformat()] if day else []), *args]
        try:
            done = subprocess.run(
                [self.python, "-m", PACKAGE, *arguments],
                cwd=self.directory,
                env=dict(self.env),
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                check=False,
                timeout=_COMMAND_TIMEOUT_SECONDS,
            )
        except (OSError, subprocess.SubprocessError) as exc:
            raise LegionMemoryError(f"could not run {PROGRAM}: {exc}") from exc
        output = done.stdout.decode("utf-8", errors="replace")
        shown = Shown(shlex.join([PROGRAM, *arguments]), output, done.returncode)
        yield from _checked(shown, expect)

    def git(self, *args: str, expect: int = 0) -> Iterator[Event]:
        run = run_git_shown(list(args), self.directory, self.env)
        yield from _checked(Shown(shlex.join(["git", *args]), run.output, run.code), expect)

    def write(self, relative: str, text: str) -> Iterator[Event]:
        path = self.directory / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        yield Remark(f"wrote {relative}")


def _checked(shown: Shown, expect: int) -> Iterator[Event]:
    yield shown
    if shown.code != expect:
        raise LegionMemoryError(
            f"demo stopped: `{shown.command}` exited {shown.code}, expected {expect}"
        )


Step = Callable[[Tour], Iterator[Event]]


def run(tour: Tour) -> Iterator[Event]:
    """Every step in order, each introduced by its heading."""
    for number, (title, step) in enumerate(STEPS, start=1):
        yield Heading(number, len(STEPS), title)
        yield from step(tour)


def _project(tour: Tour) -> Iterator[Event]:
    yield from tour.git("init", "-b", "main")
    yield Remark("The files Legion's /legion:plan and /legion:build wrote (the tool reads them):")
    for relative, text in PROJECT_FILES.items():
        yield from tour.write(relative, text)
    yield from tour.git("add", "-A")
    yield from tour.git("commit", "-q", "-m", "Bookshelf: phase 1 complete, phase 2 under way")


def _init(tour: Tour) -> Iterator[Event]:
    yield from tour.tool("init")


def _git_install(tour: Tour) -> Iterator[Event]:
    yield Remark("Git starts the driver and the hooks itself; --command says how to run the tool")
    yield Remark("(here this Python, so nothing has to be on PATH).")
    yield from tour.tool("git", "install", "--command", tour.tool_command)
    yield from tour.git("add", "-A")
    yield from tour.git("commit", "-q", "-m", "Memory files, merged row by row")


def _outcomes(tour: Tour) -> Iterator[Event]:
    yield Remark("Phase 1 was built months ago (--today back-dates these three records):")
    backend = ("--agent", "engineering-backend-architect")
    yield from tour.tool(
        *("store", "outcome", "--phase", "1", "--plan", "01-01", *backend),
        *("--outcome", "success", "--event", "plan-success", "--tags", "api, pagination"),
        *("--summary", "Catalog endpoints with cursor pagination"),
        on=tour.months_ago,
    )
    yield from tour.tool(
        *("store", "outcome", "--phase", "1", "--plan", "01-01", "--agent", "testing-api-tester"),
        *("--task-type", "quality-review", "--outcome", "success", "--event", "review-pass"),
        *("--tags", "review, api", "--summary", "Catalog review passed on the first cycle"),
        on=tour.months_ago,
    )
    yield from tour.tool(
        *("store", "outcome", "--phase", "1", "--plan", "01-01", *backend, "--outcome", "failed"),
        *("--tags", "search, isbn", "--summary", "Search reindex failed on duplicate ISBNs"),
        on=tour.months_ago,
    )
    yield Remark("Phase 2, today. --from-summary reads plan, agent, outcome and summary:")
    summary = ".planning/phases/02-loans/02-01-SUMMARY.md"
    yield from tour.tool(
        *("store", "outcome", "--from-summary", summary, "--event", "plan-success"),
        *("--tags", "loans, api"),
    )
    yield from tour.tool(
        *("store", "outcome", "--phase", "2", "--plan", "02-01"),
        *("--agent", "testing-qa-verification-specialist", "--outcome", "success"),
        *("--event", "review-multi-cycle", "--blockers", "3", "--tags", "review, loans, dates"),
        *("--summary", "Loans review passed in cycle 2 after 3 blockers on due dates"),
    )
    yield Remark("A bad value is one line on stderr and exit 2; nothing is written:")
    yield from tour.tool(
        *("store", "outcome", "--phase", "2", "--plan", "02-02", *backend),
        *("--outcome", "done", "--summary", "Reminder e-mails"),
        expect=2,
    )


def _knowledge(tour: Tour) -> Iterator[Event]:
    yield from tour.tool(
        *("store", "pattern", "--pattern", "Cursor pagination for list endpoints"),
        *("--context", "Phase 1 catalog: offsets skipped rows while books were added"),
        *("--reuse", "Any list endpoint over a table that grows while clients page"),
        *("--source", "O-001", "--tags", "api, pagination"),
    )
    signature = "IntegrityError: UNIQUE constraint failed: books.isbn during reindex"
    yield from tour.tool(
        *("store", "error", "--signature", signature, "--resolved"),
        *("--fix", "Merge duplicate ISBNs before the bulk insert; the reindex now upserts"),
        *("--agent", "engineering-backend-architect", "--tags", "search, database"),
    )
    yield Remark("Another agent reports the same error: recognised, nothing stored twice.")
    yield from tour.tool(
        *("store", "error", "--signature", "UNIQUE constraint failed: books.isbn during reindex"),
        *("--fix", "Deduplicate ISBNs first", "--agent", "testing-api-tester", "--resolved"),
    )
    yield from tour.tool(
        *("store", "preference", "--decision-point", "review-override"),
        *("--context", "Phase 2 review, cycle 2: loan due dates"),
        *("--proposed", "Block the merge on timezone-naive due dates"),
        *("--choice", "Accepted as-is; due dates fixed in 02-02", "--signal", "corrective"),
        *("--agent", "testing-qa-verification-specialist", "--tags", "review, dates"),
    )


def _recall(tour: Tour) -> Iterator[Event]:
    yield from tour.tool("recall", "outcomes", "--tag", "api")
    yield from tour.tool(
        "recall", "errors", "--error-text", "sqlite3.IntegrityError: UNIQUE constraint books.isbn"
    )
    yield from tour.tool("recall", "patterns", "--tag", "pagination")
    yield from tour.tool("recall", "preferences", "--signal", "corrective")


def _scores(tour: Tour) -> Iterator[Event]:
    yield from tour.tool("--json", "score", "agents", "--task-type", "backend")
    yield from tour.tool("--json", "score", "archetypes", "--task-type", "backend")
    yield from tour.tool("--json", "score", "preferences")


def _briefing(tour: Tour) -> Iterator[Event]:
    yield from tour.tool("briefing")


def _merge(tour: Tour) -> Iterator[Event]:
    yield from tour.git("add", "-A")
    yield from tour.git("commit", "-q", "-m", "Memory of phases 1 and 2")
    yield Remark("Two branches each store the next outcome: both get the same ID, O-006.")
    yield from tour.git("checkout", "-b", BRANCH)
    yield from tour.tool(
        *("store", "outcome", "--phase", "2", "--plan", "02-02"),
        *("--agent", "engineering-backend-architect", "--outcome", "success"),
        *("--event", "plan-success", "--tags", "loans, email"),
        *("--summary", "Reminder e-mails for overdue loans"),
    )
    yield from tour.git("commit", "-q", "-am", "02-02: overdue reminders")
    yield from tour.git("checkout", "main")
    yield from tour.tool(
        *("store", "outcome", "--phase", "2", "--plan", "02-01", "--agent", "testing-api-tester"),
        *("--outcome", "partial", "--event", "plan-partial", "--tags", "loans, api, flaky"),
        *("--summary", "Loan API contract tests: 2 of 14 flaky on slow runners"),
    )
    yield from tour.git("commit", "-q", "-am", "02-01: contract tests")
    yield Remark("git merge hands each memory file to the driver, which reports on stderr:")
    yield from tour.git("merge", "--no-edit", BRANCH)
    yield from tour.tool("diff", "HEAD^1", "HEAD")
    yield Remark("Both outcomes kept, each ID once, each with the branch it was stored on:")
    yield from tour.tool("recall", "outcomes", "--branch", "all")
    yield from tour.tool("doctor")


def _prune(tour: Tour) -> Iterator[Event]:
    yield Remark("Eligible: older than 90 days, importance 1-3, not of the current phase (2).")
    yield from tour.tool("prune", "--dry-run")
    yield from tour.tool("prune", "--yes")


def _search(tour: Tour) -> Iterator[Event]:
    yield from tour.tool("search", "duplicate isbn reindex")


def _context(tour: Tour) -> Iterator[Event]:
    yield from tour.tool(
        *("context", "--agent", "engineering-backend-architect"),
        *("--task", "Rebuild the search index after a bulk import of books"),
    )


def _compaction(tour: Tour) -> Iterator[Event]:
    yield from tour.tool("compact", "--list-uncompacted", "--exclude-current")
    yield from tour.tool("compact", "1")
    yield from tour.tool("compact", "--check", "1")


STEPS: tuple[tuple[str, Step], ...] = (
    ("A Legion project in a fresh git repository", _project),
    ("init: the memory files", _init),
    ("git install: the merge driver and the repair hooks", _git_install),
    ("store outcome: importance and task type worked out", _outcomes),
    ("store pattern, error and preference", _knowledge),
    ("recall: best first, with recency decay", _recall),
    ("score: what Legion's agent recommendation reads", _scores),
    ("briefing: the ## Memory block of /legion:status", _briefing),
    ("A merge: two branches, one new ID each, merged by the driver", _merge),
    ("prune: old, low-importance outcomes move to ARCHIVE.md", _prune),
    ("search: one query over every memory file", _search),
    ("context: the memory block for an agent's prompt", _context),
    ("compact: a finished phase in one file, then checked", _compaction),
)

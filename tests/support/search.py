"""Projects for the search and context tests: the shared fixture memory, or one table file."""

from __future__ import annotations

import shutil
from pathlib import Path

from support.processes import FIXTURES

OUTCOMES_HEAD = (
    "# Memory — Outcome Log\n\n## Records\n\n"
    "| ID | Date | Branch | Phase | Plan | Agent | Task Type | Outcome | Importance | Tags "
    "| Summary |\n"
    "|----|------|--------|-------|------|-------|-----------|---------|------------|------"
    "|---------|\n"
)
ERRORS_HEAD = (
    "# Memory — Error Fixes\n\n## Errors\n\n"
    "| ID | Date | Branch | Error Signature | Fix | Agent | Resolved | Tags |\n"
    "|----|------|--------|-----------------|-----|-------|----------|------|\n"
)


def fixture_project(tmp_path: Path) -> Path:
    """A project whose memory is a copy of fixtures/search/project."""
    root = tmp_path / "project"
    shutil.copytree(FIXTURES / "search" / "project", root / ".planning" / "memory")
    return root


def outcomes_project(tmp_path: Path, rows: list[str]) -> Path:
    """A project with only an OUTCOMES.md holding `rows` (`| O-001 | ... |`)."""
    return _one_table(tmp_path, "OUTCOMES.md", OUTCOMES_HEAD, rows)


def errors_project(tmp_path: Path, rows: list[str]) -> Path:
    """A project with only an ERRORS.md holding `rows` (`| E-001 | ... |`)."""
    return _one_table(tmp_path, "ERRORS.md", ERRORS_HEAD, rows)


def _one_table(tmp_path: Path, name: str, head: str, rows: list[str]) -> Path:
    root = tmp_path / "project"
    memory = root / ".planning" / "memory"
    memory.mkdir(parents=True)
    (memory / name).write_text(head + "".join(f"{row}\n" for row in rows), "utf-8")
    return root

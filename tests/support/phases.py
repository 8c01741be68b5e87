"""The phase fixture project (fixtures/phases/) laid out as a real project under a directory."""

from __future__ import annotations

import shutil
from pathlib import Path

from support.processes import FIXTURES, SAMPLES

PHASE_FIXTURES = FIXTURES / "phases"
EXPECTED = PHASE_FIXTURES / "expected"
TODAY = "2026-03-10"
# Real Legion files, beside the checkout when they are there (the tests using them skip otherwise).
REAL_SAMPLES = SAMPLES


def planning_project(root: Path, *phases: str) -> Path:
    """Copy ROADMAP.md, STATE.md and the phase directories (all when none named) into `root`."""
    planning = root / ".planning"
    (planning / "phases").mkdir(parents=True, exist_ok=True)
    for name in ("ROADMAP.md", "STATE.md"):
        shutil.copyfile(PHASE_FIXTURES / name, planning / name)
    for directory in sorted(PHASE_FIXTURES.iterdir()):
        wanted = not phases or directory.name in phases
        if wanted and directory.is_dir() and directory.name[:2].isdigit():
            shutil.copytree(directory, planning / "phases" / directory.name)
    return root


def phase_dir(root: Path, name: str) -> Path:
    return root / ".planning" / "phases" / name

"""Helpers for the pattern, error-fix and preference tests: fixture projects in real git repos."""

from __future__ import annotations

import shutil
from pathlib import Path

from support.processes import FIXTURES, git, read_bytes_of

KNOWLEDGE = FIXTURES / "knowledge"
GOLDEN = KNOWLEDGE / "golden"
TODAY = "2026-04-01"
MEMORY = Path(".planning") / "memory"


def project_with(repo: Path, *fixtures: str) -> Path:
    """Copy fixture memory files into `repo`'s memory directory and commit them; returns it.

    The names are fixture files; `SOURCE:TARGET` stores a fixture under another name.
    """
    memory = repo / MEMORY
    memory.mkdir(parents=True, exist_ok=True)
    for name in fixtures:
        source, _, target = name.partition(":")
        shutil.copyfile(KNOWLEDGE / source, memory / (target or source))
    # Legacy rows without a Branch belong to the default branch: pin it for every machine.
    git(repo, "config", "init.defaultBranch", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "memory fixtures")
    return memory


def numstat(repo: Path) -> list[str]:
    """`git diff --numstat` of the working tree: one `added<TAB>deleted<TAB>path` per file."""
    return git(repo, "diff", "--numstat").splitlines()


def golden(name: str) -> bytes:
    return (GOLDEN / name).read_bytes()


def files_of(repo: Path) -> dict[str, bytes]:
    """`read_bytes_of(repo)` without the lock file: a refused write still takes the lock (and so
    may create its empty file) before it reads what it refuses to change."""
    return {
        name: data
        for name, data in read_bytes_of(repo).items()
        if not name.endswith(".legion-memory.lock")
    }

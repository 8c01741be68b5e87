"""Support for the import/export tests: fixture sources copied into a project, seeded memory."""

from __future__ import annotations

import shutil
from pathlib import Path

from legion_memory.schema.kinds import KINDS, archive_template
from support.processes import FIXTURES

INTEROP = FIXTURES / "interop"
MEMORY = Path(".planning/memory")
TODAY = "2026-05-01"

# One spec-style row per file, so that appended rows copy its padding.
SEED_ROWS = {
    "outcomes": "| O-001 | 2026-01-05 | main | 1 | 01-01 | autonomous | general | success | 2 "
    "| seed | Seeded outcome |",
    "patterns": "| P-001 | 2026-01-05 | main | Seeded pattern | Seed | Always | O-001 | seed |",
    "errors": "| E-001 | 2026-01-05 | main | Seeded error | Seeded fix | autonomous | true "
    "| seed |",
    "preferences": "| D-001 | 2026-01-05 | main | agent-selection | Seed | a | b | positive "
    "| autonomous | seed |",
}


def copy_source(project: Path, name: str, to: str | None = None) -> Path:
    """Copy `fixtures/interop/NAME` into the project (as `to`); returns the copy."""
    target = project / (to or name)
    target.parent.mkdir(parents=True, exist_ok=True)
    source = INTEROP / name
    if source.is_dir():
        shutil.copytree(source, target)
    else:
        shutil.copyfile(source, target)
    return target


def seed_memory(project: Path) -> dict[str, str]:
    """The five memory files, each live table holding one row; returns their texts by kind."""
    directory = project / MEMORY
    directory.mkdir(parents=True, exist_ok=True)
    texts = {}
    for name, kind in KINDS.items():
        texts[name] = kind.template() + SEED_ROWS[name] + "\n"
        (directory / kind.filename).write_text(texts[name], encoding="utf-8")
    (directory / "ARCHIVE.md").write_text(archive_template(), encoding="utf-8")
    return texts


def memory_text(project: Path, filename: str) -> str:
    return (project / MEMORY / filename).read_text(encoding="utf-8")


def added_lines(project: Path, filename: str, before: str) -> list[str]:
    """The lines a file gained at its end since `before`."""
    text = memory_text(project, filename)
    assert text.startswith(before), f"{filename} changed above its end"
    return text[len(before) :].splitlines()

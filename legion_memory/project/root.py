"""Project facts: where the project root is, its memory settings, and its current phase."""

import json
import re
from pathlib import Path
from typing import NamedTuple

from legion_memory.errors import InputError

SETTINGS_FILE = "settings.json"
STATE_FILE = Path(".planning") / "STATE.md"
# A pattern, compiled by `re` on first use: most commands never read the phase.
_PHASE = r"^\s*(?:[-*]\s+)?\**Phase\**\s*:\s*\**\s*(\d+)"


def find_root(start: Path) -> Path:
    """The nearest ancestor holding `.git` (a directory or a worktree file), else `start`."""
    start = start.resolve()
    for candidate in (start, *start.parents):
        if (candidate / ".git").exists():
            return candidate
    return start


def confine(root: Path, path: Path) -> Path:
    """Resolve `path` against `root` and refuse anything that escapes the project."""
    resolved = (root / path).resolve()
    if resolved != root.resolve() and root.resolve() not in resolved.parents:
        raise InputError(f"path '{path}' is outside the project", hint=f"use a path under {root}")
    return resolved


class Settings(NamedTuple):
    """The `memory.*` block of settings.json, defaults for anything missing or invalid."""

    enabled: bool = True
    auto_prune: bool = False
    prune_threshold: int = 200
    prune_age_days: int = 90
    project_scoped_only: bool = True
    error_similarity: float = 0.6
    notes: tuple[str, ...] = ()
    """What was wrong with settings.json: each setting named here fell back to its default."""


def load_settings(root: Path) -> Settings:
    path = root / SETTINGS_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return Settings()
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        return Settings(notes=(f"{path}: unreadable ({exc}); using default memory settings",))
    memory = data.get("memory") if isinstance(data, dict) else None
    if not isinstance(memory, dict):
        return Settings()
    return _from_block(memory, path)


def _from_block(memory: dict[str, object], path: Path) -> Settings:
    values: dict[str, object] = {}
    notes = []
    for name, default in Settings._field_defaults.items():
        if name == "notes" or name not in memory:
            continue
        value = memory[name]
        if _fits(value, default):
            values[name] = value
        else:
            notes.append(f"{path}: memory.{name} = {value!r} is invalid; using {default!r}")
    return Settings(**values, notes=tuple(notes))  # type: ignore[arg-type]


def _fits(value: object, default: object) -> bool:
    if isinstance(default, bool):
        return isinstance(value, bool)
    if isinstance(default, int):
        return isinstance(value, int) and not isinstance(value, bool) and value >= 0
    if isinstance(default, float):
        return isinstance(value, int | float) and not isinstance(value, bool) and 0 < value <= 1
    return False


def current_phase(root: Path) -> int | None:
    """The phase number in STATE.md (`Phase: N` or `**Phase**: N of M`), None when unknown."""
    try:
        text = (root / STATE_FILE).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    match = re.search(_PHASE, text, re.MULTILINE)
    return int(match.group(1)) if match else None

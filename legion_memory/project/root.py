"""Project facts: where the project root is, its memory settings, and its current phase."""

import re
from pathlib import Path

from legion_memory.errors import InputError
from legion_memory.named_tuple import NamedTuple

TYPE_CHECKING = False  # not typing's: docs/decisions.md#hot-paths-without-typing
if TYPE_CHECKING:
    import datetime as dt

SETTINGS_FILE = "settings.json"
STATE_FILE = Path(".planning") / "STATE.md"
MILESTONES_DIR = Path(".planning") / "milestones"
# Patterns, compiled by `re` on first use: most commands never read the phase.
# A list item's opening: `- `, `* `, `1. `, `2) `, with a task box (`- [x] `) or without.
_ITEM = r"(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?"
# A phase number; an inserted decimal phase (`Phase: 2.1`) is none that the readers list, so it
# names no current phase rather than phase 2.
_N = r"(\d+)(?!\d|\.\d)"
_PHASE_FORMS = (
    rf"\A---\n(?:.*\n)*?current_phase:\s*[\"']?{_N}(?:.*\n)*?---\s*$",
    rf"^\s*(?:{_ITEM}|#+\s*)?\**(?:(?:Current|Active)\s+)?Phase\**\s*:\s*\**\s*(?:Phase\s+)?{_N}",
    rf"^\|\s*\**(?:Current|Active)\s+Phase\**\s*\|\s*\**(?:Phase\s+)?{_N}",
    # The sections a writer keeps current come before the `Current focus:` summary line, which
    # is often left a phase behind (docs/decisions.md#reused-phase-numbers).
    rf"^#+\s*Current\s+Phase\b.*\n(?:[ \t]*\n)*[^\w\n]*(?:Phase\s+)?{_N}\b",
    rf"^#+\s*Current\s+Position\b.*\n(?:(?!#).*\n)*?[^\w\n]*Phase\s+{_N}\b",
    rf"^\W*Current\s+(?:focus|position)\**\s*:[^\n]*?\bPhase\s+{_N}\b",
    rf"\bPhase\s+{_N}\s+of\s+\d+\b",
    rf"\bPhase\s+{_N}\b[^.\n]{{0,20}}?\b(?:in progress|executing|planning|active|current)\b",
    rf"\b(?:executing|working\s+on|currently\s+on)\s+Phase\s+{_N}\b",
    rf"^\s*(?:{_ITEM})?\**Last activity\**\s*:.*?\bCompleted\s+(\d+)-\d+(?:-PLAN)?\b",
)
_COMPLETED_ON = r"^\W*(?:Completed|Shipped|Status:\W*Complete\W*on)\W*:?\W*(\d{4}-\d{2}-\d{2})"
_HEAD_CHARS = 2000
_MILESTONE = r"^\W*(?:current\s+)?milestone\**\s*:\s*\**\s*(v\d+(?:\.\d+)*)"
_SHIPPED_ROW = r"^\|\s*(v\d+(?:\.\d+)*)\s*\|(?:.*\|)?\s*(\d{4}-\d{2}-\d{2})\s*\|\s*$"


def find_root(start: Path) -> Path:
    """The nearest ancestor holding `.git` (a directory or a worktree file), else `start`."""
    start = start.resolve()
    for candidate in (start, *start.parents):
        if (candidate / ".git").exists():
            return candidate
    return start


def confine(root: Path, path: Path) -> Path:
    """Resolve `path` against `root` and refuse anything that escapes the project."""
    try:
        resolved = (root / path).resolve()
    except RuntimeError as loop:  # before Python 3.13, a symlink loop
        raise InputError(
            f"path '{path}' is a symbolic link loop", hint="fix or remove the link"
        ) from loop
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


def read_project_text(path: Path) -> str:
    """A project file's text (UTF-8, universal newlines) without the byte order mark an editor
    may have put first: what the `utf-8-sig` codec reads, without importing its module, which
    would cost every command that reads settings.json or the catalog."""
    return path.read_text(encoding="utf-8").removeprefix("\ufeff")


def load_settings(root: Path) -> Settings:
    path = root / SETTINGS_FILE
    try:
        text = read_project_text(path)
    except FileNotFoundError:
        return Settings()
    except (OSError, UnicodeDecodeError) as exc:
        return _unreadable(path, exc)
    import json  # only a project with a settings file pays for the module

    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return _unreadable(path, exc)
    memory = data.get("memory") if isinstance(data, dict) else None
    if not isinstance(memory, dict):
        return Settings()
    return _from_block(memory, path)


def _unreadable(path: Path, exc: Exception) -> Settings:
    return Settings(notes=(f"{path}: unreadable ({exc}); using default memory settings",))


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
    """The current phase number STATE.md states, None when it states none (never a guess).

    Read, first found wins (docs/decisions.md#reused-phase-numbers): front-matter
    `current_phase:`; a `Phase: N`, `**Phase**: N of M`, `Active phase: N` or `## Current Phase:
    N` line; a `| Current Phase | N |` row; `Phase N` or `N` opening the first line under `##
    Current Phase`; `Phase N` opening a line under `## Current Position`; `Current focus: Phase
    N`; `Phase N of M`; `Phase N in progress` (or executing, planning, active, current);
    `executing Phase N` (or working on, currently on); `Last activity: ... Completed NN-PP
    plan`. An inserted `Phase: 2.1` names no phase these readers list, so it is no answer."""
    text = _state_text(root)
    if text is None:
        return None
    for pattern in _PHASE_FORMS:
        match = re.search(pattern, text, re.MULTILINE | re.IGNORECASE)
        if match:
            return int(match.group(1))
    return None


def _state_text(root: Path) -> str | None:
    try:
        return read_project_text(root / STATE_FILE)
    except (OSError, UnicodeDecodeError):
        return None


def milestone_start(root: Path) -> "dt.date | None":
    """When the current milestone's work began: the latest ship date of an earlier milestone
    (STATE.md's shipped-milestones rows, the heads of `.planning/milestones/*-ROADMAP.md`);
    None when none is recorded (docs/decisions.md#reused-phase-numbers)."""
    import datetime as dt  # a store without auto-prune needs no date but today's text

    state = _state_text(root) or ""
    current = re.search(_MILESTONE, state, re.MULTILINE | re.IGNORECASE)
    dates = [
        dt.date.fromisoformat(day)
        for name, day in re.findall(_SHIPPED_ROW, state, re.MULTILINE)
        if current is None or name != current.group(1)
    ]
    for path in sorted((root / MILESTONES_DIR).glob("v*-ROADMAP.md")):
        if current is not None and path.name.startswith(current.group(1) + "-"):
            continue
        try:
            head = read_project_text(path)[:_HEAD_CHARS]
        except (OSError, UnicodeDecodeError):
            continue
        found = re.search(_COMPLETED_ON, head, re.MULTILINE | re.IGNORECASE)
        dates += [dt.date.fromisoformat(found.group(1))] if found else []
    return max(dates, default=None)

"""Putting this tool's memory-manager skill into a Legion, and taking it out again byte for byte:
the originals are kept in `.legion-memory/` next to what they came from."""

from __future__ import annotations

import hashlib
import json
import shutil
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from legion_memory.errors import LegionMemoryError, WriteError
from legion_memory.legion import checksums
from legion_memory.legion.layout import CHECKSUMS, Legion
from legion_memory.storage.files import atomic_write, read_data

SKILL_SOURCE = Path(__file__).with_name("memory-manager-SKILL.md")
STATE_DIR = ".legion-memory"
STATE_FILE = "install.json"


@dataclass
class Report:
    """What an install or uninstall did (or, in a dry run, would do), one line per change."""

    legion: Legion
    changes: list[str] = field(default_factory=list)
    checksums: str = ""  # what happened to checksums.sha256, or the command to run

    def to_json(self) -> dict[str, object]:
        return {
            "legion": str(self.legion.root),
            "kind": self.legion.kind,
            "changes": self.changes,
            "checksums": self.checksums,
        }


def skill_bytes() -> bytes:
    return SKILL_SOURCE.read_bytes()


def install(legion: Legion, dry_run: bool = False, node: str | None = None) -> Report:
    """Replace every copy of the skill; keep each original once (a copy Legion replaced since,
    by an update, becomes the new original); regenerate a checkout's checksum manifest."""
    ours = skill_bytes()
    state = _read_state(legion)
    report = Report(legion)
    pending = [path for path in legion.skills if read_data(path) != ours]
    if not pending:
        report.changes.append(f"already installed in {legion.root}")
        return report
    refuse_read_only([legion.root, *pending, *filter(None, [legion.checksums])])
    entries = {entry["path"]: entry for entry in state.get("files", [])}
    for path in pending:
        shown = _shown(legion, path)
        report.changes.append(f"replace {shown} (original kept in {STATE_DIR}/)")
        entries[shown] = {"path": shown, "original": f"originals/{_digest(path.read_bytes())}"}
    if not dry_run:
        try:
            _keep_originals(legion, pending, state, entries)
            for path in pending:
                _write(path, ours)
        except (OSError, WriteError) as exc:
            raise _unwritable(exc) from exc
    report.checksums = checksums.refresh(legion, dry_run, node)
    return report


def uninstall(legion: Legion, dry_run: bool = False) -> Report:
    """Put every original back byte for byte and remove `.legion-memory/`. Refuses, changing
    nothing, when a copy was changed since install (that change would be lost)."""
    state = _read_state(legion)
    if not state:
        raise LegionMemoryError(
            "the legion-memory skill is not installed here", where=str(legion.root)
        )
    ours = skill_bytes()
    report = Report(legion)
    restores = []
    for entry in state["files"]:
        path = _resolve(legion, entry["path"])
        if read_data(path) not in (ours, None):
            raise LegionMemoryError(
                "changed since the legion-memory skill was installed; nothing was restored",
                where=str(path),
                hint=f"move it away first; the original is in {_state_dir(legion)}",
            )
        restores.append((path, _state_dir(legion) / entry["original"]))
        refuse_read_only([path])
        report.changes.append(f"restore {entry['path']}")
    if state.get("checksums") and legion.checksums is not None:
        restores.append((legion.checksums, _state_dir(legion) / state["checksums"]))
        report.changes.append(f"restore {CHECKSUMS}")
    report.changes.append(f"remove {STATE_DIR}/")
    if not dry_run:
        try:
            for path, original in restores:
                _write(path, original.read_bytes())
            shutil.rmtree(_state_dir(legion))
        except (OSError, WriteError) as exc:
            raise _unwritable(exc) from exc
    return report


def refuse_read_only(paths: list[Path]) -> None:
    """A file or directory without its owner's write bit is meant to stay as it is (a shared,
    read-only Legion): refused even for a user, such as root, whom the system would let write."""
    for path in paths:
        if path.exists() and not path.stat().st_mode & stat.S_IWUSR:
            raise LegionMemoryError(
                "read-only; nothing was changed",
                where=str(path),
                hint="install into a writable copy of this Legion, or make it writable first",
            )


def _unwritable(exc: OSError | WriteError) -> LegionMemoryError:
    """Exit 1, not the 3 of a failed memory write: there is no record to echo here."""
    if isinstance(exc, WriteError):
        return LegionMemoryError(exc.message, where=exc.where, hint=_WRITABLE)
    return LegionMemoryError(
        f"could not write: {exc.strerror or exc}", where=str(exc.filename or ""), hint=_WRITABLE
    )


_WRITABLE = "run it as a user who may change this Legion, or on a writable copy"


def _keep_originals(
    legion: Legion, pending: list[Path], state: dict[str, Any], entries: dict[str, dict[str, str]]
) -> None:
    originals = _state_dir(legion) / "originals"
    originals.mkdir(parents=True, exist_ok=True)
    for path in pending:
        data = path.read_bytes()
        (originals / _digest(data)).write_bytes(data)
    saved = state.get("checksums")
    if not saved and legion.checksums is not None:
        data = legion.checksums.read_bytes()
        (originals / _digest(data)).write_bytes(data)
        saved = f"originals/{_digest(data)}"
    new_state = {
        "skill_sha256": _digest(skill_bytes()),
        "files": list(entries.values()),
        "checksums": saved or None,
    }
    atomic_write(_state_dir(legion) / STATE_FILE, json.dumps(new_state, indent=2) + "\n")


def _read_state(legion: Legion) -> dict[str, Any]:
    path = _state_dir(legion) / STATE_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise LegionMemoryError(
            f"cannot read the install record: {exc}", where=str(path), hint="restore it by hand"
        ) from exc
    return data if isinstance(data, dict) else {}


def _state_dir(legion: Legion) -> Path:
    return legion.root / STATE_DIR


def _shown(legion: Legion, path: Path) -> str:
    """Paths inside the Legion are kept relative, so the checkout can move."""
    return str(path.relative_to(legion.root)) if path.is_relative_to(legion.root) else str(path)


def _resolve(legion: Legion, shown: str) -> Path:
    path = Path(shown)
    return path if path.is_absolute() else legion.root / path


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _write(path: Path, data: bytes) -> None:
    """Atomically, keeping the file's mode: the skill text is UTF-8 (the originals too)."""
    atomic_write(path, data.decode("utf-8", "surrogateescape"), errors="surrogateescape")

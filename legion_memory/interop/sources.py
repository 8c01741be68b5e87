"""Where each import source keeps its files, and reading them (memory files through `store`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from legion_memory.errors import InputError
from legion_memory.interop.import_items import SourceFile
from legion_memory.project.root import confine
from legion_memory.schema.secrets import quoted
from legion_memory.storage.reading import MEMORY_DIR, read_text

SOURCES = ("bullpen", "memory-system", "memory-broker", "learn", "json")
DEFAULT_PATHS = {
    "bullpen": ".bullpen/memory.json",
    "memory-system": ".claude/memory",
    "memory-broker": "memory",
    "learn": str(MEMORY_DIR),
}
STDIN = "-"
_LEARN_FILES = ("PATTERNS.md", "ERRORS.md", "PREFERENCES.md")


def check_source(source: str) -> str:
    if source not in SOURCES:
        raise InputError(
            f"unknown import source {quoted(source)}", hint=f"use one of {', '.join(SOURCES)}"
        )
    return source


def read_source(
    source: str, path: str | None, root: Path, stdin: Callable[[], str]
) -> list[SourceFile]:
    """The files of a source at `path` (its default place when None; `-` reads standard input
    for the single-file sources). A path the user names is read wherever it is, relative to the
    working directory; the default places are the project's. `learn` reads (and with --move
    rewrites) this project's memory files, so its path stays inside the project."""
    check_source(source)
    if path == STDIN and source in {"bullpen", "json"}:
        return [SourceFile(Path(STDIN), "<stdin>", stdin())]
    if path is None and source not in DEFAULT_PATHS:
        raise InputError(f"{source} needs a PATH", hint="give the file written by `export`")
    given = _located(source, path, root)
    if not given.exists():
        raise InputError(f"no {source} memory at '{_shown(root, given)}'", hint=_where(source))
    files = _FINDERS[source](given)
    if not files:
        raise InputError(f"no {source} files found in '{_shown(root, given)}'", hint=_where(source))
    read = _read_memory if source == "learn" else _read_foreign
    return [SourceFile(file, _shown(root, file), read(file, _shown(root, file))) for file in files]


def _located(source: str, path: str | None, root: Path) -> Path:
    """Confinement is for what the tool writes (docs/decisions.md#inputs-anywhere)."""
    if path is None:
        return confine(root, Path(DEFAULT_PATHS[source]))
    if source == "learn":
        return confine(root, Path(path).absolute())
    return Path(path).expanduser().absolute()


def _where(source: str) -> str:
    layouts = {
        "bullpen": "give the path of .bullpen/memory.json",
        "memory-system": "give the directory holding facts/*.json and events/*.jsonl",
        "memory-broker": "give the directory holding index.json and missions/*.md",
        "learn": "give .planning/memory or one of its files",
        "json": "give the file written by `legion-memory export --format json`",
    }
    return layouts[source]


def _bullpen(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    candidates = (path / "memory.json", path / ".bullpen" / "memory.json")
    return [candidate for candidate in candidates if candidate.is_file()][:1]


def _memory_system(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    return sorted((path / "facts").glob("*.json")) + sorted((path / "events").glob("*.jsonl"))


def _memory_broker(path: Path) -> list[Path]:
    directory = path.parent if path.is_file() else path
    index = [directory / "index.json"] if (directory / "index.json").is_file() else []
    return index + sorted((directory / "missions").glob("*.md"))


def _learn(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    return [path / name for name in _LEARN_FILES if (path / name).is_file()]


def _json(path: Path) -> list[Path]:
    return [path] if path.is_file() else []


_FINDERS: dict[str, Callable[[Path], list[Path]]] = {
    "bullpen": _bullpen,
    "memory-system": _memory_system,
    "memory-broker": _memory_broker,
    "learn": _learn,
    "json": _json,
}


def _read_memory(path: Path, shown: str) -> str:
    return read_text(path) or ""


def _read_foreign(path: Path, shown: str) -> str:
    """A source file as UTF-8 (a BOM is dropped); undecodable bytes name the line."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", where=shown) from exc
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(
            "file is not valid UTF-8", where=f"{shown}:{line}", hint="re-save it as UTF-8"
        ) from exc


def _shown(root: Path, path: Path) -> str:
    try:
        return str(path.resolve().relative_to(root.resolve()))
    except (ValueError, RuntimeError, OSError):  # outside the root, or a symlink loop
        return str(path)

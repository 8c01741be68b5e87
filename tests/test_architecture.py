"""The arrows of docs/architecture.md: which subpackage may import which, who opens memory files,
who runs processes. Each rule fails on the import or the call that crosses it."""

from __future__ import annotations

import ast
import io
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

import pytest
from support.processes import CLI, REPO_ROOT

PACKAGE = REPO_ROOT / "legion_memory"

# A subpackage may import its own layer's peers only where listed, and any lower layer.
LAYERS: dict[str, int] = {
    "errors": 0,
    "wording": 0,
    "named_tuple": 0,
    "markdown": 1,
    "schema": 2,
    "storage": 3,
    "gitops": 3,
    "project": 4,
    "knowledge": 5,
    "search": 6,
    "upkeep": 7,
    "interop": 7,
    "operations": 8,
    "legion": 8,
    "cli": 9,
    "demo": 9,
    "mcp": 9,
}
ALLOWED_PEERS = {("cli", "demo"), ("cli", "mcp")}  # `legion-memory demo` and `mcp` run them
PROCESS_RUNNERS = {"gitops", "demo", "legion"}  # git; the tour's shown commands; Legion's node


def _modules() -> Iterator[tuple[str, Path]]:
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        room = parts[0] if len(parts) > 1 else parts[0].removesuffix("__init__") or "__init__"
        yield room, path


def _imports(path: Path) -> Iterator[tuple[int, str]]:
    """Every module an import statement names, at any depth (lazy imports included)."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            yield node.lineno, node.module
        elif isinstance(node, ast.Import):
            yield from ((node.lineno, alias.name) for alias in node.names)


def _crossing(room: str, target: str) -> bool:
    if target == room or room in {"__init__", "__main__"}:
        return False
    if (room, target) in ALLOWED_PEERS:
        return False
    return LAYERS[target] >= LAYERS[room]


def test_every_room_is_in_the_layer_table() -> None:
    rooms = {room for room, _ in _modules()} - {"__init__", "__main__"}
    missing = rooms - LAYERS.keys()
    assert not missing, f"add {sorted(missing)} to docs/architecture.md and LAYERS"


def test_no_import_crosses_an_arrow() -> None:
    crossings = []
    for room, path in _modules():
        for line, module in _imports(path):
            parts = module.split(".")
            if parts[0] != "legion_memory" or len(parts) < 2:
                continue
            target = parts[1]
            if room in LAYERS and target in LAYERS and _crossing(room, target):
                crossings.append(f"{path.relative_to(REPO_ROOT)}:{line}: {room} imports {module}")
    assert crossings == []


def test_only_the_rooms_that_run_processes_import_subprocess_or_gitpython() -> None:
    found = []
    for room, path in _modules():
        for line, module in _imports(path):
            runs = module.split(".")[0] in {"subprocess", "git"}
            allowed = room in PROCESS_RUNNERS and (module != "git" or room == "gitops")
            if runs and not allowed:
                found.append(f"{path.relative_to(REPO_ROOT)}:{line}: imports {module}")
    assert found == []


def test_subpackage_init_files_are_empty() -> None:
    inits = [p for p in PACKAGE.rglob("__init__.py") if p.parent != PACKAGE]
    assert inits
    assert {str(p.relative_to(REPO_ROOT)): p.read_text() for p in inits if p.read_text()} == {}


class _Opens:
    """Who opened which memory file: the innermost legion_memory module on the stack."""

    def __init__(self, memory: Path) -> None:
        self.memory = str(memory)
        self.openers: set[tuple[str, str]] = set()

    def record(self, file: object) -> None:
        if not isinstance(file, str | os.PathLike):
            return
        path = os.path.abspath(os.fspath(file))
        if not path.startswith(self.memory + os.sep):
            return
        frame: FrameType | None = sys._getframe(2)
        while frame is not None and not frame.f_globals.get("__name__", "").startswith(
            "legion_memory"
        ):
            frame = frame.f_back
        if frame is not None:
            self.openers.add((frame.f_globals["__name__"], os.path.basename(path)))


@pytest.fixture
def opens(monkeypatch: pytest.MonkeyPatch, repo: Path) -> _Opens:
    seen = _Opens(repo / ".planning" / "memory")
    real_open, real_os_open = io.open, os.open

    def tracked_open(file: object, *args: object, **kwargs: object) -> object:
        seen.record(file)
        return real_open(file, *args, **kwargs)  # type: ignore[call-overload]

    def tracked_os_open(file: object, *args: object, **kwargs: object) -> int:
        seen.record(file)
        return real_os_open(file, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(io, "open", tracked_open)
    monkeypatch.setattr("builtins.open", tracked_open)
    monkeypatch.setattr(os, "open", tracked_os_open)
    return seen


COMMANDS: list[list[str]] = [
    ["init"],
    ["store", "outcome", "--phase", "1", "--plan", "01-01", "--agent", "coder",
     "--task-type", "general", "--outcome", "success", "--summary", "built the thing"],
    ["store", "pattern", "--pattern", "retry flaky fetches", "--context", "network",
     "--reuse", "any fetch", "--source", "O-001"],
    ["store", "error", "--signature", "build fails", "--fix", "retry", "--agent", "coder",
     "--resolved"],
    ["store", "preference", "--decision-point", "manual-edit", "--choice", "kept",
     "--context", "style", "--signal", "positive", "--proposed", "tabs", "--agent", "coder"],
    ["recall", "outcomes"], ["recall", "patterns"], ["recall", "errors"],
    ["recall", "preferences"], ["score", "agents", "--task-type", "general"],
    ["score", "archetypes"], ["briefing"],
    ["search", "retry"], ["context", "--agent", "coder", "--task", "retry the build"],
    ["validate"], ["forget", "P-001"], ["restore", "P-001"], ["export", "--include-archive"],
    ["prune", "--dry-run"], ["doctor", "--fix"], ["migrate", "--dry-run"],
]  # fmt: skip


def test_only_storage_opens_memory_files(cli: CLI, repo: Path, opens: _Opens) -> None:
    for command in COMMANDS:
        result = cli("--today", "2026-03-01", *command, cwd=repo)
        assert result.code == 0, (command, result.stderr)
    rooms = {module.split(".")[1] for module, _ in opens.openers}
    assert rooms == {"storage"}, sorted(opens.openers)

"""The upkeep operations a workflow calls: archive a record (forget), bring it back (restore),
and validate the memory files, each returning plain values."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from legion_memory.operations.project import Project, project_of
from legion_memory.schema.kinds import KINDS
from legion_memory.storage import scopes

if TYPE_CHECKING:
    from legion_memory.schema.validation import Problem
    from legion_memory.upkeep.forgetting import Moved

DISABLED = "memory is disabled (memory.enabled is false in settings.json); nothing changed"


class MovedRecord(NamedTuple):
    """A record moved between its file and ARCHIVE.md in one tier; no move when memory is off."""

    scope: str
    record_id: str
    moved: Moved | None
    restoring: bool

    def to_json(self) -> dict[str, object] | None:
        return None if self.moved is None else {"scope": self.scope, **self.moved.to_json()}

    def text(self) -> str:
        if self.moved is None:
            return ""
        verb = "restored" if self.restoring else "archived"
        source, target = self.moved.source.name, self.moved.target.name
        return f"{verb} {self.record_id}: {source} -> {target} ({self.moved.section})"


class Validation(NamedTuple):
    """Every problem of the files checked; errors make it a failure (exit 1)."""

    files: int
    problems: list[Problem]

    @property
    def errors(self) -> int:
        from legion_memory.schema.validation import ERROR

        return sum(1 for problem in self.problems if problem.severity == ERROR)

    @property
    def exit_code(self) -> int:
        return 1 if self.errors else 0

    def to_json(self) -> dict[str, object]:
        return {"files": self.files, "problems": [p.to_json() for p in self.problems]}

    def text(self) -> str:
        others = len(self.problems) - self.errors
        summary = f"{self.files} file(s) checked, {self.errors} error(s), {others} other"
        return "\n".join([*(str(problem) for problem in self.problems), summary])


def forget_record(
    target: Project | Path | str, *, record_id: str, scope: str = scopes.PROJECT
) -> MovedRecord:
    """Archive a record: its row moves, unchanged, into ARCHIVE.md (never deleted)."""
    return _move(project_of(target), record_id, scope, restoring=False)


def restore_record(
    target: Project | Path | str, *, record_id: str, scope: str = scopes.PROJECT
) -> MovedRecord:
    """Bring an archived record back into its file, at its place in ID order."""
    return _move(project_of(target), record_id, scope, restoring=True)


def _move(project: Project, record_id: str, scope: str, *, restoring: bool) -> MovedRecord:
    from legion_memory.upkeep import forgetting

    forgetting.kind_for(record_id)
    tier = project.target(scope)
    if not project.settings.enabled:
        project.notice(DISABLED)
        return MovedRecord(tier.scope, record_id, None, restoring)
    move = forgetting.restore if restoring else forgetting.forget
    return MovedRecord(tier.scope, record_id, move(tier.memory, record_id), restoring)


def validate(target: Project | Path | str, *, files: list[Path] | None = None) -> Validation:
    """Check the given memory files (default: the project's) for every rule of their kind."""
    project = project_of(target)
    paths = files or _memory_files(project)
    shown = [(path, _shown(project, path)) for path in paths]
    return Validation(len(paths), [p for path, name in shown for p in validate_file(path, name)])


def validate_file(path: Path, shown: str) -> list[Problem]:
    """Every problem of one memory file (ARCHIVE.md included)."""
    from legion_memory.errors import ParseError
    from legion_memory.schema.validation import ERROR, Problem, validate_text
    from legion_memory.storage.reading import read_text

    try:
        text = read_text(path)
    except ParseError as exc:
        line = int(exc.where.rsplit(":", 1)[-1])
        return [Problem(shown, line, ERROR, exc.message)]
    if text is None:
        return [Problem(shown, 0, ERROR, "file does not exist")]
    return validate_text(path, text, shown)


def _memory_files(project: Project) -> list[Path]:
    memory = project.memory
    candidates = [memory.path(kind) for kind in KINDS.values()] + [memory.archive]
    return [path for path in candidates if path.is_file()]


def _shown(project: Project, path: Path) -> str:
    try:
        return str(path.resolve().relative_to(project.root))
    except ValueError:
        return str(path)

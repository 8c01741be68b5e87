"""The upkeep operations a workflow calls on one record: archive it (forget) and bring it back
(restore), in the tier a scope names."""

from pathlib import Path

from legion_memory.named_tuple import NamedTuple
from legion_memory.operations.project import Project, project_of
from legion_memory.storage import scopes
from legion_memory.upkeep import forgetting
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
    forgetting.kind_for(record_id)
    tier = project.target(scope)
    if not project.settings.enabled:
        project.notice(DISABLED)
        return MovedRecord(tier.scope, record_id, None, restoring)
    move = forgetting.restore if restoring else forgetting.forget
    return MovedRecord(tier.scope, record_id, move(tier.memory, record_id), restoring)

"""What `forget` and `restore` do: parse -> one call into `operations.upkeep` -> print.

No typer here: workflows archive and restore records, so the lean dispatcher runs these.
"""

from __future__ import annotations

from legion_memory.cli.context import Context
from legion_memory.cli.output import emit
from legion_memory.operations import upkeep
from legion_memory.storage import scopes


def forget(context: Context, record_id: str, scope: str = scopes.PROJECT) -> None:
    _print_moved(context, upkeep.forget_record(context, record_id=record_id, scope=scope))


def restore(context: Context, record_id: str, scope: str = scopes.PROJECT) -> None:
    _print_moved(context, upkeep.restore_record(context, record_id=record_id, scope=scope))


def _print_moved(context: Context, moved: upkeep.MovedRecord) -> None:
    if moved.moved is not None:
        emit(context, moved.to_json(), moved.text())

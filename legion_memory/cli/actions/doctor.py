"""What `doctor` does (and its `--fix --quiet` form, which the post-merge and post-rewrite hooks
run): a plain function of the Context and the command's options, run by the lean dispatcher."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from legion_memory.cli.context import Context
from legion_memory.cli.output import emit
from legion_memory.wording import count_of

if TYPE_CHECKING:
    from legion_memory.upkeep.doctor import Checkup


def doctor(context: Context, fix: bool = False, quiet: bool = False) -> int:
    """Find (and with --fix repair) interrupted changes, conflict markers, duplicate IDs and
    stale references; 1 when a problem remains."""
    from legion_memory.cli.progress import working_on
    from legion_memory.gitops.ended_picks import ended_pick_sequence
    from legion_memory.upkeep.doctor import doctor as run_doctor

    # Run before the commit whose hook would repair a sequence of picks ended by `--skip`,
    # doctor weighs it as that hook would: the checks read what the hooks name from the
    # environment.
    os.environ.update(ended_pick_sequence(context.root))
    with working_on("doctor: checking the memory files"):
        checkup = run_doctor(context.memory, fix=fix)
    emit(context, _checkup_json(checkup, context.root), _checkup_text(checkup, context, fix, quiet))
    return 1 if checkup.remaining else 0


def _relative(text: str, root: Path) -> str:
    return text.replace(f"{root}/", "")


def _checkup_json(checkup: Checkup, root: Path) -> dict[str, object]:
    def findings(items: tuple[object, ...]) -> list[str]:
        return [_relative(str(item), root) for item in items]

    return {
        "found": findings(checkup.found),
        "repaired": findings(checkup.repaired),
        "remaining": findings(checkup.remaining),
    }


def _checkup_text(checkup: Checkup, context: Context, fix: bool, quiet: bool) -> str:
    root = context.root
    lines = [_relative(f"repaired {line}", root) for line in checkup.repaired]
    lines += [_relative(str(finding), root) for finding in checkup.remaining]
    if checkup.remaining:
        hint = "" if fix else " (run `legion-memory doctor --fix`)"
        lines.append(
            f"{count_of(len(checkup.remaining), 'problem')} "
            f"{'needs' if len(checkup.remaining) == 1 else 'need'} repair{hint}"
        )
    elif not quiet:
        lines.append("memory is healthy" if not checkup.repaired else "memory repaired")
    return "\n".join(lines)

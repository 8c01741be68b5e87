"""What `validate` does: a plain function of the Context and the command's options.

No typer here: the pre-commit hook and CI run `validate` on every commit, so it is a hot command
that the lean dispatcher and the typer app call alike, through `hot.run`.
"""

from __future__ import annotations

from pathlib import Path

from legion_memory.cli.context import Context
from legion_memory.cli.output import emit
from legion_memory.errors import ParseError
from legion_memory.schema.kinds import KINDS
from legion_memory.schema.validation import ERROR, Problem, not_a_memory_file, validate_text
from legion_memory.storage.reading import read_text


def validate(context: Context, files: list[Path] | None) -> int:
    """Report every problem as FILE:LINE: severity: message; 1 when any is an error."""
    paths = files or _memory_files(context)
    problems = [p for path in paths for p in validate_file(path, _shown(context, path))]
    errors = sum(1 for problem in problems if problem.severity == ERROR)
    summary = f"{len(paths)} file(s) checked, {errors} error(s), {len(problems) - errors} other"
    human = "\n".join([*(str(problem) for problem in problems), summary])
    emit(context, {"files": len(paths), "problems": [p.to_json() for p in problems]}, human)
    return 1 if errors else 0


def validate_file(path: Path, shown: str) -> list[Problem]:
    """Every problem of one memory file (ARCHIVE.md included); any other path is not read."""
    refused = not_a_memory_file(path, shown)
    if refused is not None:
        return [refused]
    try:
        text = read_text(path)
    except ParseError as exc:  # not UTF-8 (at a line), or not a file that may be read (no line)
        line = exc.where.rsplit(":", 1)[-1]
        return [Problem(shown, int(line) if line.isdecimal() else 0, ERROR, exc.message)]
    if text is None:
        return [Problem(shown, 0, ERROR, "file does not exist")]
    return validate_text(path, text, shown)


def _memory_files(context: Context) -> list[Path]:
    memory = context.memory
    candidates = [memory.path(kind) for kind in KINDS.values()] + [memory.archive]
    return [path for path in candidates if path.is_file()]


def _shown(context: Context, path: Path) -> str:
    try:
        return str(path.resolve().relative_to(context.root))
    except ValueError:
        return str(path)

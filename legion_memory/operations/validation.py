"""The validation operation: every problem of the memory files (or of the files given), as the
pre-commit hook and CI check them."""

from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path

from legion_memory.errors import ParseError
from legion_memory.markdown.document import Document
from legion_memory.named_tuple import NamedTuple
from legion_memory.operations.project import Project, project_of
from legion_memory.schema.kinds import KINDS
from legion_memory.schema.source_links import Citations
from legion_memory.schema.validation import (
    CONFLICT_MARKER_HINT,
    ERROR,
    OCTOPUS_HINT,
    KnownHashes,
    Problem,
    document_twins,
    not_a_memory_file,
    validate_document,
)
from legion_memory.storage.reading import load
from legion_memory.wording import count_of


class Validation(NamedTuple):
    """Every problem of the files checked; errors make it a failure (exit 1)."""

    files: int
    problems: list[Problem]

    @property
    def errors(self) -> int:
        return sum(1 for problem in self.problems if problem.severity == ERROR)

    @property
    def exit_code(self) -> int:
        return 1 if self.errors else 0

    def to_json(self) -> dict[str, object]:
        return {"files": self.files, "problems": [p.to_json() for p in self.problems]}

    def text(self) -> str:
        others = len(self.problems) - self.errors
        summary = (
            f"{count_of(self.files, 'file')} checked, {count_of(self.errors, 'error')}, "
            f"{others} other"
        )
        return "\n".join([*(str(problem) for problem in self.problems), summary])


def validate(
    target: Project | Path | str,
    *,
    files: list[Path] | None = None,
    progress: Callable[[str], AbstractContextManager[None]] = lambda _: nullcontext(),
) -> Validation:
    """Check the given memory files (default: the project's) for every rule of their kind."""
    project = project_of(target)
    paths = files or _memory_files(project)
    shown = [(path, _shown(project, path)) for path in paths]
    problems: list[Problem] = []
    # Each file is read and parsed once, and kept for the checks across files.
    documents: list[tuple[Path, str, Document]] = []
    known: KnownHashes = {}  # the identity of each row, read by the checks of its file
    # A Source is checked against every outcome: not when only some files are given.
    citations = Citations() if set(paths) >= set(_memory_files(project)) else None
    for number, (path, name) in enumerate(shown, 1):
        with progress(f"validate: checking {name} ({number} of {len(shown)})"):
            found, document = _check_file(path, name, known, citations)
        problems += found
        if document is not None:
            documents.append((path, name, document))
    problems += document_twins(documents, known)
    problems += citations.unknown() if citations is not None else []
    return Validation(len(paths), _octopus_explained(project.root, problems))


def _octopus_explained(root: Path, problems: list[Problem]) -> list[Problem]:
    """Markers left by git's octopus strategy, which never calls the merge driver, say so: the
    pre-commit hook is where a user concluding that merge first hears of them."""
    markers = [p.message.endswith(CONFLICT_MARKER_HINT) for p in problems]
    if not any(markers):
        return problems
    from legion_memory.gitops.repository import octopus_in_progress

    if not octopus_in_progress(root):
        return problems
    explained = CONFLICT_MARKER_HINT[:-1] + OCTOPUS_HINT + ")"
    return [
        p._replace(message=p.message.replace(CONFLICT_MARKER_HINT, explained)) if marker else p
        for p, marker in zip(problems, markers, strict=True)
    ]


def validate_file(path: Path, shown: str) -> list[Problem]:
    """Every problem of one memory file (ARCHIVE.md included); any other path is not read."""
    return _check_file(path, shown)[0]


def _check_file(
    path: Path, shown: str, known: KnownHashes | None = None, citations: Citations | None = None
) -> tuple[list[Problem], Document | None]:
    """`validate_file`, and the file's document when it could be read."""
    refused = not_a_memory_file(path, shown)
    if refused is not None:
        return [refused], None
    try:
        document = load(path)
    except ParseError as exc:  # not UTF-8 (at a line), or not a file that may be read (no line)
        line = exc.where.rsplit(":", 1)[-1]
        return [Problem(shown, int(line) if line.isdecimal() else 0, ERROR, exc.message)], None
    if document is None:
        gone = "is a link to a missing file" if path.is_symlink() else "file does not exist"
        return [Problem(shown, 0, ERROR, gone)], None
    return validate_document(path, document, shown, known, citations=citations), document


def _memory_files(project: Project) -> list[Path]:
    memory = project.memory
    candidates = [memory.path(kind) for kind in KINDS.values()] + [memory.archive]
    # Whatever holds a memory file's name is checked, so that a FIFO, a directory or a link
    # committed in its place is reported rather than silently passed over.
    return [path for path in candidates if path.exists() or path.is_symlink()]


def _shown(project: Project, path: Path) -> str:
    """The path as given, relative to the project: a link is named, never what it points to."""
    absolute = path.parent.resolve() / path.name
    try:
        return str(absolute.relative_to(project.root))
    except ValueError:
        return str(path)

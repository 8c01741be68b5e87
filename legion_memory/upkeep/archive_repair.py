"""`doctor --fix` for an ARCHIVE.md whose per-kind sections a line merge doubled, or that holds
a row under another kind's heading: the file is laid out again as `forget` and `restore` write
it, one section per kind holding that kind's rows, by the same reading the merge driver uses on
ARCHIVE.md (docs/decisions.md#archive-merge), merging the file with itself."""

import re
from collections.abc import Mapping
from pathlib import Path

from legion_memory.errors import IntegrityError
from legion_memory.gitops.file_merge import merge
from legion_memory.markdown.document import parse, split_lines, strip_ending
from legion_memory.schema.record_twins import archive_layout
from legion_memory.storage import reading, writing
from legion_memory.storage.reading import Memory


def relaid(text: str) -> str | None:
    """The archive with every row in its kind's one section; None when it is not in the layout
    the tool writes (prose between the sections) or a row of it could not be placed."""
    result = merge(text, text, text, archive=True)
    if result.conflicts or result.text == text:
        return None
    return result.text


def repair_archive_layout(memory: Memory) -> list[str]:
    """Lay ARCHIVE.md out again under the lock; the repair it made, or nothing."""
    path = memory.archive
    text = reading.read_text(path)
    if not text or not archive_layout(parse(text)):
        return []  # nothing to do: no lock taken, nothing written

    def mutate(current: Mapping[Path, str | None]) -> dict[Path, str]:
        text = current[path]
        new = relaid(text) if text else None
        if new is None:
            return {}
        verify_rows_kept(path, text or "", new)
        return {path: new}

    changed = writing.transact(memory, [path], mutate)
    if not changed:
        return []
    return [f"{path}: one section per kind again, each row under its own kind's heading"]


def verify_rows_kept(path: Path, before: str, after: str) -> None:
    """Every record row is still there and none is new (a row held twice may be once), and every
    other line is kept; new lines may only be the heading and header of a section a row went to."""
    old, new = _lines(before), _lines(after)
    records = {line for line in old if _RECORD.match(line)}
    if records != {line for line in new if _RECORD.match(line)} or not old - records <= new:
        raise IntegrityError(
            "laying ARCHIVE.md out again would lose or change a line; nothing was written "
            "(this is a bug)",
            where=str(path),
            hint="move the rows under their kind's heading by hand, and report the file",
        )


_RECORD = re.compile(r"\|\s*[A-Z]+-[0-9]+\s*\|")


def _lines(text: str) -> set[str]:
    return {strip_ending(line).strip() for line in split_lines(text) if line.strip()}

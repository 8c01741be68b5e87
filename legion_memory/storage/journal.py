"""The journal of a multi-file change: each file's previous text, so a half-done change is undone.

Renames make one file's replacement atomic, not a change to several files. Before its first write,
a multi-file change records every file's previous text (or that the file did not exist) and a digest
of the text about to replace it. Undoing the change puts every file back to its previous text, but
only while each file still holds one of the two texts the change could have left there: anything
else means someone edited the files since, and putting the old text back would lose their work.

This module is the journal's format and the undoing; it reaches files only through the primitives
`store` hands it, so every byte still goes through the store's own reads and atomic writes.
"""

import hashlib
import json
import os
from collections.abc import Callable, Mapping
from enum import Enum
from pathlib import Path

from legion_memory.errors import LegionMemoryError, ParseError, RollbackError, WriteError
from legion_memory.named_tuple import NamedTuple
from legion_memory.schema.kinds import ARCHIVE_FILENAME, KINDS
from legion_memory.storage.reading import LEDGER_FILENAME

TYPE_CHECKING = False  # not typing's: docs/decisions.md#hot-paths-without-typing
if TYPE_CHECKING:
    from typing import NoReturn

_FORMAT = "legion-memory-journal"
_VERSION = 1
_ABSENT = "absent"

# A journal is repository content, and so input from whoever could commit it: rolling it back
# writes only files this tool journals itself, named without any path, never through a link.
JOURNALED_NAMES = frozenset(
    {*(kind.filename for kind in KINDS.values()), ARCHIVE_FILENAME, LEDGER_FILENAME}
)


class State(Enum):
    """What an interrupted change left in one file."""

    BEFORE = "before"  # the previous text: nothing to undo
    AFTER = "after"  # the change's text: put the previous text back
    FOREIGN = "foreign"  # neither: edited since, never overwritten automatically


class Entry(NamedTuple):
    """One file of a change: its path relative to the memory directory, its text before, and the
    digest of the text the change writes (equal to the previous digest when it leaves the file)."""

    path: str
    before: str | None
    after_digest: str

    def state(self, current: bytes | None) -> State:
        if current == _encoded(self.before):
            return State.BEFORE
        if digest(current) == self.after_digest:
            return State.AFTER
        return State.FOREIGN

    def file(self, directory: Path) -> Path:
        return directory / self.path


class Journal(NamedTuple):
    entries: tuple[Entry, ...]


def digest(data: bytes | None) -> str:
    return _ABSENT if data is None else hashlib.sha256(data).hexdigest()


def _encoded(text: str | None) -> bytes | None:
    return None if text is None else text.encode("utf-8")


def build(directory: Path, before: Mapping[Path, str | None], after: Mapping[Path, str]) -> Journal:
    """The journal of a change from `before` (every file involved) to `after` (the files it writes).

    Paths are relative to the memory directory, so a project moved after a crash still recovers.
    """
    entries = []
    for path, text in before.items():
        new = after.get(path, text)
        relative = Path(os.path.relpath(path, directory)).as_posix()
        entries.append(Entry(relative, text, digest(_encoded(new))))
    return Journal(tuple(entries))


def encode(journal: Journal) -> str:
    files = [
        {"path": entry.path, "before": entry.before, "after_sha256": entry.after_digest}
        for entry in journal.entries
    ]
    data = {"format": _FORMAT, "version": _VERSION, "files": files}
    return json.dumps(data, ensure_ascii=False) + "\n"


def decode(text: str, where: str) -> Journal:
    """A journal from its text; RollbackError when it is not one this tool wrote."""
    try:
        data = json.loads(text)
        if data["format"] != _FORMAT or data["version"] != _VERSION:
            raise ValueError("unknown journal format")
        entries = tuple(_entry(item) for item in data["files"])
    except (ValueError, KeyError, TypeError) as exc:
        raise RollbackError(
            f"an interrupted change left a journal that cannot be read ({exc})",
            where=where,
            hint="inspect the memory files, then delete the journal",
        ) from None
    return Journal(entries)


def _entry(item: dict[str, object]) -> Entry:
    path, before, after = item["path"], item["before"], item["after_sha256"]
    if not isinstance(path, str) or not isinstance(after, str):
        raise TypeError("journal entry without a path or digest")
    if before is not None and not isinstance(before, str):
        raise TypeError("journal entry with a previous text that is not text")
    return Entry(path, before, after)


class Files(NamedTuple):
    """The store's file primitives: read bytes (None when missing), atomic write, remove."""

    read: Callable[[Path], bytes | None]
    write: Callable[[Path, str], None]
    remove: Callable[[Path], None]


def restore(directory: Path, journal: Journal, files: Files) -> list[str]:
    """Put every journaled file back to its previous text; the ones that needed it."""
    restored = []
    for entry in journal.entries:
        path = entry.file(directory)
        if entry.state(files.read(path)) is State.BEFORE:
            continue
        if entry.before is None:
            files.remove(path)
        else:
            files.write(path, entry.before)
        restored.append(entry.path)
    return restored


def pending(path: Path, files: Files) -> list[str] | None:
    """What rolling back the journal at `path` would restore (None: there is no journal).

    RollbackError when the journal cannot be read or a file changed since the crash.
    """
    journal = _checked(path, files.read)
    if journal is None:
        return None
    directory = path.parent
    return [
        e.path
        for e in journal.entries
        if e.state(files.read(e.file(directory))) is not State.BEFORE
    ]


def roll_back_leftover(path: Path, files: Files) -> list[str]:
    """Undo the change recorded by a journal a killed process left at `path`; the files restored.

    Nothing is touched when any file holds neither its previous text nor the change's: that file
    was edited after the crash, and a person has to decide which text wins.
    """
    journal = _checked(path, files.read)
    if journal is None:
        return []
    restored = restore(path.parent, journal, files)
    files.remove(path)
    return restored


def text_before(path: Path, name: str, read: Callable[[Path], bytes | None]) -> str | None:
    """The text the memory file `name` had before the interrupted change journaled at `path`
    (None: it did not exist). KeyError when the journal is absent, cannot be rolled back, or does
    not name that file: then the file as it is is all there is to read."""
    try:
        journal = _checked(path, read)
    except (RollbackError, ParseError):
        raise KeyError(name) from None
    entries = {entry.path: entry.before for entry in journal.entries} if journal else {}
    return entries[name]


def _checked(path: Path, read: Callable[[Path], bytes | None]) -> Journal | None:
    """The journal at `path` (None when there is none), if it can be rolled back."""
    if path.is_symlink():
        _refuse(path, "the journal is a symbolic link")
    data = read(path)
    if data is None:
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = ""
    journal = decode(text, where=str(path))
    directory = path.parent
    for entry in journal.entries:
        _require_confined(path, entry)
    foreign = [e.path for e in journal.entries if e.state(read(e.file(directory))) is State.FOREIGN]
    if foreign:
        raise RollbackError(
            f"an interrupted change cannot be rolled back: {', '.join(foreign)} changed since",
            where=str(path),
            hint="compare those files with their previous text in the journal, then delete it",
        )
    return journal


def _require_confined(path: Path, entry: Entry) -> None:
    if entry.path not in JOURNALED_NAMES:
        _refuse(path, f"it names {entry.path!r}, which is not a memory file of this directory")
    if entry.file(path.parent).is_symlink():
        _refuse(path, f"it names {entry.path}, which is a symbolic link")


def _refuse(path: Path, why: str) -> "NoReturn":
    raise RollbackError(
        f"refusing to roll back an interrupted change: {why}; nothing was written",
        where=str(path),
        hint="a journal is only ever written by this tool: inspect it, then delete it",
    )


def undo(path: Path, journal: Journal, files: Files, failure: LegionMemoryError) -> "NoReturn":
    """Roll back a change that failed part way (the journal at `path`) and raise RollbackError."""
    try:
        restore(path.parent, journal, files)
        files.remove(path)
    except WriteError as again:
        raise RollbackError(
            f"{failure.message}; putting the files back failed too ({again.message})",
            where=failure.where,
            hint=f"{path.name} is kept and the next command that writes will retry the rollback; "
            "free disk space or fix permissions first",
        ) from failure
    raise RollbackError(
        f"{failure.message}; every file was put back as it was, nothing changed",
        where=failure.where,
        hint=failure.hint,
    ) from failure

"""One cheap scan that proves a memory directory gives `doctor` nothing to find or repair.

The post-merge and post-rewrite hooks run `doctor --fix --quiet` after every pull, merge, rebase
and `commit --amend`, and memory is almost always clean. This scan reads each memory file once,
as bytes, with C-level searches only, and imports nothing but `os` and `re`, so that the hook can
answer before the command line is even parsed (`cli/lean/hook.py`).

It errs one way only: `True` means every check of `upkeep/doctor.py` would find nothing; `False`
means "run them", never "something is wrong". Anything unusual (a table line whose first cell is
not an ID, a pipe-less row, a first cell with an escape) is left to the full checks.
Every check in `doctor.CHECKS` must be covered here: see docs/decisions.md#clean-memory-scan.
"""

from __future__ import annotations

import os
import re

from legion_memory.storage.raw_bytes import read_raw

# The names `storage` and `gitops` use (tests/test_clean_scan.py holds them equal); importing those
# modules would cost the hook more than the whole scan.
MEMORY_FILES = ("OUTCOMES.md", "PATTERNS.md", "ERRORS.md", "PREFERENCES.md", "ARCHIVE.md")
JOURNAL_NAME = ".legion-memory.journal"
TEMP_PREFIX, TEMP_SUFFIX = ".legion-memory-", ".tmp"
MERGE_LOG_NAME = "legion-memory-merges.jsonl"
MEMORY_DIR = (".planning", "memory")

_CONFLICT = b"<<<<<<<"
# A separator or closing marker a hand resolution left (the leftover-markers check's lines).
_LEFTOVER = re.compile(rb"\n(?:>{7}|\|{7}|={7}[ \t]*(?:\n|$))")
# Each pattern opens with the newline before a line (the text read is given one before its first
# line), not with `^`: a literal first character lets `re` skip to the next newline in C, which
# makes every scan five times faster than a multiline `^`.
# A line holding a pipe that does not open with a plain first cell (an ID, the `ID` header or a
# delimiter): it may be a row the ID scan cannot read, so the scan gives up.
_UNREAD_ROW = re.compile(rb"\n(?![ \t]*\|[ \t]*(?:[A-Z]+-[0-9]+|[Ii][Dd]|:?-+:?)[ \t]*\|)[^\n|]*\|")
_ROW_ID = re.compile(rb"\n[ \t]*\|[ \t]*([A-Z]+-[0-9]+)[ \t]*\|")


def project_of(start: str) -> tuple[str, str | None]:
    """The project root (the nearest ancestor holding `.git`, else `start`) and its git
    directory, as `project.root.find_root` and `gitops.repository.find_git_dir` find them."""
    start = os.path.realpath(start)
    candidate = start
    while True:
        dotgit = os.path.join(candidate, ".git")
        if os.path.exists(dotgit):
            return candidate, _git_dir(dotgit)
        parent = os.path.dirname(candidate)
        if parent == candidate:
            return start, _git_dir(None)
        candidate = parent


def _git_dir(dotgit: str | None) -> str | None:
    if os.environ.get("GIT_DIR"):
        return os.path.realpath(os.environ["GIT_DIR"])
    if dotgit is None or os.path.isdir(dotgit):
        return dotgit
    try:
        with open(dotgit, encoding="utf-8") as handle:
            content = handle.read().strip()
    except (OSError, UnicodeDecodeError):
        return None
    if not content.startswith("gitdir:"):
        return None
    return os.path.realpath(os.path.join(os.path.dirname(dotgit), content[7:].strip()))


def memory_is_clean(directory: str) -> bool:
    """`is_clean` for a memory directory, with the git directory found from it."""
    return is_clean(directory, project_of(directory)[1])


def is_clean(directory: str, git_dir: str | None) -> bool:
    """True when no journal, no temporary file, no merge log, no conflict marker and no ID held
    by two rows is there: then `doctor` (with or without --fix) finds and changes nothing."""
    if git_dir is not None and os.path.lexists(os.path.join(git_dir, MERGE_LOG_NAME)):
        return False
    if os.path.realpath(directory) != os.path.abspath(directory):
        return False  # a linked memory directory (or a parent of it) is doctor's to refuse
    try:
        names = os.listdir(directory)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    if JOURNAL_NAME in names or any(_is_temp(name) for name in names):
        return False
    # A memory file that is a link is doctor's to refuse: the scan never reads through one.
    if any(os.path.islink(os.path.join(directory, name)) for name in MEMORY_FILES if name in names):
        return False
    ids: list[bytes] = []
    contents: list[tuple[bytes, bytes]] = []
    for name in MEMORY_FILES:
        data = _read(os.path.join(directory, name)) if name in names else b""
        if data is None or _CONFLICT in data or _UNREAD_ROW.search(data) or _LEFTOVER.search(data):
            return False
        if name == MEMORY_FILES[-1] and not _archive_sections_in_order(data):
            return False
        ids += _ROW_ID.findall(data)
        contents += _ROW_CONTENT.findall(data)
    # IDs of different kinds never share a prefix, so one set over all files covers every kind.
    return len(set(ids)) == len(ids) and _no_record_twice(contents)


# A record row's ID prefix and the rest of the row after its ID cell.
_ROW_CONTENT = re.compile(rb"\n[ \t]*\|[ \t]*([A-Z]+)-[0-9]+[ \t]*\|([^\n]*)")
_SECTION_OR_ROW = re.compile(rb"\n(?:## ([^\n]*)|[ \t]*\|[ \t]*([A-Z]+)-[0-9]+[ \t]*\|)")
# ARCHIVE.md's section of each kind and the prefix of its IDs (schema.kinds holds them equal).
ARCHIVE_SECTIONS = {
    b"Archived Records": b"O",
    b"Archived Patterns": b"P",
    b"Archived Errors": b"E",
    b"Archived Preferences": b"D",
}
ERROR_PREFIX = b"E"


def _no_record_twice(contents: list[tuple[bytes, bytes]]) -> bool:
    """No two rows of one kind hold the same content under two IDs, and no two error fixes share
    their date, branch and signature (an error's identity: docs/decisions.md#record-identity).
    Rows that differ in layout or in a Source alone are for the twin check of the full run."""
    keys = [(prefix, _identity_text(prefix, rest)) for prefix, rest in contents]
    return len(set(keys)) == len(keys)


def _identity_text(prefix: bytes, rest: bytes) -> bytes:
    """The row's cells without those that cite a record (a pattern's Source, which a renumbering
    rewrites): two rows that differ in nothing else are one record held twice."""
    cells = [b" ".join(cell.split()) for cell in rest.rstrip().split(b"|")]
    if prefix == ERROR_PREFIX:
        return b"|".join(cells[:3])
    return b"|".join(cell for cell in cells if not _REFERENCE.fullmatch(cell))


_REFERENCE = re.compile(rb"[A-Z]+-[0-9]+(?:, ?[A-Z]+-[0-9]+)*")


def _archive_sections_in_order(data: bytes) -> bool:
    """Each kind's section once, holding only its kind's rows (else the layout check decides)."""
    headings: set[bytes] = set()
    expected: bytes | None = None
    for raw_heading, prefix in _SECTION_OR_ROW.findall(data):
        if raw_heading:
            heading = raw_heading.strip()
            if heading in headings:
                return False
            headings.add(heading)
            expected = ARCHIVE_SECTIONS.get(heading)
        elif prefix != expected:
            return False
    return True


def _is_temp(name: str) -> bool:
    return name.startswith(TEMP_PREFIX) and name.endswith(TEMP_SUFFIX)


def _read(path: str) -> bytes | None:
    """A newline, then the file's bytes without a byte order mark; None when it cannot be read."""
    data = read_raw(path)
    if data is None:
        return None
    return b"\n" + (data[3:] if data.startswith(b"\xef\xbb\xbf") else data)

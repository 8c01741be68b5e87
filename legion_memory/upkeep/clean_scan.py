"""One cheap scan that proves a memory directory gives `doctor` nothing to find or repair.

The post-merge and post-rewrite hooks run `doctor --fix --quiet` after every pull, merge, rebase
and `commit --amend`, and memory is almost always clean. This scan reads each memory file once,
line by line as bytes, with bytes methods only, and imports nothing but `os`: not even `re`, whose
import (it loads `enum`) would cost the hook more than the scan of a thousand rows, so that the
hook can answer before the command line is even parsed (`cli/lean/hook.py`).

It errs one way only: `True` means every check of `upkeep/doctor.py` would find nothing; `False`
means "run them", never "something is wrong". Anything unusual (a table line whose first cell is
not an ID, a pipe-less row, a first cell with an escape) is left to the full checks.
Every check in `doctor.CHECKS` must be covered here: see docs/decisions.md#clean-memory-scan.
"""

from __future__ import annotations

import os

from legion_memory.storage.raw_bytes import open_raw

# The names `storage` and `gitops` use (tests/test_clean_scan.py holds them equal); importing those
# modules would cost the hook more than the whole scan.
MEMORY_FILES = ("OUTCOMES.md", "PATTERNS.md", "ERRORS.md", "PREFERENCES.md", "ARCHIVE.md")
JOURNAL_NAME = ".legion-memory.journal"
TEMP_PREFIX, TEMP_SUFFIX = ".legion-memory-", ".tmp"
MERGE_LOG_NAME = "legion-memory-merges.jsonl"
# The post-commit hook's note of a sequence of picks whose repair waits for the next commit
# (`gitops.hook_env.PICK_SEQUENCE_NAME`): doctor weighs those picks, which no scan can.
PICK_SEQUENCE_NAME = "legion-memory-pick-sequence"
# Set by the post-rewrite hook after a rebase (`gitops.hook_env.REPLAYED_AS_ENV`): doctor then
# compares the replayed changes with the upstream's, which no scan of the files can do.
REPLAYED_AS_ENV = "LEGION_MEMORY_REWRITTEN_AS"
# Set by the post-commit hook after a cherry-pick (`gitops.hook_env.PICKED_ENV`): doctor then
# checks that the pick dropped no record either side held.
PICKED_ENV = "LEGION_MEMORY_PICKED"
# Set by the post-commit hook after a revert (`gitops.hook_env.REVERTED_ENV`): doctor then follows
# the references by what they meant on its two sides, which no scan of the files can do.
REVERTED_ENV = "LEGION_MEMORY_REVERTED"
# Set by the post-commit hook of a commit concluding a stopped merge (`gitops.hook_env.
# CONCLUDED_ENV`): doctor checks that its resolution dropped no record either side added.
CONCLUDED_ENV = "LEGION_MEMORY_MERGE_CONCLUDED"
# Set by the post-merge hook when git took one side's memory files whole though the other's
# history changed them (`gitops.hook_env.RECHECK_ENV`): doctor weighs the two histories.
RECHECK_ENV = "LEGION_MEMORY_RECHECK"
# Set by the post-merge hook when both parents changed memory (`gitops.hook_env.BOTH_SIDES_ENV`):
# doctor follows the references by what each side meant, which no scan of the files can do.
BOTH_SIDES_ENV = "LEGION_MEMORY_BOTH_SIDES"
# Set by the post-applypatch hook after `git am` (`gitops.hook_env.APPLIED_ENV`): a patch that
# applied as text ran no driver and left no log, yet its patterns cite the branch's numbers.
APPLIED_ENV = "LEGION_MEMORY_PATCH_APPLIED"
MEMORY_DIR = (".planning", "memory")
_INTEGRATION_ENVS = (
    REPLAYED_AS_ENV,
    PICKED_ENV,
    REVERTED_ENV,
    CONCLUDED_ENV,
    RECHECK_ENV,
    BOTH_SIDES_ENV,
    APPLIED_ENV,
)


def project_of(start: str) -> tuple[str, str | None]:
    """The project root (the nearest ancestor holding `.git`, else `start`) and its git
    directory, as `project.root.find_root` and `gitops.hook_env.find_git_dir` find them."""
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
    by two rows is there, and no rebase was just done: then `doctor` (with or without --fix) finds
    and changes nothing."""
    if any(os.environ.get(name, "").strip() for name in _INTEGRATION_ENVS):
        return False
    if git_dir is not None and os.path.lexists(os.path.join(git_dir, MERGE_LOG_NAME)):
        return False
    if git_dir is not None and _picks_end_at_head(git_dir):
        return False
    if git_dir is not None and _rebase_stopped_at_a_merge(git_dir):
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
    ids: set[bytes] = set()
    keys: set[int] = set()
    for name in MEMORY_FILES:
        if name in names and not _file_is_clean(
            os.path.join(directory, name), ids, keys, archive=name == MEMORY_FILES[-1]
        ):
            return False
    return True


def _picks_end_at_head(git_dir: str) -> bool:
    """The hooks noted a sequence of picks that ended unrepaired at the commit checked out:
    doctor weighs those picks (`gitops.ended_picks`). A note of a commit elsewhere (another
    branch's, waiting for its next commit or push) is no work here."""
    try:
        with open(os.path.join(git_dir, PICK_SEQUENCE_NAME), "rb") as handle:
            noted = handle.read().split()
    except OSError:
        return False
    head = _head_commit(git_dir)
    return not noted or head is None or head == noted[-1]


def _head_commit(git_dir: str) -> bytes | None:
    """HEAD's commit, read from the files (None when they do not say it plainly: a packed
    branch). A linked work tree's branches are in the repository's shared git directory."""
    try:
        head = _read_stripped(os.path.join(git_dir, "HEAD"))
        if not head.startswith(b"ref: "):
            return head
        ref = os.fsdecode(head[5:].strip())
        try:
            return _read_stripped(os.path.join(git_dir, ref))
        except FileNotFoundError:
            shared = os.fsdecode(_read_stripped(os.path.join(git_dir, "commondir")))
            return _read_stripped(os.path.join(git_dir, shared, ref))
    except (OSError, ValueError):
        return None


def _read_stripped(path: str) -> bytes:
    with open(path, "rb") as handle:
        return handle.read().strip()


def _rebase_stopped_at_a_merge(git_dir: str) -> bool:
    """A rebase keeping merges whose last step was a merge: doctor asks whether git could
    replay it (`gitops.octopus_replay`), which no scan of the files can."""
    try:
        with open(os.path.join(git_dir, "rebase-merge", "done"), "rb") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return False
    return bool(lines) and lines[-1].split(b" ", 1)[0] in (b"merge", b"m")


# ARCHIVE.md's section of each kind and the prefix of its IDs (schema.kinds holds them equal).
ARCHIVE_SECTIONS = {
    b"Archived Records": b"O",
    b"Archived Patterns": b"P",
    b"Archived Errors": b"E",
    b"Archived Preferences": b"D",
}
ERROR_PREFIX, PATTERN_PREFIX = b"E", b"P"
_CONFLICT = b"<<<<<<<"
# A closing or base marker a hand resolution left, or a separator alone on its line (the
# leftover-markers check's lines).
_LEFTOVER_OPENINGS = (b">>>>>>>", b"|||||||")
_SEPARATOR = b"======="
_BOM = b"\xef\xbb\xbf"
# What `str.split` splits on among ASCII bytes: the identity compares cells with their runs of
# whitespace made one space, so a key without any whitespace is one that twins always share.
_ASCII_SPACE = b" \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f"


def _file_is_clean(path: str, ids: set[bytes], keys: set[int], *, archive: bool) -> bool:
    """No conflict marker, every line with a pipe a plain table line, no ID in `ids` and no
    record key in `keys` (both grow with this file's rows); in ARCHIVE.md each kind's section
    once, holding only its kind's rows."""
    handle = open_raw(path)
    if handle is None:
        return False
    sections: set[bytes] = set()
    expected: bytes | None = None
    with handle:
        for number, read in enumerate(handle):
            line = read[3:] if number == 0 and read.startswith(_BOM) else read
            if _CONFLICT in line or _is_leftover_marker(line):
                return False
            if b"|" not in line:
                if archive and line.startswith(b"## "):
                    heading = line[3:].strip()
                    if heading in sections:
                        return False
                    sections.add(heading)
                    expected = ARCHIVE_SECTIONS.get(heading)
                continue
            prefix = _row_prefix(line, ids, keys)
            if prefix is None or (archive and prefix and prefix != expected):
                return False
    return True


def _is_leftover_marker(line: bytes) -> bool:
    if line.startswith(_LEFTOVER_OPENINGS):
        return True
    return line.startswith(_SEPARATOR) and line[len(_SEPARATOR) :].lstrip(b" \t") in (b"\n", b"")


def _row_prefix(line: bytes, ids: set[bytes], keys: set[int]) -> bytes | None:
    """A table line's ID prefix (empty for a header or delimiter line), its ID and record key
    added to `ids` and `keys`; None when the line is not a plain table line or repeats an ID or
    a record."""
    lead, _, rest = line.partition(b"|")
    first, pipe, tail = rest.partition(b"|")
    if lead.strip(b" \t") or not pipe:
        return None
    cell = first.strip(b" \t")
    prefix, dash, number = cell.partition(b"-")
    if not (dash and prefix.isalpha() and prefix.isupper() and number.isdigit()):
        return b"" if cell.lower() == b"id" or _is_delimiter(cell) else None
    if cell in ids:
        return None
    ids.add(cell)
    key = hash((prefix, _identity_text(prefix, tail)))
    if key in keys:
        return None
    keys.add(key)
    return prefix


def _is_delimiter(cell: bytes) -> bool:
    dashes = cell.removeprefix(b":").removesuffix(b":")
    return bool(dashes) and not dashes.strip(b"-")


def _identity_text(prefix: bytes, tail: bytes) -> bytes:
    """The row after its ID cell, without whitespace and without the cells that cite a record (a
    pattern's Source, which a renumbering rewrites); an error fix's first three cells (its date,
    branch and signature: docs/decisions.md#record-identity). Two rows holding one record always
    give the same text; rows that differ in layout are for the twin check of the full run."""
    if tail.isascii():
        text = tail.translate(None, _ASCII_SPACE)
    else:  # whitespace as `str.split` knows it (a no-break space, an ideographic space, ...)
        words = tail.decode("utf-8", "surrogateescape").split()
        text = "".join(words).encode("utf-8", "surrogateescape")
    if prefix == ERROR_PREFIX:
        return b"|".join(text.split(b"|", 3)[:3])
    if prefix != PATTERN_PREFIX:
        return text
    return b"|".join(cell for cell in text.split(b"|") if not _is_reference(cell))


def _is_reference(cell: bytes) -> bool:
    """`O-1` or `O-1,O-2`: a cell citing records by ID."""
    for part in cell.split(b","):
        prefix, dash, number = part.partition(b"-")
        if not (dash and prefix.isalpha() and prefix.isupper() and number.isdigit()):
            return False
    return True


def _is_temp(name: str) -> bool:
    return name.startswith(TEMP_PREFIX) and name.endswith(TEMP_SUFFIX)

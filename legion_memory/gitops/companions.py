"""The records a memory file's merge must not take the IDs of: the same kinds' rows in the other
memory files (ARCHIVE.md for a live file, the live files for ARCHIVE.md), on both sides.

Git merges one file at a time, so the merge of OUTCOMES.md cannot see ARCHIVE.md. Ours's other
files are in the work tree (git writes merge results there only once every file is merged);
theirs's are read from the commit being merged when git names it (`GITHEAD_<sha>`, which `git
merge` and `git pull` set). Each taken ID comes with the identities holding it, so a record
restored on one side is not taken for another record by its own archived copy. IDs an earlier
file of the same merge renumbered to (the merge log) are taken too: two files' merges never give
out one number twice.
"""

from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

from legion_memory.gitops.merge_log import Arrival
from legion_memory.gitops.repository import run_git
from legion_memory.markdown.document import parse
from legion_memory.schema.identity import Identity
from legion_memory.schema.kinds import ARCHIVE_FILENAME, KINDS

Taken = dict[str, set[Identity]]


def companion_names(name: str) -> list[str]:
    if name.upper() == ARCHIVE_FILENAME.upper():
        return [kind.filename for kind in KINDS.values()]
    return [ARCHIVE_FILENAME]


def theirs_commits(env: Mapping[str, str]) -> list[str]:
    return [key.removeprefix("GITHEAD_") for key in env if key.startswith("GITHEAD_")]


def taken_ids(
    path: Path, ours: Iterable[str], env: Mapping[str, str], log: Iterable[Arrival] = ()
) -> Taken:
    """ID -> the identities of the rows holding it in the companion files of both sides (ours's
    texts given, theirs's read from git) and, held by no known record, the IDs the log says
    another file's merge renumbered to."""
    names = companion_names(path.name)
    archived = path.name.upper() != ARCHIVE_FILENAME.upper()
    taken: Taken = {}
    for text in [*ours, *_theirs(path, names, theirs_commits(env))]:
        from legion_memory.schema.record_twins import kind_rows  # only for a file there is

        for kind in KINDS.values():
            for holder, identity in kind_rows(kind, [("", parse(text), archived)]):
                taken.setdefault(holder.record_id, set()).add(identity)
    for entry in log:  # this file's own entries are in its versions already
        other_file = entry.file.upper() != path.name.upper()
        if other_file and entry.renumbered_from and entry.id not in taken:
            taken[entry.id] = set()
    return taken


def _theirs(path: Path, names: list[str], commits: list[str]) -> Iterator[str]:
    for name in names:
        for sha in commits:
            shown = run_git(["show", f"{sha}:{(path.parent / name).as_posix()}"], Path.cwd())
            if shown:
                yield shown

"""The git command that started this merge driver, read from the process table.

Git names to a driver neither the command running it nor, in a lone cherry-pick or a stash
applied, the commit being applied. But git starts a driver through `sh -c`, so that command is
the argument list of an ancestor process. A revision found there counts only when its version of
the file merged is exactly the driver's theirs (docs/decisions.md#lone-pick): an alias, a wrapper
or another git command never passes for the one looked for.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterator
from pathlib import Path

from legion_memory.gitops.branch import run_git

# The driver's parent is `sh -c`, its parent the git that merges; a little room for a wrapper
# (`git pull` runs `git rebase`, which runs `git stash apply` for an autostash).
_ANCESTORS = 4
# git's own options before the command whose value is the next argument (`-c k=v`, `-C dir`).
_GIT_VALUED = frozenset({"-c", "-C", "--git-dir", "--work-tree", "--namespace", "--config-env"})

Reader = Callable[[list[str]], str | None]
"""Given an ancestor's argument list, the revision its command applies, or None."""


def commit_applied(
    start: Path, path: str, theirs: Path, reader: Reader, depth: int = _ANCESTORS
) -> str | None:
    """The full hash of the commit the nearest of `depth` ancestors `reader` recognises names,
    when its version of `path` (relative to the top of the working tree) is the bytes of
    `theirs`."""
    revision = next(filter(None, map(reader, ancestor_commands(depth))), None)
    return None if revision is None else commit_holding(start, revision, path, theirs)


def commit_holding(start: Path, revision: str, path: str, theirs: Path) -> str | None:
    """The full hash of `revision` when its version of `path` is the bytes of `theirs`."""
    try:
        wanted = theirs.read_bytes()
    except OSError:
        return None
    named = run_git(["rev-parse", f"{revision}^{{commit}}", f"{revision}:{path}"], start)
    commit, _, blob = (named or "").strip().partition("\n")
    return commit if blob and blob == _blob_id(wanted, len(blob)) else None


def git_command(argv: list[str], command: str) -> Iterator[str] | None:
    """The words after `command` when `argv` runs `git [options] command`; else None."""
    if not argv or os.path.basename(argv[0]) not in ("git", "git.exe"):
        return None
    words = iter(argv[1:])
    for word in words:
        if word == command:
            return words
        if not word.startswith("-"):
            return None
        if word in _GIT_VALUED:
            next(words, None)
    return None


def _blob_id(content: bytes, length: int) -> str:
    """The id git gives a blob of these bytes, in the repository's hash (40 or 64 digits)."""
    digest = hashlib.sha256() if length == 64 else hashlib.sha1()
    digest.update(b"blob %d\0" % len(content))
    digest.update(content)
    return digest.hexdigest()


def ancestor_commands(depth: int = _ANCESTORS) -> Iterator[list[str]]:
    """The argument lists of this process's parent and its ancestors, nearest first."""
    pid = os.getppid()
    for _ in range(depth):
        if pid <= 1:
            return
        found = _process(pid)
        if found is None:
            return
        parent, argv = found
        yield argv
        pid = parent


def _process(pid: int) -> tuple[int, list[str]] | None:
    """A process's parent and argument list: from /proc on Linux, else from `ps` (macOS and the
    BSDs, whose `ps` joins the arguments with spaces: a revision holding none is unharmed; `-ww`:
    a long command line is not cut to the width of a terminal)."""
    proc = Path("/proc", str(pid))
    try:
        stat = (proc / "stat").read_text(encoding="utf-8", errors="replace")
        argv = (proc / "cmdline").read_bytes().decode("utf-8", "replace").split("\0")
        # The command name in parentheses may hold spaces and parentheses: fields follow the last.
        return int(stat.rpartition(")")[2].split()[1]), [word for word in argv if word]
    except (OSError, ValueError, IndexError):
        pass
    return None if Path("/proc/self").exists() else _from_ps(pid)


def _from_ps(pid: int) -> tuple[int, list[str]] | None:
    import subprocess

    try:
        done = subprocess.run(
            ["ps", "-ww", "-o", "ppid=", "-o", "command=", "-p", str(pid)],
            capture_output=True,
            text=True,
            check=False,
            timeout=5,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    parent, _, command = done.stdout.strip().partition(" ")
    return (int(parent), command.split()) if parent.isdigit() else None

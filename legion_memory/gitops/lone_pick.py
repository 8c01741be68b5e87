"""The commit a `git cherry-pick` of one commit is applying, for its merge driver.

Git names it to no driver: no `GITHEAD_*` variable, and a single pick keeps no `sequencer/todo`
(git writes `CHERRY_PICK_HEAD` only after the merge). But the pick's own command line holds it,
and git starts a driver through `sh -c`, so it is the argument list of an ancestor process. A
candidate found there counts only when its version of the file merged is exactly the driver's
theirs (docs/decisions.md#lone-pick): an alias, a wrapper or another git command never passes
for a pick.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from pathlib import Path

from legion_memory.gitops.branch import run_git

# The driver's parent is `sh -c`, its parent the git that merges; a little room for a wrapper.
_ANCESTORS = 4
# cherry-pick's options whose value may be the next argument (`-m 1`, `--strategy ort`).
_VALUED = frozenset({"-m", "--mainline", "-X", "--strategy-option", "--strategy"})
# git's own options before the command whose value is the next argument (`-c k=v`, `-C dir`).
_GIT_VALUED = frozenset({"-c", "-C", "--git-dir", "--work-tree", "--namespace", "--config-env"})


def commit_picked_alone(start: Path, path: str, theirs: Path) -> str | None:
    """The full hash of the one commit a running `git cherry-pick` names, when its version of
    `path` (relative to the top of the working tree) is the bytes of `theirs`; else None."""
    revision = next(filter(None, map(_lone_pick, _ancestor_commands())), None)
    if revision is None:
        return None
    try:
        wanted = theirs.read_bytes()
    except OSError:
        return None
    named = run_git(["rev-parse", f"{revision}^{{commit}}", f"{revision}:{path}"], start)
    commit, _, blob = (named or "").strip().partition("\n")
    return commit if blob and blob == _blob_id(wanted, len(blob)) else None


def _lone_pick(argv: list[str]) -> str | None:
    """The revision a `git cherry-pick REV` command line names; None for any other command,
    several revisions, a range or a sequence's `--continue`."""
    if not argv or os.path.basename(argv[0]) not in ("git", "git.exe"):
        return None
    words = iter(argv[1:])
    for word in words:
        if word == "cherry-pick":
            break
        if not word.startswith("-"):
            return None
        if word in _GIT_VALUED:
            next(words, None)
    else:
        return None
    revisions = list(_revisions(words))
    if len(revisions) != 1 or ".." in revisions[0] or revisions[0].startswith("^"):
        return None
    return "@{-1}" if revisions[0] == "-" else revisions[0]


def _revisions(words: Iterator[str]) -> Iterator[str]:
    for word in words:
        if word in _VALUED:
            next(words, None)
        elif word == "-" or not word.startswith("-"):
            yield word
        elif word in ("--continue", "--skip", "--abort", "--quit", "--stdin"):
            return


def _blob_id(content: bytes, length: int) -> str:
    """The id git gives a blob of these bytes, in the repository's hash (40 or 64 digits)."""
    digest = hashlib.sha256() if length == 64 else hashlib.sha1()
    digest.update(b"blob %d\0" % len(content))
    digest.update(content)
    return digest.hexdigest()


def _ancestor_commands() -> Iterator[list[str]]:
    """The argument lists of this process's parent and its ancestors, nearest first."""
    pid = os.getppid()
    for _ in range(_ANCESTORS):
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

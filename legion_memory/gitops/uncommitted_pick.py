"""The commit a pick that commits nothing (`git cherry-pick -n`) leaves the work tree as, for the
note the merge driver leaves when it renumbers there (docs/decisions.md#stash-apply-references).

No hook runs after such a pick, and the commit the user makes of it is a plain commit. Of one
commit, its command line names it (`gitops.lone_pick`); of several, git keeps the sequence in
`sequencer/` while it runs, `no-commit = true` among its options, the picks still to apply in
`todo`: the last of them is the commit whose versions the work tree ends with.
"""

import re
from pathlib import Path

from legion_memory.gitops.branch import find_git_dir, read_stripped, run_git
from legion_memory.gitops.lone_pick import commit_picked_uncommitted

_NO_COMMIT = re.compile(r"^\s*no-commit\s*=\s*true\s*$", re.MULTILINE | re.IGNORECASE)


def uncommitted_pick_side(start: Path, path: str, theirs: Path) -> str | None:
    """The full hash of the commit a running pick that commits nothing ends with: the last of a
    sequence's, or the one a lone pick names (when its version of `path` is `theirs`); None for
    any other merge."""
    git_dir = find_git_dir(start)
    sequencer = git_dir / "sequencer" if git_dir is not None else None
    if sequencer is None or not (sequencer / "todo").is_file():
        return commit_picked_uncommitted(start, path, theirs)
    if not _NO_COMMIT.search(read_stripped(sequencer / "opts") or ""):
        return None
    picks = [line.split() for line in (read_stripped(sequencer / "todo") or "").splitlines()]
    last = [words[1] for words in picks if len(words) > 1 and words[0] in ("p", "pick")][-1:]
    named = (
        run_git(["rev-parse", "-q", "--verify", f"{last[0]}^{{commit}}"], start) if last else None
    )
    return named.strip() if named else None

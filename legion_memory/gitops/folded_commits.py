"""The squashes and fixups of this clone's interactive rebases, each with the commits it folded
(docs/decisions.md#archive-moves).

Git's own message of `merge --squash` names the commits it folds; a `rebase -i` squash or fixup
writes the folded commits' messages and names none of them. Its post-rewrite hook is told all
the same ("<old> <new>" for each commit replayed, several olds for one new), and notes each new
commit that stands for several old ones in a file of the git directory: in this clone's history
questions it then stands for the commits it folded, as a squash with git's own message does.
A rebase that flattened merges notes its new tip the same way, standing for the whole line it
replaced: the moves made inside the merges it dropped are in no commit it wrote.
A clone that only fetches the squash (or the flattened line) has no such note.
"""

from collections.abc import Collection
from pathlib import Path

from legion_memory.gitops.branch import common_git_dir, find_git_dir, read_stripped, run_git

FOLDED_NAME = "legion-memory-folded"
"""In the clone's shared git directory: a line "<new> <old> <old>..." per commit a rebase
folded others into."""


def folded_by(start: Path, revs: str, named: Collection[str] = ()) -> dict[str, list[str]]:
    """The noted folds whose new commit `revs` (a revision or a range) reaches or is among
    `named` (the commits a squash in `revs` names: a branch folded, then squashed into main),
    each with the commits it folded, a fold of folded commits with theirs too; and each fold
    such a fold folded, with its own: it stands for its commits as well, or the move it made
    counts beside theirs (seed 12714 of the collaboration simulation's `--stacked-kinds`). Git
    is asked only when this clone noted any."""
    noted = _noted(start)
    if not noted:
        return {}
    listed = run_git(["rev-list", revs], start)
    reached = set(listed.split()) if listed else set()
    found = {new: _unfolded(noted, new) for new in noted if new in reached or new in named}
    # `_unfolded` is transitive: every fold inside a fold found is in that fold's list.
    inner = {sha for folded in found.values() for sha in folded if sha in noted}
    return found | {sha: _unfolded(noted, sha) for sha in inner - found.keys()}


def _noted(start: Path) -> dict[str, list[str]]:
    """The folds noted in the clone's shared git directory: a fold is a fact of the clone's
    history, asked of in every worktree (the scratch one a branch moved along a stack is
    repaired in among them). A linked worktree's own directory is read too, where folds made
    there were noted before."""
    git_dir = find_git_dir(start)
    places = {common_git_dir(git_dir), git_dir.resolve()} if git_dir else set()
    noted: dict[str, list[str]] = {}
    read = (read_stripped(place / FOLDED_NAME) or "" for place in sorted(places))
    for line in "\n".join(read).splitlines():
        shas = [sha for sha in line.split() if len(sha) == 40 and sha.isalnum()]
        if len(shas) > 2:
            noted.setdefault(shas[0], []).extend(shas[1:])
    return noted


def _unfolded(noted: dict[str, list[str]], new: str) -> list[str]:
    """The commits `new` folded, and those each of them folded in turn (a squash squashed
    again), each once."""
    found: list[str] = []
    waiting = list(noted[new])
    while waiting:
        sha = waiting.pop(0)
        if sha not in found and sha != new:
            found.append(sha)
            waiting += noted.get(sha, [])
    return found

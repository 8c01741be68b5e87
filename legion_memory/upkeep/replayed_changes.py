"""PURE: records a rebase changed only by replaying changes its upstream had already made,
found so they can be set back to how the upstream holds them
(docs/decisions.md#replays-upstream-holds).

Git drops a replayed commit whose patch the upstream already holds, but only when the patch is
the same text: a copy of the commit made by an earlier rebase has other rows around it (another
clone's archived records in ARCHIVE.md), so git replays it, and a forget the upstream already made
and then undid by a restore is made again. Compared by record instead of by text, a change is a
record's state before and after (absent, live or archived, with its cells but ID and Source), the
record matched by its identity. A record every replayed change of which the upstream already made
is stale: it must be as the upstream's tip (`onto`) holds it. Made already means made by that
very commit or a copy of it (its author, author date and message): a record moves between live
and archived in only two ways, so a second forget, one the upstream never held, moves it just as
the first did. A copy in the history both sides share counts too, for a record the upstream
changed again since they parted: a branch picked or rebased before replays old news.
"""

from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from typing import NamedTuple

from legion_memory.schema.identity import Identity, history_text, identity_of_cells
from legion_memory.schema.kinds import KINDS
from legion_memory.storage.reading import Memory
from legion_memory.upkeep.renumbering import Texts, occurrences


class State(NamedTuple):
    archived: bool
    body: tuple[str, ...]
    id: str
    raw: str
    columns: tuple[str, ...]

    def text(self) -> str:
        """The row after its ID as written (`history_text`): what git's pickaxe looks for."""
        return history_text(self.raw, self.columns)


Key = tuple[str, Identity]
Change = tuple[Key, tuple[bool, tuple[str, ...]] | None, tuple[bool, tuple[str, ...]] | None]
Step = tuple[str, dict[Key, State], dict[Key, State]]
"""A commit (its revision) with every record of its versions before and after."""


class Stale(NamedTuple):
    """A record the rebase left otherwise than its upstream holds it, by changes already made."""

    now: State
    upstream: State


def states(memory: Memory, texts: Texts) -> dict[Key, State]:
    """Every record of one version by kind and identity (a record held twice: its first row)."""
    found: dict[Key, State] = {}
    for kind in KINDS.values():
        for row in occurrences(memory, texts, kind):
            key = (kind.name, identity_of_cells(kind, row.columns, row.cells))
            archived = row.path == memory.archive
            state = State(archived, row.body(), row["id"], row.raw, row.columns)
            found.setdefault(key, state)
    return found


def changes(before: dict[Key, State], after: dict[Key, State]) -> Iterator[Change]:
    """What one commit did to each record it changed, IDs aside."""
    for key in before.keys() | after.keys():
        old, new = _content(before.get(key)), _content(after.get(key))
        if old != new:
            yield key, old, new


def _content(state: State | None) -> tuple[bool, tuple[str, ...]] | None:
    return None if state is None else (state.archived, state.body)


def replayed_changes(picked: Sequence[Step]) -> dict[Key, list[tuple[str, Change]]]:
    """Each record the replayed commits (each as its revision and its versions before and after)
    changed, with every change they made to it and the commit that made it."""
    replayed: dict[Key, list[tuple[str, Change]]] = {}
    for commit, before, after in picked:
        for change in changes(before, after):
            replayed.setdefault(change[0], []).append((commit, change))
    return replayed


def suspects(
    now: dict[Key, State], onto: dict[Key, State], replayed: Mapping[Key, object]
) -> list[Key]:
    """Records the replay changed that it left archived where the upstream's tip holds them live
    with the same cells, or the other way round: the only ones that may be set back (anything
    else is a person's to judge), and the only ones the upstream's history is read for."""
    return [
        key
        for key in replayed
        if key in now
        and key in onto
        and now[key].body == onto[key].body
        and now[key].archived != onto[key].archived
    ]


def stale_records(
    now: dict[Key, State],
    onto: dict[Key, State],
    replayed: dict[Key, list[tuple[str, Change]]],
    upstream: Sequence[Step],
    copy_of: Mapping[str, str],
    shared: Sequence[Step] = (),
) -> list[Stale]:
    """Suspects (above) whose every replayed change the upstream already made: one of
    `upstream`'s commits (since the sides parted), or of `shared` (the history both sides hold)
    for a record the upstream changed since, that commit being the replayed one or a copy of it
    (`copy_of`: what a copy of each commit keeps; a commit it lacks is a copy of itself alone).
    A commit and its copies make one change: the upstream holding a squash's original and a
    rebased copy of it accounts for one replayed commit, not two."""
    made = _made(upstream, copy_of)
    moved = {change[0] for _, change in made}
    # A copy the shared history holds is a change the upstream has moved past only when it
    # changed the record since; else it may be an older commit that merely looks the same.
    made |= {(copy, change) for copy, change in _made(shared, copy_of) if change[0] in moved}
    found = []
    for key in suspects(now, onto, replayed):
        done = Counter((copy_of.get(commit, commit), change) for commit, change in replayed[key])
        if all(count == 1 and change in made for change, count in done.items()):
            found.append(Stale(now[key], onto[key]))
    return found


def _made(steps: Sequence[Step], copy_of: Mapping[str, str]) -> set[tuple[str, Change]]:
    """Each change the commits made, with what a copy of its commit keeps."""
    return {
        (copy_of.get(commit, commit), change)
        for commit, before, after in steps
        for change in changes(before, after)
    }

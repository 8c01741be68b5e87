"""PURE: records a rebase changed only by replaying changes its upstream had already made,
found so they can be set back to how the upstream holds them
(docs/decisions.md#replays-upstream-holds).

Git drops a replayed commit whose patch the upstream already holds, but only when the patch is
the same text: a copy of the commit made by an earlier rebase has other rows around it (another
clone's archived records in ARCHIVE.md), so git replays it, and a forget the upstream already made
and then undid by a restore is made again. Compared by record instead of by text, a change is a
record's state before and after (absent, live or archived, with its cells but ID and Source), the
record matched by its identity. A record every replayed change of which the upstream already made
is stale: it must be as the upstream's tip (`onto`) holds it.
"""

from collections.abc import Iterator, Sequence
from typing import NamedTuple

from legion_memory.schema.identity import Identity, identity_of_cells
from legion_memory.schema.kinds import KINDS
from legion_memory.storage.reading import Memory
from legion_memory.upkeep.renumbering import Texts, occurrences


class State(NamedTuple):
    archived: bool
    body: tuple[str, ...]
    id: str


Key = tuple[str, Identity]
Change = tuple[Key, tuple[bool, tuple[str, ...]] | None, tuple[bool, tuple[str, ...]] | None]


class Stale(NamedTuple):
    """A record the rebase left otherwise than its upstream holds it, by changes already made."""

    now: State
    upstream: State | None


def states(memory: Memory, texts: Texts) -> dict[Key, State]:
    """Every record of one version by kind and identity (a record held twice: its first row)."""
    found: dict[Key, State] = {}
    for kind in KINDS.values():
        for row in occurrences(memory, texts, kind):
            key = (kind.name, identity_of_cells(kind, row.columns, row.cells))
            state = State(row.path == memory.archive, row.body(), row["id"])
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


def stale_records(
    now: dict[Key, State],
    onto: dict[Key, State],
    picked: Sequence[tuple[dict[Key, State], dict[Key, State]]],
    upstream: Sequence[tuple[dict[Key, State], dict[Key, State]]],
) -> list[Stale]:
    """Records whose every replayed change (of `picked`, each commit as its versions before and
    after) one of `upstream`'s commits already made, and which now differ from `onto`."""
    made = {change for before, after in upstream for change in changes(before, after)}
    replayed: dict[Key, list[Change]] = {}
    for before, after in picked:
        for change in changes(before, after):
            replayed.setdefault(change[0], []).append(change)
    found = []
    for key, done in replayed.items():
        held = now.get(key)
        if held is None or not all(change in made for change in done):
            continue
        if _content(held) != _content(onto.get(key)):
            found.append(Stale(held, onto.get(key)))
    return found

"""Which copy of a record held live and archived at once is its later state, by history.

A line merge, a pick or an octopus merge can leave one record live (from one side) and archived
(from the other). Archiving wins over a stale live copy; but a live copy that one side restored
after the very forget the other side still holds is the later state, and archiving it again
would undo the restore. Each side's history says which it is: the side whose commits moved the
record into or out of ARCHIVE.md more often since the sides parted has seen the other's moves and
made one more (docs/decisions.md#archive-moves); a side holds an error live in the archived
version or in the live copy's (restored, then updated). Asked of git only when such a record is
there.

An error's live copy whose Fix differs from the archived one is an update made after the forget,
which the archived row takes, unless a side holding the record archived had that very version in
its own history since the sides parted: then it is a stale copy arriving again (a commit picked
or rebased from before the update), and the archived row keeps its own
(docs/decisions.md#stale-updates).
"""

from collections.abc import Mapping, Sequence
from pathlib import Path

from legion_memory.gitops.applied_patch import sides_of_applied_patch
from legion_memory.gitops.record_history import changes_since, most_moved, parting
from legion_memory.gitops.repository import files_of_commits, integration_sources
from legion_memory.markdown.document import parse
from legion_memory.named_tuple import NamedTuple
from legion_memory.schema.identity import history_text
from legion_memory.schema.record_twins import Holder, Twin, twins
from legion_memory.schema.records import column_key
from legion_memory.storage.reading import Memory
from legion_memory.upkeep.renumbering import Texts, memory_files
from legion_memory.upkeep.twin_repair import documents


class LaterStates(NamedTuple):
    restored: frozenset[str]
    """IDs of live copies that are their record's later state than its archived copy."""
    stale: frozenset[str]
    """IDs of live copies holding a version a side holding the record archived has replaced."""


NO_LATER_STATES = LaterStates(frozenset(), frozenset())


def later_states(memory: Memory, texts: Texts) -> LaterStates:
    """Which live copies of records also archived are later states, and which are stale."""
    split = [twin for twin in twins(documents(memory, texts)) if _split(twin)]
    if not split:
        return NO_LATER_STATES
    sides = _sides(memory)
    base = parting(memory.directory, sides) if len(sides) > 1 else None
    if base is None:
        return NO_LATER_STATES
    names = [memory.archive.name, *{Path(twin.again.name).name for twin in split}]
    versions = files_of_commits(memory.directory, memory.directory, sides, names, keep_empty=True)
    pairs = list(zip(sides, versions, strict=False))
    later, stale = set(), set()
    for twin in split:
        archived, live = twin.first, twin.again  # archived rows come first
        text = _history_text(texts, archived)
        if text and _live_is_later(memory, base, pairs, text, (texts, live)):
            later.add(live.record_id)
        elif text and _seen_by_archiving_side(memory, base, pairs, text, (texts, live)):
            stale.add(live.record_id)
    return LaterStates(frozenset(later), frozenset(stale))


def _sides(memory: Memory) -> list[str]:
    """The commits the integration at hand took its sides from; for a patch `git am` applies,
    which no commit names, ours and the commit it was mailed from, whose history is the
    patch's (seed 8012 of the collaboration simulation's `--merges-kinds`)."""
    names = [path.name for path in memory_files(memory)]
    directory = memory.directory
    return sides_of_applied_patch(directory, names) or integration_sources(directory)


def _seen_by_archiving_side(
    memory: Memory,
    base: str,
    sides: Sequence[tuple[str, Mapping[str, str | None]]],
    archived_text: str,
    live: tuple[Texts, Holder],
) -> bool:
    """Whether a side holding the record archived added or replaced the live copy's version
    (when it differs from the archived one) in the live file since the sides parted."""
    texts, holder = live
    live_text = _history_text(texts, holder)
    if not live_text or live_text == archived_text:
        return False
    path = Path(holder.name)
    archiving = [
        rev
        for rev, files in sides
        if _state(files, memory.archive.name, path.name, archived_text) is False
    ]
    return any(changes_since(memory.directory, base, rev, path, live_text) for rev in archiving)


def _split(twin: Twin) -> bool:
    return twin.first.archived != twin.again.archived


def _history_text(texts: Texts, holder: Holder) -> str:
    document = parse(texts.get(Path(holder.name)) or "")
    table = next(table for table in document.tables if holder.line_index in table.rows)
    columns = tuple(column_key(name) for name in table.columns)
    return history_text(document.lines[holder.line_index], columns)


def _live_is_later(
    memory: Memory,
    base: str,
    sides: Sequence[tuple[str, Mapping[str, str | None]]],
    text: str,
    live: tuple[Texts, Holder],
) -> bool:
    """Whether the side with the most archive moves of the record holds it live; a tie (or
    git unable to say) leaves archiving to win. A side holds an error live in the archived
    version or in the live copy's, updated since it was restored."""
    texts, holder = live
    live_text = _history_text(texts, holder)
    held = {}
    for rev, files in sides:
        state = _state(files, memory.archive.name, Path(holder.name).name, text, live_text)
        if state is not None:
            held[rev] = state
    later = most_moved(memory.directory, base, list(held), memory.archive, text)
    return bool(later) and all(held[rev] for rev in later or ())


def _state(
    files: Mapping[str, str | None], archive: str, live: str, text: str, live_text: str = ""
) -> bool | None:
    """True when the side holds the record live (as `text`, or as `live_text`), False
    archived, None when it lacks it."""
    if _holds(files.get(archive), text):
        return False
    held = _holds(files.get(live), text) or (bool(live_text) and _holds(files.get(live), live_text))
    return True if held else None


def _holds(text: str | None, row_text: str) -> bool:
    return bool(text) and row_text in (text or "")

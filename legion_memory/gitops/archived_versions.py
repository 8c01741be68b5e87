"""Whether a side of a merge holds a record's very version in its ARCHIVE.md
(docs/decisions.md#archived-version).

An error fix is updated in place, so a side that updated it and another that archived it look
like two people changing one record. When the archiving side's ARCHIVE.md holds the row exactly
as the other side holds it live (the update itself was picked or rebased over before the forget),
the live copy is stale and archiving wins, as for any record.
"""

from collections.abc import Callable

ArchivedAs = Callable[[str, str], bool]
"""(the record's row text, `schema.identity.history_text`; a side: "ours" or "theirs") ->
whether that side's ARCHIVE.md holds the record in exactly that version."""


def archived_in(ours: str, theirs: Callable[[], str]) -> ArchivedAs:
    """The question over ours's ARCHIVE.md text and theirs's, read at the first ask of it."""
    read: list[str] = []

    def archived_as(text: str, side: str) -> bool:
        if side == "ours":
            return _holds(ours, text)
        if not read:
            read.append(theirs())
        return _holds(read[0], text)

    return archived_as


def stored_anew(read_before: Callable[[], str | None]) -> Callable[[str], bool]:
    """(a new row's text) -> whether the commit replayed stored it anew: the ARCHIVE.md of its
    parent (`read_before`, read at the first ask; None when git cannot say) does not hold it,
    as it would had the commit restored it (docs/decisions.md#stores-replayed)."""
    read: list[str | None] = []

    def fresh(text: str) -> bool:
        if not read:
            read.append(read_before())
        return read[0] is not None and not _holds(read[0], text)

    return fresh


def _holds(archive: str, text: str) -> bool:
    """Whether a row of `archive` holds `text` after its ID: a copy of that version."""
    return bool(text) and any(
        text in line for line in archive.splitlines() if line.lstrip().startswith("|")
    )

"""PURE findings of a pattern whose `Source` cites an outcome ID that no outcome holds, live or
archived.

Legion's spec has Source link the outcome a pattern came from (`O-NNN`) or describe it in free
text. An ID no row of OUTCOMES.md or ARCHIVE.md holds is a broken link: the outcome was removed
(a revert, a hand edit, a `drop` in an interactive rebase) or mistyped, and the next outcome
stored here takes the free ID, so the pattern would cite it (docs/decisions.md#unknown-sources).
The row checks hand over the cells they split anyway: the check reads nothing of its own.
"""

import re
from collections.abc import Callable, Sequence

from legion_memory.schema.kinds import OUTCOME, PATTERN, Kind
from legion_memory.schema.problems import WARNING, Problem

OUTCOME_ID = re.compile(rf"\b{OUTCOME.prefix}-\d{{3,}}\b")
"""An outcome's ID where a cell cites it (a pattern's Source); a renumbering rewrites these."""


class Citations:
    """The outcome IDs the tables hold and the pattern rows whose Source names an outcome's
    prefix, gathered by the row checks of every memory file."""

    __slots__ = ("cited", "held")

    def __init__(self) -> None:
        self.held: set[str] = set()
        self.cited: list[tuple[str, int, str, str]] = []
        """(file shown, line index, pattern ID, Source) of each pattern row naming `O-`."""

    def take(
        self,
        kind: Kind,
        keys: Sequence[str],
        rows: tuple[str, list[int]],
        column: Callable[[int], tuple[str, ...]],
    ) -> None:
        """Read a chunk of a table's rows: `keys` its column keys, `rows` the file shown and the
        rows' line indexes, `column(position)` a column's cells in those rows."""
        last = {key: position for position, key in enumerate(keys)}
        if "id" not in last or kind not in (OUTCOME, PATTERN):
            return
        if kind is OUTCOME:
            self.held.update(column(last["id"]))
        elif "source" in last:
            (name, indexes), cites = rows, f"{OUTCOME.prefix}-"
            found = zip(indexes, column(last["id"]), column(last["source"]), strict=True)
            self.cited += [(name, at, ident, src) for at, ident, src in found if cites in src]

    def unknown(self) -> list[Problem]:
        """A warning for each ID a pattern's Source cites that no outcome row holds."""
        held = self.held
        return [
            Problem(name, index + 1, WARNING, _message(pattern, cited))
            for name, index, pattern, source in self.cited
            if source not in held  # the usual Source: one outcome's ID, held
            for cited in OUTCOME_ID.findall(source)
            if cited not in held
        ]


def _message(pattern: str, cited: str) -> str:
    return (
        f"{pattern} Source {cited} cites no outcome in OUTCOMES.md or ARCHIVE.md "
        "(removed, or a typo: cite the outcome it came from, or describe it)"
    )

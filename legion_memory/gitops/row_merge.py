"""The pieces of a table merge: rows and tables of one version, and the `Ledger` of a file merge.

`file_merge` finds the tables that line up in the three versions of a file and `record_merge`
merges each table's rows, with a `Ledger` that collects what happened (conflicts, new rows,
renumberings), hands out free ID numbers for the whole file and answers the `HistoryQuestions`
the merge was given.
"""

import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence

from legion_memory.markdown.cells import cell_at, line_cells, split_cells, unescape
from legion_memory.markdown.document import RowStyle, strip_ending
from legion_memory.named_tuple import NamedTuple
from legion_memory.schema.identity import Identity, identity, kind_of_prefix

_ID = re.compile(r"^([A-Za-z]+)-(\d+)$")
_PIPES = re.compile(r"(?<!\\)\|")


class Row(NamedTuple):
    """One row of a table: `key` matches it across versions (`record_merge` keys ID rows by
    identity), `values` are its cells by column key, unescaped."""

    key: str
    id: str
    raw: str
    values: tuple[tuple[str, str], ...] = ()

    @property
    def content(self) -> str:
        return strip_ending(self.raw)


class Block(NamedTuple):
    """A table of one version: its place (heading, rank), header lines, column keys and rows."""

    key: tuple[str, int]
    head: tuple[str, ...]
    columns: tuple[str, ...]
    rows: tuple[Row, ...]

    def lines(self) -> list[str]:
        return [*self.head, *(row.raw for row in self.rows)]

    def by_key(self) -> dict[str, Row]:
        return {row.key: row for row in self.rows}

    @property
    def head_text(self) -> tuple[str, ...]:
        return tuple(strip_ending(line) for line in self.head)


class StableRun(NamedTuple):
    """Rows at the start of one table's body that all three versions hold alike, left out of the
    merge (`stable_rows`), and what the merge must still know of them: their IDs, the highest
    number of each ID prefix, how many end in CRLF and in LF alone, and `cells`: which of some
    cell values (cleaned, without white space, in UTF-8) a cell of theirs holds, read again from
    the file when asked."""

    header: int
    ids: frozenset[str]
    highest: dict[str, int]
    crlf: int
    lf: int
    cells: Callable[[set[bytes]], set[bytes]]

    def may_hold(self, key: str, found: set[bytes]) -> bool:
        """Whether a row of the run may have this record key (`record_key`), given the values
        of `wanted` that its cells hold: False only when none can. A key told apart by a number
        (`k#2`) may also be one a run row was given, when two rows of the run have key `k`."""
        numbered = _NUMBERED.search(key)
        if numbered and self.may_hold(key[: numbered.start()], found):
            return True
        if not key.startswith("record:"):
            return key in self.ids
        return all(piece in found for piece in _values(key))


def wanted(keys: Iterable[str]) -> set[bytes]:
    """The cell values `StableRun.may_hold` asks about for these keys."""
    values: set[bytes] = set()
    for key in keys:
        rest = key
        while rest:
            values.update(_values(rest))
            numbered = _NUMBERED.search(rest)
            rest = rest[: numbered.start()] if numbered else ""
    return values


def _values(key: str) -> list[bytes]:
    if not key.startswith("record:"):
        return []
    values = key.removeprefix("record:").split("\x1f")[1:]
    cells = ["".join(value.split()).encode("utf-8", "surrogateescape") for value in values]
    # A value holding a pipe spans pieces of the flattened rows (`stable_rows`): each must be one.
    return [piece for cell in cells for piece in cell.split(b"|") if piece]


_NUMBERED = re.compile(r"#\d+$")


class NotStable(Exception):
    """The merge would treat the stable run otherwise than as rows kept where they are: the
    whole files are merged instead (docs/decisions.md#stable-rows)."""


class StableBlock(Block):
    """The table of the stable run, without it: only the row merge may take it, as a whole."""

    __slots__ = ()

    def lines(self) -> list[str]:
        raise NotStable("the table of the stable rows is merged line by line")


class _Splice(str):
    __slots__ = ()


SPLICE = _Splice("\n")
"""Where the stable run goes back in the merged lines: told apart from every line by identity."""


class Incoming(NamedTuple):
    """A new row of one side, as it stands in the result (after any renumbering)."""

    id: str
    content: str
    columns: tuple[str, ...]
    renumbered_from: str = ""
    side: str = "theirs"


class HistoryQuestions(NamedTuple):
    """What a merge may ask of git history and of the other memory files, each a function the
    merge driver builds for the merge at hand; None: never asked, the merge deciding by the
    three versions alone."""

    # (row line, side keeping it) -> whether that side's state of the record is later than
    # the other side's removal (`gitops.record_history`); None: never (base decides).
    kept_later: Callable[[str, str], bool] | None = None
    # The same, of a record the side that keeps it also changed (asked with base's version):
    # a rebase step's commit brings its change of a record its branch restored after the
    # upstream's forget, where a pick brings no move; None: as `kept_later`.
    changed_later: Callable[[str, str], bool] | None = None
    # (ours's row text, theirs's) of a record each side holds in a version of its own -> the
    # side whose history replaced the other's version (`gitops.record_history`), or None.
    later_version: Callable[[str, str], str | None] | None = None
    # (one side's row text, the other side) -> whether the other side's history since the
    # sides parted wrote or replaced that very version (`gitops.record_history`): it saw it.
    version_seen: Callable[[str, str], bool] | None = None
    # (row text, side) -> whether that side's ARCHIVE.md holds the record in this very
    # version (docs/decisions.md#archived-version); None: never asked.
    archived_as: Callable[[str, str], bool] | None = None
    # (row text, side) -> whether that side's live files hold the record in this very
    # version, asked in a merge of ARCHIVE.md; None: never asked.
    live_as: Callable[[str, str], bool] | None = None
    # Whether theirs is a commit replayed (rebase, picks) that ours's history holds a copy
    # of, asked only where a conflict would be left (`gitops.replayed_copies`): ours's
    # versions then settle it.
    replayed_seen: Callable[[], bool] | None = None
    # (theirs's new row text) -> whether the commit replayed stored it anew (its parent's
    # ARCHIVE.md does not hold it) rather than restored it, asked of a record ours's archive
    # holds (`gitops.archived_versions`); None: never.
    stored_anew: Callable[[str], bool] | None = None
    # (archived row text theirs removed) -> whether the commit picked dropped only a copy: it
    # and its parent hold the record live in that version, and ours holds it in no live file
    # (`gitops.picked_archive`, docs/decisions.md#dropped-copies); None: never.
    copy_dropped: Callable[[str], bool] | None = None


NO_QUESTIONS = HistoryQuestions()


class Ledger:
    """What a merge did so far, and the next free number of each ID prefix."""

    def __init__(
        self,
        *,
        marker_size: int = 7,
        ending: str = "\n",
        reserved: Mapping[str, frozenset[Identity]] | None = None,
        keep_ours: bool = False,
        questions: HistoryQuestions = NO_QUESTIONS,
    ) -> None:
        self.marker_size = marker_size
        self.archived_as = questions.archived_as or _never
        self.live_as = questions.live_as or _never
        self.replayed_seen = questions.replayed_seen or _unseen
        self.kept_later = questions.kept_later or _never
        self.changed_later = questions.changed_later or self.kept_later
        self.later_version = questions.later_version or _untold
        self.version_seen = questions.version_seen or _never
        self.stored_anew = questions.stored_anew or _never_of_text
        self.copy_dropped = questions.copy_dropped or _never_of_text
        # A pick (rebase, cherry-pick, revert): ours's new rows keep their IDs
        # (docs/decisions.md#merge-renumbering).
        self.keep_ours = keep_ours
        self.ending = ending
        self.reserved: Mapping[str, frozenset[Identity]] = reserved or {}
        self.stable: StableRun | None = None
        self.conflicts: list[str] = []
        self.incoming: list[Incoming] = []
        self.ours_added = 0
        self.identical = 0
        self.highest: dict[str, int] = {}
        self.again: list[tuple[str, str]] = []  # (ID dropped, ID kept) for a record held twice
        # (old ID, new ID, the side whose references still use the old one): a record whose ID
        # one side changed (held twice, or renumbered since base), for the merge log.
        self.rekeyed: list[tuple[str, str, str]] = []

    def see(self, ids: Iterable[str]) -> None:
        """Count IDs as used: renumbering always goes past the highest of them."""
        for record_id in ids:
            parts = split_id(record_id)
            if parts:
                self.highest[parts[0]] = max(self.highest.get(parts[0], 0), parts[1])

    def renumber(self, record_id: str) -> str | None:
        parts = split_id(record_id)
        if parts is None:
            return None
        prefix, _ = parts
        self.highest[prefix] = self.highest.get(prefix, 0) + 1
        width = max(3, len(record_id) - len(prefix) - 1)
        return f"{prefix}-{self.highest[prefix]:0{width}d}"

    def markers(self, what: str, ours: Sequence[str], theirs: Sequence[str]) -> list[str]:
        """Standard conflict markers around two versions of some lines."""
        self.conflicts.append(what)
        size = self.marker_size
        return [
            "<" * size + " ours" + self.ending,
            *closed(ours, self.ending),
            "=" * size + self.ending,
            *closed(theirs, self.ending),
            ">" * size + " theirs" + self.ending,
        ]


def _never(line: str, side: str) -> bool:
    return False


def _untold(ours: str, theirs: str) -> str | None:
    return None


def _never_of_text(text: str) -> bool:
    return False


def _unseen() -> bool:
    return False


def table_row(
    raw: str, columns: tuple[str, ...], id_index: int | None, seen: dict[str, int]
) -> Row:
    """Row `raw` of a table with these column keys; `seen` counts the keys given so far, so that
    a table that already holds an ID twice still has one key per row."""
    record_id = cell(raw, id_index) if id_index is not None else ""
    row_key = record_id or "text:" + strip_ending(raw).strip()
    seen[row_key] = seen.get(row_key, 0) + 1
    if seen[row_key] > 1:
        row_key = f"{row_key}#{seen[row_key]}"
    values = tuple(zip(columns, line_cells(raw), strict=False)) if id_index is not None else ()
    return Row(row_key, record_id, raw, values)


def table_key(row: Row) -> str:
    """The row's key in its table before a repeated one is told apart (`table_row`)."""
    return row.id or "text:" + row.content.strip()


def record_key(row: Row, columns: tuple[str, ...], shared: Collection[str]) -> str:
    """The key matching the row across versions: its record identity over the columns every
    version has, or its key in its table when it holds no ID of a kind."""
    kind = kind_of_prefix(row.id) if row.id and "id" in columns else None
    if kind is None:
        return row.key
    values = {key: value for key, value in row.values if key in shared}
    return "record:" + "\x1f".join(identity(kind, values))


def closed(lines: Iterable[str], ending: str) -> list[str]:
    """The lines, each ending with a line break (a file's last line may have none)."""
    return [line if strip_ending(line) != line else line + ending for line in lines]


def split_id(record_id: str) -> tuple[str, int] | None:
    match = _ID.match(record_id)
    return (match.group(1), int(match.group(2))) if match else None


def cell(raw: str, index: int) -> str:
    """The unescaped value of cell `index` of a row line ('' when the row is shorter)."""
    try:
        value = cell_at(raw, index)  # splits only up to that cell: the driver reads every ID
    except IndexError:
        return ""
    return unescape(value) if "\\" in value or "<" in value else value


def set_cell(raw: str, index: int, old: str, new: str) -> str:
    """The row line with `old` replaced by `new` inside cell `index`; every other byte kept."""
    return edit_cell(raw, index, lambda text: text.replace(old, new, 1))


def edit_cell(raw: str, index: int, change: Callable[[str], str]) -> str:
    """The row line with the raw (escaped) text of cell `index` changed; every other byte kept."""
    content = strip_ending(raw)
    pieces = _PIPES.split(content)
    target = index + (1 if content.strip().startswith("|") else 0)
    if target < len(pieces):
        pieces[target] = change(pieces[target])
    return "|".join(pieces) + raw[len(content) :]


def fit(raw: str, columns: tuple[str, ...], to: tuple[str, ...]) -> str:
    """A row written for `columns` laid out for the columns `to` (missing ones empty)."""
    if columns == to:
        return raw
    cells = dict(zip(columns, split_cells(strip_ending(raw)), strict=False))
    return RowStyle.of(raw).format([cells.get(key, "") for key in to])

"""PURE 3-way merge of one table's rows by record identity (rows without an ID: by their text).

A row is matched across the three versions by its identity (`schema/identity.py`), read over the
columns all three versions share, so a row renumbered, cherry-picked or written in another layout
is still the same record (docs/decisions.md#record-identity):

- a record in base merges 3-way: removed when either side removed it and the other left it as it
  was (unless history says the side that kept it restored it after that very forget:
  docs/decisions.md#archive-moves); when one side removed it and the other changed it, removed
  if the removing side had that change, kept as changed if the changing side restored it after
  that forget, else a conflict; when only one side changed it, that side wins; both changing it
  differently is a conflict around that row (unless only the cells citing other records differ:
  each side's numbering of one outcome, so the copy with the lower text is kept and its
  reference follows after the merge);
- a record new on both sides is kept once: under the lower of its two IDs when only the ID
  differs, as the resolved copy when one side resolved an error the other did not, as the side's
  copy whose history replaced the other's version (docs/decisions.md#later-version), otherwise a
  conflict (two people really recorded it differently);
- new records keep their IDs unless taken; colliding ones are numbered in an order both clones
  compute alike whichever way they merge (date, branch, content:
  docs/decisions.md#merge-renumbering; `gitops.new_record_ids`), and all new records follow the
  old ones in ID order, so both directions give the same bytes.
"""

from legion_memory.gitops.new_record_ids import NewRecord, NewRecordIds
from legion_memory.gitops.record_versions import (
    body_of,
    merged_id,
    own_values,
    same_origin,
    same_record,
    values_of,
)
from legion_memory.gitops.row_merge import (
    SPLICE,
    Block,
    Ledger,
    NotStable,
    Row,
    StableBlock,
    StableRun,
    cell,
    fit,
    record_key,
    set_cell,
    table_key,
    wanted,
)
from legion_memory.schema.identity import (
    history_text,
    identity,
    kind_of_prefix,
)


def _head(base: Block | None, ours: Block | None, theirs: Block | None) -> Block | None:
    """The version whose header wins, None when both sides changed it differently."""
    if ours is None or theirs is None:
        return ours or theirs
    base_head = base.head_text if base else None
    if theirs.head_text in (ours.head_text, base_head):
        return ours
    return theirs if ours.head_text == base_head else None


def merge_rows(
    ledger: Ledger, base: Block | None, ours: Block | None, theirs: Block | None
) -> list[str]:
    """The merged lines of one table: header, then rows (with markers around conflicting rows);
    nothing when both sides removed the table (each emptied an archive section)."""
    stable = [block for block in (base, ours, theirs) if isinstance(block, StableBlock)]
    if stable and len(stable) < 3:
        raise NotStable("the table of the stable rows is merged with a side's other table")
    if ours is None and theirs is None:
        return []
    chosen = _head(base, ours, theirs)
    if chosen is None:
        mine, other = ours.lines() if ours else [], theirs.lines() if theirs else []
        return ledger.markers("the table header changed differently on both sides", mine, other)
    rows = _TableMerge(ledger, chosen.columns, base, ours, theirs).merged()
    return [*chosen.head, SPLICE, *rows] if stable else [*chosen.head, *rows]


class _TableMerge:
    def __init__(
        self,
        ledger: Ledger,
        columns: tuple[str, ...],
        base: Block | None,
        ours: Block | None,
        theirs: Block | None,
    ) -> None:
        self.ledger = ledger
        self.columns = columns
        self.blocks = {"base": base, "ours": ours, "theirs": theirs}
        present = [set(block.columns) for block in (base, ours, theirs) if block]
        self.shared = set.intersection(*present) if present else set()
        keyed = [self.keyed(block) for block in (base, ours, theirs)]
        if ledger.stable is not None and isinstance(base, StableBlock):
            self.apart(ledger.stable, keyed)
        self.base_rows = keyed[0]
        self.base_ids = {row.id: key for key, row in self.base_rows.items() if row.id}
        self.our_rows = self.edits_kept(keyed[1])
        self.their_rows = self.edits_kept(keyed[2])
        self.emitted: dict[str, set[str]] = {}  # base record -> the IDs it has in the result

    def keyed(self, block: Block | None) -> dict[str, Row]:
        rows: dict[str, Row] = {}
        for row in block.rows if block else ():
            key = self.key_of(row)
            count = 1
            while key in rows:  # a version that already holds a record twice
                count += 1
                key = f"{self.key_of(row)}#{count}"
            rows[key] = row
        return rows

    def apart(self, stable: StableRun, keyed: list[dict[str, Row]]) -> None:
        """Make sure no other row of the table is matched with a row of the stable run, takes
        its ID or its key, or is numbered past one: only then are those rows, kept as they are
        on every side, no part of the rest of the merge (docs/decisions.md#stable-rows)."""
        keys = [(row, [key, self.key_of(row)]) for rows in keyed for key, row in rows.items()]
        found = stable.cells(wanted(key for _, pair in keys for key in pair))
        for row, pair in keys:
            if any(stable.may_hold(key, found) for key in pair):
                raise NotStable(f"a row's key may be a stable row's: {pair[0]}")
            if table_key(row) in stable.ids:
                raise NotStable(f"a row's ID is a stable row's: {row.id}")
        if any(record_id in stable.ids for record_id in self.ledger.reserved):
            raise NotStable("another memory file holds the ID of a stable row")

    def edits_kept(self, rows: dict[str, Row]) -> dict[str, Row]:
        """A side's rows, an edited record matched to base by its ID: a row whose identity base
        lacks, holding the ID of a base record this side no longer has, is that record edited;
        unless it was stored on another date or branch, or the other memory files hold that
        record (archived): then the row is another record under the same ID."""
        kept: dict[str, Row] = {}
        for key, row in rows.items():
            was = self.base_ids.get(row.id)
            edited = key not in self.base_rows and was is not None and was not in rows
            if edited and was is not None and self.edit_of(self.base_rows[was], row):
                kept[was] = row
            else:
                kept[key] = row
        return kept

    def edit_of(self, old: Row, row: Row) -> bool:
        return same_origin(old, row) and not self.held_in_companions(old)

    def held_in_companions(self, row: Row) -> bool:
        kind = kind_of_prefix(row.id)
        if kind is None:
            return False
        mine = identity(kind, values_of(row))
        return any(mine in holders for holders in self.ledger.reserved.values())

    def key_of(self, row: Row) -> str:
        return record_key(row, self.columns, self.shared)

    def id_of(self, line: str) -> str:
        return cell(line, self.columns.index("id")) if "id" in self.columns else ""

    def fit(self, row: Row, side: str) -> str:
        block = self.blocks[side]
        return fit(row.raw, block.columns, self.columns) if block else row.raw

    def merged(self) -> list[str]:
        out: list[str] = []
        # Records of base go in base's order, so both directions of a merge give the same bytes
        # even where one side's earlier merge moved a record (rows without an ID stay in place).
        in_order = iter([key for key in self.base_rows if _record(key) and key in self.our_rows])
        for at in self.our_rows:
            if at in self.base_rows:
                key = next(in_order) if _record(at) else at
                lines = self.three_way(
                    self.base_rows[key], self.our_rows[key], self.their_rows.get(key)
                )
                self.emitted[key] = {self.id_of(line) for line in lines}
                out += lines
            elif not _record(at):
                self.ledger.ours_added += 1
                out.append(self.fit(self.our_rows[at], "ours"))
        out += self.removed_by_ours()
        for key, row in self.their_rows.items():
            if key not in self.base_rows and not key.startswith("record:"):
                mine = self.our_rows.get(key)
                if mine is None or mine.content != row.content:
                    out.append(self.fit(row, "theirs"))
        conflicts, new = self.new_records()
        return out + conflicts + self.numbered(new)

    def removed_by_theirs(self, old: Row, mine: Row) -> list[str]:
        # Theirs removed (or archived) the record as base had it, or archived ours's very
        # version (docs/decisions.md#archived-version): gone, unless ours restored it after
        # that forget (docs/decisions.md#archive-moves).
        if own_values(mine) == own_values(old) or self.archived_as(mine, "ours", "theirs"):
            kept = self.kept_later(mine, "ours") or self.copy_dropped(mine)
            return [self.fit(mine, "ours")] if kept else []
        if self.ledger.replayed_seen():  # a removal ours had and changed the record since
            return [self.fit(mine, "ours")]
        if self.seen_by(mine, "ours", "theirs"):  # theirs had ours's update, then removed it
            return []
        if self.changed_later(old, "ours"):  # restored after theirs's forget, then changed
            return [self.fit(mine, "ours")]
        what = f"row {mine.id or mine.content.strip()[:40]} changed on ours, removed on theirs"
        return self.ledger.markers(what, [self.fit(mine, "ours")], [])

    def three_way(self, old: Row, mine: Row, other: Row | None) -> list[str]:
        if other is None:
            return self.removed_by_theirs(old, mine)
        if other.content in (mine.content, old.content):
            chosen, side = mine, "ours"
        elif mine.content == old.content:
            chosen, side = other, "theirs"
        elif body_of(other) in (body_of(mine), body_of(old)):  # theirs changed at most the ID
            chosen, side = mine, "ours"
        elif body_of(mine) == body_of(old):  # ours changed at most the ID
            chosen, side = other, "theirs"
        elif own_values(mine) == own_values(other):  # each side renumbered what it cites
            chosen, side = min((mine, "ours"), (other, "theirs"), key=lambda pair: pair[0].content)
        elif (later := self.later_of(mine, other)) is not None:
            chosen, side = later, "ours" if later is mine else "theirs"
        elif self.ledger.replayed_seen():  # an update ours had, and changed again since
            chosen, side = mine, "ours"
        else:
            what = f"row {mine.id or mine.content.strip()[:40]} changed differently on both sides"
            return self.ledger.markers(what, [self.fit(mine, "ours")], [self.fit(other, "theirs")])
        final = merged_id(old.id, mine.id, other.id)
        self.rekey(mine, final, "ours")
        self.rekey(other, final, "theirs")
        raw = self.fit(chosen, side)
        if chosen.id != final and "id" in self.columns:
            raw = set_cell(raw, self.columns.index("id"), chosen.id, final)
        return [raw]

    def row_text(self, row: Row, side: str) -> str:
        """`side`'s row after its ID as written (`history_text`), what the history is asked of."""
        block = self.blocks[side]
        return history_text(row.raw, block.columns) if block else ""

    def kept_later(self, row: Row, side: str) -> bool:
        """Whether `side`, keeping the record the other side removed, holds its later state:
        moved `row` after the other side did."""
        text = self.row_text(row, side)
        return bool(text) and self.ledger.kept_later(text, side)

    def changed_later(self, old: Row, side: str) -> bool:
        """`kept_later` of a record `side` also changed: asked with base's version (`old`)."""
        text = self.row_text(old, "base")
        return bool(text) and self.ledger.changed_later(text, side)

    def copy_dropped(self, row: Row) -> bool:
        """Whether theirs, removing ours's row, dropped only a copy of a record it holds live,
        which ours holds only here (docs/decisions.md#dropped-copies)."""
        text = self.row_text(row, "ours")
        return bool(text) and self.ledger.copy_dropped(text)

    def archived_as(self, row: Row, side: str, archiver: str) -> bool:
        """Whether `archiver` removed `side`'s changed row by archiving that very version."""
        text = self.row_text(row, side)
        return bool(text) and self.ledger.archived_as(text, archiver)

    def seen_by(self, row: Row, side: str, seer: str) -> bool:
        """Whether `seer`'s history wrote or replaced `side`'s very version of the record: one
        side removing a record the other changed had that change, and changed it since
        (docs/decisions.md#later-version)."""
        text = self.row_text(row, side)
        return bool(text) and self.ledger.version_seen(text, seer)

    def later_of(self, mine: Row, other: Row) -> Row | None:
        """Of two versions of one record, the side's whose history replaced the other's
        (docs/decisions.md#later-version); None when the history does not say."""
        texts = self.row_text(mine, "ours"), self.row_text(other, "theirs")
        later = self.ledger.later_version(*texts) if all(texts) else None
        return {"ours": mine, "theirs": other}.get(later or "")

    def rekey(self, stale: Row, kept: str, side: str) -> None:
        """Note that `side`'s references to `stale`'s ID now mean `kept` (ID changed since)."""
        if stale.id and kept and stale.id != kept:
            self.ledger.rekeyed.append((stale.id, kept, side))

    def removed_by_ours(self) -> list[str]:
        """Rows ours removed: gone, unless theirs changed them (then a conflict)."""
        out: list[str] = []
        for key, old in self.base_rows.items():
            other = self.their_rows.get(key)
            if key in self.our_rows or other is None:
                continue
            if own_values(other) == own_values(old) or self.archived_as(other, "theirs", "ours"):
                if self.kept_later(other, "theirs"):  # restored after ours's forget
                    out.append(self.fit(other, "theirs"))
                continue
            if self.ledger.replayed_seen() or self.seen_by(other, "theirs", "ours"):
                continue  # ours removed it after the update
            if self.changed_later(old, "theirs"):  # restored after ours's forget
                out.append(self.fit(other, "theirs"))
                continue
            name = other.id or other.content.strip()[:40]
            what = f"row {name} removed on ours, changed on theirs"
            out += self.ledger.markers(what, [], [self.fit(other, "theirs")])
        return out

    def new_records(self) -> tuple[list[str], list[NewRecord]]:
        """Records new on either side, each once; markers for one recorded differently."""
        conflicts: list[str] = []
        new: list[NewRecord] = []
        ours_new = self.new_on(self.our_rows, "ours")
        theirs_new = self.new_on(self.their_rows, "theirs")
        holders: dict[str, set[str]] = {}
        for key, row in [*ours_new.items(), *theirs_new.items()]:
            holders.setdefault(row.id, set()).add(key)
        for key, row in theirs_new.items():
            mine = ours_new.pop(key, None)
            if mine is None:
                if not self.stored_again(row):
                    new.append(self.new_of(row, "theirs"))
                continue
            free = [r for r in (mine, row) if holders[r.id] == {key} and r.id not in self.base_ids]
            # A pick keeps the IDs of the branch it replays onto (references there cite them).
            kept = mine if self.ledger.keep_ours and any(r is mine for r in free) else None
            chosen = same_record(mine, row, free[0] if len(free) == 1 else kept)
            chosen = chosen or self.later_of(mine, row)
            chosen = chosen or (mine if self.ledger.replayed_seen() else None)
            if chosen is None:
                what = f"record {mine.id} recorded differently on both sides"
                conflicts += self.ledger.markers(
                    what, [self.fit(mine, "ours")], [self.fit(row, "theirs")]
                )
                continue
            if mine.content == row.content:
                self.ledger.identical += 1
            else:
                dropped = row if chosen is mine else mine
                if dropped.id != chosen.id:
                    self.ledger.again.append((dropped.id, chosen.id))
                    side = "theirs" if dropped is row else "ours"
                    self.ledger.rekeyed.append((dropped.id, chosen.id, side))
            new.append(self.new_of(chosen, "ours" if chosen is mine else "theirs"))
        new += [self.new_of(row, "ours") for row in ours_new.values()]
        return conflicts, new

    def stored_again(self, row: Row) -> bool:
        """In a pick, whether theirs's new row is its record's store replayed where ours's
        archive holds the record: ours forgot it after that store
        (docs/decisions.md#stores-replayed)."""
        kind = kind_of_prefix(row.id) if self.ledger.keep_ours else None
        mine = identity(kind, values_of(row)) if kind else None
        held = mine is not None and any(ids == {mine} for ids in self.ledger.reserved.values())
        return held and self.ledger.stored_anew(self.row_text(row, "theirs"))

    def new_on(self, rows: dict[str, Row], side: str) -> dict[str, Row]:
        """The side's new records, less each archived row whose record the other side holds
        live in this very version, restored after the forget this side holds."""
        base = self.base_rows
        new = {k: r for k, r in rows.items() if k.startswith("record:") and k not in base}
        other = "theirs" if side == "ours" else "ours"
        return {k: r for k, r in new.items() if not self.restored_on(r, side, other)}

    def restored_on(self, row: Row, side: str, other: str) -> bool:
        text = self.row_text(row, side)
        ledger = self.ledger
        return bool(text) and ledger.live_as(text, other) and ledger.kept_later(text, other)

    def new_of(self, row: Row, side: str) -> NewRecord:
        block = self.blocks[side]
        assert block is not None  # a row comes from a side that has the table
        return NewRecord(row, block, side)

    def numbered(self, new: list[NewRecord]) -> list[str]:
        """New records with IDs no other row holds, in ID order."""
        shown = set().union(*self.emitted.values()) - {""}  # the IDs rows of the result hold
        ids = NewRecordIds(self.ledger, self.columns, self.fit, self.used_ids(), shown)
        return ids.placed(new)

    def used_ids(self) -> set[str]:
        """The IDs records of base hold in the result. A record the merge removes keeps from
        reuse the IDs the sides that still hold it give it (its archived copy is to hold one),
        its base ID when neither does. The ID a base record held before one side renumbered it
        is free again: that side's new record may keep it (docs/decisions.md#merge-renumbering)."""
        used: set[str] = set()
        for key, old in self.base_rows.items():
            if self.emitted.get(key):
                used |= self.emitted[key]
                continue
            holding = {rows[key].id for rows in (self.our_rows, self.their_rows) if key in rows}
            used |= holding or {old.id}
        return used - {""}


def _record(key: str) -> bool:
    return key.startswith("record:")

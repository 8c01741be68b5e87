"""The merge log: rows the merge driver brought in from the other side, and the IDs it renumbered.

Git merges each file on its own (PATTERNS.md even before OUTCOMES.md), so while merging PATTERNS.md
the driver cannot know that the outcome a new pattern cites is about to be renumbered. It notes
every row it brings in instead, in a per-clone log under the git directory, and `doctor --fix`
(run by the post-merge and post-rewrite hooks) makes such `Source` references follow their record.
A logged row only counts while a row with exactly that text is in the files, so the log of an
aborted merge cannot change anything.
"""

import json
from collections.abc import Iterator
from pathlib import Path

from legion_memory.gitops.row_merge import Incoming
from legion_memory.named_tuple import NamedTuple

LOG_NAME = "legion-memory-merges.jsonl"


class Arrival(NamedTuple):
    file: str
    id: str
    row: str
    renumbered_from: str = ""
    side: str = "theirs"

    def to_line(self) -> str:
        data = {
            "file": self.file,
            "id": self.id,
            "was": self.renumbered_from,
            "row": self.row,
            "side": self.side,
        }
        return json.dumps(data, ensure_ascii=False)


def log_path(git_dir: Path) -> Path:
    return git_dir / LOG_NAME


def arrivals(
    filename: str, incoming: tuple[Incoming, ...], rekeyed: tuple[tuple[str, str, str], ...] = ()
) -> list[Arrival]:
    """What to log: renumbered rows, new rows that cite another record (`Source`), each with its
    side, and records whose ID one side changed (logged with an empty row, the side being the one
    whose references still use the old ID)."""
    logged = []
    for row in incoming:
        if row.renumbered_from or "source" in row.columns:
            logged.append(Arrival(filename, row.id, row.content, row.renumbered_from, row.side))
    logged += [Arrival(filename, new, "", old, side) for old, new, side in rekeyed]
    return logged


def read_log(text: str | None) -> Iterator[Arrival]:
    """The log's entries; lines that are not entries (a torn write) are skipped."""
    for line in (text or "").splitlines():
        try:
            data = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(data, dict) and all(
            isinstance(data.get(k), str) for k in ("file", "id", "row")
        ):
            was, side = str(data.get("was") or ""), str(data.get("side") or "theirs")
            yield Arrival(data["file"], data["id"], data["row"], was, side)

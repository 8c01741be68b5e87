"""The import ledger, `.planning/memory/IMPORTED.txt`: one line per imported item, so that importing
the same source again adds nothing.

A line is `HASH SOURCE ID ORIGIN`: the item's content hash, the source format, the ID its record got
when it was imported, and where the item came from. The file is committed with the memory files, so
a teammate importing the same item adds nothing either. Lines stay sorted by hash: two branches that
import different items touch different places of the file and merge without a conflict, and when
git does report one, keeping the lines of both sides is always right (the ledger is a set; any line
that starts with a hash counts, even between conflict markers).
"""

import bisect
import re
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from legion_memory.markdown.document import split_lines, strip_ending
from legion_memory.storage.reading import Memory

HEADER = (
    "# Items imported by `legion-memory import`: content hash, source, the record's ID when it\n"
    "# was imported, and where the item came from. An item listed here is not imported again.\n"
    "# Lines are sorted by hash. On a merge conflict in this file, keep the lines of both sides.\n"
)
_HASH = re.compile(r"^([0-9a-f]{16})(?:\s|$)")


class Entry(NamedTuple):
    key: str
    source: str
    record_id: str
    origin: str

    def line(self) -> str:
        origin = " ".join(self.origin.split())  # one line, whatever the path holds
        return f"{self.key} {self.source} {self.record_id} {origin}"


def ledger_path(memory: Memory) -> Path:
    return memory.ledger_path


def known_keys(text: str | None) -> set[str]:
    """Every hash listed in the ledger text."""
    if not text:
        return set()
    return {match.group(1) for line in text.split("\n") if (match := _HASH.match(line.strip()))}


def with_entries(text: str | None, entries: Sequence[Entry]) -> str:
    """The ledger text with new lines inserted in hash order; every other line is left as it is."""
    lines = split_lines(text if text else HEADER)
    ending = "\r\n" if lines and lines[0].endswith("\r\n") else "\n"
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += ending
    listed = [index for index, line in enumerate(lines) if _key_at(line)]
    hashes = [_key_at(lines[index]) for index in listed]
    inserts: dict[int, list[str]] = {}
    for entry in sorted(entries, key=lambda entry: entry.key):
        inserts.setdefault(_position(listed, hashes, entry.key, len(lines)), []).append(
            entry.line() + ending
        )
    merged: list[str] = []
    for index, line in enumerate(lines):
        merged += [*inserts.get(index, []), line]
    return "".join(merged + inserts.get(len(lines), []))


def _key_at(line: str) -> str:
    match = _HASH.match(strip_ending(line))
    return match.group(1) if match else ""


def _position(listed: list[int], hashes: list[str], key: str, end: int) -> int:
    """Index of the line to insert before: after the last listed hash sorting before `key`,
    before the first one when none does, at the end when nothing is listed yet."""
    if not listed:
        return end
    at = bisect.bisect_right(hashes, key)
    return listed[at - 1] + 1 if at else listed[0]

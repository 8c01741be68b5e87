"""Git conflict markers in memory files, found and resolved by the union of both sides (a row
both sides hold identically kept once): the doctor check that runs before the others, since a
union can leave work for them (two rows under one ID). A block nested inside a side, which a merge
of an already conflicted file leaves, resolves from the inside out. A separator or closing marker
outside any block (a hand resolution's leftover) is reported by a check of its own."""

import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import NamedTuple

from legion_memory.errors import IntegrityError
from legion_memory.gitops.repository import octopus_in_progress
from legion_memory.markdown.document import is_row, split_lines, strip_ending
from legion_memory.schema.validation import OCTOPUS_HINT
from legion_memory.storage import reading, writing
from legion_memory.storage.reading import Memory
from legion_memory.upkeep.finding import Finding
from legion_memory.upkeep.renumbering import memory_files

_OPEN = re.compile(r"^(<{7,})(?: |$)")


class _Conflict(NamedTuple):
    start: int
    end: int | None  # None: never closed
    ours: tuple[str, ...]
    theirs: tuple[str, ...]
    nested: bool = False  # a side held a block of its own, already resolved into it


def _conflicts(lines: list[str]) -> Iterator[_Conflict]:
    index = 0
    while index < len(lines):
        opened = _OPEN.match(strip_ending(lines[index]))
        if opened is None:
            index += 1
            continue
        conflict = _read_conflict(lines, index, len(opened.group(1)))
        yield conflict
        index = len(lines) if conflict.end is None else conflict.end


def _read_conflict(lines: list[str], start: int, size: int) -> _Conflict:
    """One marked block; a diff3-style base section (`|||||||`) is dropped, and a block opened
    inside a side is read whole and stands in that side as its own union."""
    middle = re.compile(rf"^={{{size}}}\s*$")
    base = re.compile(rf"^\|{{{size}}}(?: |$)")
    close = re.compile(rf"^>{{{size}}}(?: |$)")
    parts: dict[str, list[str]] = {"ours": [], "base": [], "theirs": []}
    part, nested, index = "ours", False, start + 1
    while index < len(lines):
        text = strip_ending(lines[index])
        if part == "theirs" and close.match(text):
            sides = tuple(parts["ours"]), tuple(parts["theirs"])
            return _Conflict(start, index + 1, *sides, nested)
        opened = _OPEN.match(text)
        if opened is not None:
            inner = _read_conflict(lines, index, len(opened.group(1)))
            if inner.end is None:
                break
            parts[part] += union(inner)
            nested, index = True, inner.end
            continue
        if part != "theirs" and middle.match(text):
            part = "theirs"
        elif part == "ours" and base.match(text):
            part = "base"
        else:
            parts[part].append(lines[index])
        index += 1
    return _Conflict(start, None, tuple(parts["ours"]), tuple(parts["theirs"]), nested)


def union(conflict: _Conflict) -> list[str]:
    """Both sides, ours first; a table row theirs holds identically is kept once."""
    ours_rows = {strip_ending(line).strip() for line in conflict.ours if is_row(line)}
    theirs = [
        line
        for line in conflict.theirs
        if not (is_row(line) and strip_ending(line).strip() in ours_rows)
    ]
    lines = [*conflict.ours, *theirs]
    ending = next(
        (line[len(strip_ending(line)) :] for line in lines if line != strip_ending(line)), "\n"
    )
    return [line if line != strip_ending(line) else line + ending for line in lines]


def resolve_conflicts(text: str) -> str:
    """The text with every complete conflict block replaced by the union of its sides."""
    lines = split_lines(text)
    out: list[str] = []
    position = 0
    for conflict in _conflicts(lines):
        if conflict.end is None:
            continue
        out += lines[position : conflict.start] + union(conflict)
        position = conflict.end
    out += lines[position:]
    return "".join(out)


def find_conflicts(memory: Memory) -> list[Finding]:
    found = []
    octopus = OCTOPUS_HINT if octopus_in_progress(memory.directory) else ""
    for path in memory_files(memory):
        for conflict in _conflicts(split_lines(reading.read_text(path) or "")):
            where = f"{path}:{conflict.start + 1}"
            if conflict.end is None:
                found.append(Finding(where, "conflict marker never closed (resolve it by hand)"))
            elif conflict.nested:
                message = f"nested git conflict markers (--fix keeps every side{octopus})"
                found.append(Finding(where, message))
            else:
                found.append(
                    Finding(where, f"git conflict markers (--fix keeps both sides{octopus})")
                )
    return found


_LEFTOVER = re.compile(r"^(?:>{7,}|\|{7,})(?: |$)|^={7}$")


def find_leftover_markers(memory: Memory) -> list[Finding]:
    """Separator and closing markers outside any conflict block: what a hand resolution left.
    They are left to a person: which lines belonged to which side is gone."""
    found = []
    for path in memory_files(memory):
        lines = split_lines(reading.read_text(path) or "")
        inside = {i for c in _conflicts(lines) for i in range(c.start, c.end or len(lines))}
        for index, line in enumerate(lines):
            if index not in inside and _LEFTOVER.match(strip_ending(line).rstrip()):
                marker = strip_ending(line).strip()[:7]
                message = f"leftover conflict marker '{marker}' (remove it by hand)"
                found.append(Finding(f"{path}:{index + 1}", message))
    return found


def _verify_union(before: Mapping[Path, str | None], changed: Mapping[Path, str]) -> None:
    """Every line of both sides (and around them) is still there after a union."""
    for path, text in changed.items():
        lines = split_lines(before[path] or "")
        kept = {strip_ending(line) for line in lines}
        for conflict in _conflicts(lines):
            if conflict.end is not None:
                marked = lines[conflict.start : conflict.end]
                sides = {strip_ending(line) for line in (*conflict.ours, *conflict.theirs)}
                kept -= {strip_ending(line) for line in marked} - sides
        if not kept <= {strip_ending(line) for line in split_lines(text)}:
            raise IntegrityError(
                "resolving the conflict would lose a line; nothing was written (this is a bug)",
                where=str(path),
                hint="resolve the conflict by hand and report the file",
            )


def repair_conflicts(memory: Memory) -> list[str]:
    def mutate(current: Mapping[Path, str | None]) -> dict[Path, str]:
        changed = {path: resolve_conflicts(text) for path, text in current.items() if text}
        changed = {path: text for path, text in changed.items() if text != current[path]}
        _verify_union(current, changed)
        return changed

    if not any(conflict.end for conflict in _all_conflicts(memory)):
        return []  # nothing to do: no lock taken, nothing written
    changed = writing.transact(memory, memory_files(memory), mutate, resolving_conflicts=True)
    return [f"{path}: resolved conflict markers, both sides kept" for path in changed]


def _all_conflicts(memory: Memory) -> Iterator[_Conflict]:
    for path in memory_files(memory):
        yield from _conflicts(split_lines(reading.read_text(path) or ""))

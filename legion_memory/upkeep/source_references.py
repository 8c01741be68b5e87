"""PURE: a pattern's `Source` made to cite, after an integration, the record it meant where it
was written (docs/decisions.md#references-by-identity).

A reference means the record that held the ID in the version of memory the pattern was written
in. The versions an integration took its sides from (the commits git names: both parents of a
merge, the commits a rebase replayed) say what each pattern meant: its `Source` read there is an
outcome's identity. After the integration, a pattern (matched by its own identity, so a Source
already rewritten still matches) cites the ID that outcome has now. Sources that disagree are
settled by the pattern's Branch when exactly one meaning cites outcomes of that Branch alone. A
reference left alone: one whose pattern no source holds, whose sources disagree on what it meant
(unsettled), or whose outcome is not held exactly once now.
"""

import re
from collections.abc import Mapping, Sequence

from legion_memory.schema.identity import Identity, identity_keys, identity_of_cells
from legion_memory.schema.kinds import OUTCOME, PATTERN
from legion_memory.storage.reading import Memory
from legion_memory.upkeep.renumbering import Occurrence, Plan, Texts, occurrences, rewrite_source

_OUTCOME_REF = re.compile(rf"\b{OUTCOME.prefix}-\d{{3,}}\b")
SourceFiles = Mapping[str, str | None]  # memory file name -> its text in one source version


class _Version:
    """One version's outcomes by ID and, per pattern identity, what its Source cites."""

    def __init__(self, memory: Memory, texts: Texts) -> None:
        held: dict[str, set[Identity]] = {}
        for row in occurrences(memory, texts, OUTCOME):
            held.setdefault(row["id"], set()).add(_identity(row))
        self.outcomes = {key: next(iter(ids)) for key, ids in held.items() if len(ids) == 1}
        self.ids: dict[Identity, set[str]] = {}
        for key, identity in self.outcomes.items():
            self.ids.setdefault(identity, set()).add(key)
        self.sources: dict[Identity, set[str]] = {}
        for row in occurrences(memory, texts, PATTERN):
            if "source" in row.columns:
                self.sources.setdefault(_identity(row), set()).add(row["source"])

    def meanings(self, pattern: Identity) -> tuple[Identity | None, ...] | None:
        """What each reference of the pattern's Source named here, in order; None when this
        version holds the pattern with two different Sources."""
        cited = {tuple(_OUTCOME_REF.findall(source)) for source in self.sources.get(pattern, ())}
        if len(cited) != 1:
            return None
        return tuple(self.outcomes.get(key) for key in cited.pop())


def _identity(row: Occurrence) -> Identity:
    kind = OUTCOME if row["id"].startswith(OUTCOME.prefix + "-") else PATTERN
    return identity_of_cells(kind, row.columns, row.cells)


def source_versions(memory: Memory, sources: Sequence[SourceFiles]) -> list[Texts]:
    """The source versions as texts keyed by this memory's paths."""
    paths = {path.name: path for path in (memory.path(PATTERN), memory.path(OUTCOME))}
    paths[memory.archive.name] = memory.archive
    return [
        {paths[name]: text for name, text in files.items() if name in paths} for files in sources
    ]


def resolved_references(memory: Memory, texts: Texts, sources: Sequence[Texts]) -> Plan:
    """Source fixes: each pattern's references made to cite, by ID now, what they meant."""
    plan = Plan()
    versions = [_Version(memory, source) for source in sources]
    now = _Version(memory, texts)
    for row in occurrences(memory, texts, PATTERN):
        if "source" not in row.columns or not row["source"]:
            continue
        pattern = _identity(row)
        meant = {version.meanings(pattern) for version in versions if pattern in version.sources}
        if len(meant) > 1:
            meant = _written_with(meant, " ".join(row["branch"].split()))
        if len(meant) != 1:
            continue  # no source holds the pattern, or they disagree on what it meant
        targets = meant.pop()
        cited = _OUTCOME_REF.findall(row["source"])
        if targets is None or len(targets) != len(cited):
            continue
        moves = {
            old: _now_id(now, target) or old for old, target in zip(cited, targets, strict=True)
        }

        def retarget(text: str, moves: dict[str, str] = moves) -> str:
            return _OUTCOME_REF.sub(lambda m: moves.get(m.group(0), m.group(0)), text)

        rewrite_source(plan, row, retarget, "the outcome it meant has another ID now")
    return plan


_BRANCH_AT = 1 + identity_keys(OUTCOME).index("branch")  # after the identity's kind prefix


def _written_with(
    meanings: set[tuple[Identity | None, ...] | None], branch: str
) -> set[tuple[Identity | None, ...] | None]:
    """Of the sources' disagreeing meanings, those citing only outcomes of the pattern's own
    Branch: a pattern is written beside the outcomes it learned from, and a version holding it
    otherwise got it without them (a pick of the pattern alone)."""
    return {
        meaning
        for meaning in meanings
        if meaning
        and all(target is not None and target[_BRANCH_AT] == branch for target in meaning)
    }


def _now_id(now: _Version, meant: Identity | None) -> str | None:
    held = now.ids.get(meant, set()) if meant is not None else set()
    return next(iter(held)) if len(held) == 1 else None

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

A pattern that arrives without the outcome it cites (a pick of the pattern's commit alone) would
cite whatever record holds that ID here: its reference becomes a description of the outcome it
meant (`outcome "summary" (branch, date)`, the free text a Source may hold), and the description
becomes that outcome's ID again once the outcome is held here exactly once
(docs/decisions.md#references-by-identity).
"""

import re
from collections.abc import Mapping, Sequence

from legion_memory.schema.identity import Identity, identity_of_cells
from legion_memory.schema.kinds import OUTCOME, PATTERN, identity_keys
from legion_memory.schema.source_links import OUTCOME_ID
from legion_memory.storage.reading import Memory
from legion_memory.upkeep.renumbering import Occurrence, Plan, Texts, occurrences, rewrite_source

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

    def describes(self, pattern: Identity) -> bool:
        """Whether this version's Source of the pattern only describes an outcome it lacks: it
        names no ID, so it says nothing of what an ID meant, and disagrees with no version."""
        sources = self.sources.get(pattern, ())
        return bool(sources) and all(
            _DESCRIBED.search(source) and not OUTCOME_ID.search(source) for source in sources
        )

    def meanings(self, pattern: Identity) -> tuple[Identity | None, ...] | None:
        """What each reference of the pattern's Source named here, in order; None when this
        version holds the pattern with two different Sources."""
        cited = {tuple(OUTCOME_ID.findall(source)) for source in self.sources.get(pattern, ())}
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
        if _DESCRIBED.search(row["source"]):
            _relink(plan, row, now)
            continue
        pattern = _identity(row)
        meant = {
            version.meanings(pattern)
            for version in versions
            if pattern in version.sources and not version.describes(pattern)
        }
        if len(meant) > 1:
            meant = _written_with(meant, " ".join(row["branch"].split()))
        if len(meant) != 1:
            continue  # no source holds the pattern, or they disagree on what it meant
        targets = meant.pop()
        cited = OUTCOME_ID.findall(row["source"])
        if targets is None or len(targets) != len(cited):
            continue
        moves = {
            old: _now_id(now, target) or _described(now, old, target) or old
            for old, target in zip(cited, targets, strict=True)
        }

        def retarget(text: str, moves: dict[str, str] = moves) -> str:
            return OUTCOME_ID.sub(lambda m: moves.get(m.group(0), m.group(0)), text)

        gone = any(_DESCRIBED.fullmatch(new) for new in moves.values())
        rewrite_source(
            plan, row, retarget, _GONE if gone else "the outcome it meant has another ID now"
        )
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


_KEYS = identity_keys(OUTCOME)
_DESCRIBED_AT = tuple(1 + _KEYS.index(key) for key in ("summary", "branch", "date"))
"""Where an outcome's identity holds what its description names (after the kind's prefix)."""
_GONE = "the outcome it meant is not here"
_DESCRIBED = re.compile(r'outcome "([^"]*)" \(([^,()]*), ([^,()]*)\)')


def _described(now: _Version, cited: str, meant: Identity | None) -> str | None:
    """The description of the outcome a reference meant, when that outcome is not here: its ID
    cites the record that holds it here, or the one a later store gives that ID, never the
    outcome meant (seed 8080 of the collaboration simulation's `--merges-kinds`)."""
    if meant is None or now.outcomes.get(cited) == meant:
        return None
    summary, branch, date = (meant[position] for position in _DESCRIBED_AT)
    return f'outcome "{_plain(summary)}" ({_plain(branch)}, {_plain(date)})'


def _plain(text: str) -> str:
    """Text a description can hold as a cell's value and be read back from, citing nothing
    (an ID in a summary would read as a reference)."""
    text = " ".join(text.replace('"', "'").replace("|", "/").translate(_BRACKETS).split())
    return _ANY_REFERENCE.sub(lambda match: match.group(0).replace("-", " "), text)


_BRACKETS = str.maketrans({"(": "[", ")": "]", ",": ";"})
_ANY_REFERENCE = re.compile(r"\b[A-Z]-\d{3,}\b")


def _relink(plan: Plan, row: Occurrence, now: _Version) -> None:
    """Each description of an outcome held here exactly once made its ID again."""

    def relinked(text: str) -> str:
        return _DESCRIBED.sub(lambda match: _id_described(now, match) or match.group(0), text)

    rewrite_source(plan, row, relinked, "the outcome it describes is here now")


def _id_described(now: _Version, match: "re.Match[str]") -> str | None:
    wanted = match.groups()
    held = [
        key
        for key, outcome in now.outcomes.items()
        if tuple(_plain(outcome[position]) for position in _DESCRIBED_AT) == wanted
    ]
    return held[0] if len(held) == 1 else None

"""Error fixes: when a new error duplicates a stored one, and which stored fixes match an error.

Pure: records in, decisions and rankings out. Two signatures are the same error when their keyword
sets (`tokens.tokens`) have a Jaccard index at or above the threshold (`memory.error_similarity`,
0.6 by default); signatures identical up to case and spacing match even without any keyword.
"""

from collections.abc import Callable, Iterable, Mapping
from typing import NamedTuple

from legion_memory.knowledge.decay import newest_first
from legion_memory.markdown.words import jaccard, tokens
from legion_memory.schema.records import Record

DEFAULT_SIMILARITY = 0.6
# On a duplicate that is not resolved yet, only these fields take the new record's values: the
# row keeps its ID, first-seen date, branch, agent and tags.
UPDATED_FIELDS = ("fix", "resolved")


def keywords(text: str) -> frozenset[str]:
    return frozenset(tokens(text))


def similarity(left: str, right: str) -> float:
    """How alike two error signatures are, from 0.0 to 1.0."""
    if " ".join(left.casefold().split()) == " ".join(right.casefold().split()):
        return 1.0
    return jaccard(keywords(left), keywords(right))


def is_resolved(record: Record) -> bool:
    """The stored fix is verified (`Resolved` is true, in any letter case)."""
    return record["resolved"].strip().lower() == "true"


class Duplicate(NamedTuple):
    """A stored error a new one duplicates, and how alike their signatures are."""

    record: Record
    similarity: float


def find_duplicate(
    signature: str, records: Iterable[Record], threshold: float = DEFAULT_SIMILARITY
) -> Duplicate | None:
    """The stored error `signature` duplicates, or None.

    Of several candidates at or above the threshold the most similar wins; on equal similarity a
    resolved one (a known working fix), then the newest (date, then ID).
    """
    candidates = [
        Duplicate(record, similarity(signature, record["error_signature"])) for record in records
    ]
    matching = [c for c in candidates if c.similarity >= threshold]
    if not matching:
        return None
    return max(
        matching, key=lambda c: (c.similarity, is_resolved(c.record), *newest_first(c.record))
    )


def changes_for(existing: Record, new: Record) -> dict[str, str]:
    """What storing `new` changes in the duplicate `existing`: nothing when its fix is resolved
    (the spec's skip), else the Fix and Resolved values that differ."""
    if is_resolved(existing):
        return {}
    return {key: new[key] for key in UPDATED_FIELDS if existing[key] != new[key]}


def dedupe(
    new: Record, threshold: float
) -> Callable[[list[Record]], tuple[Record, Mapping[str, str]] | None]:
    """The duplicate check `store.append_or_update` runs on the live rows under its lock."""

    def check(records: list[Record]) -> tuple[Record, Mapping[str, str]] | None:
        found = find_duplicate(new["error_signature"], records, threshold)
        return None if found is None else (found.record, changes_for(found.record, new))

    return check


class ErrorMatch(NamedTuple):
    """A stored error fix recalled for an error text, with the keywords they share."""

    record: Record
    matched: tuple[str, ...]

    @property
    def overlap(self) -> int:
        return len(self.matched)

    def to_json(self) -> dict[str, object]:
        return {**self.record.to_json(), "overlap": self.overlap, "matched": list(self.matched)}


def rank(records: Iterable[Record], error_text: str | None = None) -> list[ErrorMatch]:
    """Stored fixes best first: resolved before unresolved, then more shared keywords, then the
    newer date, then the higher ID. With an error text, fixes sharing no keyword with it are left
    out (so a text without keywords matches nothing)."""
    wanted = keywords(error_text) if error_text is not None else None
    matches = []
    for record in records:
        shared = keywords(record["error_signature"]) & wanted if wanted is not None else set()
        if wanted is None or shared:
            matches.append(ErrorMatch(record, tuple(sorted(shared))))
    matches.sort(
        key=lambda m: (is_resolved(m.record), m.overlap, *newest_first(m.record)), reverse=True
    )
    return matches

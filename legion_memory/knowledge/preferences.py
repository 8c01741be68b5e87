"""User preference signals: recall filters, each agent's preference boost, and the advisory note
when corrective signals cluster on one tag (docs/memory-manager-SKILL.md, Section 13)."""

from collections import Counter, defaultdict
from collections.abc import Collection, Iterable
from typing import NamedTuple

from legion_memory.errors import InputError
from legion_memory.schema.fields import DECISION_POINTS, SIGNALS
from legion_memory.schema.records import Record

ALL = "all"
SIGNAL_POINTS = {"positive": 1.0, "corrective": 0.5, "negative": -1.0}
BOOST_FACTOR = 0.5
# A tag is a corrective cluster when at least this many corrective signals carry it and they are
# at least this share of all the signals carrying it: the user keeps adjusting that kind of work.
CLUSTER_MIN_CORRECTIVE = 3
CLUSTER_MIN_SHARE = 0.5
# Tags that only repeat a record's own category say nothing about the kind of work.
_CATEGORY_TAGS = frozenset((*DECISION_POINTS, *SIGNALS))


def signal_of(record: Record) -> str:
    return record["signal"].strip().lower()


def decision_point_of(record: Record) -> str:
    return record["decision_point"].strip().lower()


def require_choice(flag: str, value: str, choices: Iterable[str]) -> str:
    """`value` when it is `all` or one of `choices`; InputError naming the flag otherwise."""
    allowed = (*choices, ALL)
    if value not in allowed:
        raise InputError(f"{flag} '{value}' is not valid", hint=f"use one of {', '.join(allowed)}")
    return value


def matches(record: Record, *, signal: str = ALL, decision_point: str = ALL) -> bool:
    """The signal and decision-point filters of `recall preferences` (`all` keeps everything)."""
    return (signal == ALL or signal_of(record) == signal) and (
        decision_point == ALL or decision_point_of(record) == decision_point
    )


def credits_any(record: Record, agents: Collection[str] | None) -> bool:
    """The record's Agent cell lists one of `agents` (None: every record)."""
    return agents is None or any(agent in agents for agent in record.agents)


class Tally:
    """One agent's preference signals and the boost Legion adds to its recommendation score."""

    # A slotted class, not a NamedTuple: its `count` would shadow tuple.count.
    __slots__ = ("agent", "corrective", "negative", "positive")

    def __init__(
        self, agent: str, positive: int = 0, corrective: int = 0, negative: int = 0
    ) -> None:
        self.agent = agent
        self.positive = positive
        self.corrective = corrective
        self.negative = negative

    @property
    def boost(self) -> float:
        points = sum(SIGNAL_POINTS[signal] * self.count(signal) for signal in SIGNAL_POINTS)
        return points * BOOST_FACTOR

    def count(self, signal: str) -> int:
        return int(getattr(self, signal))


def tallies(records: Iterable[Record], agents: Collection[str] | None = None) -> list[Tally]:
    """Signals per agent, every record counted (no recall limit), highest boost first, then name.

    A comma-separated Agent cell credits each agent it lists; only agents with a signal appear.
    Rows whose Signal is not one of the three are left out.
    """
    counts: defaultdict[str, Counter[str]] = defaultdict(Counter)
    for record in records:
        signal = signal_of(record)
        if signal not in SIGNAL_POINTS:
            continue
        for agent in record.agents:
            if agents is None or agent in agents:
                counts[agent][signal] += 1
    found = [Tally(agent, **{s: c[s] for s in SIGNAL_POINTS}) for agent, c in counts.items()]
    return sorted(found, key=lambda t: (-t.boost, t.agent))


def boosts(found: Iterable[Tally]) -> dict[str, float]:
    """`{"agent-id": preference_boost}`, the map Legion's planner adds to its scores."""
    return {tally.agent: tally.boost for tally in found}


class Cluster(NamedTuple):
    """Corrective signals gathered on one tag."""

    tag: str
    corrective: tuple[str, ...]
    signals: int

    def note(self) -> str:
        ids = ", ".join(self.corrective)
        return (
            f"Previous preference signals suggest user corrections for {self.tag} "
            f"({len(self.corrective)} of {self.signals} signals corrective: {ids})"
        )


def corrective_clusters(records: Iterable[Record]) -> list[Cluster]:
    """Tags on which corrective signals cluster, most corrective first, then by tag."""
    by_tag: defaultdict[str, list[Record]] = defaultdict(list)
    for record in records:
        if signal_of(record) not in SIGNAL_POINTS:
            continue
        for tag in {tag.lower() for tag in record.tags} - _CATEGORY_TAGS:
            by_tag[tag].append(record)
    clusters = []
    for tag, tagged in by_tag.items():
        corrective = [r.id for r in tagged if signal_of(r) == "corrective"]
        share = len(corrective) / len(tagged)
        if len(corrective) >= CLUSTER_MIN_CORRECTIVE and share >= CLUSTER_MIN_SHARE:
            clusters.append(Cluster(tag, tuple(corrective), len(tagged)))
    return sorted(clusters, key=lambda c: (-len(c.corrective), c.tag))

"""A pattern's reference to an outcome that is not here becomes a description of it, which reads
back as that outcome (docs/decisions.md#references-by-identity)."""

from __future__ import annotations

from legion_memory.schema.identity import identity
from legion_memory.schema.kinds import OUTCOME
from legion_memory.schema.source_links import OUTCOME_ID
from legion_memory.upkeep.source_references import (
    _DESCRIBED,
    _described,
    _plain,
    _Version,
)

SUMMARY = 'retry "flaky" auth (see O-003), then | pin it'


def _here(outcomes: dict[str, tuple[str, ...]]) -> _Version:
    """A version of memory holding just these outcomes by ID."""
    version = _Version.__new__(_Version)
    version.outcomes = outcomes
    return version


def _meant(summary: str) -> tuple[str, ...]:
    return identity(OUTCOME, {"summary": summary, "branch": "feature", "date": "2026-03-02"})


def test_a_description_names_the_outcome_meant_and_cites_no_record() -> None:
    here = _here({"O-001": identity(OUTCOME, {"summary": "another", "date": "2026-03-01"})})
    text = _described(here, "O-001", _meant(SUMMARY))
    assert text == "outcome \"retry 'flaky' auth [see O 003]; then / pin it\" (feature, 2026-03-02)"
    assert OUTCOME_ID.findall(text) == []
    match = _DESCRIBED.fullmatch(text)
    assert match is not None
    assert match.groups() == (_plain(SUMMARY), "feature", "2026-03-02")


def test_no_description_when_the_cited_id_holds_the_outcome_meant_or_nothing_is_known() -> None:
    assert _described(_here({"O-001": _meant("beta")}), "O-001", _meant("beta")) is None
    assert _described(_here({}), "O-001", None) is None


def test_a_reference_whose_id_holds_nothing_here_is_described_too() -> None:
    """The next outcome stored here would take that ID and be cited in its place."""
    assert _described(_here({}), "O-001", _meant("beta")) == 'outcome "beta" (feature, 2026-03-02)'

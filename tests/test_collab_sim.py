"""The collaboration simulation (`bench.collab_sim`) on fixed seeds: two clones, feature branches,
every way of integrating, checked against the ground truth after every step, then each clone
merging the other's main: no violation, and the same bytes on both."""

from __future__ import annotations

import pytest

from bench.collab_sim import simulate

SEEDS = tuple(range(1, 9))
ROUNDS = 40


@pytest.mark.slow
@pytest.mark.parametrize("seed", SEEDS)
def test_every_record_once_every_reference_right_and_the_clones_converge(seed: int) -> None:
    simulation, converged = simulate(seed, ROUNDS)
    assert simulation.examples == []
    assert dict(simulation.violations) == {}
    assert converged
    # Every record changes on one side only, so any conflict is spurious; only git's octopus
    # strategy, which never calls a merge driver, may leave one (doctor --fix resolves it).
    assert set(simulation.conflicts) <= {"octopus"}
    assert sum(simulation.integrations.values()) >= 5  # it integrated, not only stored

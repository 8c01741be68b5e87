"""A randomised simulation of a team integrating memory every way git allows, against the truth.

Two clones of one origin, each with its own feature branches, store outcomes, patterns citing
outcomes and error fixes, update fixes, forget and restore their own records, and integrate by
merge, `--no-ff`, `merge --no-commit` then commit (with a change of a record made inside the
merge too), rebase, `pull --rebase`, `pull`, push,
cherry-pick (one commit, a store or a change of a record the branch holds, or a branch's every
commit with the hooks' repairs among them), `format-patch` then `am -3`, a branch squashed into
one commit as it is rebased (`rebase -i`), a branch rebased with the branches stacked under it
(`rebase --update-refs`), `pull --rebase=merges`, `merge --squash`
(committed with git's own message) and octopus merges, and pull with records stored on main and
not committed (`--autostash`, or stash and pop). After every step the checked-out branch's
memory is checked against the truth (`collab_model`); at the end each clone merges the other's
main, and the two results must be the same bytes. Real git, the real driver and hooks (of the
code under `--code`, this checkout by default), fixed seeds.

This module runs the steps and the command line; a clone is `collab_clone`, the local work
`collab_work`, the kinds of integrating `collab_integrations` (stashing `collab_stash`), and
carrying one through git `collab_resolution`. All draw from one random generator, in one order,
so a seed replays its actions; with `--steady-clock` git dates them by the simulation's own
clock too, and the run repeats exactly.

    python -m bench.collab_sim --seeds 20 [--rounds 30]
        [--more-kinds | --all-kinds | --stash-kinds | --patch-kinds | --rewrite-kinds
         | --merges-kinds | --uncommitted-kinds | --stacked-kinds | --merge-change-kinds]
        [--steady-clock]
        [--code /path/to/checkout]
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from bench.collab_clone import Clone, SteadyClock, clone_origin, environment
from bench.collab_integrations import (
    ALL_INTEGRATIONS,
    INTEGRATIONS,
    MERGE_CHANGE_INTEGRATIONS,
    MERGES_KEPT_INTEGRATIONS,
    MORE_INTEGRATIONS,
    PATCH_INTEGRATIONS,
    REWRITE_INTEGRATIONS,
    STACKED_INTEGRATIONS,
    STASH_INTEGRATIONS,
    UNCOMMITTED_INTEGRATIONS,
    Integrator,
)
from bench.collab_model import Model, Verdict, check, join, out_of_id_order
from bench.collab_resolution import Tally, resolve
from bench.collab_stash import Stasher
from bench.collab_work import LocalWork
from legion_memory.schema.kinds import KINDS

# The kinds are defined with the integrations; tests and callers name them from the entry point.
__all__ = [
    "ALL_INTEGRATIONS",
    "INTEGRATIONS",
    "MERGES_KEPT_INTEGRATIONS",
    "MERGE_CHANGE_INTEGRATIONS",
    "MORE_INTEGRATIONS",
    "PATCH_INTEGRATIONS",
    "REWRITE_INTEGRATIONS",
    "STACKED_INTEGRATIONS",
    "STASH_INTEGRATIONS",
    "UNCOMMITTED_INTEGRATIONS",
    "Simulation",
    "main",
    "simulate",
]

HERE = Path(__file__).resolve().parent.parent


class Simulation:
    """Two clones of one origin, a step of one of them at a time, each checked against the truth."""

    def __init__(
        self,
        seed: int,
        root: Path,
        code: Path,
        rounds: int,
        kinds: tuple[str, ...] = INTEGRATIONS,
        *,
        steady_clock: bool = False,
    ) -> None:
        self.rng = random.Random(seed)
        self.rounds = rounds
        self.tally = Tally()
        # By commit, the truth of the records it changed: the local work records it, picks bring it.
        deltas: dict[str, Model] = {}
        self.work = LocalWork(self.rng, deltas)
        stasher = Stasher(self.rng, self.work, self.tally)
        self.integrator = Integrator(
            self.rng,
            kinds,
            deltas,
            self.tally,
            stasher.integrate,
            self.work.stack_on,
            self.work.write_change,
        )
        self.examples: list[str] = []
        self.bad_steps = 0
        self.steps = 0
        self.unordered_steps = 0
        self.unordered_example = ""
        self.conflict_steps: list[str] = []
        env = environment(root, code)
        origin = root / "origin.git"
        subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(origin)], check=True)
        clock = SteadyClock() if steady_clock else None
        self.clones = [
            clone_origin("A", origin, root / "A", env, first=True, clock=clock),
            clone_origin("B", origin, root / "B", env, clock=clock),
        ]

    # A run's counts, read by the tests and the summary: the tally the integrations keep.
    @property
    def integrations(self) -> Counter[str]:
        return self.tally.integrations

    @property
    def conflicts(self) -> Counter[str]:
        return self.tally.conflicts

    @property
    def violations(self) -> Counter[str]:
        return self.tally.violations

    def step(self) -> None:
        clone = self.rng.choice(self.clones)
        if clone.branch not in clone.models:
            clone.checkout("main")
        action = self.rng.choices(["store", "change", "branch", "integrate"], [4, 2, 2, 3])[0]
        conflicts = self.conflicts.total()
        {
            "store": self.work.store,
            "change": self.work.change_own,
            "branch": self.work.branch_off,
            "integrate": self.integrator.integrate,
        }[action](clone)
        self.steps += 1
        if self.conflicts.total() > conflicts:
            self.conflict_steps.append(f"step {self.steps} {clone.name}")
        self.record(check(clone.memory, clone.models[clone.branch]), f"{clone.name} {action}")
        self.check_moved(clone)
        unordered = out_of_id_order(clone.memory)
        self.unordered_steps += bool(unordered)
        if unordered and not self.unordered_example:
            self.unordered_example = f"step {self.steps} {clone.name} {action}: {unordered}"

    def check_moved(self, clone: Clone) -> None:
        """Check the branches a stacked rebase moved besides the one checked out, each at its
        new tip."""
        if not self.integrator.moved:
            return
        current = clone.branch
        for branch in self.integrator.moved:
            clone.checkout(branch)
            self.record(check(clone.memory, clone.models[branch]), f"{clone.name} moved {branch}")
        clone.checkout(current)
        self.integrator.moved = []

    def record(self, verdict: Verdict, where: str) -> None:
        if not verdict.clean:
            self.bad_steps += 1
            self.violations.update(verdict.counts)
            self.examples += [f"step {self.steps} {where}: {e}" for e in verdict.examples[:2]]

    def converge(self) -> bool:
        """Each clone merges the other's main: the two results must be the same bytes."""
        texts = []
        for clone, other in zip(self.clones, reversed(self.clones), strict=True):
            clone.checkout("main")
            clone.must("fetch", "-q", str(other.path), "main")
            clone.must("checkout", "-q", "-b", "cross", "main")
            self.integrations["pull between clones"] += 1
            if clone.git("merge", "-q", "--no-edit", "FETCH_HEAD").returncode:
                resolve(self.tally, clone, "pull between clones")
            clone.repair()
            model = join(clone.models["main"], other.models["main"])
            self.record(check(clone.memory, model), f"{clone.name} cross merge")
            texts.append([memory_text(clone, kind) for kind in (*KINDS.values(), None)])
        return texts[0] == texts[1]

    def run_all(self) -> bool:
        for _ in range(self.rounds):
            self.step()
        return self.converge()


def memory_text(clone: Clone, kind: object) -> str:
    """The text of the clone's file of `kind`, or of its archive for None."""
    path = clone.memory.archive if kind is None else clone.memory.path(kind)  # type: ignore[arg-type]
    return path.read_text(encoding="utf-8") if path.is_file() else ""


def simulate(
    seed: int,
    rounds: int,
    code: Path = HERE,
    kinds: tuple[str, ...] = INTEGRATIONS,
    *,
    steady_clock: bool = False,
) -> tuple[Simulation, bool]:
    with tempfile.TemporaryDirectory(prefix="collab-sim-") as root:
        simulation = Simulation(seed, Path(root), code, rounds, kinds, steady_clock=steady_clock)
        converged = simulation.run_all()
    return simulation, converged


@dataclass
class Totals:
    """The seeds' runs added up."""

    counts: dict[str, Counter[str]] = field(
        default_factory=lambda: {
            "integrations": Counter(),
            "conflicts": Counter(),
            "violations": Counter(),
        }
    )
    steps: int = 0
    bad_steps: int = 0
    wrong_seeds: int = 0
    diverged: int = 0
    unordered_steps: int = 0

    def add(self, simulation: Simulation, converged: bool) -> None:
        self.counts["integrations"].update(simulation.integrations)
        self.counts["conflicts"].update(simulation.conflicts)
        self.counts["violations"].update(simulation.violations)
        self.steps += simulation.steps
        self.bad_steps += simulation.bad_steps
        self.unordered_steps += simulation.unordered_steps
        self.wrong_seeds += bool(simulation.violations)
        self.diverged += not converged


KIND_FLAGS = (
    ("--more-kinds", "also pick a branch's every commit, and merge with --no-commit then commit"),
    ("--all-kinds", "--more-kinds, and pick one commit that changed a record main holds"),
    (
        "--stash-kinds",
        "--all-kinds, and store on main without committing, then pull with --autostash "
        "or stash, pull and pop",
    ),
    (
        "--patch-kinds",
        "--stash-kinds, and apply a branch's commits as patches (format-patch, am -3)",
    ),
    (
        "--rewrite-kinds",
        "--patch-kinds, and squash a branch's commits into one as it is rebased (rebase -i)",
    ),
    (
        "--merges-kinds",
        "--rewrite-kinds, and pull --rebase=merges (main's merges replayed as merges)",
    ),
    (
        "--uncommitted-kinds",
        "--merges-kinds, and pick a branch's commits with --no-commit, then commit them",
    ),
    (
        "--stacked-kinds",
        "--uncommitted-kinds, and rebase a branch with those stacked under it "
        "(rebase --update-refs)",
    ),
    (
        "--merge-change-kinds",
        "--stacked-kinds, and change a record of main's own inside a merge (merge --no-commit, "
        "the change, then the commit)",
    ),
)


def parse_options(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--first-seed", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument(
        "--code", type=Path, default=HERE, help="the checkout to run the driver and hooks of"
    )
    parser.add_argument(
        "--steady-clock",
        action="store_true",
        help="date every git command a minute after the last, so that runs repeat exactly",
    )
    for flag, meaning in KIND_FLAGS:
        parser.add_argument(flag, action="store_true", help=meaning)
    return parser.parse_args(argv)


def kinds_of(options: argparse.Namespace) -> tuple[str, ...]:
    if options.merge_change_kinds:
        return MERGE_CHANGE_INTEGRATIONS
    if options.stacked_kinds:
        return STACKED_INTEGRATIONS
    if options.uncommitted_kinds:
        return UNCOMMITTED_INTEGRATIONS
    if options.merges_kinds:
        return MERGES_KEPT_INTEGRATIONS
    if options.rewrite_kinds:
        return REWRITE_INTEGRATIONS
    if options.patch_kinds:
        return PATCH_INTEGRATIONS
    if options.stash_kinds:
        return STASH_INTEGRATIONS
    kinds: tuple[str, ...] = MORE_INTEGRATIONS if options.more_kinds else INTEGRATIONS
    return ALL_INTEGRATIONS if options.all_kinds else kinds


def print_summary(options: argparse.Namespace, totals: Totals, seconds: float) -> None:
    print(f"code: {options.code}")
    print(
        f"seeds: {options.seeds}, rounds: {options.rounds}, steps: {totals.steps}, {seconds:.0f} s"
    )
    for name, counts in totals.counts.items():
        listed = ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) or "none"
        print(f"{name} ({sum(counts.values())}): {listed}")
    print(
        f"steps with a violation: {totals.bad_steps} of {totals.steps}; "
        f"seeds with a violation: {totals.wrong_seeds}; clones diverged: {totals.diverged}"
    )
    print(f"steps leaving a live table out of ID order: {totals.unordered_steps}")


def main(argv: list[str] | None = None) -> int:
    options = parse_options(argv)
    kinds = kinds_of(options)
    totals = Totals()
    started = time.monotonic()
    for seed in range(options.first_seed, options.first_seed + options.seeds):
        simulation, converged = simulate(
            seed, options.rounds, options.code, kinds, steady_clock=options.steady_clock
        )
        totals.add(simulation, converged)
        for example in simulation.examples[:3]:
            print(f"seed {seed}: {example}")
        if simulation.conflict_steps:
            print(f"seed {seed}: conflicts at {', '.join(simulation.conflict_steps)}")
        if simulation.unordered_example:
            print(f"seed {seed}: out of ID order: {simulation.unordered_example}")
    print_summary(options, totals, time.monotonic() - started)
    return 1 if totals.wrong_seeds or totals.diverged else 0


if __name__ == "__main__":
    sys.exit(main())

"""Stashing in the collaboration simulation: records stored on main and not committed, put aside
while main takes in the origin's (`pull --autostash`, or `git stash`, a pull and `git stash pop`),
then committed. The stash is applied over the records the pull brought, often under the same IDs:
the driver renumbers the stash's, and the next commit's hook repairs a reference git took whole
from the stash (docs/decisions.md#stash-apply-references)."""

from __future__ import annotations

import random

from bench.collab_clone import Clone
from bench.collab_model import Model, join
from bench.collab_resolution import Tally, run_integration
from bench.collab_work import LocalWork


class Stasher:
    def __init__(self, rng: random.Random, work: LocalWork, tally: Tally) -> None:
        self.rng = rng
        self.work = work
        self.tally = tally

    def integrate(self, clone: Clone, kind: str, origin: Model) -> None:
        """On main: an outcome stored, half the time a pattern too (citing it, or another), the
        origin's main pulled in around them, and then the records committed."""
        clone.checkout("main")
        token, truth = self.work.write_store(clone, kind="outcomes")
        pending = {token: truth}
        if self.rng.random() < 0.5:
            token, truth = self.work.write_store(clone, pending, kind="patterns")
            pending[token] = truth
        flag = self.rng.choice(["--rebase", "--no-rebase"])
        pull = ["pull", "-q", flag, "--no-edit", "origin", "main"]
        if kind == "pull --autostash":
            pulled = run_integration(self.tally, clone, kind, [*pull, "--autostash"], [origin])
        else:
            clone.must("stash", "-q")
            pulled = run_integration(self.tally, clone, kind, pull, [origin])
            if pulled:
                clone.git("stash", "pop")
        if pulled:
            self.settle(clone, kind)
            self.work.commit(clone, pending, "store " + " ".join(pending))
        else:
            clone.models["main"] = join(clone.models["main"], pending)  # the check tells

    def settle(self, clone: Clone, kind: str) -> None:
        """Were applying the stash to stop on a conflict, it is resolved the documented way and
        the stash, which git keeps then, dropped as git says to."""
        if clone.must("diff", "--name-only", "--diff-filter=U"):
            self.tally.conflicts[f"{kind} applying the stash"] += 1
            clone.repair()
            clone.must("add", "-A")
            clone.must("stash", "drop", "-q")

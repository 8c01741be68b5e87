"""The local work of the collaboration simulation: storing records, changing the branch's own
records, and starting or switching feature branches, each change committed with its truth."""

from __future__ import annotations

import random

from bench.collab_clone import Clone
from bench.collab_model import Model, Truth, changed, join, rows_of
from legion_memory.schema.kinds import ERROR_FIX, KINDS, new_record
from legion_memory.storage import writing
from legion_memory.upkeep.forgetting import forget, restore

DATES = ("2026-03-01", "2026-03-02", "2026-03-03")


class LocalWork:
    def __init__(self, rng: random.Random, deltas: dict[str, Model]) -> None:
        """`deltas` gets, by commit, the truth of the records it changed: what a pick brings."""
        self.rng = rng
        self.deltas = deltas
        self.tokens = 0

    def token(self) -> str:
        self.tokens += 1
        return f"r{self.tokens}"

    def commit(self, clone: Clone, delta: Model, message: str) -> None:
        """Commit the work with its truth. A commit the post-commit hook had to repair (a stash
        applied over a store of its ID left a reference for it) is no pick's: the repair is the
        next commit, and picking the first alone brings the wrong reference, as documented."""
        clone.must("add", "-A")
        clone.must("commit", "-q", "--no-verify", "-m", message)
        if clone.must("log", "-1", "--format=%s").strip() == message:
            self.deltas[clone.must("rev-parse", "HEAD").strip()] = delta
        branch = clone.branch
        clone.models[branch] = join(clone.models.get(branch, {}), delta)

    def store(self, clone: Clone) -> None:
        token, truth = self.write_store(clone)
        self.commit(clone, {token: truth}, f"store {token}")

    def write_store(
        self, clone: Clone, pending: Model | None = None, kind: str = ""
    ) -> tuple[str, Truth]:
        """A record of `kind` (drawn if not given) stored, not committed: its token and truth.
        A pattern may cite an outcome of the `pending` work, not committed either."""
        model = join(clone.models[clone.branch], pending or {})
        owner = f"{clone.name}:{clone.branch}"
        kind = kind or self.rng.choice(["outcomes", "outcomes", "patterns", "errors"])
        token = self.token()
        values = {
            "date": self.rng.choice(DATES),
            "branch": clone.branch,
            "agent": "coder",
            "tags": "sim",
        }
        truth = Truth(kind, owner, 0)
        if kind == "outcomes":
            values |= {
                "phase": "1",
                "plan": "01-01",
                "task_type": "workflow",
                "outcome": "success",
                "importance": "2",
                "summary": f"{token} work",
            }
        elif kind == "errors":
            values |= {"error_signature": f"{token} failed", "fix": "retry", "resolved": "false"}
        else:
            live = [t for t, v in model.items() if v.kind == "outcomes" and not v.archived]
            cited = self.rng.choice(live) if live else ""
            source = next((r.id for r in rows_of(clone.memory)["outcomes"] if r.token == cited), "")
            values |= {
                "pattern": f"{token} pattern",
                "context": "c",
                "reuse_criteria": "r",
                "source": source,
            }
            truth = Truth(kind, owner, 0, cites=cited if source else "")
        writing.append(clone.memory, new_record(KINDS[kind], values))
        return token, truth

    def change_own(self, clone: Clone) -> None:
        """Update, forget or restore one of this branch's own records, in a commit of its own;
        a branch with none stores one."""
        change = self.write_change(clone)
        if change is None:
            return self.store(clone)
        if change:
            self.commit(clone, change, f"change {next(iter(change))}")
        return None

    def write_change(self, clone: Clone) -> Model | None:
        """One of this branch's own records updated, forgotten or restored, not committed: its
        truth ({} when the record is already wrong, which the check reports); None when the
        branch has no record of its own."""
        owner = f"{clone.name}:{clone.branch}"
        model = clone.models[clone.branch]
        own = [t for t, v in model.items() if v.owner == owner]
        if not own:
            return None
        token = self.rng.choice(own)
        truth = model[token]
        row = next((r for r in rows_of(clone.memory)[truth.kind] if r.token == token), None)
        if row is None or row.archived != truth.archived:
            return {}
        if truth.archived:
            restore(clone.memory, row.id)
            return {token: changed(truth, archived=False)}
        if truth.kind == ERROR_FIX.name and self.rng.random() < 0.6:
            fix = f"fix{truth.clock + 1}"
            writing.update(clone.memory, ERROR_FIX, row.id, {"fix": fix, "resolved": "true"})
            return {token: changed(truth, fix=fix)}
        forget(clone.memory, row.id)
        return {token: changed(truth, archived=True)}

    def stack_on(self, clone: Clone, base: str) -> str:
        """A branch started from `base` with a record stored on it: the top of a stack. With its
        three branches, the clone starts it again as one whose every commit main holds (nothing
        of it is lost); "" when there is none."""
        mine = [b for b in clone.models if b != "main"]
        done = [b for b in mine if b != base and not clone.must("rev-list", f"main..{b}").strip()]
        if len(mine) < 3:
            name = f"{clone.name.lower()}{len(mine) + 1}"
        elif done:
            name = self.rng.choice(done)
        else:
            return ""
        clone.must("checkout", "-q", "-B", name, base)
        clone.models[name] = dict(clone.models[base])
        self.store(clone)
        return name

    def branch_off(self, clone: Clone) -> None:
        """Start a feature branch, or switch among the three a clone may have."""
        mine = [b for b in clone.models if b != "main"]
        if len(mine) >= 3:
            return clone.checkout(self.rng.choice([*mine, "main"]))
        name = f"{clone.name.lower()}{len(mine) + 1}"
        start = self.rng.choice(["main", *mine])
        clone.must("checkout", "-q", "-b", name, start)
        clone.models[name] = dict(clone.models[start])
        return None

"""A randomised simulation of a team integrating memory every way git allows, against the truth.

Two clones of one origin, each with its own feature branches, store outcomes, patterns citing
outcomes and error fixes, update fixes, forget and restore their own records, and integrate by
merge, `--no-ff`, `merge --no-commit` then commit, rebase, `pull --rebase`, `pull`, push,
cherry-pick (one commit, a store or a change of a record the branch holds, or a branch's every
commit with the hooks' repairs among them),
`merge --squash` (committed with git's own message) and octopus merges. After every step the
checked-out branch's memory is checked against the truth (`collab_model`); at the end each clone
merges the other's main, and the two results must be the same bytes. Real git, the real driver
and hooks (of the code under `--code`, this checkout by default), fixed seeds.

    python -m bench.collab_sim --seeds 20 [--rounds 30] [--more-kinds | --all-kinds]
        [--code /path/to/checkout]
"""

from __future__ import annotations

import argparse
import os
import random
import shlex
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from bench.collab_model import Model, Truth, Verdict, changed, check, join, rows_of
from bench.strategy_bin import on_path, strategy_bin
from legion_memory.schema.kinds import ERROR_FIX, KINDS, new_record
from legion_memory.storage import writing
from legion_memory.storage.reading import Memory
from legion_memory.upkeep.forgetting import forget, restore

HERE = Path(__file__).resolve().parent.parent
MEMORY = ".planning/memory"
DATES = ("2026-03-01", "2026-03-02", "2026-03-03")
INTEGRATIONS = (
    "merge",
    "merge --no-ff",
    "rebase",
    "pull --rebase",
    "pull",
    "push",
    "cherry-pick",
    "merge --squash",
    "octopus",
)
# Drawn too under --more-kinds; apart, so that the seeds above replay the runs they always did.
MORE_INTEGRATIONS = (*INTEGRATIONS, "cherry-pick range", "merge --no-commit")
# Drawn too under --all-kinds: a pick of one commit that changed a record main holds.
ALL_INTEGRATIONS = (*MORE_INTEGRATIONS, "cherry-pick change")


class Clone:
    def __init__(self, name: str, path: Path, env: dict[str, str]) -> None:
        self.name, self.path, self.env = name, path, env
        self.memory = Memory.of_project(path)
        self.models: dict[str, Model] = {"main": {}}

    def git(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["git", *args], cwd=self.path, env=self.env, capture_output=True, text=True, check=False
        )

    def must(self, *args: str) -> str:
        done = self.git(*args)
        if done.returncode:
            raise RuntimeError(f"{self.name}: git {' '.join(args)}: {done.stderr}")
        return done.stdout

    def repair(self) -> None:
        """`doctor --fix` of the code under test, as the docs tell a user to run it."""
        subprocess.run(
            [sys.executable, "-m", "legion_memory", "doctor", "--fix", "--quiet"],
            cwd=self.path,
            env=self.env,
            capture_output=True,
            check=False,
        )

    @property
    def branch(self) -> str:
        return self.must("rev-parse", "--abbrev-ref", "HEAD").strip()

    def checkout(self, branch: str) -> None:
        self.must("checkout", "-q", branch)


class Simulation:
    def __init__(
        self,
        seed: int,
        root: Path,
        code: Path,
        rounds: int,
        kinds: tuple[str, ...] = INTEGRATIONS,
    ) -> None:
        self.rng = random.Random(seed)
        self.rounds = rounds
        self.kinds = kinds
        self.tokens = 0
        self.deltas: dict[str, Model] = {}
        self.origin: Model = {}
        self.integrations: Counter[str] = Counter()
        self.conflicts: Counter[str] = Counter()
        self.violations: Counter[str] = Counter()
        self.examples: list[str] = []
        self.bad_steps = 0
        self.steps = 0
        env = {**os.environ, "PYTHONPATH": str(code), "HOME": str(root)}
        env = on_path(env, strategy_bin(root / "bin", code))
        for key in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
            env.pop(key, None)
        self.origin_path = root / "origin.git"
        subprocess.run(
            ["git", "init", "-q", "--bare", "-b", "main", str(self.origin_path)], check=True
        )
        self.clones = [
            self._clone("A", root, env, code, first=True),
            self._clone("B", root, env, code),
        ]
        self.rounds_per_clone = {clone.name: 0 for clone in self.clones}

    def _clone(
        self, name: str, root: Path, env: dict[str, str], code: Path, *, first: bool = False
    ) -> Clone:
        path = root / name
        subprocess.run(
            ["git", "clone", "-q", str(self.origin_path), str(path)],
            check=True,
            env=env,
            capture_output=True,
        )
        clone = Clone(name, path, env)
        for key, value in (
            ("user.email", f"{name}@sim"),
            ("user.name", name),
            ("merge.conflictStyle", "merge"),
            ("pull.rebase", "false"),
        ):
            clone.must("config", key, value)
        command = f"{shlex.quote(sys.executable)} -m legion_memory"
        cli = [sys.executable, "-m", "legion_memory"]
        subprocess.run(
            [*cli, "git", "install", "--command", command],
            cwd=path,
            env=env,
            check=True,
            capture_output=True,
        )
        if first:
            subprocess.run([*cli, "init"], cwd=path, env=env, check=True, capture_output=True)
            clone.must("checkout", "-q", "-b", "main")
            clone.must("add", "-A")
            clone.must("commit", "-q", "-m", "memory")
            clone.must("push", "-q", "origin", "main")
        else:
            clone.must("checkout", "-q", "main")
        return clone

    # Local work -------------------------------------------------------------------------------

    def token(self) -> str:
        self.tokens += 1
        return f"r{self.tokens}"

    def commit(self, clone: Clone, delta: Model, message: str) -> None:
        clone.must("add", "-A")
        clone.must("commit", "-q", "--no-verify", "-m", message)
        self.deltas[clone.must("rev-parse", "HEAD").strip()] = delta
        branch = clone.branch
        clone.models[branch] = join(clone.models.get(branch, {}), delta)

    def store(self, clone: Clone) -> None:
        model = clone.models[clone.branch]
        owner = f"{clone.name}:{clone.branch}"
        kind = self.rng.choice(["outcomes", "outcomes", "patterns", "errors"])
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
        self.commit(clone, {token: truth}, f"store {token}")

    def change_own(self, clone: Clone) -> None:
        """Update, forget or restore one of this branch's own records."""
        owner = f"{clone.name}:{clone.branch}"
        model = clone.models[clone.branch]
        own = [t for t, v in model.items() if v.owner == owner]
        if not own:
            return self.store(clone)
        token = self.rng.choice(own)
        truth = model[token]
        row = next((r for r in rows_of(clone.memory)[truth.kind] if r.token == token), None)
        if row is None or row.archived != truth.archived:
            return None  # already wrong: the check reports it
        if truth.archived:
            restore(clone.memory, row.id)
            new = changed(truth, archived=False)
        elif truth.kind == ERROR_FIX.name and self.rng.random() < 0.6:
            fix = f"fix{truth.clock + 1}"
            writing.update(clone.memory, ERROR_FIX, row.id, {"fix": fix, "resolved": "true"})
            new = changed(truth, fix=fix)
        else:
            forget(clone.memory, row.id)
            new = changed(truth, archived=True)
        self.commit(clone, {token: new}, f"change {token}")
        return None

    def branch_off(self, clone: Clone) -> None:
        mine = [b for b in clone.models if b != "main"]
        if len(mine) >= 3:
            return clone.checkout(self.rng.choice([*mine, "main"]))
        name = f"{clone.name.lower()}{len(mine) + 1}"
        start = self.rng.choice(["main", *mine])
        clone.must("checkout", "-q", "-b", name, start)
        clone.models[name] = dict(clone.models[start])
        return None

    # Integration ------------------------------------------------------------------------------

    def integrate(self, clone: Clone) -> None:
        branches = [b for b in clone.models if b != "main"]
        kind = self.rng.choice(self.kinds)
        if not branches and kind not in ("pull", "pull --rebase", "push"):
            kind = "pull"
        other = self.rng.choice(branches) if branches else ""
        if kind == "rebase":
            clone.checkout(other)
            self.run(clone, kind, ["rebase", "-q", "main"], [clone.models["main"]])
            return
        clone.checkout("main")
        if kind in ("merge", "merge --no-ff"):
            self.run(
                clone,
                kind,
                ["merge", "-q", "--no-edit", *kind.split()[1:], other],
                [clone.models[other]],
            )
        elif kind == "merge --squash":
            squashed = self.run(
                clone, kind, ["merge", "-q", "--squash", other], [clone.models[other]]
            )
            if squashed and clone.git("diff", "--cached", "--quiet").returncode:
                clone.must("commit", "-q", "--no-verify", "--no-edit")  # git's own message
        elif kind == "octopus" and len(branches) >= 2:
            pair = self.rng.sample(branches, 2)
            self.run(
                clone, kind, ["merge", "-q", "--no-edit", *pair], [clone.models[b] for b in pair]
            )
        elif kind == "merge --no-commit":
            merged = self.run(
                clone, kind, ["merge", "-q", "--no-commit", "--no-ff", other], [clone.models[other]]
            )
            if merged and (clone.path / ".git" / "MERGE_HEAD").exists():
                clone.must("commit", "-q", "--no-edit")
        elif kind == "cherry-pick change":
            self.cherry_pick_change(clone)
        elif kind.startswith("cherry-pick"):
            (self.cherry_pick if kind == "cherry-pick" else self.cherry_pick_range)(clone, other)
        elif kind in ("pull", "pull --rebase"):
            flag = "--rebase" if kind.endswith("rebase") else "--no-rebase"
            self.run(
                clone, kind, ["pull", "-q", flag, "--no-edit", "origin", "main"], [self.origin]
            )
        else:
            self.push(clone)

    def cherry_pick(self, clone: Clone, other: str) -> None:
        shas = clone.must("rev-list", "--reverse", f"main..{other}").split()
        stores = [
            s
            for s in shas
            if s in self.deltas and all(v.clock == 0 for v in self.deltas[s].values())
        ]
        if stores:
            sha = self.rng.choice(stores)
            self.run(clone, "cherry-pick", ["cherry-pick", sha], [self.deltas[sha]])

    def cherry_pick_change(self, clone: Clone) -> None:
        """One commit that updated, forgot or restored a record, picked alone onto a branch that
        holds the record as the commit's parent had it or in a later state: git applies the
        change, finds the branch holding it already, or the history tells the branch's state is
        the later one. From any other branch or the origin's main as last fetched (a change the
        target lacks of a record it holds is rare on one branch)."""
        target = self.rng.choice(sorted(clone.models))
        model = clone.models[target]

        def pickable(sha: str) -> bool:
            delta = self.deltas.get(sha, {})
            later = (t in model and model[t].clock >= v.clock - 1 for t, v in delta.items())
            return bool(delta) and all(v.clock for v in delta.values()) and all(later)

        sources = [b for b in sorted(clone.models) if b != target] + ["origin/main"]
        shas = clone.must("rev-list", "--reverse", *sources, "--not", target).split()
        changes = [sha for sha in shas if pickable(sha)]
        if changes:
            clone.checkout(target)
            sha = self.rng.choice(changes)
            self.run(clone, "cherry-pick change", ["cherry-pick", sha], [self.deltas[sha]])

    def cherry_pick_range(self, clone: Clone, other: str) -> None:
        """Every commit of the branch main lacks, the hooks' repair commits among them: the
        branch's every change arrives, as in a merge (rebased commits have no delta of their
        own, so the branch's truth is the model)."""
        shas = clone.must("rev-list", "--reverse", "--no-merges", f"main..{other}").split()
        if shas:
            self.run(clone, "cherry-pick range", ["cherry-pick", *shas], [clone.models[other]])

    def push(self, clone: Clone) -> None:
        if clone.git("push", "-q", "origin", "main").returncode:
            self.run(
                clone,
                "pull",
                ["pull", "-q", "--no-rebase", "--no-edit", "origin", "main"],
                [self.origin],
            )
            if clone.git("push", "-q", "origin", "main").returncode:
                return
        self.integrations["push"] += 1
        self.origin = dict(clone.models["main"])

    def run(self, clone: Clone, kind: str, args: list[str], incoming: list[Model]) -> bool:
        """One integration; a conflict is resolved the documented way (`doctor --fix`)."""
        branch = clone.branch
        self.integrations[kind] += 1
        if clone.git(*args).returncode:
            stopped = (clone.path / ".git" / "sequencer").exists()
            if stopped and not self.in_progress(clone):
                self.violations["stuck integration"] += 1  # picks stopped, none in progress
                return False
            if not self.in_progress(clone):
                self.conflicts[f"{kind} refused by git"] += 1  # an octopus merge changed nothing
                return False
            if not self.resolve(clone, kind):
                return False
        clone.models[branch] = join(clone.models[branch], *incoming)
        return True

    @staticmethod
    def in_progress(clone: Clone) -> bool:
        git_dir = clone.path / ".git"
        states = ("rebase-merge", "rebase-apply", "CHERRY_PICK_HEAD", "MERGE_HEAD", "MERGE_MSG")
        return any((git_dir / name).exists() for name in states)

    def resolve(self, clone: Clone, kind: str) -> bool:
        git_dir = clone.path / ".git"
        counted = False
        for _ in range(50):
            if (git_dir / "CHERRY_PICK_HEAD").exists() and self.already_there(clone):
                # git stops a pick whose change the branch already holds (the record arrived
                # before under another ID); a user skips it. Not a conflict: nothing to resolve.
                self.integrations["cherry-pick already applied"] += 1
                skipped = clone.git("cherry-pick", "--skip")
                if skipped.returncode and not self.in_progress(clone):
                    return False  # the next pick stopping too (empty again) is the loop's
                if not self.in_progress(clone):
                    return True
                continue
            if not counted:  # every record changes on one side only: always spurious
                self.conflicts[kind] += 1
                counted = True
            clone.repair()
            clone.must("add", "-A")
            if (git_dir / "rebase-merge").exists() or (git_dir / "rebase-apply").exists():
                step = clone.git("-c", "core.editor=true", "rebase", "--continue")
            elif (git_dir / "CHERRY_PICK_HEAD").exists():
                step = clone.git("-c", "core.editor=true", "cherry-pick", "--continue")
            elif (git_dir / "MERGE_HEAD").exists():
                step = clone.git("commit", "-q", "--no-edit")
            else:
                return True
            if step.returncode == 0 and not any(
                (git_dir / name).exists()
                for name in ("rebase-merge", "rebase-apply", "CHERRY_PICK_HEAD", "MERGE_HEAD")
            ):
                return True
        self.violations["stuck integration"] += 1
        return False

    @staticmethod
    def already_there(clone: Clone) -> bool:
        unmerged = clone.must("diff", "--name-only", "--diff-filter=U")
        return not unmerged and clone.git("diff", "--cached", "--quiet", "HEAD").returncode == 0

    # The run ----------------------------------------------------------------------------------

    def step(self) -> None:
        clone = self.rng.choice(self.clones)
        if clone.branch not in clone.models:
            clone.checkout("main")
        action = self.rng.choices(["store", "change", "branch", "integrate"], [4, 2, 2, 3])[0]
        {
            "store": self.store,
            "change": self.change_own,
            "branch": self.branch_off,
            "integrate": self.integrate,
        }[action](clone)
        self.steps += 1
        self.record(check(clone.memory, clone.models[clone.branch]), f"{clone.name} {action}")

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
                self.resolve(clone, "pull between clones")
            clone.repair()
            model = join(clone.models["main"], other.models["main"])
            self.record(check(clone.memory, model), f"{clone.name} cross merge")
            texts.append([self._text(clone, kind) for kind in (*KINDS.values(), None)])
        return texts[0] == texts[1]

    @staticmethod
    def _text(clone: Clone, kind: object) -> str:
        path = clone.memory.archive if kind is None else clone.memory.path(kind)  # type: ignore[arg-type]
        return path.read_text(encoding="utf-8") if path.is_file() else ""

    def run_all(self) -> bool:
        for _ in range(self.rounds):
            self.step()
        return self.converge()


def simulate(
    seed: int, rounds: int, code: Path = HERE, kinds: tuple[str, ...] = INTEGRATIONS
) -> tuple[Simulation, bool]:
    with tempfile.TemporaryDirectory(prefix="collab-sim-") as root:
        simulation = Simulation(seed, Path(root), code, rounds, kinds)
        converged = simulation.run_all()
    return simulation, converged


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--first-seed", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument(
        "--code", type=Path, default=HERE, help="the checkout to run the driver and hooks of"
    )
    parser.add_argument(
        "--more-kinds",
        action="store_true",
        help="also pick a branch's every commit, and merge with --no-commit then commit",
    )
    parser.add_argument(
        "--all-kinds",
        action="store_true",
        help="--more-kinds, and pick one commit that changed a record main holds",
    )
    options = parser.parse_args(argv)
    kinds: tuple[str, ...] = MORE_INTEGRATIONS if options.more_kinds else INTEGRATIONS
    kinds = ALL_INTEGRATIONS if options.all_kinds else kinds
    totals: dict[str, Counter[str]] = {
        "integrations": Counter(),
        "conflicts": Counter(),
        "violations": Counter(),
    }
    wrong = diverged = steps = bad = 0
    started = time.monotonic()
    for seed in range(options.first_seed, options.first_seed + options.seeds):
        simulation, converged = simulate(seed, options.rounds, options.code, kinds)
        totals["integrations"].update(simulation.integrations)
        totals["conflicts"].update(simulation.conflicts)
        totals["violations"].update(simulation.violations)
        steps, bad = steps + simulation.steps, bad + simulation.bad_steps
        wrong += bool(simulation.violations)
        diverged += not converged
        for example in simulation.examples[:3]:
            print(f"seed {seed}: {example}")
    print(f"code: {options.code}")
    print(
        f"seeds: {options.seeds}, rounds: {options.rounds}, steps: {steps}, "
        f"{time.monotonic() - started:.0f} s"
    )
    for name, counts in totals.items():
        listed = ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) or "none"
        print(f"{name} ({sum(counts.values())}): {listed}")
    print(
        f"steps with a violation: {bad} of {steps}; seeds with a violation: {wrong}; "
        f"clones diverged: {diverged}"
    )
    return 1 if wrong or diverged else 0


if __name__ == "__main__":
    sys.exit(main())

"""The ways the collaboration simulation integrates: the git commands of each kind, and the truth
each brings in. A branch is rebased onto main; main merges a branch (fast-forward or `--no-ff`,
`--squash` committed with git's own message, `--no-commit` then committed, or two at once as an
octopus), picks commits (a commit each, or `--no-commit` then committed as one), applies a
branch's patches (`format-patch`, then `am -3`), pulls the origin's main (merging or rebasing)
or pushes to it."""

from __future__ import annotations

import random
from collections.abc import Callable

from bench.collab_clone import Clone
from bench.collab_model import Model, join
from bench.collab_resolution import Tally, run_integration

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
# Drawn too under --stash-kinds: records stored and not committed, put aside while main pulls.
STASH_KINDS = ("pull --autostash", "stash pop")
STASH_INTEGRATIONS = (*ALL_INTEGRATIONS, *STASH_KINDS)
# Drawn too under --patch-kinds: a branch's commits mailed as patches and applied on main.
PATCH_INTEGRATIONS = (*STASH_INTEGRATIONS, "am")
# Drawn too under --rewrite-kinds: a branch's commits squashed into one as it is rebased onto
# main (`rebase -i`, every pick after the first made a `squash`).
REWRITE_INTEGRATIONS = (*PATCH_INTEGRATIONS, "squash rebase")
# Drawn too under --merges-kinds: main rebased onto the origin's with its merges kept.
MERGES_KEPT_INTEGRATIONS = (*REWRITE_INTEGRATIONS, "pull --rebase=merges")
# Drawn too under --uncommitted-kinds: a branch's commits picked without committing (`cherry-pick
# -n`), then committed as one; no hook runs until that commit.
UNCOMMITTED_INTEGRATIONS = (*MERGES_KEPT_INTEGRATIONS, "cherry-pick --no-commit")
# Drawn too under --stacked-kinds: a branch rebased with the branches stacked under it
# (`rebase --update-refs`), which git moves after the post-rewrite hook.
STACKED_INTEGRATIONS = (*UNCOMMITTED_INTEGRATIONS, "rebase --update-refs")
# Drawn too under --merge-change-kinds: a record of main's own changed inside a merge
# (`merge --no-commit`, the change, then the commit): the merge commit's own change.
MERGE_CHANGE_INTEGRATIONS = (*STACKED_INTEGRATIONS, "merge --no-commit with a change")
PULLS = ("pull", "pull --rebase", "pull --rebase=merges")
# The kinds that take in a branch as its commits main lacks, merges left out (`--no-merges`).
WHOLE_BRANCH_PICKS = ("cherry-pick range", "cherry-pick --no-commit", "am")
# The todo edit `rebase -i` runs as its editor: every pick after the first squashes into it.
SQUASH_TODO = "sed -i -e '2,$ s/^pick /squash /'"
REBASE_ARGS = {
    "rebase": ["rebase", "-q", "main"],
    "squash rebase": [
        *("-c", f"sequence.editor={SQUASH_TODO}", "-c", "core.editor=true"),
        *("rebase", "-q", "-i", "main"),
    ],
    "rebase --update-refs": ["rebase", "-q", "--update-refs", "main"],
}
# What a stash kind runs: on the clone, the kind drawn and the origin's truth.
Stashing = Callable[[Clone, str, Model], None]
# What starts a stack: on the clone, a branch started from the one named, with a record stored on
# it; its name, or "" when the clone may start no more branches.
Stacking = Callable[[Clone, str], str]
# What changes a record of the branch's own without committing: the change's truth, {} for none.
Changing = Callable[[Clone], Model | None]


class Integrator:
    def __init__(
        self,
        rng: random.Random,
        kinds: tuple[str, ...],
        deltas: dict[str, Model],
        tally: Tally,
        stashing: Stashing | None = None,
        stacking: Stacking | None = None,
        changing: Changing | None = None,
    ) -> None:
        """`deltas`: by commit, the truth of the records it changed, as the local work made it;
        `stashing` runs the stash kinds; `stacking` starts a stack where a stacked rebase finds
        none; `changing` makes the change of a merge with a change of its own."""
        self.rng = rng
        self.kinds = kinds
        self.deltas = deltas
        self.tally = tally
        self.stashing = stashing
        self.stacking = stacking
        self.changing = changing
        self.origin: Model = {}  # the truth of the origin's main, as last pushed
        self.moved: list[str] = []  # the branches the last integration moved besides its own

    def integrate(self, clone: Clone) -> None:
        """One integration of a kind drawn; a clone without branches pulls or pushes."""
        branches = [b for b in clone.models if b != "main"]
        kind = self.rng.choice(self.kinds)
        if not branches and kind not in (*PULLS, "push", *STASH_KINDS):
            kind = "pull"
        if kind in STASH_KINDS and self.stashing:
            return self.stashing(clone, kind, self.origin)
        other = self.rng.choice(branches) if branches else ""
        self.moved = []
        if kind == "rebase --update-refs":
            other = self.stack_top(clone, branches) or other
        if kind in REBASE_ARGS:
            clone.checkout(other)
            tips = {b: clone.must("rev-parse", b).strip() for b in branches if b != other}
            self.run(clone, kind, REBASE_ARGS[kind], [clone.models["main"]])
            self.moved = [b for b, tip in tips.items() if clone.must("rev-parse", b).strip() != tip]
            for branch in self.moved:  # rebased onto main with the branch stacked on them
                clone.models[branch] = join(clone.models[branch], clone.models["main"])
                self.tally.integrations["branch moved by a stacked rebase"] += 1
            return
        clone.checkout("main")
        self.onto_main(clone, kind, branches, other)

    def stack_top(self, clone: Clone, branches: list[str]) -> str:
        """A branch with another stacked under it (its tip among their commits main lacks), or
        one started for it on a branch holding commits main lacks; "" when there is neither."""
        unmerged = {b: set(clone.must("rev-list", f"main..{b}").split()) for b in branches}
        tips = {b: clone.must("rev-parse", b).strip() for b in branches}
        tops = [
            top
            for top in branches
            if any(tips[b] in unmerged[top] and tips[b] != tips[top] for b in branches)
        ]
        if tops:
            return self.rng.choice(tops)
        bases = [b for b in branches if unmerged[b]]
        if not bases or not self.stacking:
            return ""
        top = self.stacking(clone, self.rng.choice(bases))
        if top:
            branches.append(top)
        return top

    def onto_main(self, clone: Clone, kind: str, branches: list[str], other: str) -> None:
        """An integration of `kind` run on main, taking in branch `other` (or two `branches`)."""
        if kind in WHOLE_BRANCH_PICKS and clone.must("rev-list", "--merges", f"main..{other}"):
            # A merge commit can hold changes of its own (a squash git amended into it, a
            # resolution), which neither a pick nor a mailed patch of the branch's other commits
            # carries: the branch's truth would not be what arrives. A team merges it.
            self.tally.integrations[f"{kind} of a branch holding a merge, merged"] += 1
            kind = "merge"
        if kind in ("merge", "merge --no-ff"):
            self.run(
                clone,
                kind,
                ["merge", "-q", "--no-edit", *kind.split()[1:], other],
                [clone.models[other]],
            )
        elif kind == "merge --squash":
            self.merge_squash(clone, other)
        elif kind == "octopus" and len(branches) >= 2:
            self.octopus(clone, branches)
        elif kind.startswith("merge --no-commit"):
            self.merge_no_commit(clone, other, kind)
        elif kind == "cherry-pick change":
            self.cherry_pick_change(clone)
        elif kind == "cherry-pick --no-commit":
            self.cherry_pick_uncommitted(clone, other)
        elif kind.startswith("cherry-pick"):
            (self.cherry_pick if kind == "cherry-pick" else self.cherry_pick_range)(clone, other)
        elif kind == "am":
            self.apply_patches(clone, other)
        elif kind in PULLS:
            self.pull(clone, kind)
        else:
            self.push(clone)  # an octopus with a single branch to merge pushes instead

    def merge_squash(self, clone: Clone, other: str) -> None:
        squashed = self.run(
            clone, "merge --squash", ["merge", "-q", "--squash", other], [clone.models[other]]
        )
        if squashed and clone.git("diff", "--cached", "--quiet").returncode:
            clone.must("commit", "-q", "--no-verify", "--no-edit")  # git's own message

    def octopus(self, clone: Clone, branches: list[str]) -> None:
        pair = self.rng.sample(branches, 2)
        self.run(
            clone, "octopus", ["merge", "-q", "--no-edit", *pair], [clone.models[b] for b in pair]
        )

    def merge_no_commit(self, clone: Clone, other: str, kind: str) -> None:
        """The merge stopped before its commit, then committed; with a change, one of main's own
        records changed first, which the merge commit holds as its own."""
        merged = self.run(
            clone,
            kind,
            ["merge", "-q", "--no-commit", "--no-ff", other],
            [clone.models[other]],
        )
        if not merged or not (clone.path / ".git" / "MERGE_HEAD").exists():
            return
        change = self.changing(clone) if self.changing and kind.endswith("change") else None
        if change:
            clone.must("add", "-A")
        clone.must("commit", "-q", "--no-edit")
        if change:
            clone.models[clone.branch] = join(clone.models[clone.branch], change)

    def pull(self, clone: Clone, kind: str) -> None:
        flag = kind.split()[1] if " " in kind else "--no-rebase"
        self.run(clone, kind, ["pull", "-q", flag, "--no-edit", "origin", "main"], [self.origin])

    def cherry_pick(self, clone: Clone, other: str) -> None:
        """One commit of the branch main lacks that stored records and changed none."""
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

    def cherry_pick_uncommitted(self, clone: Clone, other: str) -> None:
        """As a pick of the range, without a commit per pick (`cherry-pick --no-commit`); then
        the user commits what the picks left, whose hook repairs."""
        shas = clone.must("rev-list", "--reverse", "--no-merges", f"main..{other}").split()
        args = ["cherry-pick", "--no-commit", *shas]
        picked = shas and self.run(clone, "cherry-pick --no-commit", args, [clone.models[other]])
        if picked and clone.git("diff", "--cached", "--quiet").returncode:
            clone.must("commit", "-q", "-m", f"pick {other}")

    def apply_patches(self, clone: Clone, other: str) -> None:
        """The branch's commits main lacks, as `format-patch` mails them (no merges), applied by
        `git am -3`: as a pick of the range, the branch's every change arrives."""
        mailed = clone.must("format-patch", "--stdout", f"main..{other}")
        if mailed:
            mailbox = clone.path.parent / f"{clone.name}-patches.mbox"
            mailbox.write_text(mailed, encoding="utf-8")
            self.run(clone, "am", ["am", "-q", "-3", str(mailbox)], [clone.models[other]])

    def push(self, clone: Clone) -> None:
        """Push main; refused, pull the origin's main first and push again. Stopped by the
        pre-push hook, which committed a repair the push would have left behind, push again."""
        pushed = clone.git("push", "-q", "origin", "main")
        if pushed.returncode and "legion-memory: stopped the push" in pushed.stderr:
            self.tally.integrations["push stopped for a repair"] += 1
            pushed = clone.git("push", "-q", "origin", "main")
        if pushed.returncode:
            self.run(
                clone,
                "pull",
                ["pull", "-q", "--no-rebase", "--no-edit", "origin", "main"],
                [self.origin],
            )
            if clone.git("push", "-q", "origin", "main").returncode:
                return
        self.tally.integrations["push"] += 1
        self.origin = dict(clone.models["main"])

    def run(self, clone: Clone, kind: str, args: list[str], incoming: list[Model]) -> bool:
        return run_integration(self.tally, clone, kind, args, incoming)

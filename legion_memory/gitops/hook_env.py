"""What the hooks and the octopus strategy tell the tool they start: the environment variables
each sets for `doctor` and the merge driver, and the note the post-commit hook keeps in the git
directory between git commands (`gitops/hook.sh`). Here apart, so that a module reading one of them
imports no git code; `upkeep.clean_scan` repeats those its scan reads, held equal by a test."""

REWRITTEN_ENV = "LEGION_MEMORY_REWRITTEN"
"""The commits a rebase rewrote (their old names), set by the post-rewrite hook for doctor."""

REPLAYED_AS_ENV = "LEGION_MEMORY_REWRITTEN_AS"
"""The commits a rebase wrote (their new names), set by the post-rewrite hook after a rebase."""

PICKED_ENV = "LEGION_MEMORY_PICKED"
"""The commit a cherry-pick just replayed onto HEAD^, set by the post-commit hook."""

REVERTED_ENV = "LEGION_MEMORY_REVERTED"
"""Set by the post-commit hook of a revert: its two sides, the commit it was made on (HEAD^, or
where a sequence of reverts started) and the commit it went back to, whose patterns say what each
reference meant (docs/decisions.md#reverts)."""

CONCLUDED_ENV = "LEGION_MEMORY_MERGE_CONCLUDED"
"""Set by the post-commit hook of the commit that concludes a stopped merge or squash (`git
commit` after resolving it), to its sides: the merge's parents; the commit the squash was made
on and the newest commit git's squash message lists. A resolution that took one side's whole
memory file (`git checkout --theirs`, a client's "use theirs") dropped the records only the
other side added (docs/decisions.md#nothing-lost)."""

RECHECK_ENV = "LEGION_MEMORY_RECHECK"
"""Set by the post-merge hook, to the merge's sides (its parents, every one of an octopus merge;
or HEAD and the newest commit of a squash), when a side's memory files ended as the base had
them though its history changed them: git then took the other side's files whole, unweighed.
The octopus strategy sets it for each step it has doctor weigh, to HEAD and the branches merged
so far: no MERGE_HEAD or parent names them while the step runs."""

BOTH_SIDES_ENV = "LEGION_MEMORY_BOTH_SIDES"
"""Set by the post-merge hook when both parents changed memory since their base: git may have
taken one file whole from each (the driver never ran), a pattern from one side still citing an
outcome by the number the other side has since changed."""

COMMITTED_ENV = "LEGION_MEMORY_COMMITTED"
"""Set by the post-commit hook of a plain commit after which one ID is on two rows: a stash
applied over a teammate's record of that ID, which git took whole without the merge driver (the
teammate's record archived there). What the commit brought is one side, its parent the other."""

APPLIED_ENV = "LEGION_MEMORY_PATCH_APPLIED"
"""Set by the post-applypatch hook: HEAD is the commit `git am` just made of the patch."""

MAIL_AHEAD_ENV = "LEGION_MEMORY_MAIL_AHEAD"
"""Set by the post-applypatch hook for the merge driver it runs to foresee a later mail of the
series: that mail's number in `rebase-apply`. The driver weighs it as the mail being applied and
notes nothing (no merge log, no stash note): git has not merged it yet."""

PICKED_ONTO_ENV = "LEGION_MEMORY_PICKED_ONTO"
"""HEAD before the first of several commits picked at once, set by the post-commit hook."""

PICKED_TIP_ENV = "LEGION_MEMORY_PICKED_TIP"
"""The last commit a sequence of picks wrote, set by the post-commit hook of the commit after it
when the sequence ended with picks git skipped (no hook ran then): what the picks wrote ends
there. HEAD otherwise."""

PICK_SEQUENCE_NAME = "legion-memory-pick-sequence"
"""In the git directory, the post-commit hook's note of a sequence of picks under way: where it
started, then a line per pick, the last commit the sequence picks and the commit just written."""

OURS_ENV = "LEGION_MEMORY_OURS"
"""Set by the octopus strategy for each of its steps: the commit that step merges into, which is
ours in place of HEAD (docs/decisions.md#octopus-merges)."""

REBASE_ONTO_ENV = "LEGION_MEMORY_REBASE_ONTO"
"""What the rebase was replayed onto, set by its post-rewrite hook for the run that repairs a
branch `--update-refs` moved, in a scratch worktree that holds no rebase state: the parent of
the first commit written is no stand-in (`gitops.rebase_state.rebase_onto`)."""

REBASE_STARTED_ENV = "LEGION_MEMORY_REBASE_STARTED"
"""The tip a branch `--update-refs` moved had before the rebase, set by its post-rewrite hook for
the run that repairs that branch: the scratch worktree has no ORIG_HEAD, and the rebase's own
tip before (`rebase-merge/orig-head`) is the checked-out branch's, not this one's
(`gitops.rebase_state.rebase_started_from`)."""

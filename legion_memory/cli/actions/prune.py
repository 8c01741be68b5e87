"""What `prune` does: move old, low-importance outcomes from OUTCOMES.md into ARCHIVE.md; a plain
function of the Context and the command's options, run by the lean dispatcher (`/legion:retro`)."""

from __future__ import annotations

from legion_memory.cli.context import Context
from legion_memory.cli.output import emit, note, write_lines
from legion_memory.project.root import current_phase, milestone_start
from legion_memory.storage import leftovers
from legion_memory.upkeep import prune as pruning
from legion_memory.upkeep.prune_preview import Preview, preview
from legion_memory.wording import count_of


def prune(
    context: Context,
    dry_run: bool = False,
    yes: bool = False,
    age_days: int | None = None,
    threshold: int | None = None,
) -> None:
    """Archive outcomes older than the age with importance 1-3, outside the current phase."""
    settings = context.settings
    if not settings.enabled:
        note("Memory is disabled (memory.enabled is false in settings.json); nothing to prune.")
        emit(context, {"status": "disabled"}, "")
        return
    if not dry_run:
        restored = leftovers.recover(context.memory)
        if restored:
            note(f"Rolled back an interrupted change: restored {', '.join(restored)}")
    phase = current_phase(context.root)
    if phase is None:
        note(pruning.NO_PHASE_WARNING)
    age = settings.prune_age_days if age_days is None else age_days
    since = milestone_start(context.root) if phase is not None else None
    criteria = pruning.Criteria(context.today, age, phase, since)
    limit = settings.prune_threshold if threshold is None else threshold
    facts: dict[str, object] = {"threshold": limit, "age_days": age, "current_phase": phase}
    if dry_run:
        _dry_run(context, preview(context.memory, criteria), facts, limit)
        return
    _apply(context, criteria, facts, None if yes else limit)


def _apply(
    context: Context, criteria: pruning.Criteria, facts: dict[str, object], applies: int | None
) -> None:
    try:
        plan = pruning.prune(
            context.memory, criteria, default_branch=context.default_branch, threshold=applies
        )
    except pruning.PruneFailed as failed:
        human = "Prune failed; nothing was archived. The records that were to be archived:\n\n"
        rows = {"not_archived": list(failed.ids), "rows": failed.listing.splitlines()}
        emit(context, {"status": "failed", **facts, **rows}, human + failed.listing)
        raise
    facts = _facts(plan, facts)
    if not plan.over(applies):
        _under_threshold(context, plan, facts)
        return
    report = plan.report(applied=True)
    status = "pruned" if report.archived else "nothing-eligible"
    human = report.text(pruning.archive_shown(context.memory))
    emit(context, {"status": status, **facts, **report.to_json()}, human)


def _facts(plan: pruning.Plan | Preview, facts: dict[str, object]) -> dict[str, object]:
    return {"record_count": plan.total, **facts, "candidates": list(plan.candidate_ids)}


def _dry_run(context: Context, plan: Preview, facts: dict[str, object], limit: int) -> None:
    facts = _facts(plan, facts)
    data = {"status": "dry-run", **facts, **plan.report().to_json()}
    if context.json or not plan.candidate_ids:
        emit(context, data, pruning.NO_ELIGIBLE)
        return
    count = len(plan.candidate_ids)
    shown = pruning.archive_shown(context.memory)
    print(f"Would prune {count_of(count, 'record')} → {shown} (dry run: nothing changed)\n")
    # Row by row, never joined into one text: a dry run can list most of a large file.
    write_lines(plan.listing())
    if not plan.over(limit):
        print(
            f"\nOUTCOMES.md has {count_of(plan.total, 'record')}, at or under the prune "
            f"threshold of {limit}: a real run prunes only with --yes."
        )


def _under_threshold(context: Context, plan: pruning.Plan, facts: dict[str, object]) -> None:
    human = (
        f"OUTCOMES.md has {count_of(plan.total, 'record')}, at or under the prune threshold of "
        f"{facts['threshold']}: nothing was pruned ({len(plan.candidates)} eligible). "
        "Run `legion-memory prune --yes` to prune anyway, or `--dry-run` to list them."
    )
    emit(context, {"status": "under-threshold", **facts, **_unchanged(plan)}, human)


def _unchanged(plan: pruning.Plan) -> dict[str, object]:
    return plan.report(applied=False).to_json()

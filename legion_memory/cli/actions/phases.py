"""What `compact` (and its `--check` and `--list-uncompacted` forms), `phase-context` and
`detect-edits` do: plain functions of the Context and the command's options.

No typer here: `/legion:plan`, `/legion:review` and `/legion:build` run these at every step, so
the lean dispatcher and the typer app call them alike, through `hot_commands.run`. The phase
modules are imported inside the functions: every other command starts without them.
"""

from __future__ import annotations

from pathlib import Path

from legion_memory.cli.context import Context
from legion_memory.cli.output import emit, markdown_table, note
from legion_memory.errors import InputError
from legion_memory.named_tuple import NamedTuple
from legion_memory.project.root import current_phase

TYPE_CHECKING = False  # not typing's: docs/decisions.md#hot-paths-without-typing
if TYPE_CHECKING:
    from typing import Any

    from legion_memory.project.catalog import Catalog
    from legion_memory.project.compaction_check import CheckReport


class CompactOptions(NamedTuple):
    phase: str | None = None
    check: bool = False
    list_uncompacted: bool = False
    exclude_current: bool = False
    dry_run: bool = False
    force: bool = False


def compact(context: Context, **options: Any) -> int:
    """Write a phase's {NN}-COMPACTED.md from its SUMMARY and PLAN files, or check it, or list
    the completed phases not compacted yet; 1 when a check fails."""
    from legion_memory.project.phases import phase_selector

    given = CompactOptions(**options)
    _require_combination(given)
    if given.list_uncompacted:
        _list_uncompacted(context, given.exclude_current)
        return 0
    phase_selector(given.phase or "")
    if given.check:
        return _check(context, given.phase or "")
    _compact(context, given.phase or "", dry_run=given.dry_run, force=given.force)
    return 0


def _require_combination(given: CompactOptions) -> None:
    listing, check = given.list_uncompacted, given.check
    if listing and (given.phase is not None or check or given.dry_run or given.force):
        raise InputError(
            "--list-uncompacted takes no PHASE and no other option but --exclude-current"
        )
    if given.exclude_current and not listing:
        raise InputError("--exclude-current only goes with --list-uncompacted")
    if check and (given.dry_run or given.force):
        raise InputError("--check takes no --dry-run or --force")
    if not listing and given.phase is None:
        raise InputError("missing PHASE", hint="e.g. `legion-memory compact 6`")


def _compact(context: Context, selector: str, *, dry_run: bool, force: bool) -> None:
    from legion_memory.project import compaction

    done = compaction.compact(
        context.root, selector, context.today, force=force, dry_run=dry_run,
        catalog=_catalog(context),
    )  # fmt: skip
    shown = _shown(context, done.path)
    check = {**done.report.to_json(), "file": shown}
    data = {"file": shown, "written": done.written, "text": done.text, "check": check}
    report = _report_lines(done.report, shown)
    if dry_run:
        emit(context, data, done.text)
        if not context.json:
            for line in [f"dry run: {shown} not written", *report[1:]]:
                note(line)
        return
    human = "\n".join([f"wrote {shown}", *report[1:]])
    emit(context, data, human)


def _check(context: Context, selector: str) -> int:
    from legion_memory.project import compaction_check

    report = compaction_check.check(context.root, selector, _catalog(context))
    shown = _shown(context, report.path)
    emit(context, {**report.to_json(), "file": shown}, "\n".join(_report_lines(report, shown)))
    return 0 if report.ok else 1


def _report_lines(report: CheckReport, shown: str) -> list[str]:
    found_ids = report.requirements_total - len(report.missing_requirements)
    found_files = report.files_total - len(report.missing_files)
    lines = [
        f"checked {shown}",
        f"requirement IDs: {found_ids}/{report.requirements_total} present",
        f"file paths: {found_files}/{report.files_total} present",
        f"length: {report.percent}% of the original summaries "
        f"({report.compacted_chars} of {report.original_chars} characters)",
    ]
    lines += [f"missing requirement ID: {found}" for found in report.missing_requirements]
    lines += [f"missing file path: {found}" for found in report.missing_files]
    lines += [f"missing front-matter: {key}" for key in report.missing_front_matter]
    lines += [f"placeholder left: {found}" for found in report.placeholders]
    lines += [f"passed but not in requirements_satisfied: {found}" for found in report.unsatisfied]
    lines += [f"warning: {warning}" for warning in report.warnings]
    lines.append("check passed" if report.ok else "check failed")
    return lines


def _list_uncompacted(context: Context, exclude_current: bool) -> None:
    from legion_memory.project import compaction

    exclude = current_phase(context.root) if exclude_current else None
    if exclude_current and exclude is None:
        note("note: no current phase found in .planning/STATE.md; none excluded")
    found = compaction.uncompacted(context.root, exclude=exclude)
    rows = [(item.name, item.directory.name, item.summaries) for item in found]
    suggestions = [item.suggestion for item in found]
    human = (
        "\n\n".join([markdown_table(["Phase", "Directory", "Summaries"], rows), *suggestions])
        if found
        else "No completed phase has uncompacted summaries."
    )
    data = {"phases": [item.to_json() for item in found], "suggestions": suggestions}
    emit(context, data, human)


def phase_context(context: Context, phase: str) -> None:
    """A phase's COMPACTED.md when present, else its SUMMARY files in plan order."""
    from legion_memory.project import compaction
    from legion_memory.project.phases import PhaseNotFound, phase_selector

    phase_selector(phase)
    number = _phase_value(phase)
    try:
        files, text = compaction.phase_context(context.root, phase)
    except PhaseNotFound as missing:
        # A reading command with nothing to read answers with nothing (exit 0), as recall does.
        files, text = [], ""
        note(f"note: {missing.line()}; nothing to show")
    else:
        if not files:
            note(f"note: phase {number} has no SUMMARY files yet")
    source = "compacted" if files and files[0].name.endswith("-COMPACTED.md") else "summaries"
    data = {
        "phase": number,
        "source": source,
        "files": [_shown(context, path) for path in files],
        "text": text,
    }
    emit(context, data, text)


def detect_edits(context: Context, phase: str, record: bool = False) -> None:
    """Files changed in the working tree (git diff) that the phase's agents modified."""
    from legion_memory.project import manual_edits
    from legion_memory.project.phases import find_phase, phase_selector

    phase_selector(phase)
    number = find_phase(context.root, phase).number
    found = manual_edits.detect(context.root, phase, _catalog(context))
    items = [edit.to_json() for edit in found]
    lines = []
    if record and found and not context.settings.enabled:
        note("note: memory.enabled is false in settings.json; nothing recorded")
    elif record and found:
        divisions = manual_edits.division_tags(_catalog(context))
        results = manual_edits.record(
            context.memory, found, number, context.today, context.branch, divisions
        )
        for item, result in zip(items, results, strict=True):
            item["preference"] = result.record.id
            item["already_recorded"] = not result.new
            verb = "recorded" if result.new else "already recorded as"
            lines.append(f"{verb} {result.record.id}: {result.edit.path}")
    rows = [(edit.path, edit.plan, edit.agent, edit.lines) for edit in found]
    table = markdown_table(["File", "Plan", "Agent", "Change"], rows)
    human = (
        "\n\n".join([table, "\n".join(lines)]).strip()
        if found
        else (f"No manual edits to files modified by phase {number}'s agents.")
    )
    emit(context, {"phase": number, "edits": items}, human)


def _catalog(context: Context) -> Catalog | None:
    """CATALOG.md, found as for every command (docs/decisions.md#where-catalog-md-comes-from);
    None without one."""
    return context.catalog


def _phase_value(selector: str) -> int | str:
    """The PHASE shown in JSON: the number when a number was given, else the name given."""
    return int(selector) if selector.strip().isdigit() else selector.strip()


def _shown(context: Context, path: Path) -> str:
    try:
        return str(path.resolve().relative_to(context.root))
    except ValueError:
        return str(path)

"""One record held twice (two IDs, or live and archived) and a damaged ARCHIVE.md: `validate`
and `doctor` report them, `doctor --fix` repairs them by the identity rules."""

from __future__ import annotations

from pathlib import Path

from support.gitrepos import error_row, outcome_row, pattern_row
from support.processes import CLI

from legion_memory.schema.kinds import (
    ERROR_FIX,
    OUTCOME,
    PATTERN,
    PREFERENCE,
    archive_section_lines,
    archive_template,
)

MEMORY = Path(".planning/memory")


def _write(repo: Path, name: str, text: str) -> None:
    path = repo / MEMORY / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _read(repo: Path, name: str) -> str:
    return (repo / MEMORY / name).read_text(encoding="utf-8")


def _section(kind_rows: str, kind: object) -> str:
    return "\n" + "\n".join(archive_section_lines(kind)) + "\n" + kind_rows  # type: ignore[arg-type]


def test_the_same_record_under_two_ids_is_kept_once_under_the_lower(cli: CLI, repo: Path) -> None:
    """A cherry-picked record that came back with the branch under another ID."""
    outcomes = OUTCOME.template() + outcome_row(2, "picked") + outcome_row(3, "picked")
    _write(repo, "OUTCOMES.md", outcomes)
    _write(repo, "PATTERNS.md", PATTERN.template() + pattern_row(1, "p", "O-003", "main"))
    checked = cli("validate", cwd=repo)
    assert checked.code == 1
    assert checked.stdout.splitlines()[0] == (
        ".planning/memory/OUTCOMES.md:11: error: O-003 is the same record as O-002 at "
        ".planning/memory/OUTCOMES.md:10"
    )
    fixed = cli("doctor", "--fix", cwd=repo)
    assert fixed.stdout == (
        "repaired .planning/memory/OUTCOMES.md:11: removed O-003, the same record as O-002\n"
        "repaired .planning/memory/PATTERNS.md:10: P-001 Source O-003 -> O-002\n"
        "memory repaired\n"
    )
    assert _read(repo, "OUTCOMES.md") == OUTCOME.template() + outcome_row(2, "picked")
    assert _read(repo, "PATTERNS.md") == PATTERN.template() + pattern_row(1, "p", "O-002", "main")
    assert cli("doctor", cwd=repo).stdout == "memory is healthy\n"
    assert cli("validate", cwd=repo).code == 0


def test_archiving_wins_over_a_stale_live_copy(cli: CLI, repo: Path) -> None:
    _write(repo, "ARCHIVE.md", archive_template() + outcome_row(1, "forgotten"))
    _write(repo, "OUTCOMES.md", OUTCOME.template() + outcome_row(1, "forgotten"))
    assert cli("doctor", cwd=repo).stdout.splitlines()[0] == (
        ".planning/memory/OUTCOMES.md:10: O-001 is live and archived at once "
        "(archived at .planning/memory/ARCHIVE.md:10)"
    )
    assert cli("doctor", "--fix", "--quiet", cwd=repo).code == 0
    assert _read(repo, "OUTCOMES.md") == OUTCOME.template()
    assert _read(repo, "ARCHIVE.md") == archive_template() + outcome_row(1, "forgotten")


def test_an_error_updated_live_while_archived_keeps_the_update_in_the_archive(
    cli: CLI, repo: Path
) -> None:
    section = _section(error_row(1, "disk full"), ERROR_FIX)
    _write(repo, "ARCHIVE.md", archive_template() + section)
    updated = error_row(1, "disk full", fix="free space", resolved="true")
    _write(repo, "ERRORS.md", ERROR_FIX.template() + updated)
    fixed = cli("doctor", "--fix", cwd=repo)
    assert fixed.code == 0, fixed.stderr
    assert _read(repo, "ERRORS.md") == ERROR_FIX.template()
    assert _read(repo, "ARCHIVE.md") == archive_template() + _section(updated, ERROR_FIX)
    assert cli("doctor", cwd=repo).stdout == "memory is healthy\n"


def test_a_doubled_or_misfiled_archive_section_is_reported(cli: CLI, repo: Path) -> None:
    preference = (
        "| D-001 | 2026-03-01 | main | agent-selection | c | p | u | accepted | coder | |\n"
    )
    archive = (
        archive_template()
        + _section(pattern_row(1, "p", "O-001") + preference, PATTERN)
        + _section("", PREFERENCE)
        + _section("", PREFERENCE)
    )
    _write(repo, "ARCHIVE.md", archive)
    _write(repo, "OUTCOMES.md", OUTCOME.template())
    lines = cli("doctor", cwd=repo).stdout.splitlines()
    assert lines == [
        ".planning/memory/ARCHIVE.md:16: D-001 is a preference under '## Archived Patterns'",
        ".planning/memory/ARCHIVE.md:25: section '## Archived Preferences' appears again "
        "(first at line 20)",
        "2 problems need repair (run `legion-memory doctor --fix`)",
    ]
    checked = cli("validate", cwd=repo).stdout.splitlines()
    assert (
        ".planning/memory/ARCHIVE.md:16: error: D-001 is a preference under '## Archived Patterns'"
        in checked
    )
    assert (
        ".planning/memory/ARCHIVE.md:25: error: section '## Archived Preferences' appears again "
        "(first at line 20)"
    ) in checked


def test_a_live_copy_restored_later_keeps_over_the_archived_one_and_its_section_goes(
    repo: Path,
) -> None:
    """The history said the live copy is the later state (`later_state`): the archived copy goes,
    and with it the patterns' archive section it leaves empty, as `restore` removes it."""
    from legion_memory.storage.reading import Memory
    from legion_memory.upkeep.renumbering import memory_files
    from legion_memory.upkeep.twin_repair import twin_plan

    pattern = pattern_row(1, "p", "O-001", "main")
    _write(repo, "ARCHIVE.md", archive_template() + _section(pattern, PATTERN))
    _write(repo, "PATTERNS.md", PATTERN.template() + pattern)
    memory = Memory.of_project(repo)
    texts = {
        path: path.read_text(encoding="utf-8") if path.exists() else None
        for path in memory_files(memory)
    }

    plan = twin_plan(memory, texts, restored={"P-001"})

    assert plan.texts(texts) == {memory.archive: archive_template()}
    assert plan.repairs == [
        f"{memory.archive}:15: removed the archived copy of P-001, restored since it was archived"
    ]
    assert twin_plan(memory, texts).texts(texts) == {
        memory.path(PATTERN): PATTERN.template(),
    }


def test_a_record_an_integration_dropped_is_put_back_in_its_section_under_a_free_id(
    repo: Path,
) -> None:
    from legion_memory.storage.reading import Memory
    from legion_memory.upkeep.lost_records import dropped, put_back

    memory = Memory.of_project(repo)
    archived = archive_template() + _section(pattern_row(1, "gone", ""), PATTERN)
    ours = {memory.archive: archived, memory.path(PATTERN): PATTERN.template()}
    now = {
        memory.archive: archive_template(),
        memory.path(PATTERN): PATTERN.template() + pattern_row(1, "new", ""),
    }
    versions = {"base": {}, "ours": ours, "theirs": {}}

    lost = dropped(memory, now, versions, "ours", "theirs")
    changed, done = put_back(memory, now, lost)

    assert [(item.row["id"], item.side, item.archived) for item in lost] == [
        ("P-001", "ours", True)
    ]
    assert changed == {
        memory.archive: archive_template() + _section(pattern_row(2, "gone", ""), PATTERN)
    }
    assert done == [f"{memory.archive}: put back P-002 (archived, as ours holds it)"]


def test_a_dropped_record_held_live_and_archived_comes_back_as_the_later_side_holds_it(
    repo: Path,
) -> None:
    from legion_memory.storage.reading import Memory
    from legion_memory.upkeep.lost_records import dropped

    memory = Memory.of_project(repo)
    archived = {
        memory.archive: archive_template() + _section(pattern_row(1, "kept", ""), PATTERN),
        memory.path(PATTERN): PATTERN.template(),
    }
    live = {memory.path(PATTERN): PATTERN.template() + pattern_row(1, "kept", "")}
    now = {memory.archive: archive_template(), memory.path(PATTERN): PATTERN.template()}
    versions = {"base": archived, "ours": archived, "theirs": live}
    asked: list[str] = []

    def later(text: str) -> str:
        asked.append(text)
        return "theirs"

    chosen = dropped(memory, now, versions, "ours", "theirs", later)
    unsaid = dropped(memory, now, versions, "ours", "theirs")

    assert [(item.side, item.archived) for item in chosen] == [("theirs", False)]
    assert [(item.side, item.archived) for item in unsaid] == [("ours", True)]
    # Asked of the row as history finds it: after its ID, up to the cell citing a record.
    assert asked == ["| 2026-03-01 | main | kept | ctx | reuse |"]

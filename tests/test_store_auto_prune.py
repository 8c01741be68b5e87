"""`store outcome` then auto-prune, through the command line.

See docs/decisions.md#auto-prune-after-store-outcome.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.processes import CLI, read_bytes_of
from support.prune import TODAY, Disk, golden, project_from, without_lock

from legion_memory.schema.kinds import OUTCOME
from legion_memory.storage import writing
from legion_memory.upkeep.prune import NO_PHASE_WARNING

STORE = (
    "--today", TODAY, "store", "outcome", "--phase", "7", "--plan", "07-03", "--agent",
    "engineering-senior-developer", "--outcome", "success", "--summary", "Stored today",
    "--task-type", "backend", "--importance", "2",
)  # fmt: skip
ROW = (
    "| O-017 | 2026-06-30 | main | 7 | 07-03 | engineering-senior-developer | backend | success "
    "| 2 |  | Stored today |\n"
)
SHOWN = (
    "| ID | Date | Branch | Phase | Plan | Agent | Task Type | Outcome | Importance | Tags "
    "| Summary |\n"
    "|---|---|---|---|---|---|---|---|---|---|---|\n"
    "| O-017 | 2026-06-30 | main | 7 | 07-03 | engineering-senior-developer | backend | success "
    "| 2 |  | Stored today |\n"
)


def with_row(name: str) -> bytes:
    """A golden OUTCOMES.md with the stored row after its table's last row."""
    text = golden("mixed", name).decode("utf-8")
    last = [line for line in text.split("\n") if line.startswith("| O-")][-1] + "\n"
    return text.replace(last, last + ROW, 1).encode("utf-8")


def settings(repo: Path, **memory: object) -> None:
    (repo / "settings.json").write_text(json.dumps({"memory": memory}), encoding="utf-8")


def test_over_the_threshold_the_store_prunes_and_reports_on_stderr(cli: CLI, repo: Path) -> None:
    memory = project_from(repo, "mixed")
    settings(repo, auto_prune=True, prune_threshold=14)  # 14 records, 15 after the store
    result = cli(*STORE, cwd=repo)
    assert (result.code, result.stdout) == (0, SHOWN)
    assert result.stderr == (
        "Pruned 6 records → .planning/memory/ARCHIVE.md\n"
        "Remaining: 9 active records\n"
        "Preserved: 2 high-importance (4-5), 3 current-phase\n"
        "Archive total: 8 records\n"
    )
    assert memory.path(OUTCOME).read_bytes() == with_row("OUTCOMES.after.md")
    assert memory.archive.read_bytes() == golden("mixed", "ARCHIVE.after.md")


def test_under_json_stdout_is_the_record_alone(cli: CLI, repo: Path) -> None:
    project_from(repo, "mixed")
    settings(repo, auto_prune=True, prune_threshold=0)
    result = cli("--json", *STORE, cwd=repo)
    assert (result.code, json.loads(result.stdout)["id"]) == (0, "O-017")
    assert result.stderr.startswith("Pruned 6 records → .planning/memory/ARCHIVE.md\n")


@pytest.mark.parametrize(
    "memory_settings",
    [
        {},  # auto_prune is off by default
        {"auto_prune": False, "prune_threshold": 0},
        {"auto_prune": True, "prune_threshold": 15},  # 15 records after the store: not over
    ],
)
def test_the_store_alone_when_auto_prune_does_not_apply(
    cli: CLI, repo: Path, memory_settings: dict[str, object]
) -> None:
    memory = project_from(repo, "mixed")
    settings(repo, **memory_settings)
    result = cli(*STORE, cwd=repo)
    assert (result.code, result.stdout, result.stderr) == (0, SHOWN, "")
    assert memory.path(OUTCOME).read_bytes() == with_row("OUTCOMES.before.md")
    assert memory.archive.read_bytes() == golden("mixed", "ARCHIVE.before.md")


def test_a_dry_run_never_prunes(cli: CLI, repo: Path) -> None:
    project_from(repo, "mixed")
    settings(repo, auto_prune=True, prune_threshold=0)
    before = without_lock(read_bytes_of(repo))
    result = cli(*STORE, "--dry-run", cwd=repo)
    assert (result.code, result.stdout) == (0, SHOWN)
    assert result.stderr == "Dry run: nothing was stored (O-017 is the ID it would get now)\n"
    assert without_lock(read_bytes_of(repo)) == before


def test_without_a_current_phase_the_report_warns_first(cli: CLI, repo: Path) -> None:
    memory = project_from(repo, "mixed")
    (repo / ".planning" / "STATE.md").unlink()
    settings(repo, auto_prune=True, prune_threshold=0)
    result = cli(*STORE, cwd=repo)
    assert (result.code, result.stdout) == (0, SHOWN)
    assert result.stderr == (
        f"{NO_PHASE_WARNING}\n"
        "Pruned 7 records → .planning/memory/ARCHIVE.md\n"
        "Remaining: 8 active records\n"
        "Preserved: 2 high-importance (4-5), 0 current-phase\n"
        "Archive total: 9 records\n"
    )
    assert "| O-007 |" in memory.archive.read_text(encoding="utf-8")


def test_a_failed_auto_prune_is_a_warning_and_the_store_stands(
    cli: CLI, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory = project_from(repo, "mixed")
    settings(repo, auto_prune=True, prune_threshold=0)
    # Write 1 stores the row; then the prune's journal (2), ARCHIVE.md (3, fails), OUTCOMES.md.
    disk = Disk(fail={3})
    monkeypatch.setattr(writing, "atomic_write", disk)
    result = cli(*STORE, cwd=repo)
    assert (result.code, result.stdout) == (0, SHOWN)
    assert result.stderr == (
        f"Warning: auto-prune failed, nothing was archived: {memory.archive}: prune failed: "
        "could not write: No space left on device; every file was put back as it was, nothing "
        "changed (retry once the cause is fixed)\n"
    )
    assert disk.calls[:3] == ["OUTCOMES.md", ".legion-memory.journal", "ARCHIVE.md"]
    assert memory.path(OUTCOME).read_bytes() == with_row("OUTCOMES.before.md")
    assert memory.archive.read_bytes() == golden("mixed", "ARCHIVE.before.md")
    assert not memory.journal_path.exists()


def test_a_failed_store_never_prunes(cli: CLI, repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project_from(repo, "mixed")
    settings(repo, auto_prune=True, prune_threshold=0)
    before = without_lock(read_bytes_of(repo))
    disk = Disk(fail={1})
    monkeypatch.setattr(writing, "atomic_write", disk)
    result = cli(*STORE, cwd=repo)
    assert result.code == 3
    assert result.stdout.startswith("The record was not stored. Here it is in full")
    assert disk.calls == ["OUTCOMES.md"]
    assert without_lock(read_bytes_of(repo)) == before

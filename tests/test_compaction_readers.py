"""`compact` and `compact --check` say the same, byte for byte, whether the planning files are read
by the line reader or all by mistune: on the fixture phases and on every phase of the real Legion
repository (docs/decisions.md#outline-without-mistune)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from support.phases import TODAY, planning_project
from support.processes import CLI, REPO_ROOT, Result, read_bytes_of

from legion_memory.markdown import line_blocks

LEGION = REPO_ROOT.parent / "shared" / "legion"


def compact_and_check(cli: CLI, project: Path, numbers: list[str]) -> list[tuple[Result, ...]]:
    """For each phase: the check of no COMPACTED.md yet, `compact --force`, and its check."""
    runs: list[tuple[Result, ...]] = []
    for number in numbers:
        runs.append((
            cli("--root", str(project), "compact", "--check", number),
            cli("--root", str(project), "--today", TODAY, "compact", "--force", number),
            cli("--root", str(project), "--json", "compact", "--check", number),
        ))  # fmt: skip
    return runs


def both_readers(
    cli: CLI, monkeypatch: pytest.MonkeyPatch, project: Path, numbers: list[str]
) -> None:
    """The runs on a project, then on the same project as it was, the line reader doubting all."""
    pristine = project.with_name("pristine")
    shutil.copytree(project, pristine)
    lines = compact_and_check(cli, project, numbers)
    written = read_bytes_of(project)
    shutil.rmtree(project)
    shutil.copytree(pristine, project)
    with monkeypatch.context() as patched:
        patched.setattr(line_blocks, "plain_tokens", lambda markdown: None)
        by_mistune = compact_and_check(cli, project, numbers)
    assert lines == by_mistune
    assert written == read_bytes_of(project)
    assert [run[2].code for run in lines] == [0] * len(numbers)  # each phase was compacted


def test_the_fixture_phases_compact_and_check_alike_through_both_readers(
    cli: CLI, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    project = planning_project(tmp_path / "project")
    both_readers(cli, monkeypatch, project, ["1", "2", "3", "4", "5"])


@pytest.mark.slow
@pytest.mark.skipif(not LEGION.is_dir(), reason="../shared/legion is not present")
def test_every_real_phase_compacts_and_checks_alike_through_both_readers(
    cli: CLI, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    shutil.copytree(LEGION / ".planning", project / ".planning")
    for path in [project, *project.rglob("*")]:
        path.chmod(path.stat().st_mode | 0o200)  # the shared copy may be read-only
    phases = sorted(p.name for p in (project / ".planning" / "phases").iterdir() if p.is_dir())
    numbers = [str(int(name.partition("-")[0])) for name in phases]
    both_readers(cli, monkeypatch, project, numbers)

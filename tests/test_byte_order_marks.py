"""Planning files an editor saved with a UTF-8 byte order mark read as they do without one: the
mark would otherwise hide a SUMMARY's front matter, a compacted file's, and settings.json."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from support.phases import TODAY, phase_dir, planning_project
from support.processes import CLI, FIXTURES, read_bytes_of

from legion_memory.project.root import read_project_text
from legion_memory.project.summary_outcome import SummaryFacts, read_summary_facts

BOM = b"\xef\xbb\xbf"
FRONT_MATTER_STYLE = FIXTURES / "outcomes" / "summaries" / "12-front-matter"


def with_marks(*paths: Path) -> None:
    for path in paths:
        path.write_bytes(BOM + path.read_bytes())


def test_a_summary_and_its_plan_with_marks_give_the_same_facts(tmp_path: Path) -> None:
    directory = tmp_path / "12-front-matter"
    shutil.copytree(FRONT_MATTER_STYLE, directory)
    with_marks(directory / "12-03-SUMMARY.md", directory / "12-03-PLAN.md")
    assert read_summary_facts(directory / "12-03-SUMMARY.md") == SummaryFacts(
        plan="12-03",
        phase="12",
        agent="autonomous",
        outcome="failed",
        status="FAILED",
        summary="Signed release artifacts and a smoke test that runs on every tag.",
        tags="release-hardening, yml",
    )


def planning_files(project: Path) -> list[Path]:
    return sorted((project / ".planning").rglob("*.md"))


def test_compact_and_phase_context_read_through_the_marks(cli: CLI, tmp_path: Path) -> None:
    plain = planning_project(tmp_path / "plain")
    marked = planning_project(tmp_path / "marked")
    with_marks(*planning_files(marked))
    for project in (plain, marked):
        result = cli("--root", str(project), "--today", TODAY, "compact", "3")
        assert (result.code, result.stderr) == (0, "")
    name = ".planning/phases/03-invoice-pdf/03-COMPACTED.md"
    assert (marked / name).read_bytes() == (plain / name).read_bytes()
    assert not (marked / name).read_bytes().startswith(BOM)

    with_marks(marked / name)  # then saved by an editor that adds one
    for command in (("compact", "3", "--check"), ("phase-context", "3"), ("phase-context", "1")):
        shown = [cli("--root", str(project), *command) for project in (plain, marked)]
        assert (shown[1].code, shown[1].stdout) == (shown[0].code, shown[0].stdout)
        assert "\ufeff" not in shown[1].stdout
    summary = phase_dir(marked, "01-project-skeleton") / "01-01-SUMMARY.md"
    context = cli("--root", str(marked), "phase-context", "1").stdout
    assert context.startswith(
        "<!-- .planning/phases/01-project-skeleton/01-01-SUMMARY.md -->\n"
        + summary.read_bytes().removeprefix(BOM).decode("utf-8")
    )


def test_list_uncompacted_reads_the_current_phase_from_a_marked_state(
    cli: CLI, tmp_path: Path
) -> None:
    listed = []
    for mark in (b"", BOM):
        project = planning_project(tmp_path / f"project{len(mark)}")
        state = project / ".planning" / "STATE.md"
        state.write_bytes(mark + b"---\ncurrent_phase: 5\n---\n# Project State\n")
        command = ("--root", str(project), "compact", "--list-uncompacted", "--exclude-current")
        listed.append(cli(*command))
    assert "phase 5" not in listed[0].stdout.lower()
    assert (listed[1].code, listed[1].stdout) == (0, listed[0].stdout)


def test_a_marked_settings_file_is_read(cli: CLI, repo: Path) -> None:
    assert cli("init", cwd=repo).code == 0
    settings = repo / "settings.json"
    settings.write_bytes(BOM + json.dumps({"memory": {"prune_threshold": 2}}).encode("utf-8"))
    for plan in ("01-01", "01-02", "01-03"):
        stored = cli(*STORE_OUTCOME, plan, cwd=repo)
        assert (stored.code, stored.stderr) == (0, "")
    before = read_bytes_of(repo)
    result = cli("--today", TODAY, "recall", "outcomes", cwd=repo)
    # The threshold of 2 is the file's: the default of 200 would say nothing.
    assert (result.code, result.stderr) == (
        0,
        "OUTCOMES.md has 3 records. Run `/legion:learn --prune` to archive old entries, "
        "or enable `memory.auto_prune` in settings.json.\n",
    )
    assert read_bytes_of(repo) == before


STORE_OUTCOME = (
    "--today", TODAY, "store", "outcome", "--phase", "1", "--agent", "a", "--outcome", "success",
    "--summary", "done", "--task-type", "general", "--importance", "2", "--plan",
)  # fmt: skip


def test_a_project_file_reads_as_the_utf8_sig_codec_reads_it(tmp_path: Path) -> None:
    """The mark goes only where it opens the file; line endings read as universal newlines."""
    path = tmp_path / "CATALOG.md"
    for data in (BOM + b"# a\r\nb\xef\xbb\xbf\n", b"# a\rb\n", BOM, b"", BOM + BOM + b"x"):
        path.write_bytes(data)
        assert read_project_text(path) == path.read_text(encoding="utf-8-sig")
    path.write_bytes(BOM + b"# a\r\nb\xef\xbb\xbf\n")
    assert read_project_text(path) == "# a\nb\ufeff\n"

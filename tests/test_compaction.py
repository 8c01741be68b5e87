from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from support.phases import EXPECTED, REAL_SAMPLES, TODAY, phase_dir, planning_project
from support.processes import CLI, read_bytes_of, run_process

DIRECTORIES = {
    1: "01-project-skeleton",
    2: "02-auth-sessions",
    3: "03-invoice-pdf",
    4: "04-reporting",
    5: "05-export-api",
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return planning_project(tmp_path / "ledger")


def compacted(project: Path, number: int) -> Path:
    return phase_dir(project, DIRECTORIES[number]) / f"0{number}-COMPACTED.md"


def files_table(text: str) -> list[str]:
    """The File cells of the `## Files Modified` table."""
    section = text.split("## Files Modified\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.split("\n") if line.startswith("| ")][1:]
    return [row.split(" | ", 1)[0].removeprefix("| ") for row in rows]


@pytest.mark.parametrize("number", [1, 2, 3, 4, 5])
def test_compact_writes_the_golden_file_and_touches_nothing_else(
    cli: CLI, project: Path, number: int
) -> None:
    before = read_bytes_of(project)
    result = cli("--root", str(project), "--today", TODAY, "compact", str(number))
    assert (result.code, result.stderr) == (0, "")
    target = compacted(project, number)
    expected = (EXPECTED / target.name).read_text(encoding="utf-8")
    assert target.read_text(encoding="utf-8") == expected
    after = read_bytes_of(project)
    del after[str(target.relative_to(project))]
    assert after == before


@pytest.mark.parametrize(
    ("phase", "where"),
    [
        (".planning/phases/05-export-api/", "project"),  # as a shell completes it
        ("05-export-api/", "phases"),
        ("./05-export-api", "phases"),
    ],
)
def test_a_phase_named_by_its_directory_s_path_is_that_phase(
    cli: CLI, project: Path, phase: str, where: str
) -> None:
    cwd = project if where == "project" else project / ".planning" / "phases"
    result = cli("--root", str(project), "--today", TODAY, "compact", phase, cwd=cwd)
    assert (result.code, result.stderr) == (0, "")
    assert compacted(project, 5).read_text(encoding="utf-8") == _golden(5)


@pytest.mark.parametrize("phase", ["../05-export-api", "/tmp/05-export-api/", "x/05-export-api"])
def test_a_path_that_is_not_one_of_the_project_s_phase_directories_is_refused(
    cli: CLI, project: Path, phase: str
) -> None:
    before = read_bytes_of(project)
    result = cli("--root", str(project), "--today", TODAY, "compact", phase, cwd=project)
    assert (result.code, result.stdout) == (1, "")
    assert result.stderr == (
        f"Error: {project / '.planning' / 'phases'}: {phase} is not one of the project's phase"
        " directories (give a directory under .planning/phases/ or .planning/archive/, or its"
        " number)\n"
    )
    assert read_bytes_of(project) == before


def test_compact_reports_what_it_wrote(cli: CLI, project: Path) -> None:
    result = cli("--root", str(project), "--today", TODAY, "compact", "3")
    assert result.stdout == (
        "wrote .planning/phases/03-invoice-pdf/03-COMPACTED.md\n"
        "requirement IDs: 3/3 present\n"
        "file paths: 6/6 present\n"
        "length: 56% of the original summaries (1680 of 2974 characters)\n"
        "warning: length is 56% of the originals (target 30-50%)\n"
        "check passed\n"
    )


EVERY_SUMMARY_PATH = {
    1: [
        "pyproject.toml",
        "src/ledger/__init__.py",
        "src/ledger/cli.py",
        "Makefile",
        "tests/test_cli.py",
        "src/ledger/config.py",
        "tests/test_config.py",
        "docs/configuration.md",
    ],
    2: [
        "docs/adr/0002-sessions.md",
        "spikes/session_bench.py",
        "src/ledger/auth/sessions.py",
        "src/ledger/db/migrations/0003_sessions.sql",
        "src/ledger/app.py",
        "src/ledger/auth/views.py",
        "templates/login.html",
        "tests/test_auth.py",
        "src/ledger/auth/forms.py",  # in 02-02-PLAN.md files_modified only
    ],
    3: [
        "src/ledger/invoices/render.py",
        "templates/invoice.html",
        "src/ledger/invoices/routes.py",
        "src/ledger/invoices/numbering.py",
        "src/ledger/db/migrations/0004_invoice_numbers.sql",
        "tests/test_numbering.py",
    ],
    4: [
        "src/ledger/reports/revenue.py",
        "src/ledger/reports/__init__.py",
        "src/ledger/app.py",
        "src/ledger/reports/aging.py",
        "tests/test_aging.py",
        "src/ledger/cli.py",
    ],
    5: [
        "src/ledger/api/export.py",
        "src/ledger/api/__init__.py",
        "tests/test_export.py",
        "src/ledger/api/limits.py",
    ],
}


@pytest.mark.parametrize("number", [1, 2, 3, 4, 5])
def test_every_summary_path_has_one_row_in_the_files_table(number: int) -> None:
    text = (EXPECTED / f"0{number}-COMPACTED.md").read_text(encoding="utf-8")
    assert files_table(text) == EVERY_SUMMARY_PATH[number]


def test_non_file_tables_and_other_documents_add_no_rows() -> None:
    every = {path for number in DIRECTORIES for path in files_table(_golden(number))}
    assert not every & {
        "agents/engineering-rapid-prototyper.md",
        "engineering-rapid-prototyper",
        "data-analytics-engineer",
        "src/ledger/legacy_auth.py",
        "src/ledger/reports/export_xlsx.py",
    }


def _golden(number: int) -> str:
    return (EXPECTED / f"0{number}-COMPACTED.md").read_text(encoding="utf-8")


def test_requirements_from_roadmap_and_front_matter_but_not_cited_ones() -> None:
    text = _golden(3)
    assert "requirements_satisfied: [INV-01, INV-02, INV-03]\n" in text
    for requirement in ("INV-01", "INV-02", "INV-03"):
        assert f"- {requirement}: pass — 03-0" in text
    assert "AUTH-01" not in text
    assert "RPT-01" not in text


def test_a_failed_plan_fails_its_requirement_and_unclaimed_ones_are_unknown() -> None:
    text = _golden(5)
    assert "requirements_satisfied: [API-01, API-03]\n" in text
    assert "- API-02 (Export endpoints are rate limited): fail — 05-02\n" in text
    assert "- API-03: unknown — no plan summary claims it\n" in text
    assert "- 05-02: fail — Complete with Warnings; Tests: 41/42 pass;" in text


def test_dry_run_prints_the_text_and_writes_nothing(cli: CLI, project: Path) -> None:
    before = read_bytes_of(project)
    result = cli("--root", str(project), "--today", TODAY, "compact", "2", "--dry-run")
    assert result.code == 0
    assert result.stdout == _golden(2)
    assert result.stderr.startswith(
        "dry run: .planning/phases/02-auth-sessions/02-COMPACTED.md not written\n"
    )
    assert read_bytes_of(project) == before


def test_json_output_of_compact(cli: CLI, project: Path) -> None:
    result = cli("--root", str(project), "--today", TODAY, "--json", "compact", "4")
    data = json.loads(result.stdout)
    assert data["file"] == ".planning/phases/04-reporting/04-COMPACTED.md"
    assert data["written"] is True
    assert data["text"] == _golden(4)
    assert data["check"]["ok"] is True
    assert data["check"]["file"] == data["file"]


def test_existing_compacted_file_is_kept_unless_forced(cli: CLI, project: Path) -> None:
    target = compacted(project, 1)
    target.write_text("edited by an agent\n", encoding="utf-8")
    before = read_bytes_of(project)
    result = cli("--root", str(project), "--today", TODAY, "compact", "1")
    assert result.code == 1
    assert result.stderr == (
        f"Error: {target}: a compacted summary already exists (use --force to replace it)\n"
    )
    assert read_bytes_of(project) == before
    forced = cli("--root", str(project), "--today", TODAY, "compact", "1", "--force")
    assert forced.code == 0
    assert target.read_text(encoding="utf-8") == _golden(1)


def test_an_incomplete_phase_is_refused_unless_forced(cli: CLI, project: Path) -> None:
    roadmap = project / ".planning/ROADMAP.md"
    text = roadmap.read_text(encoding="utf-8")
    roadmap.write_text(text.replace("| 2/2 | Complete | 2026-03-01 |", "| 2/2 | Review | - |"))
    before = read_bytes_of(project)
    result = cli("--root", str(project), "--today", TODAY, "compact", "5")
    assert result.code == 1
    assert result.stderr == (
        "Error: phase 5 is not marked Complete in ROADMAP.md (status: Review) "
        "(use --force to compact it anyway)\n"
    )
    assert read_bytes_of(project) == before
    forced = cli("--root", str(project), "--today", TODAY, "compact", "5", "--force")
    assert forced.code == 0
    assert compacted(project, 5).read_text(encoding="utf-8") == _golden(5)


def test_a_missing_summary_is_refused_even_when_forced(cli: CLI, project: Path) -> None:
    before = read_bytes_of(project)
    for extra in ((), ("--force",), ("--force", "--dry-run")):
        result = cli("--root", str(project), "compact", "6", *extra)
        assert result.code == 1
        assert result.stderr == (
            f"Error: {phase_dir(project, '06-webhooks')}: phase 6 has no SUMMARY for plan "
            "06-02 (compact a phase only after all its plans have run)\n"
        )
        assert result.stdout == ""
    assert read_bytes_of(project) == before


@pytest.mark.parametrize("phase", ["../x", "../../etc/passwd", "02/auth", "2/../3"])
def test_path_traversal_in_phase_is_refused(cli: CLI, project: Path, phase: str) -> None:
    before = read_bytes_of(project)
    for command in (("compact", phase), ("compact", "--check", phase), ("phase-context", phase)):
        result = cli("--root", str(project), *command)
        assert (result.code, result.stdout) == (2, "")
        assert result.stderr == (
            f"Error: PHASE '{phase}' is not a phase (give a number (6), a directory name"
            " (06-name) or MILESTONE/N (v1.0/6))\n"
        )
    assert read_bytes_of(project) == before


@pytest.mark.parametrize(
    "args, message",
    [
        (("compact",), "missing PHASE (e.g. `legion-memory compact 6`)"),
        (
            ("compact", "1", "--list-uncompacted"),
            "--list-uncompacted takes no PHASE and no other option but --exclude-current",
        ),
        (
            ("compact", "1", "--exclude-current"),
            "--exclude-current only goes with --list-uncompacted",
        ),
        (("compact", "1", "--check", "--force"), "--check takes no --dry-run or --force"),
    ],
)
def test_bad_option_combinations_exit_2(
    cli: CLI, project: Path, args: tuple[str, ...], message: str
) -> None:
    before = read_bytes_of(project)
    result = cli("--root", str(project), *args)
    assert (result.code, result.stdout, result.stderr) == (2, "", f"Error: {message}\n")
    assert read_bytes_of(project) == before


def test_check_passes_on_the_tool_output(cli: CLI, project: Path) -> None:
    cli("--root", str(project), "--today", TODAY, "compact", "2")
    result = cli("--root", str(project), "compact", "--check", "2")
    assert result.code == 0
    assert result.stdout == (
        "checked .planning/phases/02-auth-sessions/02-COMPACTED.md\n"
        "requirement IDs: 3/3 present\n"
        "file paths: 9/9 present\n"  # 8 the SUMMARY files list, 1 only 02-02-PLAN.md lists
        "length: 75% of the original summaries (2144 of 2854 characters)\n"
        "warning: length is 75% of the originals (target 30-50%)\n"
        "check passed\n"
    )


def test_check_catches_a_removed_path_and_a_removed_requirement(cli: CLI, project: Path) -> None:
    cli("--root", str(project), "--today", TODAY, "compact", "2")
    target = compacted(project, 2)
    text = target.read_text(encoding="utf-8")
    edited = text.replace("| templates/login.html | 02-02: modified — login form |\n", "")
    edited = edited.replace("- AUTH-02: pass — 02-01\n", "")
    edited = edited.replace("[AUTH-01, AUTH-02, AUTH-03]", "[AUTH-01, AUTH-03]")
    assert edited.count("\n") == text.count("\n") - 2
    target.write_text(edited, encoding="utf-8")
    before = read_bytes_of(project)
    result = cli("--root", str(project), "compact", "--check", "2")
    assert result.code == 1
    lines = result.stdout.splitlines()
    assert lines[1:3] == ["requirement IDs: 2/3 present", "file paths: 8/9 present"]
    assert lines[4:] == [
        "missing requirement ID: AUTH-02",
        "missing file path: templates/login.html",
        "passed but not in requirements_satisfied: AUTH-02",  # 02-01 passed and claims it
        "warning: length is 72% of the originals (target 30-50%)",  # 2055 of 2854
        "check failed",
    ]
    assert read_bytes_of(project) == before


def test_check_of_an_agent_rewrite_with_leftovers(cli: CLI, project: Path) -> None:
    cli("--root", str(project), "--today", TODAY, "compact", "3")
    target = compacted(project, 3)
    text = target.read_text(encoding="utf-8")
    rewritten = text.replace("compacted: 2026-03-10\n", "").replace(
        "## Decisions\n", "## Decisions\n\n{Key decisions made during execution, with rationale}\n"
    )
    target.write_text(rewritten, encoding="utf-8")
    result = cli("--root", str(project), "--json", "compact", "--check", "3")
    assert result.code == 1
    data = json.loads(result.stdout)
    assert data["missing_front_matter"] == ["compacted"]
    # {year}/{seq} comes from the original summaries: content, not a leftover placeholder.
    assert data["placeholders"] == ["{Key decisions made during execution, with rationale}"]
    assert (data["missing_requirements"], data["missing_files"], data["ok"]) == ([], [], False)


def test_check_warns_on_length_and_missing_sections_without_failing(
    cli: CLI, project: Path
) -> None:
    cli("--root", str(project), "--today", TODAY, "compact", "1")
    target = compacted(project, 1)
    text = target.read_text(encoding="utf-8")
    target.write_text(text.split("\n## Agents\n")[0] + "\n", encoding="utf-8")
    result = cli("--root", str(project), "compact", "--check", "1")
    assert result.code == 0
    assert result.stdout.splitlines()[-3:] == [
        "warning: section '## Agents' is missing",
        "warning: length is 103% of the originals (target 30-50%)",  # 1393 of 1346
        "check passed",
    ]


def test_check_without_a_compacted_file(cli: CLI, project: Path) -> None:
    result = cli("--root", str(project), "compact", "--check", "4")
    assert (result.code, result.stdout) == (1, "")
    assert result.stderr == (
        f"Error: {phase_dir(project, '04-reporting')}: phase 4 has no 04-COMPACTED.md "
        "(run `legion-memory compact 4` first)\n"
    )


def test_list_uncompacted(cli: CLI, project: Path) -> None:
    cli("--root", str(project), "--today", TODAY, "compact", "3")
    result = cli("--root", str(project), "compact", "--list-uncompacted")
    assert result.code == 0
    assert result.stdout == (
        "| Phase | Directory | Summaries |\n"
        "|---|---|---|\n"
        "| 1 | 01-project-skeleton | 2 |\n"
        "| 2 | 02-auth-sessions | 3 |\n"
        "| 4 | 04-reporting | 2 |\n"
        "| 5 | 05-export-api | 2 |\n"
        "\n"
        "Phase 1 has 2 uncompacted summaries. Compact now?\n"
        "\n"
        "Phase 2 has 3 uncompacted summaries. Compact now?\n"
        "\n"
        "Phase 4 has 2 uncompacted summaries. Compact now?\n"
        "\n"
        "Phase 5 has 2 uncompacted summaries. Compact now?\n"
    )


def test_list_uncompacted_excluding_the_current_phase(cli: CLI, project: Path) -> None:
    (project / ".planning/STATE.md").write_text("**Phase**: 5 of 7\n", encoding="utf-8")
    result = cli(
        "--root", str(project), "--json", "compact", "--list-uncompacted", "--exclude-current"
    )
    data = json.loads(result.stdout)
    assert [item["phase"] for item in data["phases"]] == [1, 2, 3, 4]
    assert data["suggestions"][3] == "Phase 4 has 2 uncompacted summaries. Compact now?"


def test_list_uncompacted_without_state_excludes_nothing(cli: CLI, project: Path) -> None:
    (project / ".planning/STATE.md").unlink()
    result = cli("--root", str(project), "compact", "--list-uncompacted", "--exclude-current")
    assert result.stderr == "note: no current phase found in .planning/STATE.md; none excluded\n"
    assert result.stdout.count("uncompacted summaries") == 5


def test_list_uncompacted_when_all_are_done(cli: CLI, tmp_path: Path) -> None:
    project = planning_project(tmp_path / "p", "06-webhooks")
    result = cli("--root", str(project), "compact", "--list-uncompacted")
    assert (result.code, result.stdout) == (0, "No completed phase has uncompacted summaries.\n")


def test_phase_context_reads_summaries_then_the_compacted_file(cli: CLI, project: Path) -> None:
    directory = phase_dir(project, "01-project-skeleton")
    result = cli("--root", str(project), "phase-context", "1")
    first = (directory / "01-01-SUMMARY.md").read_text(encoding="utf-8")
    second = (directory / "01-02-SUMMARY.md").read_text(encoding="utf-8")
    assert result.stdout == (
        "<!-- .planning/phases/01-project-skeleton/01-01-SUMMARY.md -->\n"
        + first
        + "\n<!-- .planning/phases/01-project-skeleton/01-02-SUMMARY.md -->\n"
        + second
    )
    cli("--root", str(project), "--today", TODAY, "compact", "1")
    assert cli("--root", str(project), "phase-context", "1").stdout == _golden(1)
    data = json.loads(cli("--root", str(project), "--json", "phase-context", "1").stdout)
    assert (data["source"], data["files"]) == (
        "compacted",
        [".planning/phases/01-project-skeleton/01-COMPACTED.md"],
    )


def test_phase_context_of_a_phase_without_summaries(cli: CLI, project: Path) -> None:
    directory = phase_dir(project, "07-multi-currency")
    directory.mkdir()
    (directory / "07-01-PLAN.md").write_text("# plan\n", encoding="utf-8")
    result = cli("--root", str(project), "phase-context", "7")
    assert (result.code, result.stdout) == (0, "")
    assert result.stderr == "note: phase 7 has no SUMMARY files yet\n"


def test_phase_context_of_a_phase_without_a_directory_reads_nothing(
    cli: CLI, project: Path
) -> None:
    before = read_bytes_of(project)
    result = cli("--root", str(project), "phase-context", "42")
    assert (result.code, result.stdout) == (0, "")
    assert result.stderr == (
        f"note: {project / '.planning/phases'}: no directory for phase 42 (expected "
        ".planning/phases/42-<name>/); nothing to show\n"
    )
    data = json.loads(cli("--root", str(project), "--json", "phase-context", "42").stdout)
    assert data == {"phase": 42, "source": "summaries", "files": [], "text": ""}
    assert cli("--root", str(project), "compact", "42").code == 1  # compacting it is an error
    assert read_bytes_of(project) == before


def test_compact_in_a_real_process(project: Path) -> None:
    result = run_process("--today", TODAY, "compact", "4", cwd=project)
    assert (result.code, result.stderr) == (0, "")
    assert compacted(project, 4).read_text(encoding="utf-8") == _golden(4)
    checked = run_process("compact", "--check", "4", cwd=project)
    assert checked.stdout.endswith("check passed\n")


@pytest.mark.skipif(not REAL_SAMPLES.is_dir(), reason="the shared Legion samples are not here")
def test_the_real_legion_phases(cli: CLI, tmp_path: Path) -> None:
    project = tmp_path / "legion"
    shutil.copytree(REAL_SAMPLES / ".planning", project / ".planning")
    for path in [project, *project.rglob("*")]:
        path.chmod(path.stat().st_mode | 0o200)  # the samples are read-only
    phases = project / ".planning" / "phases"
    originals = read_bytes_of(phases)
    for number in ("6", "11"):
        result = cli("--root", str(project), "--today", TODAY, "compact", number)
        assert result.code == 0, result.stderr
        assert cli("--root", str(project), "compact", "--check", number).code == 0
    refused = cli("--root", str(project), "compact", "33")
    assert refused.stderr == (
        "Error: phase 33 is not marked Complete in ROADMAP.md (status: not listed) "
        "(use --force to compact it anyway)\n"
    )
    assert cli("--root", str(project), "--today", TODAY, "compact", "33", "--force").code == 0
    text = (phases / "06-recommendation-engine-v2" / "06-COMPACTED.md").read_text(encoding="utf-8")
    assert files_table(text) == [
        "scripts/recommendation-engine.js",
        "tests/recommendation-engine.test.js",
        "tests/fixtures/recommendation/cases.json",
        "skills/memory-manager/SKILL.md",
        "skills/agent-registry/SKILL.md",
        "tests/memory-manager.test.js",
    ]
    assert "requirements_satisfied: [AGT-02, AGT-03, AGT-04]\n" in text
    knowledge = (phases / "33-knowledge-memory" / "33-COMPACTED.md").read_text(encoding="utf-8")
    assert "requirements_satisfied: [KNW-01, KNW-02, KNW-03]\n" in knowledge
    assert files_table(knowledge) == [
        "skills/memory-manager/SKILL.md",
        "skills/workflow-common/SKILL.md",
        "skills/execution-tracker/SKILL.md",
    ]
    after = read_bytes_of(phases)
    for name in (
        "06-recommendation-engine-v2/06",
        "11-intent-routing-v2/11",
        "33-knowledge-memory/33",
    ):
        del after[f"{name}-COMPACTED.md"]
    assert after == originals


def test_a_failed_write_prints_the_whole_text(
    cli: CLI, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from legion_memory.errors import WriteError
    from legion_memory.storage import writing

    def refuse(path: Path, text: str) -> None:
        raise WriteError("could not write: No space left on device", where=str(path))

    monkeypatch.setattr(writing, "atomic_write", refuse)
    result = cli("--root", str(project), "--today", TODAY, "compact", "1")
    assert result.code == 3
    assert result.stdout == (
        "The record was not stored. Here it is in full, to add by hand:\n" + _golden(1)
    )
    assert result.stderr == (
        f"Error: {compacted(project, 1)}: could not write: No space left on device\n"
    )
    assert not compacted(project, 1).exists()


def test_a_summary_that_is_not_utf8_is_one_clear_error(cli: CLI, project: Path) -> None:
    summary = phase_dir(project, "01-project-skeleton") / "01-02-SUMMARY.md"
    summary.write_bytes(b"# Plan 01-02 Summary\n\xff\xfe broken\n")
    before = read_bytes_of(project)
    result = cli("--root", str(project), "compact", "1")
    assert (result.code, result.stdout) == (1, "")
    assert result.stderr == f"Error: {summary}: file is not valid UTF-8\n"
    assert read_bytes_of(project) == before

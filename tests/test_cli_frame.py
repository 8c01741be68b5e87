from __future__ import annotations

from pathlib import Path

from support.processes import CLI, read_bytes_of


def test_init_creates_the_five_files_from_the_spec_templates(cli: CLI, repo: Path) -> None:
    result = cli("init", cwd=repo)
    assert result.code == 0
    assert result.stdout.splitlines() == [
        "created .planning/memory/OUTCOMES.md",
        "created .planning/memory/PATTERNS.md",
        "created .planning/memory/ERRORS.md",
        "created .planning/memory/PREFERENCES.md",
        "created .planning/memory/ARCHIVE.md",
    ]
    outcomes = (repo / ".planning/memory/OUTCOMES.md").read_text(encoding="utf-8")
    assert outcomes == (
        "# Memory — Outcome Log\n\n"
        "Records agent performance and task outcomes for cross-session learning.\n"
        "Managed by memory-manager skill. Do not edit manually unless pruning old records.\n\n"
        "## Records\n\n"
        "| ID | Date | Branch | Phase | Plan | Agent | Task Type | Outcome | Importance | Tags "
        "| Summary |\n"
        "|----|------|--------|-------|------|-------|-----------|---------|------------|------"
        "|---------|\n"
    )
    preferences = (repo / ".planning/memory/PREFERENCES.md").read_text(encoding="utf-8")
    assert preferences.endswith(
        "| ID | Date | Branch | Decision Point | Context | Proposed | User Choice | Signal "
        "| Agent | Tags |\n"
        "|----|------|--------|---------------|---------|----------|-------------|--------"
        "|-------|------|\n"
    )


def test_init_is_idempotent_and_never_overwrites(cli: CLI, repo: Path) -> None:
    cli("init", cwd=repo)
    outcomes = repo / ".planning/memory/OUTCOMES.md"
    outcomes.write_text("edited by hand\n", encoding="utf-8")
    before = read_bytes_of(repo)
    result = cli("init", cwd=repo)
    assert (result.code, result.stdout) == (0, "memory already initialised\n")
    assert read_bytes_of(repo) == before


def test_json_flag_prints_stable_json(cli: CLI, repo: Path) -> None:
    result = cli("--json", "init", cwd=repo)
    assert result.stdout.startswith('{\n  "created": [\n    ".planning/memory/OUTCOMES.md",')


def test_bad_global_today_is_one_line_exit_2(cli: CLI, repo: Path) -> None:
    result = cli("--today", "2026-02-30", "init", cwd=repo)
    assert result.code == 2
    assert result.stderr == "Error: --today '2026-02-30' is not a date (use YYYY-MM-DD)\n"
    assert not (repo / ".planning").exists()


def test_unknown_option_is_usage_error_exit_2(cli: CLI, repo: Path) -> None:
    result = cli("validate", "--bogus", cwd=repo)
    assert result.code == 2
    assert result.stderr == "Error: No such option: --bogus (see `legion-memory validate --help`)\n"


def test_every_public_name_is_importable_from_the_package() -> None:
    import importlib

    import legion_memory

    homes = legion_memory._MODULE_OF
    assert sorted(legion_memory.__all__) == sorted(homes)
    for name, module in homes.items():
        home = importlib.import_module(f"legion_memory.{module}")
        assert getattr(legion_memory, name) is getattr(home, name)


def test_importing_the_package_imports_none_of_its_modules() -> None:
    import subprocess
    import sys

    from support.processes import REPO_ROOT

    code = (
        "import legion_memory, sys; "
        "print(sorted(m for m in sys.modules if m.startswith('legion_memory')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(REPO_ROOT)},
    )
    assert done.stdout == "['legion_memory']\n"

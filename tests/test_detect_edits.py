from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.phases import TODAY, planning_project
from support.processes import CLI, FIXTURES, git, read_bytes_of

from legion_memory.project.catalog import load_catalog, parse_catalog
from legion_memory.project.manual_edits import ManualEdit, division_tags

SOURCES = {
    "src/ledger/auth/sessions.py": (
        "class SessionStore:\n    pass\n\n\ndef revoke_all():\n    pass\n"
    ),
    "src/ledger/auth/forms.py": "LOGIN = ['email', 'password']\n",
    "src/ledger/auth/views.py": "def login():\n    pass\n",
    "templates/login.html": "<form></form>\n",
    "spikes/session_bench.py": "print('bench')\n",
    "src/ledger/legacy_auth.py": "OLD = True\n",
    "README.md": "project\n",
}
PREFERENCES = Path(".planning/memory/PREFERENCES.md")
CATALOG = (
    "# Agent Catalog\n\n### Engineering Division (2 agents)\n\n"
    "| ID | File | Task Types |\n|----|------|------------|\n"
    "| engineering-senior-developer | `agents/engineering-senior-developer.md` | full-stack |\n"
    "| engineering-rapid-prototyper | `agents/engineering-rapid-prototyper.md` | prototyping |\n\n"
    "### Testing Division (1 agents)\n\n| ID | File | Task Types |\n|----|------|------------|\n"
    "| testing-api-tester | `agents/testing-api-tester.md` | api-testing |\n"
)


@pytest.fixture
def project(repo: Path) -> Path:
    """A git repository with phase 2 committed together with the files its agents wrote."""
    planning_project(repo, "02-auth-sessions")
    for name, text in SOURCES.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text, encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "phase 2 built")
    return repo


def edit_by_hand(project: Path) -> None:
    # Two lines changed and one added: +3/-2.
    (project / "src/ledger/auth/sessions.py").write_text(
        "class SessionStore:\n    ttl_days = 14\n\n\n"
        "def revoke_all(user_id):\n    pass\n    # sessions expire\n",
        encoding="utf-8",
    )
    (project / "src/ledger/auth/forms.py").write_text(
        "LOGIN = ['email', 'password', 'remember']\n", encoding="utf-8"
    )  # listed only by the PLAN's files_modified
    (project / "spikes/session_bench.py").write_text("", encoding="utf-8")  # 02-00's agent
    (project / "src/ledger/legacy_auth.py").write_text("OLD = False\n", encoding="utf-8")
    (project / "README.md").write_text("project, edited\n", encoding="utf-8")


TABLE = (
    "| File | Plan | Agent | Change |\n"
    "|---|---|---|---|\n"
    "| spikes/session_bench.py | 02-00 | engineering-rapid-prototyper | +0/-1 lines |\n"
    "| src/ledger/auth/forms.py | 02-02 | engineering-senior-developer | +1/-1 lines |\n"
    "| src/ledger/auth/sessions.py | 02-02 | engineering-senior-developer | +3/-2 lines |\n"
)


def test_detects_only_files_the_phase_agents_modified(cli: CLI, project: Path) -> None:
    edit_by_hand(project)
    before = read_bytes_of(project)
    result = cli("--today", TODAY, "detect-edits", "--phase", "2", cwd=project)
    assert (result.code, result.stderr) == (0, "")
    assert result.stdout == TABLE
    assert read_bytes_of(project) == before


def test_staged_changes_are_not_manual_edits_in_the_working_tree(cli: CLI, project: Path) -> None:
    edit_by_hand(project)
    git(project, "add", "spikes/session_bench.py", "src/ledger/auth/forms.py")
    result = cli("detect-edits", "--phase", "2", cwd=project)
    assert result.stdout == TABLE.replace(TABLE.split("\n")[2] + "\n", "").replace(
        TABLE.split("\n")[3] + "\n", ""
    )


def test_record_stores_one_corrective_preference_per_file(cli: CLI, project: Path) -> None:
    edit_by_hand(project)
    catalog = project.parent / "CATALOG.md"
    catalog.write_text(CATALOG, encoding="utf-8")
    args = ("--today", TODAY, "--catalog", str(catalog), "detect-edits", "--phase", "2")
    result = cli(*args, "--record", cwd=project)
    assert result.code == 0
    assert result.stdout == TABLE + (
        "\n"
        "recorded D-001: spikes/session_bench.py\n"
        "recorded D-002: src/ledger/auth/forms.py\n"
        "recorded D-003: src/ledger/auth/sessions.py\n"
    )
    rows = (project / PREFERENCES).read_text(encoding="utf-8").split("\n")[-4:]
    assert rows == [
        "| D-001 | 2026-03-10 | main | manual-edit | Phase 2, post-build manual edit to "
        "spikes/session_bench.py | Agent output for spikes/session_bench.py (see plan "
        "SUMMARY.md) | User edited spikes/session_bench.py — +0/-1 lines | corrective | "
        "engineering-rapid-prototyper | manual-edit, py, engineering |",
        "| D-002 | 2026-03-10 | main | manual-edit | Phase 2, post-build manual edit to "
        "src/ledger/auth/forms.py | Agent output for src/ledger/auth/forms.py (see plan "
        "SUMMARY.md) | User edited src/ledger/auth/forms.py — +1/-1 lines | corrective | "
        "engineering-senior-developer | manual-edit, py, engineering |",
        "| D-003 | 2026-03-10 | main | manual-edit | Phase 2, post-build manual edit to "
        "src/ledger/auth/sessions.py | Agent output for src/ledger/auth/sessions.py (see "
        "plan SUMMARY.md) | User edited src/ledger/auth/sessions.py — +3/-2 lines | "
        "corrective | engineering-senior-developer | manual-edit, py, engineering |",
        "",
    ]


def test_recording_twice_stores_nothing_new(cli: CLI, project: Path) -> None:
    edit_by_hand(project)
    cli("--today", TODAY, "detect-edits", "--phase", "2", "--record", cwd=project)
    before = read_bytes_of(project)
    again = cli("--today", "2026-03-11", "detect-edits", "--phase", "2", "--record", cwd=project)
    assert again.stdout.endswith(
        "already recorded as D-001: spikes/session_bench.py\n"
        "already recorded as D-002: src/ledger/auth/forms.py\n"
        "already recorded as D-003: src/ledger/auth/sessions.py\n"
    )
    assert read_bytes_of(project) == before


def test_a_further_edit_is_a_new_preference(cli: CLI, project: Path) -> None:
    edit_by_hand(project)
    cli("--today", TODAY, "detect-edits", "--phase", "2", "--record", cwd=project)
    (project / "src/ledger/auth/forms.py").write_text(
        "LOGIN = []\nREMEMBER = 1\n", encoding="utf-8"
    )
    result = cli(
        "--json", "--today", TODAY, "detect-edits", "--phase", "2", "--record", cwd=project
    )
    edits = json.loads(result.stdout)["edits"]
    assert [(e["file"], e["preference"], e["already_recorded"]) for e in edits] == [
        ("spikes/session_bench.py", "D-001", True),
        ("src/ledger/auth/forms.py", "D-004", False),
        ("src/ledger/auth/sessions.py", "D-003", True),
    ]


def test_json_output(cli: CLI, project: Path) -> None:
    edit_by_hand(project)
    result = cli("--json", "detect-edits", "--phase", "2", cwd=project)
    assert json.loads(result.stdout) == {
        "phase": 2,
        "edits": [
            {
                "file": "spikes/session_bench.py",
                "plan": "02-00",
                "agent": "engineering-rapid-prototyper",
                "added": 0,
                "deleted": 1,
                "change": "+0/-1 lines",
            },
            {
                "file": "src/ledger/auth/forms.py",
                "plan": "02-02",
                "agent": "engineering-senior-developer",
                "added": 1,
                "deleted": 1,
                "change": "+1/-1 lines",
            },
            {
                "file": "src/ledger/auth/sessions.py",
                "plan": "02-02",
                "agent": "engineering-senior-developer",
                "added": 3,
                "deleted": 2,
                "change": "+3/-2 lines",
            },
        ],
    }


def test_no_edits(cli: CLI, project: Path) -> None:
    (project / "README.md").write_text("only the readme\n", encoding="utf-8")
    result = cli("detect-edits", "--phase", "2", "--record", cwd=project)
    assert (result.code, result.stdout) == (
        0,
        "No manual edits to files modified by phase 2's agents.\n",
    )
    assert not (project / PREFERENCES).exists()


def test_memory_disabled_records_nothing(cli: CLI, project: Path) -> None:
    edit_by_hand(project)
    (project / "settings.json").write_text('{"memory": {"enabled": false}}', encoding="utf-8")
    result = cli("detect-edits", "--phase", "2", "--record", cwd=project)
    assert result.stdout == TABLE
    assert result.stderr == "note: memory.enabled is false in settings.json; nothing recorded\n"
    assert not (project / PREFERENCES).exists()


def test_outside_a_git_repository(cli: CLI, tmp_path: Path) -> None:
    project = planning_project(tmp_path / "plain", "02-auth-sessions")
    before = read_bytes_of(project)
    result = cli("--root", str(project), "detect-edits", "--phase", "2", "--record")
    assert (result.code, result.stdout) == (1, "")
    assert result.stderr == (
        f"Error: {project}: git diff failed (run detect-edits inside a git repository)\n"
    )
    assert read_bytes_of(project) == before


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ("--phase", "../x"),
            "Error: PHASE '../x' is not a phase (give a number (6), a directory name (06-name)"
            " or MILESTONE/N (v1.0/6))\n",
        ),
        (("--phase", "9"), None),
        ((), "Error: Missing option '--phase'. (see `legion-memory --help`)\n"),
    ],
)
def test_bad_phase(cli: CLI, project: Path, args: tuple[str, ...], message: str | None) -> None:
    edit_by_hand(project)
    before = read_bytes_of(project)
    result = cli("detect-edits", *args, "--record", cwd=project)
    assert result.stdout == ""
    if message is None:
        assert result.code == 1
        assert result.stderr.endswith(
            ": no directory for phase 9 (expected .planning/phases/09-<name>/)\n"
        )
    else:
        assert (result.code, result.stderr) == (2, message)
    assert read_bytes_of(project) == before


def test_binary_files_and_unknown_agents_are_described() -> None:
    edit = ManualEdit("assets/logo.png", "02-01", (), None, None)
    assert (edit.lines, edit.agent) == ("binary file changed", "system")
    assert edit.preference(2, __import__("datetime").date(2026, 3, 10), "main", {})["tags"] == (
        "manual-edit, png"
    )


def test_division_tags_from_the_catalog() -> None:
    assert division_tags(None) == {}
    assert division_tags(parse_catalog(CATALOG)) == {
        "engineering-senior-developer": "engineering",
        "engineering-rapid-prototyper": "engineering",
        "testing-api-tester": "testing",
    }


def test_division_tags_follow_the_shared_catalog_rules() -> None:
    tags = division_tags(load_catalog(FIXTURES / "catalog" / "CATALOG.md"))
    assert tags["project-manager-senior"] == "project-management"  # multi-word division
    assert tags["engineering-house-style-checker"] == "custom"
    # Section 2 mentions agents under a `### Shadow Division` heading: not the catalog.
    assert tags["engineering-backend-architect"] == "engineering"
    assert "shadow-agent" not in tags


def test_the_catalog_is_found_like_every_command_finds_it(
    cli: CLI, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    edit_by_hand(project)
    monkeypatch.setenv("LEGION_CATALOG", str(FIXTURES / "catalog" / "CATALOG.md"))
    result = cli("--today", TODAY, "detect-edits", "--phase", "2", "--record", cwd=project)
    assert (result.code, result.stderr) == (0, "")
    tags = [line.rsplit("|", 2)[1].strip() for line in _preference_rows(project)]
    # The fixture catalog knows the senior developer, not the rapid prototyper.
    assert tags == [
        "manual-edit, py",
        "manual-edit, py, engineering",
        "manual-edit, py, engineering",
    ]


def test_a_missing_catalog_option_stops_the_record_before_any_write(
    cli: CLI, project: Path
) -> None:
    edit_by_hand(project)
    before = read_bytes_of(project)
    missing = project.parent / "nope.md"
    args = ("--today", TODAY, "--catalog", str(missing), "detect-edits", "--phase", "2")
    result = cli(*args, "--record", cwd=project)
    assert (result.code, result.stdout) == (2, "")
    assert (
        result.stderr == f"Error: --catalog '{missing}' is not a file (give the CATALOG.md path)\n"
    )
    assert read_bytes_of(project) == before


def _preference_rows(project: Path) -> list[str]:
    lines = (project / PREFERENCES).read_text(encoding="utf-8").split("\n")
    return [line for line in lines if line.startswith("| D-")]

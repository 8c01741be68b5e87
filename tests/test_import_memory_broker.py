"""`import memory-broker`: missions (index.json + missions/*.md front-matter) become outcomes."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.interop import TODAY, added_lines, copy_source, memory_text, seed_memory
from support.processes import CLI, read_bytes_of

from legion_memory.interop.memory_broker import verdict_outcome

NEW_OUTCOMES = [
    "| O-002 | 2026-03-10 | main | N/A | - | memory-broker | onboarding | success | 2 "
    "| onboarding, frontend, checklist | Ship the onboarding checklist "
    "(mission m-2026-03-onboarding: 4 passed, 0 failed) |",
    "| O-003 | 2026-03-18 | main | N/A | - | memory-broker | billing | partial | 3 "
    "| billing, stripe | Move billing to Stripe Checkout (mission m-2026-03-billing: pass: 2, "
    "fail: 1) |",
    "| O-004 | 2026-02-27 | main | N/A | - | memory-broker | search | success | 2 | search "
    "| Full-text search for products (mission m-2026-02-search) |",
    "| O-005 | 2026-04-02 | main | N/A | - | memory-broker | a11y | failed | 5 | a11y, settings "
    "| Accessibility audit of the settings pages (mission m-2026-04-audit: failed - blocked on "
    "design tokens) |",
]


def run_import(cli: CLI, project: Path, *extra: str) -> tuple[int, str, str]:
    result = cli("--today", TODAY, "import", "memory-broker", *extra, cwd=project)
    return result.code, result.stdout, result.stderr


def test_each_mission_becomes_one_outcome(cli: CLI, repo: Path) -> None:
    """Index order first (front-matter wins; a mission without a file comes from the index
    alone), then mission files the index does not list."""
    seeded = seed_memory(repo)
    copy_source(repo, "memory-broker", to="memory")
    code, out, err = run_import(cli, repo)  # the default path: memory/
    assert (code, err) == (0, "")
    assert out.splitlines()[0] == "Imported 4 records from memory-broker (memory)."
    assert added_lines(repo, "OUTCOMES.md", seeded["outcomes"]) == NEW_OUTCOMES
    for kind in ("patterns", "errors", "preferences"):
        assert memory_text(repo, kind.upper() + ".md") == seeded[kind]
    origins = sorted(
        line.split(" ", 3)[3]
        for line in memory_text(repo, "IMPORTED.txt").splitlines()
        if not line.startswith("#")
    )
    assert origins == [
        "memory/index.json at missions[2]",
        "memory/missions/m-2026-03-billing.md:1",
        "memory/missions/m-2026-03-onboarding.md:1",
        "memory/missions/m-2026-04-audit.md:1",
    ]


def test_importing_twice_adds_nothing_and_dry_run_writes_nothing(cli: CLI, repo: Path) -> None:
    seed_memory(repo)
    copy_source(repo, "memory-broker")
    before = read_bytes_of(repo)
    code, out, _ = run_import(cli, repo, "memory-broker", "--dry-run")
    assert code == 0
    assert "\n".join(NEW_OUTCOMES) in out
    assert read_bytes_of(repo) == before
    run_import(cli, repo, "memory-broker")
    after_first = read_bytes_of(repo)
    code, out, _ = run_import(cli, repo, "memory-broker/index.json")
    assert (code, out) == (
        0,
        "Nothing new to import from memory-broker (memory-broker/index.json).\n\n"
        "Skipped 4:\n- already imported: 4\n",
    )
    assert read_bytes_of(repo) == after_first


def test_a_mission_is_identified_by_its_id_and_completion(cli: CLI, repo: Path) -> None:
    """Rewording a goal or its verdicts later does not make the same mission a second outcome."""
    seed_memory(repo)
    source = copy_source(repo, "memory-broker")
    run_import(cli, repo, "memory-broker")
    mission = source / "missions" / "m-2026-04-audit.md"
    mission.write_text(
        mission.read_text(encoding="utf-8").replace("settings pages", "settings screens"),
        encoding="utf-8",
    )
    before = read_bytes_of(repo)
    assert run_import(cli, repo, "memory-broker")[1].startswith("Nothing new to import")
    assert read_bytes_of(repo) == before


def test_unclosed_front_matter_names_the_file_and_changes_nothing(cli: CLI, repo: Path) -> None:
    seed_memory(repo)
    copy_source(repo, "memory-broker-corrupt")
    before = read_bytes_of(repo)
    code, out, err = run_import(cli, repo, "memory-broker-corrupt")
    assert (code, out) == (2, "")
    assert err == (
        "Error: memory-broker-corrupt/missions/m-1.md:1: front-matter is not closed by --- "
        "(fix the source file and import again)\n"
    )
    assert read_bytes_of(repo) == before


@pytest.mark.parametrize(
    ("files", "message"),
    [
        (
            {"index.json": '{"missions": [{"mission_id": "m-1", "goal": "G", "completed_at": 1}'},
            "Error: broker/index.json:1:68: invalid JSON: Expecting ',' delimiter",
        ),
        (
            {"index.json": '{"missions": {"m-1": {}}}'},
            "Error: broker/index.json at missions: expected a JSON array, found an object",
        ),
        (
            {"missions/m-2.md": "# Notes\n\nno front-matter here\n"},
            "Error: broker/missions/m-2.md:1: mission file has no front-matter",
        ),
        (
            {"missions/m-3.md": "---\nmission_id: m-3\ncompleted_at: 2026-03-01\n---\nbody\n"},
            "Error: broker/missions/m-3.md:1: mission 'm-3' has no goal",
        ),
        (
            {"missions/m-4.md": "---\nmission_id: m-4\ngoal: G\ncompleted_at: someday\n---\n"},
            'Error: broker/missions/m-4.md:4: date "someday" is not a date',
        ),
    ],
)
def test_bad_missions_name_their_position(
    cli: CLI, repo: Path, files: dict[str, str], message: str
) -> None:
    seed_memory(repo)
    for name, text in files.items():
        (repo / "broker" / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / "broker" / name).write_text(text, encoding="utf-8")
    before = read_bytes_of(repo)
    code, _, err = run_import(cli, repo, "broker")
    assert code == 2
    assert err.startswith(message)
    assert read_bytes_of(repo) == before


@pytest.mark.parametrize(
    ("verdicts", "outcome"),
    [
        ("", "success"),
        ("all passed", "success"),
        ("4 passed, 0 failed", "success"),
        ("approved; no blockers", "success"),
        ("fail: 0, pass: 3", "success"),
        ("3 PASS, 1 FAIL", "partial"),
        ("pass: 2, fail: 1", "partial"),
        ("partially shipped", "partial"),
        ("failed - blocked on design tokens", "failed"),
        ("2 failures", "failed"),
        ("rejected", "failed"),
    ],
)
def test_outcome_is_read_from_the_verdicts_where_they_say_so(verdicts: str, outcome: str) -> None:
    assert verdict_outcome(verdicts) == outcome

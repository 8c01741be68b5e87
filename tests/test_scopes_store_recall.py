"""The global tier on `store *`, `recall *` and the scores, with a fresh `$LEGION_MEMORY_HOME`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.processes import CLI, read_bytes_of

from legion_memory.schema.kinds import PATTERN
from legion_memory.storage import scopes
from legion_memory.storage.locking import GITIGNORE

TODAY = "2026-05-10"
NO_CATALOG = (
    "Note: no CATALOG.md found (--catalog, $LEGION_CATALOG, skills/agent-registry/CATALOG.md, "
    "$CLAUDE_PLUGIN_ROOT); task type falls back to 'general' and cross-division work is not "
    "scored\n"
)
OUTCOME_HEADER = (
    "| ID | Date | Branch | Phase | Plan | Agent | Task Type | Outcome | Importance | Tags "
    "| Summary |\n"
)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A global tier that does not exist yet, as $LEGION_MEMORY_HOME."""
    path = tmp_path / "home" / "memory"
    monkeypatch.setenv(scopes.HOME_VARIABLE, str(path))
    return path


@pytest.fixture
def project(cli: CLI, repo: Path, home: Path) -> Path:
    assert cli("init", cwd=repo).code == 0
    return repo


def run(cli: CLI, project: Path, *args: str, today: str = TODAY) -> tuple[int, str, str]:
    result = cli("--today", today, *args, cwd=project)
    return result.code, result.stdout, result.stderr


def outcome(cli: CLI, project: Path, day: str, summary: str, *more: str) -> None:
    args: tuple[str, ...] = (
        "store",
        "outcome",
        "--phase",
        "1",
        "--plan",
        "01-01",
        "--agent",
        "eng-a",
    )
    args += ("--outcome", "success", "--summary", summary, "--task-type", "backend", *more)
    assert run(cli, project, *args, today=day)[0] == 0


def pattern(cli: CLI, project: Path, day: str, text: str, *more: str) -> None:
    args = ("store", "pattern", "--pattern", text, "--context", "c", "--reuse", "r", *more)
    assert run(cli, project, *args, today=day)[0] == 0


def ids(cli: CLI, project: Path, *args: str) -> list[tuple[str, str]]:
    code, out, err = run(cli, project, "--json", *args)
    assert (code, err) == (0, "")
    return [(record.get("scope", "-"), record["id"]) for record in json.loads(out)["records"]]


# ---- writes ---------------------------------------------------------------------------------


def test_store_pattern_in_the_global_tier_creates_it_and_leaves_the_project(
    cli: CLI, project: Path, home: Path
) -> None:
    before = read_bytes_of(project)
    args = ("store", "pattern", "--pattern", "Retry flaky calls", "--context", "CI")
    code, out, err = run(cli, project, *args, "--reuse", "network tests", "--scope", "global")
    assert (code, out, err) == (0, f"Stored P-001 in {home / 'PATTERNS.md'}:10\n", "")
    assert read_bytes_of(project) == before
    assert read_bytes_of(home) == {
        ".gitignore": GITIGNORE.encode(),
        "PATTERNS.md": (
            PATTERN.template()
            + "| P-001 | 2026-05-10 | main | Retry flaky calls | CI | network tests |  |  |\n"
        ).encode(),
    }


def test_a_global_store_names_its_tier_in_json(cli: CLI, project: Path, home: Path) -> None:
    before = read_bytes_of(project)
    args: tuple[str, ...] = ("--json", "store", "preference", "--decision-point", "review-verdict")
    args += ("--context", "c", "--proposed", "p", "--choice", "kept", "--signal", "positive")
    code, out, _ = run(cli, project, *args, "--agent", "eng-a", "--scope", "global")
    data = json.loads(out)
    assert (code, list(data)) == (0, ["scope", "action", "where", "record", "notes"])
    assert (data["scope"], data["where"]) == ("global", f"{home / 'PREFERENCES.md'}:10")
    assert data["record"]["user_choice"] == "kept"
    assert read_bytes_of(project) == before
    assert (
        (home / "PREFERENCES.md")
        .read_text(encoding="utf-8")
        .endswith(
            "| D-001 | 2026-05-10 | main | review-verdict | c | p | kept | positive | eng-a |  |\n"
        )
    )


def test_store_outcome_global_shows_its_tier_and_counts_that_tiers_history(
    cli: CLI, project: Path, home: Path
) -> None:
    outcome(cli, project, "2026-05-01", "in the project first")
    args: tuple[str, ...] = (
        "store",
        "outcome",
        "--phase",
        "1",
        "--plan",
        "01-02",
        "--agent",
        "eng-a",
    )
    args += ("--outcome", "success", "--summary", "global", "--task-type", "backend")
    code, out, err = run(cli, project, *args, "--scope", "global")
    # The project's record does not count: eng-a's first backend outcome in this tier (+1).
    assert (code, err) == (0, NO_CATALOG)
    assert out == (
        "| Scope " + OUTCOME_HEADER + "|---|---|---|---|---|---|---|---|---|---|---|---|\n"
        "| global | O-001 | 2026-05-10 | main | 1 | 01-02 | eng-a | backend | success | 3 |  "
        "| global |\n"
    )
    again = (*args[:-3], "global again", *args[-2:])  # another outcome: not the same record
    code, out, _ = run(cli, project, "--json", *again, "--scope", "global")
    data = json.loads(out)
    assert (data["scope"], data["id"], data["importance"]) == ("global", "O-002", 2)
    rows = (home / "OUTCOMES.md").read_text(encoding="utf-8").split("\n")[-3:]
    assert rows == [
        "| O-001 | 2026-05-10 | main | 1 | 01-02 | eng-a | backend | success | 3 |  | global |",
        "| O-002 | 2026-05-10 | main | 1 | 01-02 | eng-a | backend | success | 2 |  "
        "| global again |",
        "",
    ]


def test_store_error_dedupes_within_its_own_tier(cli: CLI, project: Path, home: Path) -> None:
    args = ("store", "error", "--signature", "ECONNRESET on upload", "--agent", "a", "--resolved")
    assert run(cli, project, *args, "--fix", "retry")[1] == (
        "Stored E-001 in .planning/memory/ERRORS.md:10\n"
    )
    # The project holds the same resolved fix; the global tier does not, so it is stored there.
    assert run(cli, project, *args, "--fix", "retry", "--scope", "global")[1] == (
        f"Stored E-001 in {home / 'ERRORS.md'}:10\n"
    )
    code, out, _ = run(cli, project, "--json", *args, "--fix", "again", "--scope", "global")
    data = json.loads(out)
    assert (code, data["scope"], data["action"]) == (0, "global", "skipped")
    assert data["where"] == f"{home / 'ERRORS.md'}:10"


def test_a_global_outcome_never_auto_prunes(cli: CLI, project: Path, home: Path) -> None:
    (project / "settings.json").write_text(
        '{"memory": {"auto_prune": true, "prune_threshold": 0, "prune_age_days": 1}}'
    )
    outcome(cli, project, "2026-01-01", "old project record", "--importance", "1")
    before = read_bytes_of(project)
    args: tuple[str, ...] = (
        "store",
        "outcome",
        "--phase",
        "1",
        "--plan",
        "01-01",
        "--agent",
        "eng-a",
    )
    args += ("--outcome", "success", "--summary", "s", "--task-type", "backend")
    code, _, err = run(cli, project, *args, "--importance", "1", "--scope", "global")
    assert (code, err) == (0, "")
    assert read_bytes_of(project) == before


@pytest.mark.parametrize(
    "args",
    [
        ("store", "pattern", "--pattern", "p", "--context", "c", "--reuse", "r"),
        ("store", "error", "--signature", "s", "--fix", "f", "--agent", "a", "--resolved"),
        ("store", "outcome", "--phase", "1", "--plan", "01-01", "--agent", "a", "--outcome",
         "success", "--summary", "s", "--importance", "2", "--task-type", "t"),
        ("store", "preference", "--decision-point", "review-verdict", "--context", "c",
         "--proposed", "p", "--choice", "x", "--signal", "positive", "--agent", "a"),
    ],
)  # fmt: skip
def test_a_write_to_all_tiers_is_refused(
    cli: CLI, project: Path, home: Path, args: tuple[str, ...]
) -> None:
    before = read_bytes_of(project)
    for scope in ("all", "both"):
        code, out, err = run(cli, project, *args, "--scope", scope)
        assert (code, out) == (2, "")
        assert err == f"Error: --scope '{scope}' is not valid (use one of project, global)\n"
    assert read_bytes_of(project) == before
    assert not home.exists()


def test_disabled_memory_disables_the_global_tier_too(cli: CLI, project: Path, home: Path) -> None:
    (project / "settings.json").write_text('{"memory": {"enabled": false}}')
    args = ("store", "pattern", "--pattern", "p", "--context", "c", "--reuse", "r")
    code, out, err = run(cli, project, *args, "--scope", "global")
    assert (code, out) == (0, "")
    assert err == "memory is disabled (memory.enabled is false in settings.json); nothing stored\n"
    assert not home.exists()


# ---- reads ----------------------------------------------------------------------------------


@pytest.fixture
def both(cli: CLI, project: Path) -> Path:
    """Records in both tiers; the global ones are the more recent."""
    outcome(cli, project, "2026-04-01", "project older")
    outcome(cli, project, "2026-05-01", "project newer")
    outcome(cli, project, "2026-05-09", "global newest", "--scope", "global")
    outcome(cli, project, "2026-05-08", "global second", "--scope", "global")
    pattern(cli, project, "2026-03-01", "project pattern", "--tags", "ci")
    pattern(cli, project, "2026-05-09", "global pattern", "--tags", "ci", "--scope", "global")
    pattern(cli, project, "2026-05-09", "global untagged", "--scope", "global")
    return project


def test_recall_all_lists_project_results_first_each_marked(cli: CLI, both: Path) -> None:
    assert ids(cli, both, "recall", "outcomes", "--scope", "all") == [
        ("project", "O-002"),
        ("project", "O-001"),
        ("global", "O-001"),
        ("global", "O-002"),
    ]
    assert ids(cli, both, "recall", "patterns", "--scope", "all", "--tag", "ci") == [
        ("project", "P-001"),
        ("global", "P-001"),
    ]
    assert ids(cli, both, "recall", "patterns", "--scope", "global") == [
        ("global", "P-002"),
        ("global", "P-001"),
    ]


def test_the_limit_cuts_the_merged_list(cli: CLI, both: Path) -> None:
    assert ids(cli, both, "recall", "outcomes", "--scope", "all", "--limit", "3") == [
        ("project", "O-002"),
        ("project", "O-001"),
        ("global", "O-001"),
    ]
    assert ids(cli, both, "recall", "outcomes", "--scope", "all", "--limit", "1") == [
        ("project", "O-002"),
    ]


def test_without_scope_the_output_is_the_projects_unmarked(cli: CLI, both: Path) -> None:
    assert ids(cli, both, "recall", "outcomes") == [("-", "O-002"), ("-", "O-001")]
    for kind in ("outcomes", "patterns", "errors", "preferences"):
        plain = run(cli, both, "recall", kind)
        assert run(cli, both, "recall", kind, "--scope", "project") == plain
        json_plain = run(cli, both, "--json", "recall", kind)
        assert run(cli, both, "--json", "recall", kind, "--scope", "project") == json_plain
        assert '"scope"' not in json_plain[1]


def test_human_recall_has_a_scope_column(cli: CLI, both: Path) -> None:
    code, out, _ = run(cli, both, "recall", "outcomes", "--scope", "all", "--limit", "3")
    assert (code, out) == (
        0,
        "| Scope | ID | Date | Branch | Agent | Task Type | Outcome | Importance | Decay "
        "| Summary |\n"
        "|---|---|---|---|---|---|---|---|---|---|\n"
        "| project | O-002 | 2026-05-01 | main | eng-a | backend | success | 2 | 1.4 "
        "| project newer |\n"
        "| project | O-001 | 2026-04-01 | main | eng-a | backend | success | 3 | 1.2 "
        "| project older |\n"
        "| global | O-001 | 2026-05-09 | main | eng-a | backend | success | 3 | 3 "
        "| global newest |\n",
    )
    code, out, _ = run(cli, both, "recall", "patterns", "--scope", "all", "--tag", "ci")
    assert out == (
        "| Scope | ID | Date | Branch | Pattern | Context | Reuse Criteria | Source | Tags |\n"
        "|---|---|---|---|---|---|---|---|---|\n"
        "| project | P-001 | 2026-03-01 | main | project pattern | c | r |  | ci |\n"
        "| global | P-001 | 2026-05-09 | main | global pattern | c | r |  | ci |\n"
    )


def test_recall_errors_and_preferences_across_tiers(cli: CLI, project: Path) -> None:
    error = ("store", "error", "--signature", "timeout calling api", "--agent", "a")
    assert run(cli, project, *error, "--fix", "raise the timeout", "--unresolved")[0] == 0
    assert run(cli, project, *error, "--fix", "retry", "--resolved", "--scope", "global")[0] == 0
    code, out, _ = run(
        cli, project, "recall", "errors", "--error-text", "api timeout", "--scope", "all"
    )
    assert code == 0
    assert out == (
        "### E-001 · unresolved (fix not verified) · project\n"
        "**Fix:** raise the timeout\n"
        "**Error:** timeout calling api\n"
        "Agent: a · Date: 2026-05-10 · Branch: main · Tags: - · Matched: api, timeout\n"
        "\n"
        "### E-001 · resolved · global\n"
        "**Fix:** retry\n"
        "**Error:** timeout calling api\n"
        "Agent: a · Date: 2026-05-10 · Branch: main · Tags: - · Matched: api, timeout\n"
    )
    assert ids(cli, project, "recall", "errors", "--scope", "global") == [("global", "E-001")]
    signal: tuple[str, ...] = (
        "store",
        "preference",
        "--decision-point",
        "review-verdict",
        "--context",
        "c",
    )
    signal += ("--proposed", "p", "--choice", "x", "--agent", "eng-a")
    assert run(cli, project, *signal, "--signal", "positive", "--scope", "global")[0] == 0
    assert run(cli, project, *signal, "--signal", "negative")[0] == 0
    assert ids(cli, project, "recall", "preferences", "--scope", "all") == [
        ("project", "D-001"),
        ("global", "D-001"),
    ]
    assert ids(cli, project, "recall", "preferences", "--scope", "all", "--signal", "positive") == [
        ("global", "D-001"),
    ]


def test_a_missing_global_tier_reads_as_empty(cli: CLI, both: Path, home: Path) -> None:
    for name in ("OUTCOMES.md", "PATTERNS.md"):
        (home / name).unlink()
    assert ids(cli, both, "recall", "outcomes", "--scope", "all") == [
        ("project", "O-002"),
        ("project", "O-001"),
    ]
    assert ids(cli, both, "recall", "patterns", "--scope", "global") == []


def test_an_unreadable_global_file_is_named_in_full(cli: CLI, both: Path, home: Path) -> None:
    (home / "OUTCOMES.md").write_bytes(b"| ID |\n|---|\n| \xff |\n")
    code, out, err = run(cli, both, "--json", "recall", "outcomes", "--scope", "all")
    warning = f"Warning: {home / 'OUTCOMES.md'} could not be parsed. Proceeding without memory."
    assert (code, err) == (0, warning + "\n")
    data = json.loads(out)
    assert [(r["scope"], r["id"]) for r in data["records"]] == [
        ("project", "O-002"),
        ("project", "O-001"),
    ]
    assert data["notes"] == [warning]


def test_the_too_many_note_is_the_projects(cli: CLI, both: Path) -> None:
    (both / "settings.json").write_text('{"memory": {"prune_threshold": 1}}')
    code, _, err = run(cli, both, "recall", "outcomes", "--scope", "global")
    assert (code, err) == (0, "")
    code, _, err = run(cli, both, "recall", "outcomes", "--scope", "all")
    assert err == (
        "OUTCOMES.md has 2 records. Run `/legion:learn --prune` to archive old entries, "
        "or enable `memory.auto_prune` in settings.json.\n"
    )


# ---- scores ---------------------------------------------------------------------------------


def test_scores_are_the_projects_unless_include_global(cli: CLI, both: Path, home: Path) -> None:
    project_only = run(cli, both, "--json", "score", "agents", "--task-type", "backend")
    # (success 1 x 3 + average importance 2.5 x 0.5) x average recency (0.4 + 0.7) / 2
    assert json.loads(project_only[1]) == {"eng-a": 2.3375}
    (home / "OUTCOMES.md").unlink()  # an empty global tier changes nothing either
    assert run(cli, both, "--json", "score", "agents", "--task-type", "backend") == project_only
    outcome(cli, both, "2026-05-09", "global newest", "--scope", "global")
    outcome(cli, both, "2026-05-08", "global second", "--scope", "global")
    assert run(cli, both, "--json", "score", "agents", "--task-type", "backend") == project_only
    code, out, _ = run(
        cli, both, "--json", "score", "agents", "--task-type", "backend", "--include-global"
    )
    # The same 4.25, times the average recency of all four: (0.4 + 0.7 + 1 + 1) / 4
    assert (code, json.loads(out)) == (0, {"eng-a": 3.29375})


def test_archetypes_count_the_global_tier_only_when_asked(cli: CLI, both: Path) -> None:
    def totals(*more: str) -> object:
        code, out, _ = run(cli, both, "--json", "score", "archetypes", *more)
        assert code == 0
        return {name: data["totalOutcomes"] for name, data in json.loads(out).items()}

    assert totals() == {"backend": 2}
    assert totals("--include-global") == {"backend": 4}


def test_preference_scores_count_the_global_tier_only_when_asked(cli: CLI, project: Path) -> None:
    signal: tuple[str, ...] = (
        "store",
        "preference",
        "--decision-point",
        "review-verdict",
        "--context",
        "c",
    )
    signal += ("--proposed", "p", "--choice", "x", "--agent", "eng-a", "--signal")
    assert run(cli, project, *signal, "positive")[0] == 0
    assert run(cli, project, *signal, "negative", "--scope", "global")[0] == 0
    # A second signal, on another proposal: the same one again would be the same record.
    again = tuple("p2" if value == "p" else value for value in signal)
    assert run(cli, project, *again, "negative", "--scope", "global")[0] == 0
    scores = ("--json", "score", "preferences")
    assert json.loads(run(cli, project, *scores)[1]) == {"eng-a": 0.5, "notes": []}
    data = json.loads(run(cli, project, *scores, "--include-global")[1])
    assert data == {"eng-a": -0.5, "notes": []}
    human = run(cli, project, "score", "preferences", "--include-global")
    assert human == (
        0,
        "| Agent | Boost | Positive | Corrective | Negative |\n"
        "|---|---|---|---|---|\n"
        "| eng-a | -0.5 | 1 | 0 | 2 |\n",
        "",
    )

"""`store preference`, `recall preferences` and `score preferences` with the corrective advisory."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.knowledge import MEMORY, TODAY, files_of, golden, numstat, project_with
from support.processes import CLI, read_bytes_of

from legion_memory.knowledge import preferences
from legion_memory.schema.kinds import PREFERENCE
from legion_memory.schema.records import Record

OVERRIDE = (
    "store",
    "preference",
    "--decision-point",
    "review-override",
    "--context",
    "Phase 8 review escalated, 1 blocker left",
    "--proposed",
    "Block the merge until the cache test passes",
    "--choice",
    "Accepted as-is and merged",
    "--signal",
    "corrective",
    "--agent",
    "testing-qa-verification-specialist",
    "--tags",
    "review,cache",
)
FRONTEND_ADVICE = (
    "Previous preference signals suggest user corrections for frontend "
    "(4 of 6 signals corrective: D-002, D-003, D-004, D-008)"
)


def run(cli: CLI, repo: Path, *args: str) -> tuple[int, str, str]:
    result = cli("--root", str(repo), "--today", TODAY, *args)
    return result.code, result.stdout, result.stderr


def recalled_ids(cli: CLI, repo: Path, *args: str) -> list[str]:
    code, out, err = run(cli, repo, "--json", "recall", "preferences", *args)
    assert (code, err) == (0, "")
    return [record["id"] for record in json.loads(out)["records"]]


def scores(cli: CLI, repo: Path, *args: str) -> dict[str, object]:
    code, out, err = run(cli, repo, "--json", "score", "preferences", *args)
    assert (code, err) == (0, "")
    data: dict[str, object] = json.loads(out)
    return data


def signal(number: int, kind: str, tags: str, agent: str = "a") -> Record:
    values = {"id": f"D-{number:03d}", "signal": kind, "tags": tags, "agent": agent}
    return Record(PREFERENCE, {**values, "decision_point": "manual-edit"})


# ---- store preference ----------------------------------------------------------------------------


def test_store_preference_appends_the_golden_row_as_one_added_line(cli: CLI, repo: Path) -> None:
    memory = project_with(repo, "PREFERENCES.md")
    assert run(cli, repo, *OVERRIDE) == (
        0,
        "Stored D-010 in .planning/memory/PREFERENCES.md:19\n",
        "",
    )
    assert (memory / "PREFERENCES.md").read_bytes() == golden("PREFERENCES.stored.md")
    assert numstat(repo) == ["1\t0\t.planning/memory/PREFERENCES.md"]


def test_a_crlf_file_gets_a_crlf_row(cli: CLI, repo: Path) -> None:
    memory = project_with(repo, "PREFERENCES.md")
    path = memory / "PREFERENCES.md"
    path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    assert run(cli, repo, *OVERRIDE)[0] == 0
    expected = golden("PREFERENCES.stored.md").replace(b"\n", b"\r\n")
    assert path.read_bytes() == expected


def test_store_preference_json_and_system_agent(cli: CLI, repo: Path) -> None:
    args = list(OVERRIDE)
    args[args.index("testing-qa-verification-specialist")] = "system"
    code, out, _ = run(cli, repo, "--json", *args)
    assert code == 0
    assert json.loads(out) == {
        "action": "stored",
        "where": ".planning/memory/PREFERENCES.md:10",
        "record": {
            "id": "D-001",
            "date": "2026-04-01",
            "branch": "main",
            "decision_point": "review-override",
            "context": "Phase 8 review escalated, 1 blocker left",
            "proposed": "Block the merge until the cache test passes",
            "user_choice": "Accepted as-is and merged",
            "signal": "corrective",
            "agent": "system",
            "tags": "review, cache",
        },
        "notes": [],
    }
    assert (repo / MEMORY / "PREFERENCES.md").read_text(encoding="utf-8") == (
        PREFERENCE.template() + "| D-001 | 2026-04-01 | main | review-override | Phase 8 review "
        "escalated, 1 blocker left | Block the merge until the cache test passes | Accepted as-is "
        "and merged | corrective | system | review, cache |\n"
    )


def replaced(flag: str, value: str | None) -> tuple[str, ...]:
    """OVERRIDE with `flag` given `value`, or left out when value is None."""
    args = list(OVERRIDE)
    index = args.index(flag)
    if value is None:
        del args[index : index + 2]
    else:
        args[index + 1] = value
    return tuple(args)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            replaced("--decision-point", "review"),
            "--decision-point 'review' is not valid (use one of review-verdict, review-override, "
            "agent-selection, manual-edit, fix-acceptance)",
        ),
        (
            replaced("--signal", "Positive"),
            "--signal 'Positive' is not valid (use one of positive, negative, corrective)",
        ),
        (
            replaced("--signal", ""),
            "--signal '' is not valid (use one of positive, negative, corrective)",
        ),
        (
            replaced("--agent", "qa, "),
            "Agent 'qa,' must be an agent ID or a comma-separated list of agent IDs "
            "(fix the value and retry)",
        ),
        (replaced("--choice", " "), "User Choice is required (fix the value and retry)"),
        (
            replaced("--decision-point", None),
            "Missing option '--decision-point'. Choose from: review-verdict, review-override, "
            "agent-selection, manual-edit, fix-acceptance",
        ),
        (replaced("--context", None), "Missing option '--context'."),
        (replaced("--proposed", None), "Missing option '--proposed'."),
        (replaced("--choice", None), "Missing option '--choice'."),
        (
            replaced("--signal", None),
            "Missing option '--signal'. Choose from: positive, negative, corrective",
        ),
        (replaced("--agent", None), "Missing option '--agent'."),
        (
            ("recall", "preferences", "--signal", "good"),
            "--signal 'good' is not valid (use one of positive, negative, corrective, all)",
        ),
        (
            ("recall", "preferences", "--decision-point", "Manual-Edit"),
            "--decision-point 'Manual-Edit' is not valid (use one of review-verdict, "
            "review-override, agent-selection, manual-edit, fix-acceptance, all)",
        ),
        (
            ("recall", "preferences", "--limit", "0"),
            "--limit 0 is not valid (use a number of 1 or more)",
        ),
        (
            ("score", "preferences", "--agent", "notes"),
            "agent ID 'notes' would clash with the notes key of the JSON output "
            "(score preferences cannot report an agent with that name)",
        ),
    ],
)
def test_bad_input_exits_2_with_one_line_and_writes_nothing(
    cli: CLI, repo: Path, args: tuple[str, ...], message: str
) -> None:
    project_with(repo, "PREFERENCES.md")
    before = read_bytes_of(repo)
    code, out, err = run(cli, repo, *args)
    suffix = (
        " (see `legion-memory store preference --help`)" if message.startswith("Missing") else ""
    )
    assert (code, out, err) == (2, "", f"Error: {message}{suffix}\n")
    assert read_bytes_of(repo) == before


# ---- recall preferences --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        # Today 2026-04-01. Weight 1.0: D-007, D-006 (both 03-29, higher ID first); 0.7: D-005,
        # D-004, D-003, D-002, D-001 (30 days old, still 0.7); 0.4: D-008; 0.1: D-009.
        ((), ["D-007", "D-006", "D-005", "D-004", "D-003", "D-002", "D-001", "D-008", "D-009"]),
        (("--limit", "3"), ["D-007", "D-006", "D-005"]),
        (("--signal", "corrective"), ["D-004", "D-003", "D-002", "D-008"]),
        (
            ("--signal", "all", "--decision-point", "all"),
            ["D-007", "D-006", "D-005", "D-004", "D-003", "D-002", "D-001", "D-008", "D-009"],
        ),
        (("--decision-point", "manual-edit"), ["D-004", "D-002", "D-008"]),
        (("--agent", "design-ui-designer"), ["D-003"]),
        (("--agent", "design-ui-designer, system"), ["D-007", "D-003"]),
        (("--agent", "testing-qa-verification-specialist"), ["D-003", "D-001"]),
        (("--tag", "review"), ["D-007", "D-006", "D-003", "D-001"]),
        (("--branch", "feature/ui"), ["D-007", "D-004"]),
        (
            ("--signal", "corrective", "--decision-point", "manual-edit", "--branch", "main"),
            ["D-002", "D-008"],
        ),
        (("--signal", "negative", "--tag", "api"), ["D-005"]),
    ],
)
def test_recall_filters_and_order(
    cli: CLI, repo: Path, args: tuple[str, ...], expected: list[str]
) -> None:
    project_with(repo, "PREFERENCES.md")
    assert recalled_ids(cli, repo, *args) == expected


def test_recall_human_output_is_a_markdown_table(cli: CLI, repo: Path) -> None:
    project_with(repo, "PREFERENCES.md")
    code, out, err = run(cli, repo, "recall", "preferences", "--agent", "design-ui-designer")
    assert (code, err) == (0, "")
    assert out == (
        "| ID | Date | Branch | Decision Point | Context | Proposed | User Choice | Signal | Agent "
        "| Tags |\n"
        "|---|---|---|---|---|---|---|---|---|---|\n"
        "| D-003 | 2026-03-12 | main | review-override | Phase 6 review escalated after 3 cycles "
        "| 1 blocker on styling | Accepted as-is | corrective "
        "| testing-qa-verification-specialist, design-ui-designer | review, frontend |\n"
    )


def test_recall_json_carries_the_recency_fields(cli: CLI, repo: Path) -> None:
    project_with(repo, "PREFERENCES.md")
    code, out, _ = run(cli, repo, "--json", "recall", "preferences", "--signal", "negative")
    assert code == 0
    records = json.loads(out)["records"]
    assert [(r["id"], r["days_old"], r["recency_weight"]) for r in records] == [
        ("D-005", 10, 0.7),
        ("D-009", 121, 0.1),
    ]


def test_recall_and_score_without_a_file_are_empty(cli: CLI, repo: Path) -> None:
    before = read_bytes_of(repo)
    assert run(cli, repo, "recall", "preferences") == (0, "", "")
    assert run(cli, repo, "score", "preferences", "--agent", "a") == (0, "", "")
    assert scores(cli, repo, "--agent", "a") == {"notes": []}
    assert read_bytes_of(repo) == before


def test_a_malformed_file_warns_and_scores_nothing(cli: CLI, repo: Path) -> None:
    memory = project_with(repo, "PREFERENCES.md")
    path = memory / "PREFERENCES.md"
    path.write_text(path.read_text().replace("| D-005 ", "| D-005 | stray "))
    before = files_of(repo)
    warning = "Warning: PREFERENCES.md could not be parsed. Proceeding without memory."
    code, out, err = run(cli, repo, "--json", "score", "preferences")
    assert (code, json.loads(out), err) == (0, {"notes": [warning]}, warning + "\n")
    assert run(cli, repo, "recall", "preferences")[1:] == ("", warning + "\n")
    assert run(cli, repo, *OVERRIDE)[0] == 1
    assert files_of(repo) == before


def test_disabled_memory_scores_nothing(cli: CLI, repo: Path) -> None:
    project_with(repo, "PREFERENCES.md")
    (repo / "settings.json").write_text('{"memory": {"enabled": false}}', encoding="utf-8")
    assert scores(cli, repo) == {"notes": []}
    assert recalled_ids(cli, repo) == []


# ---- score preferences ---------------------------------------------------------------------------


def test_score_every_agent_by_hand(cli: CLI, repo: Path) -> None:
    project_with(repo, "PREFERENCES.md")
    # frontend-developer: +1 (D-006) +0.5 x3 (D-002, D-004, D-008) -1 (D-009) = 1.5, x0.5 = 0.75
    # qa specialist: +1 (D-001) +0.5 (D-003) = 1.5 -> 0.75; system: +1 -> 0.5
    # design-ui-designer: +0.5 (D-003, a comma-separated Agent cell) -> 0.25
    # backend-architect: -1 (D-005) -> -0.5. Ties on the boost go by name.
    data = scores(cli, repo)
    assert list(data.items()) == [
        ("engineering-frontend-developer", 0.75),
        ("testing-qa-verification-specialist", 0.75),
        ("system", 0.5),
        ("design-ui-designer", 0.25),
        ("engineering-backend-architect", -0.5),
        ("notes", [FRONTEND_ADVICE]),
    ]


def test_score_requested_agents_only(cli: CLI, repo: Path) -> None:
    project_with(repo, "PREFERENCES.md")
    # D-001 and D-003 carry one frontend corrective between them: no advisory.
    assert scores(cli, repo, "--agent", "testing-qa-verification-specialist") == {
        "testing-qa-verification-specialist": 0.75,
        "notes": [],
    }
    # Only agents with a signal appear; comma-separated --agent values are split.
    assert scores(cli, repo, "--agent", "engineering-frontend-developer,nobody") == {
        "engineering-frontend-developer": 0.75,
        "notes": [
            "Previous preference signals suggest user corrections for frontend "
            "(3 of 5 signals corrective: D-002, D-004, D-008)"
        ],
    }


def test_score_human_output_has_the_table_and_the_advisory(cli: CLI, repo: Path) -> None:
    project_with(repo, "PREFERENCES.md")
    code, out, err = run(
        cli,
        repo,
        "score",
        "preferences",
        "--agent",
        "system",
        "--agent",
        "engineering-frontend-developer",
    )
    assert (code, err) == (0, "")
    assert out == (
        "| Agent | Boost | Positive | Corrective | Negative |\n"
        "|---|---|---|---|---|\n"
        "| engineering-frontend-developer | 0.75 | 1 | 3 | 1 |\n"
        "| system | 0.5 | 1 | 0 | 0 |\n"
        "\n"
        "Previous preference signals suggest user corrections for frontend "
        "(3 of 5 signals corrective: D-002, D-004, D-008)\n"
    )


def test_boost_is_half_the_signal_points() -> None:
    records = [
        signal(1, "positive", ""),
        signal(2, "positive", ""),
        signal(3, "corrective", ""),
        signal(4, "negative", ""),
        signal(5, "Corrective", "", agent="a, b"),
        signal(6, "unknown", ""),
    ]
    found = preferences.tallies(records)
    # a: 2 x 1 + 2 x 0.5 - 1 = 2, x0.5 = 1.0; b: 0.5 x 0.5 = 0.25. `unknown` counts for nothing.
    assert preferences.boosts(found) == {"a": 1.0, "b": 0.25}
    assert [(t.agent, t.positive, t.corrective, t.negative) for t in found] == [
        ("a", 2, 2, 1),
        ("b", 0, 1, 0),
    ]


def test_a_cluster_needs_three_correctives_that_are_half_the_tag() -> None:
    two = [signal(1, "corrective", "ui"), signal(2, "corrective", "ui")]
    assert preferences.corrective_clusters(two) == []
    three = [*two, signal(3, "corrective", "UI, api")]
    assert preferences.corrective_clusters(three) == [
        preferences.Cluster("ui", ("D-001", "D-002", "D-003"), 3)
    ]
    # 3 correctives of 6 signals on `ui` is exactly half: still a cluster.
    half = [*three, *(signal(n, "positive", "ui") for n in (4, 5, 6))]
    assert [c.note() for c in preferences.corrective_clusters(half)] == [
        "Previous preference signals suggest user corrections for ui "
        "(3 of 6 signals corrective: D-001, D-002, D-003)"
    ]
    # A fourth positive makes the correctives a minority.
    assert preferences.corrective_clusters([*half, signal(7, "negative", "ui")]) == []


def test_category_tags_do_not_make_clusters() -> None:
    records = [signal(n, "corrective", "manual-edit, corrective") for n in (1, 2, 3)]
    assert preferences.corrective_clusters(records) == []


def test_an_agent_named_notes_in_the_file_is_left_out_with_a_note(cli: CLI, repo: Path) -> None:
    memory = project_with(repo, "PREFERENCES.md")
    path = memory / "PREFERENCES.md"
    path.write_text(path.read_text().replace("| positive | system |", "| positive | notes |"))
    data = scores(cli, repo, "--agent", "system,engineering-backend-architect")
    assert data == {"engineering-backend-architect": -0.5, "notes": []}
    data = scores(cli, repo)
    assert data["notes"] == [
        "agent 'notes' is not scored: its ID is the JSON notes key",
        FRONTEND_ADVICE,
    ]
    assert "system" not in data


def test_an_invalid_setting_is_a_warning_not_a_failure(cli: CLI, repo: Path) -> None:
    project_with(repo, "PREFERENCES.md")
    (repo / "settings.json").write_text('{"memory": {"enabled": "no"}}', encoding="utf-8")
    code, out, err = run(cli, repo, "--json", "recall", "preferences", "--limit", "1")
    assert (code, [r["id"] for r in json.loads(out)["records"]]) == (0, ["D-007"])
    assert err == (
        f"Warning: {repo / 'settings.json'}: memory.enabled = 'no' is invalid; using True\n"
    )

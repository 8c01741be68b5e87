"""`diff REV [REV]`: memory changes between revisions, compared to a known expected markdown."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from support.gitrepos import commit
from support.processes import CLI, FIXTURES, git, read_bytes_of

HISTORY = FIXTURES / "git" / "diff-history"
EXPECTED = FIXTURES / "git" / "diff-v1-v2.md"


def _version(repo: Path, name: str) -> None:
    memory = repo / ".planning" / "memory"
    shutil.rmtree(memory, ignore_errors=True)
    shutil.copytree(HISTORY / name, memory)


@pytest.fixture
def history(repo: Path) -> Path:
    """main: v1 then v2 of the memory files, each tagged."""
    for name in ("v1", "v2"):
        _version(repo, name)
        commit(repo, name)
        git(repo, "tag", name)
    return repo


def test_diff_between_two_revisions_matches_the_expected_markdown(cli: CLI, history: Path) -> None:
    before = read_bytes_of(history)
    result = cli("diff", "v1", "v2", cwd=history)
    assert (result.code, result.stderr) == (0, "")
    assert result.stdout == EXPECTED.read_text(encoding="utf-8")
    assert read_bytes_of(history) == before


def test_one_revision_compares_with_the_working_tree(cli: CLI, history: Path) -> None:
    result = cli("diff", "v1", cwd=history)
    expected = EXPECTED.read_text(encoding="utf-8")
    assert result.stdout == expected.replace("`v1` → `v2`", "`v1` → working tree")


def test_json_lists_every_change(cli: CLI, history: Path) -> None:
    data = json.loads(cli("--json", "diff", "v1", "v2", cwd=history).stdout)
    assert (data["from"], data["to"]) == ("v1", "v2")
    summary = {
        entry["file"]: {
            key: [r["id"] for r in entry[key]] for key in ("added", "archived", "removed")
        }
        for entry in data["files"]
    }
    assert summary == {
        "OUTCOMES.md": {"added": ["O-004"], "archived": ["O-001"], "removed": ["O-002"]},
        "PATTERNS.md": {"added": ["P-002"], "archived": [], "removed": []},
        "ERRORS.md": {"added": ["E-002"], "archived": [], "removed": []},
    }
    assert data["files"][2]["updated"] == [
        {
            "id": "E-001",
            "changes": {
                "Fix": {"from": "raise the timeout", "to": "release the lock in finally"},
                "Resolved": {"from": "false", "to": "true"},
            },
        }
    ]
    assert data["problems"] == [
        {
            "file": ".planning/memory/ERRORS.md",
            "line": 11,
            "severity": "error",
            "message": "Resolved 'yes' must be true or false",
        }
    ]


def test_default_compares_the_merge_base_with_main_to_the_working_tree(
    cli: CLI, history: Path
) -> None:
    git(history, "checkout", "-q", "-b", "feature", "v1")
    _version(history, "v2")
    main_moved = cli("diff", cwd=history)
    expected = EXPECTED.read_text(encoding="utf-8")
    assert main_moved.stdout == expected.replace(
        "`v1` → `v2`", "merge base with main → working tree"
    )


def test_no_changes_brings_no_problem(cli: CLI, history: Path) -> None:
    """v2's ERRORS.md has an error (E-002's Resolved), which v2 itself brought: a diff from v2
    reports no problem, `validate` still does."""
    result = cli("diff", "v2", cwd=history)
    assert result.stdout == (
        "## Memory changes: `v2` → working tree\n\n"
        "No memory records changed.\n\n"
        "### Validation\n\n"
        "No problems in what changed.\n"
    )
    checked = cli("validate", cwd=history)
    assert "ERRORS.md:11: error: Resolved 'yes' must be true or false" in checked.stdout


def test_an_unknown_revision_is_one_line_exit_2(cli: CLI, history: Path) -> None:
    result = cli("diff", "nope", cwd=history)
    assert (result.code, result.stdout) == (2, "")
    assert result.stderr == (
        "Error: unknown revision 'nope' (give a branch, tag or commit (see `git log`))\n"
    )


def test_a_revision_of_two_lines_is_unknown_and_git_is_asked_nothing_else(
    cli: CLI, history: Path
) -> None:
    result = cli("diff", "v1\nv2", cwd=history)
    assert (result.code, result.stdout) == (2, "")
    assert result.stderr == "Error: unknown revision 'v1\\nv2' (give a branch, tag or commit)\n"


def test_a_revision_in_git_s_reflog_form_is_read_as_git_reads_it(cli: CLI, history: Path) -> None:
    result = cli("diff", "v1", "HEAD@{0}", cwd=history)
    expected = EXPECTED.read_text(encoding="utf-8")
    assert result.stdout == expected.replace("`v1` → `v2`", "`v1` → `HEAD@{0}`")


def test_diff_run_in_a_subdirectory_reads_the_clone_s_memory(cli: CLI, history: Path) -> None:
    """git is run in the project's root, whatever directory the command was started in."""
    below = history / "docs" / "notes"
    below.mkdir(parents=True)
    result = cli("diff", "v1", "v2", cwd=below)
    assert (result.code, result.stderr) == (0, "")
    assert result.stdout == EXPECTED.read_text(encoding="utf-8")


def test_a_project_outside_git_is_one_line_exit_1(cli: CLI, tmp_path: Path) -> None:
    project = tmp_path / "plain"
    shutil.copytree(HISTORY / "v1", project / ".planning" / "memory")
    before = read_bytes_of(project)
    result = cli("diff", "HEAD", cwd=project)
    assert (result.code, result.stdout) == (1, "")
    assert result.stderr == f"Error: {project}: not inside a git repository\n"
    assert read_bytes_of(project) == before


def test_more_than_two_revisions_is_a_usage_error(cli: CLI, history: Path) -> None:
    result = cli("diff", "v1", "v2", "v1", cwd=history)
    assert result.code == 2
    assert result.stderr == (
        "Error: diff takes at most two revisions (legion-memory diff REV [REV])\n"
    )


def test_a_renumbering_is_reported_as_one_not_as_an_update_or_an_addition() -> None:
    from support.gitrepos import outcome_row, pattern_row

    from legion_memory.gitops.memory_diff import compare, render_markdown
    from legion_memory.schema.kinds import OUTCOME, PATTERN

    old = {
        "OUTCOMES.md": OUTCOME.template() + outcome_row(1, "one") + outcome_row(2, "two"),
        "PATTERNS.md": PATTERN.template() + pattern_row(1, "p", "O-002"),
    }
    new = {
        "OUTCOMES.md": OUTCOME.template() + outcome_row(1, "one") + outcome_row(4, "two"),
        "PATTERNS.md": PATTERN.template() + pattern_row(1, "p", "O-004"),
    }
    diff = compare(old, new, ("before", "after"), ".planning/memory")
    outcomes, patterns = diff.kinds[0], diff.kinds[1]
    assert [(u.old.id, u.new.id) for u in outcomes.renumbered] == [("O-002", "O-004")]
    assert (outcomes.added, outcomes.updated, outcomes.removed) == ([], [], [])
    assert [u.changes() for u in patterns.updated] == [[("Source", "O-002", "O-004")]]
    assert "**Renumbered (1)**\n\n- O-002 → O-004\n" in render_markdown(diff)


def test_a_record_of_another_branch_under_the_same_id_is_no_update_of_the_one_it_replaced() -> None:
    """A file taken whole from another branch (`git checkout feature -- OUTCOMES.md`) puts that
    branch's record where main's was, under the same ID: main's record left without reaching
    the archive, which a reviewer must see, and the other record arrived. An edit of the
    summary, same Date and Branch, stays an update (docs/decisions.md#record-identity)."""
    from support.gitrepos import outcome_row

    from legion_memory.gitops.memory_diff import compare, render_markdown
    from legion_memory.schema.kinds import OUTCOME

    old = {"OUTCOMES.md": OUTCOME.template() + outcome_row(1, "one") + outcome_row(2, "two")}
    new = {
        "OUTCOMES.md": OUTCOME.template()
        + outcome_row(1, "one, edited")
        + outcome_row(2, "theirs", branch="feature")
    }
    diff = compare(old, new, ("before", "after"), ".planning/memory")
    outcomes = diff.kinds[0]
    assert [u.changes() for u in outcomes.updated] == [[("Summary", "one", "one, edited")]]
    assert [(r.id, r["summary"]) for r in outcomes.added] == [("O-002", "theirs")]
    assert [(r.id, r["summary"]) for r in outcomes.removed] == [("O-002", "two")]
    markdown = render_markdown(diff)
    assert "**Removed without archiving (1)**" in markdown
    assert "**Added (1)**" in markdown

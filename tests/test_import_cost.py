"""The hot commands, each run as a real process, import none of the heavy modules: every command
line call is a fresh process, so what it imports is what it costs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.processes import CLI, FIXTURES, probe

from legion_memory.cli.lean.hot_commands import ACTIONS

HEAVY = ("dataclasses", "inspect", "typer", "click", "pydantic", "mistune", "git", "tabulate")
# What `recall outcomes`, `store outcome` and the other commands without `typing` do without too:
# `pathlib`'s `urllib.parse` (docs/decisions.md#pathlib-without-urllib), `contextlib` and
# `importlib`, each a measurable part of a call.
LEAN_STDLIB = ("urllib", "urllib.parse", "ipaddress", "contextlib", "importlib")
LEAN_READERS = ("recall outcomes", "briefing", "score agents")
# What a store does without beside them: JSON (the option spec is a module), dates (today's text
# is enough), the recall's ranking and helpers, git's repository module (the branch is read by
# `gitops.branch`), the recall's filters, the options' help, `binascii` for values in which
# the secret detector finds no token to decode, and the `utf-8-sig` codec's module for the
# catalog and settings.json (docs/decisions.md#what-a-store-imports).
STORE_SKIPS = (
    "json", "datetime", "heapq", "legion_memory.knowledge.decay",
    "legion_memory.operations.common", "legion_memory.knowledge.filters",
    "legion_memory.operations.option_help", "binascii", "encodings.utf_8_sig",
    "legion_memory.gitops.repository",
)  # fmt: skip
TODAY = ("--today", "2026-03-10")
STORE = (
    "store", "outcome", "--phase", "1", "--agent", "backend-dev", "--task-type", "backend",
)  # fmt: skip
FIRST = ("--plan", "01-01", "--outcome", "success", "--importance", "3", "--summary", "Search")
SECOND = ("--plan", "01-02", "--outcome", "failed", "--importance", "4", "--summary", "Login")
HEADER = (
    "| ID | Date | Branch | Phase | Plan | Agent | Task Type | Outcome | Importance | Tags "
    "| Summary |\n"
)
DELIMITER = (
    "|----|------|--------|-------|------|-------|-----------|---------|------------|------"
    "|---------|\n"
)
ROW = (
    "| O-001 | 2026-03-10 | main | 1 | 01-01 | backend-dev | backend | success | 3 |  | Search |\n"
)


@pytest.fixture
def project(memory_project: Path) -> Path:
    return memory_project


def test_store_outcome_imports_nothing_heavy(project: Path) -> None:
    result, modules = probe(*TODAY, *STORE, *FIRST, cwd=project)
    assert (result.code, result.stdout) == (0, HEADER + "|---" * 11 + "|\n" + ROW)
    outcomes = (project / ".planning/memory/OUTCOMES.md").read_text(encoding="utf-8")
    assert outcomes.endswith(HEADER + DELIMITER + ROW)
    assert "legion_memory.cli.actions.outcomes" in modules
    assert sorted(modules.intersection(HEAVY)) == []
    assert "typing" not in modules  # docs/decisions.md#hot-paths-without-typing
    assert sorted(modules.intersection(LEAN_STDLIB + STORE_SKIPS)) == []
    assert "pathlib" in modules  # imported, without `urllib.parse`


def test_recall_outcomes_reads_every_branch_by_default() -> None:
    """The default of `--branch` is written out where a store imports it, not taken from the
    recall's filters, which a store does without."""
    import inspect

    from legion_memory.knowledge.filters import ALL_BRANCHES
    from legion_memory.operations.outcomes import recall_outcomes

    assert inspect.signature(recall_outcomes).parameters["branch"].default == ALL_BRANCHES


# Each command by its name in `hot.ACTIONS`: its arguments and its exact output.
READERS = {
    "recall outcomes": (
        ("recall", "outcomes"),
        "| ID | Date | Branch | Agent | Task Type | Outcome | Importance | Decay | Summary |\n"
        "|---|---|---|---|---|---|---|---|---|\n"
        "| O-002 | 2026-03-10 | main | backend-dev | backend | failed | 4 | 4 | Login |\n"
        "| O-001 | 2026-03-10 | main | backend-dev | backend | success | 3 | 3 | Search |\n",
    ),
    "score agents": (
        ("score", "agents", "--task-type", "backend"),
        "| Agent | Score |\n|---|---|\n| backend-dev | 3.25 |\n",
    ),
    "briefing": (
        ("briefing",),
        "## Memory\n"
        "**Outcomes**: 2 recorded | **Recent** (last 5):\n"
        "| Date | Agent | Outcome | Summary |\n"
        "|------|-------|---------|---------|\n"
        "| 2026-03-10 | backend-dev | failed | Login |\n"
        "| 2026-03-10 | backend-dev | success | Search |\n"
        "\n"
        "**Top Agents** (by experience):\n"
        "| Agent | Tasks | Success Rate |\n"
        "|-------|-------|-------------|\n"
        "| backend-dev | 2 | 50% |\n",
    ),
    "search": (
        ("search", "login"),
        "| # | File | ID | Score | Snippet |\n"
        "|---|---|---|---|---|\n"
        "| 1 | OUTCOMES.md:11 | O-002 | 0.976 | summary: Login |\n",
    ),
    "context": (
        ("context", "--agent", "backend-dev", "--task", "login"),
        '<legion-memory role="backend-dev">\n- [outcome] Login (2026-03-10)\n</legion-memory>\n',
    ),
}


@pytest.mark.parametrize("name", sorted(READERS))
def test_reading_commands_import_nothing_heavy(cli: CLI, project: Path, name: str) -> None:
    for outcome in (FIRST, SECOND):
        assert cli(*TODAY, *STORE, *outcome, cwd=project).code == 0
    args, expected = READERS[name]
    result, modules = probe(*TODAY, *args, cwd=project)
    assert (result.code, result.stdout) == (0, expected)
    action_module = ACTIONS[name].partition(":")[0]
    assert f"legion_memory.cli.actions.{action_module}" in modules  # run by the lean dispatcher
    assert sorted(modules.intersection(HEAVY)) == []
    assert "typing" not in modules  # docs/decisions.md#hot-paths-without-typing
    if name in LEAN_READERS:
        assert sorted(modules.intersection(LEAN_STDLIB)) == []


def test_merge_driver_imports_nothing_heavy(tmp_path: Path) -> None:
    base = "## Records\n\n" + HEADER + DELIMITER
    theirs_row = ROW.replace("01-01", "01-02").replace("Search", "Login")
    for name, text in (("O", base), ("A", base + ROW), ("B", base + theirs_row)):
        (tmp_path / name).write_text(text, encoding="utf-8")
    result, modules = probe("git", "merge-driver", "O", "A", "B", "7", "x", cwd=tmp_path)
    assert (result.code, result.stdout, result.stderr) == (
        0,
        "",
        "legion-memory: merged x: 1 new row from ours, 1 from theirs, "
        "0 identical on both sides\n"
        "legion-memory: x: theirs O-001 renumbered to O-002\n",
    )
    merged = base + ROW + theirs_row.replace("O-001", "O-002")
    assert (tmp_path / "A").read_text(encoding="utf-8") == merged
    assert "legion_memory.cli.actions.merge_driver" in modules
    assert sorted(modules.intersection(HEAVY)) == []


# The commands workflows and git hooks run beside the hot ones, on a project with one phase:
# their arguments, exit code and exact output.
PHASE_DIR = ".planning/phases/01-setup"
WORKFLOW = {
    "doctor": (("doctor", "--fix", "--quiet"), 0, ""),
    "compact": (
        ("compact", "--list-uncompacted"),
        0,
        "No completed phase has uncompacted summaries.\n",
    ),
    "phase-context": (("phase-context", "1"), 0, ""),
    "detect-edits": (
        ("detect-edits", "--phase", "1"),
        0,
        "No manual edits to files modified by phase 1's agents.\n",
    ),
    "prune": (
        ("prune", "--dry-run"),
        0,
        "No records eligible for pruning. All records are either recent, high-importance, or in "
        "the current phase.\n",
    ),
    "export": (
        ("export", "--format", "jsonl", "--file", "outcomes"),
        0,
        '{"kind": "outcome", "archived": false, "id": "O-001", "date": "2026-03-10", '
        '"branch": "main", "phase": 1, "plan": "01-01", "agent": "backend-dev", '
        '"task_type": "backend", "outcome": "success", "importance": 3, "tags": "", '
        '"summary": "Search"}\n',
    ),
    "forget": (
        ("forget", "O-001"),
        0,
        "archived O-001: OUTCOMES.md -> ARCHIVE.md (Archived Records)\n",
    ),
}


@pytest.mark.parametrize("name", sorted(WORKFLOW))
def test_workflow_commands_import_nothing_heavy(cli: CLI, project: Path, name: str) -> None:
    (project / PHASE_DIR).mkdir(parents=True)
    assert cli(*TODAY, *STORE, *FIRST, cwd=project).code == 0
    args, code, expected = WORKFLOW[name]
    result, modules = probe(*TODAY, *args, cwd=project)
    assert (result.code, result.stdout) == (code, expected)
    action_module = ACTIONS[name].partition(":")[0]
    assert f"legion_memory.cli.actions.{action_module}" in modules  # run by the lean dispatcher
    assert sorted(modules.intersection(HEAVY)) == []


def test_diff_imports_nothing_heavy(cli: CLI, project: Path) -> None:
    result, modules = probe("diff", "HEAD", cwd=project)
    assert result.code == 0
    assert result.stdout.startswith("## Memory changes: `HEAD` → working tree\n")
    assert "legion_memory.cli.actions.memory_diff" in modules
    # Old revisions are read by the git command line (docs/decisions.md#revisions-by-the-git-cli).
    assert sorted(modules.intersection(HEAVY)) == []


# The commands whose modules hold no `typing` import at run time, with their exact output.
WITHOUT_TYPING_WORKFLOW = {
    "validate": (("validate",), "5 files checked, 0 errors, 0 other\n"),
    "compact --list-uncompacted": (
        ("compact", "--list-uncompacted"),
        "No completed phase has uncompacted summaries.\n",
    ),
    "phase-context": (("phase-context", "1"), ""),
    "detect-edits": (
        ("detect-edits", "--phase", "1"),
        "No manual edits to files modified by phase 1's agents.\n",
    ),
}


@pytest.mark.parametrize("name", sorted(WITHOUT_TYPING_WORKFLOW))
def test_validate_and_the_phase_commands_import_no_typing(
    cli: CLI, project: Path, name: str
) -> None:
    (project / PHASE_DIR).mkdir(parents=True)
    assert cli(*TODAY, *STORE, *FIRST, cwd=project).code == 0
    args, expected = WITHOUT_TYPING_WORKFLOW[name]
    result, modules = probe(*TODAY, *args, cwd=project)
    assert (result.code, result.stdout) == (0, expected)
    assert sorted(modules.intersection(HEAVY)) == []
    assert "typing" not in modules  # docs/decisions.md#hot-paths-without-typing


def test_batch_imports_nothing_heavy(project: Path) -> None:
    lines = '["recall", "outcomes"]\n["score", "agents", "--task-type", "backend"]\n'
    result, modules = probe(*TODAY, "batch", cwd=project, stdin=lines)
    assert result.code == 0
    assert [json.loads(line) for line in result.stdout.splitlines()] == [
        {"line": 1, "command": ["recall", "outcomes"], "exit_code": 0,
         "result": {"records": [], "notes": []}, "notes": []},
        {"line": 2, "command": ["score", "agents"], "exit_code": 0, "result": {}, "notes": []},
    ]  # fmt: skip
    assert "legion_memory.cli.actions.batch" in modules
    assert sorted(modules.intersection(HEAVY)) == []


# A finished phase as agents write it: a SUMMARY of plain markdown, a PLAN of XML-like blocks
# (HTML to markdown: the line reader leaves such a body to mistune, and no reader of a PLAN asks
# for its body) (docs/decisions.md#outline-without-mistune).
SUMMARY = """---
phase: 01-setup
plan: 01
requirements: [SET-01]
---

# Phase 1 Plan 01: Setup Summary

**One-liner:** the `setup` command and its config file

## Status: Complete

## Files Modified

- `src/setup.py` - the command (new)
- `config/setup.toml` - its defaults

| File | Purpose |
|------|---------|
| `tests/test_setup.py` | the command's tests \\| exact output |

## Verification

```
pytest -q tests/test_setup.py
12 passed
```
"""
PLAN = """---
phase: 01-setup
plan: 01
files_modified: [src/setup.py]
---

<objective>
Write the `setup` command.
</objective>
"""
COMPACTED = """---
phase: 01-setup
compacted: 2026-03-10
original_summaries: [01-01-SUMMARY.md]
requirements_satisfied: [SET-01]
---

# Phase 1: Setup — Compacted Summary

## Deliverables

- 01-01 Setup: the `setup` command and its config file

## Decisions

- None recorded.

## Files Modified

| File | Change |
|------|--------|
| src/setup.py | 01-01: modified — the command (new) |
| config/setup.toml | 01-01: modified — its defaults |
| tests/test_setup.py | 01-01: modified — the command's tests \\| exact output |

## Verification

- SET-01: pass — 01-01
- 01-01: pass — Complete; 12 passed

## Agents

- (not recorded): 01-01
"""
CHECKED = (
    "checked .planning/phases/01-setup/01-COMPACTED.md\n"
    "requirement IDs: 1/1 present\n"
    "file paths: 3/3 present\n"
    "length: {percent}% of the original summaries ({compacted} of {original} characters)\n"
    "warning: length is {percent}% of the originals (target 30-50%)\n"
    "check passed\n"
)


@pytest.mark.parametrize("quoted", [False, True], ids=["plain summary", "summary with a quote"])
def test_compact_check_reads_plain_planning_files_without_mistune(
    cli: CLI, project: Path, quoted: bool
) -> None:
    phase = project / PHASE_DIR
    phase.mkdir(parents=True)
    summary = SUMMARY + ("\n> A block quote: mistune reads this summary.\n" if quoted else "")
    (phase / "01-01-SUMMARY.md").write_text(summary, encoding="utf-8")
    (phase / "01-01-PLAN.md").write_text(PLAN, encoding="utf-8")
    assert cli(*TODAY, "compact", "--force", "1", cwd=project).code == 0
    assert (phase / "01-COMPACTED.md").read_text(encoding="utf-8") == COMPACTED
    result, modules = probe(*TODAY, "compact", "--check", "1", cwd=project)
    original = len(summary)
    percent = round(100 * len(COMPACTED) / original)
    shown = {"percent": percent, "compacted": len(COMPACTED), "original": original}
    assert (result.code, result.stdout) == (0, CHECKED.format(**shown))
    assert "legion_memory.cli.actions.phases" in modules  # run by the lean dispatcher
    if quoted:
        assert "mistune" in modules  # the line reader left that summary to mistune
    else:
        assert sorted(modules.intersection(HEAVY)) == []
        assert "typing" not in modules  # docs/decisions.md#hot-paths-without-typing


def test_a_store_reading_the_catalog_and_settings_decodes_them_without_codec_modules(
    project: Path,
) -> None:
    """settings.json and the catalog are read (a byte order mark dropped by hand): no `utf-8-sig`
    codec module."""
    (project / "settings.json").write_text('{"memory": {"prune_threshold": 300}}\n')
    catalog = FIXTURES / "catalog" / "CATALOG.md"
    summary = "Stored one outcome | with a pipe"
    result, modules = probe(
        *TODAY, "--catalog", str(catalog), *STORE[:4], "--plan", "01-01",
        "--agent", "engineering-senior-developer", "--outcome", "success", "--summary", summary,
        cwd=project,
    )  # fmt: skip
    row = (
        "| O-001 | 2026-03-10 | main | 1 | 01-01 | engineering-senior-developer | full-stack "
        "| success | 3 |  | Stored one outcome \\| with a pipe |\n"
    )
    assert (result.code, result.stderr) == (0, "")
    assert result.stdout == HEADER + "|---" * 11 + "|\n" + row
    assert {"legion_memory.project.catalog", "json"} <= modules
    assert "encodings.utf_8_sig" not in modules

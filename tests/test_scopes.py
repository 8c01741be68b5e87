"""The global tier: `$LEGION_MEMORY_HOME`, `--scope project|global|all`, project results first."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from support.processes import CLI, FIXTURES, read_bytes_of

from legion_memory.errors import InputError
from legion_memory.storage import scopes
from legion_memory.storage.reading import Memory

TODAY = "2026-05-01"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh global tier, a copy of fixtures/search/global, as $LEGION_MEMORY_HOME."""
    path = tmp_path / "global-memory"
    shutil.copytree(FIXTURES / "search" / "global", path)
    monkeypatch.setenv(scopes.HOME_VARIABLE, str(path))
    return path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    shutil.copytree(FIXTURES / "search" / "project", root / ".planning" / "memory")
    return root


def hits(cli: CLI, root: Path, *args: str) -> list[tuple[str, str]]:
    result = cli("--root", str(root), "--today", TODAY, "--json", "search", *args)
    assert (result.code, result.stderr) == (0, "")
    return [(hit["scope"], hit["id"]) for hit in json.loads(result.stdout)["results"]]


def test_home_defaults_to_dot_legion_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    assert scopes.global_home({}) == tmp_path / ".legion" / "memory"
    assert scopes.global_home({"LEGION_MEMORY_HOME": "  "}) == tmp_path / ".legion" / "memory"
    assert scopes.global_home({"LEGION_MEMORY_HOME": "~/mem"}) == tmp_path / "mem"
    assert scopes.global_home({"LEGION_MEMORY_HOME": "/srv/mem"}) == Path("/srv/mem")


def test_tiers_of_each_scope_project_first(tmp_path: Path) -> None:
    project = Memory(tmp_path / "p")
    environ = {"LEGION_MEMORY_HOME": str(tmp_path / "g")}
    glob = Memory(tmp_path / "g")
    assert scopes.memories("project", project, environ) == [scopes.Scoped("project", project)]
    assert scopes.memories("global", project, environ) == [scopes.Scoped("global", glob)]
    assert scopes.memories("all", project, environ) == [
        scopes.Scoped("project", project),
        scopes.Scoped("global", glob),
    ]
    assert scopes.single("global", project, environ) == scopes.Scoped("global", glob)
    with pytest.raises(InputError, match="--scope 'all' is not valid"):
        scopes.single("all", project, environ)


def test_scores_read_the_project_alone_unless_asked(tmp_path: Path) -> None:
    project = Memory(tmp_path / "p")
    environ = {"LEGION_MEMORY_HOME": str(tmp_path / "g")}
    assert scopes.for_scores(project, environ, include_global=False) == [
        scopes.Scoped("project", project)
    ]
    assert [t.scope for t in scopes.for_scores(project, environ, include_global=True)] == [
        "project",
        "global",
    ]


def test_merge_keeps_groups_in_order_and_cuts_overall() -> None:
    groups = [("project", [3, 1]), ("global", [9, 8])]
    merged = scopes.merge(groups)
    assert [(m.scope, m.item) for m in merged] == [
        ("project", 3),
        ("project", 1),
        ("global", 9),
        ("global", 8),
    ]
    assert [(m.scope, m.item) for m in scopes.merge(groups, limit=3)] == [
        ("project", 3),
        ("project", 1),
        ("global", 9),
    ]


def test_search_all_lists_project_results_before_global_ones(
    cli: CLI, project: Path, home: Path
) -> None:
    # The global D-001 is 1 day old (recency 1.0), the project's O-003 11 days (0.7), yet the
    # global record comes after every project one.
    assert hits(cli, project, "tailwind", "--scope", "all") == [
        ("project", "D-001"),
        ("project", "O-003"),
        ("global", "D-001"),
    ]
    assert hits(cli, project, "tailwind", "--scope", "global") == [("global", "D-001")]
    assert hits(cli, project, "tailwind") == [("project", "D-001"), ("project", "O-003")]
    # "parsers" is rarer than "tailwind" in the project (idf ln 10 against ln 6): P-001 first.
    both = hits(cli, project, "tailwind parsers", "--scope", "all")
    assert both == [
        ("project", "P-001"),
        ("project", "D-001"),
        ("project", "O-003"),
        *hits(cli, project, "tailwind parsers", "--scope", "global"),
    ]
    assert [scope for scope, _ in both[3:]] == ["global", "global"]


def test_human_output_marks_the_scope(cli: CLI, project: Path, home: Path) -> None:
    result = cli("--root", str(project), "--today", TODAY, "search", "parser", "--scope", "all")
    lines = result.stdout.splitlines()
    assert lines[:2] == ["| # | Scope | File | ID | Score | Snippet |", "|---|---|---|---|---|---|"]
    assert lines[2].startswith("| 1 | project | PATTERNS.md:10 | P-001 | ")
    assert lines[3].startswith("| 2 | global | PATTERNS.md:10 | P-001 | ")
    assert len(lines) == 4


def test_global_paths_are_shown_in_full(cli: CLI, project: Path, home: Path) -> None:
    args = ("--root", str(project), "--today", TODAY, "--json", "search", "parser")
    result = cli(*args, "--scope", "global")
    assert json.loads(result.stdout)["results"][0]["path"] == str(home / "PATTERNS.md")


def test_global_tier_does_not_change_project_scores(cli: CLI, project: Path, home: Path) -> None:
    def scored(scope: str) -> list[dict[str, object]]:
        result = cli(
            "--root",
            str(project),
            "--today",
            TODAY,
            "--json",
            "search",
            "tailwind parsers",
            "--scope",
            scope,
        )
        return [h for h in json.loads(result.stdout)["results"] if h["scope"] == "project"]

    # Each tier is ranked as its own corpus: global records change no project score.
    assert scored("all") == scored("project")


def test_missing_home_is_an_empty_tier(
    cli: CLI, project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(scopes.HOME_VARIABLE, str(tmp_path / "nowhere"))
    assert hits(cli, project, "tailwind", "--scope", "global") == []
    assert hits(cli, project, "tailwind", "--scope", "all") == [
        ("project", "D-001"),
        ("project", "O-003"),
    ]
    assert not (tmp_path / "nowhere").exists()


def test_forget_in_the_global_tier_leaves_the_project_alone(
    cli: CLI, project: Path, home: Path
) -> None:
    project_before = read_bytes_of(project)
    patterns_before = (home / "PATTERNS.md").read_bytes()
    result = cli("--root", str(project), "forget", "P-001", "--scope", "global")
    assert (result.code, result.stdout) == (
        0,
        "archived P-001: PATTERNS.md -> ARCHIVE.md (Archived Patterns)\n",
    )
    assert read_bytes_of(project) == project_before
    assert hits(cli, project, "parsers", "--scope", "all") == [("project", "P-001")]
    assert (home / "ARCHIVE.md").is_file()
    result = cli("--root", str(project), "restore", "P-001", "--scope", "global")
    assert result.code == 0
    assert (home / "PATTERNS.md").read_bytes() == patterns_before
    bad = cli("--root", str(project), "forget", "P-001", "--scope", "all")
    assert (bad.code, bad.stderr) == (
        2,
        "Error: --scope 'all' is not valid (use one of project, global)\n",
    )

"""The fixtures every test may take: the CLI run in-process, and a real git repository."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.processes import CLI, Result, git

from legion_memory.cli.entry import main


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> CLI:
    """Run `legion-memory ARGS` in this process from `cwd`; returns exit code and output."""

    def run(*args: str, cwd: Path | None = None) -> Result:
        if cwd is not None:
            monkeypatch.chdir(cwd)
        capsys.readouterr()
        code = main(list(args))
        captured = capsys.readouterr()
        return Result(code, captured.out, captured.err)

    return run


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A real git repository on branch `main` with one commit."""
    path = tmp_path / "project"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "user.email", "dev@example.com")
    git(path, "config", "user.name", "Dev")
    git(path, "config", "commit.gpgsign", "false")
    (path / "README.md").write_text("project\n", encoding="utf-8")
    git(path, "add", "README.md")
    git(path, "commit", "-q", "-m", "initial")
    return path


@pytest.fixture
def memory_project(cli: CLI, repo: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An initialised project; no catalog and no global tier from the machine running the tests."""
    monkeypatch.delenv("LEGION_CATALOG", raising=False)
    monkeypatch.delenv("CLAUDE_PLUGIN_ROOT", raising=False)
    monkeypatch.setenv("LEGION_MEMORY_HOME", str(repo.parent / "global-memory"))
    assert cli("init", cwd=repo).code == 0
    return repo

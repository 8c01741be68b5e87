"""The shipped `legion-memory-validate` hook, run by the real `pre-commit try-repo`, offline.

pre-commit installs a `language: python` hook by creating a virtualenv and `pip install .`-ing this
repository into it. To do that without a network, pip gets no index and no build isolation, and
sees the packages of the interpreter running the tests (setuptools included) on PYTHONPATH, so
every requirement is already satisfied.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from support.gitrepos import outcome_row
from support.processes import REPO_ROOT, git

from legion_memory.schema.kinds import OUTCOME

pytestmark = pytest.mark.slow

PRE_COMMIT = Path(sys.executable).with_name("pre-commit")


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One hook environment for the module: built once, reused by each run."""
    return tmp_path_factory.mktemp("pre-commit-home")


def _offline_env(home: Path) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("PIP_")}
    env.update(
        PRE_COMMIT_HOME=str(home),
        PIP_CONFIG_FILE=os.devnull,
        PIP_NO_INDEX="1",
        PIP_NO_BUILD_ISOLATION="0",
        PYTHONPATH=sysconfig.get_paths()["purelib"],
        VIRTUALENV_NO_PERIODIC_UPDATE="1",
    )
    return env


def _try_repo(project: Path, home: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(PRE_COMMIT), "try-repo", str(REPO_ROOT), "legion-memory-validate", "--all-files"],
        cwd=project,
        env=_offline_env(home),
        capture_output=True,
        text=True,
        check=False,
    )


def test_the_hook_flags_a_duplicate_id_and_passes_once_fixed(
    repo: Path, pre_commit_home: Path
) -> None:
    outcomes = repo / ".planning" / "memory" / "OUTCOMES.md"
    outcomes.parent.mkdir(parents=True)
    outcomes.write_text(OUTCOME.template() + outcome_row(1, "a") + outcome_row(1, "b"))
    (repo / "notes.md").write_text("| not | memory |\n|---|---|\n| x | x |\n| x | x |\n")
    git(repo, "add", "-A")

    flagged = _try_repo(repo, pre_commit_home)
    assert flagged.returncode == 1, flagged.stdout + flagged.stderr
    assert "legion-memory validate" in flagged.stdout
    assert "Failed" in flagged.stdout
    assert (
        ".planning/memory/OUTCOMES.md:11: error: duplicate ID O-001 (also on line 10)\n"
        "1 file checked, 1 error, 0 other\n"
    ) in flagged.stdout

    outcomes.write_text(OUTCOME.template() + outcome_row(1, "a") + outcome_row(2, "b"))
    git(repo, "add", "-A")
    passed = _try_repo(repo, pre_commit_home)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "legion-memory validate" in passed.stdout
    assert "Passed" in passed.stdout

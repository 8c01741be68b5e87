"""The packages a user installs: the sdist carries its own tests and they pass against the
installed package; the wheel installs as a tool with `uv tool install`, offline."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tomllib
from pathlib import Path

import pytest
from support.processes import REPO_ROOT, git
from support.wheelhouse import build, wheelhouse

PROJECT = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
VERSION = PROJECT["version"]
# A few suites that together touch the table model, the CLI frame, both dispatchers and validate.
SDIST_TESTS = ["tests/test_cli_frame.py", "tests/test_table_golden.py", "tests/test_fast_path.py",
               "tests/test_validate.py"]  # fmt: skip
UV = shutil.which("uv", path=str(Path(sys.executable).parent)) or shutil.which("uv")


def test_the_metadata_names_its_license_authors_urls_and_classifiers() -> None:
    assert (REPO_ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License\n")
    assert PROJECT["license"] == "MIT" and PROJECT["license-files"] == ["LICENSE"]
    assert PROJECT["authors"] and PROJECT["urls"]
    assert "Programming Language :: Python :: 3.11" in PROJECT["classifiers"]


def _venv_with_the_dependencies(directory: Path) -> Path:
    """A fresh virtualenv that sees this one's installed dependencies (a path file), but not
    this checkout: what it imports of legion_memory is what was installed into it."""
    # Without pip: the venv's own copies (and an old setuptools) would come before this one's.
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(directory)], check=True)
    python = directory / "bin" / "python"
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    Path(site, "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return python


@pytest.mark.slow
def test_the_sdist_runs_its_own_tests(tmp_path: Path) -> None:
    sdist = build("sdist", tmp_path / "dist")
    with tarfile.open(sdist) as archive:
        archive.extractall(tmp_path / "unpacked", filter="data")
    source = tmp_path / "unpacked" / f"legion_memory-{VERSION}"
    for needed in ("tests/conftest.py", "tests/support/processes.py", "fixtures", "LICENSE"):
        assert (source / needed).exists(), needed
    python = _venv_with_the_dependencies(tmp_path / "venv")
    install = [str(python), "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
               "--no-build-isolation", str(sdist)]  # fmt: skip
    subprocess.run(install, check=True, cwd=tmp_path)
    shutil.rmtree(source / "legion_memory")  # the tests must use the installed package
    env = {**os.environ, "PYTHONPATH": ""}
    where = subprocess.run(
        [str(python), "-c", "import legion_memory; print(legion_memory.__file__)"],
        cwd=source, env=env, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert where.startswith(str(tmp_path / "venv"))
    done = subprocess.run(
        [str(python), "-m", "pytest", "-p", "no:cacheprovider", *SDIST_TESTS],
        cwd=source, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert " passed" in done.stdout.splitlines()[-1]


@pytest.mark.slow
@pytest.mark.skipif(UV is None, reason="uv is not installed")
def test_uv_tool_install_from_the_wheel_offline(tmp_path: Path) -> None:
    assert UV is not None
    wheel = build("wheel", tmp_path / "dist")
    links = wheelhouse(tmp_path / "wheelhouse", "legion-memory")
    env = {
        **os.environ,
        "UV_TOOL_DIR": str(tmp_path / "tools"),
        "UV_NO_CONFIG": "1",
        "UV_TOOL_BIN_DIR": str(tmp_path / "bin"),
        "UV_CACHE_DIR": str(tmp_path / "cache"),
    }
    installed = subprocess.run(
        [UV, "tool", "install", "--offline", "--no-index", "--find-links", str(links),
         "--python", sys.executable, str(wheel)],
        env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert installed.returncode == 0, installed.stderr
    tool = tmp_path / "bin" / "legion-memory"
    version = subprocess.run([str(tool), "--version"], capture_output=True, text=True, check=True)
    assert version.stdout == f"legion-memory {VERSION}\n"
    project = tmp_path / "project"
    project.mkdir()
    git(project, "init", "-q", "-b", "main")
    created = subprocess.run([str(tool), "init"], cwd=project, capture_output=True, text=True,
                             check=True)  # fmt: skip
    assert created.stdout.splitlines()[0] == "created .planning/memory/OUTCOMES.md"

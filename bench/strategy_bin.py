"""The octopus strategy's program on PATH for a checkout that is not installed: git finds a merge
strategy only as a `git-merge-NAME` program on PATH, and an installed one would run other code."""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Mapping
from pathlib import Path

from legion_memory.gitops.octopus import PROGRAM


def strategy_bin(directory: Path, code: Path) -> Path:
    """`directory` holding the strategy's program, running `code` with this interpreter."""
    directory.mkdir(parents=True, exist_ok=True)
    program = directory / PROGRAM
    program.write_text(
        "#!/bin/sh\n"
        f"PYTHONPATH={shlex.quote(str(code))} exec {shlex.quote(sys.executable)} "
        '-m legion_memory.gitops.octopus "$@"\n',
        encoding="utf-8",
    )
    program.chmod(0o755)
    return directory


def on_path(env: Mapping[str, str], directory: Path) -> dict[str, str]:
    return {**env, "PATH": f"{directory}{os.pathsep}{env.get('PATH', '')}"}

"""Regenerating a Legion checkout's `checksums.sha256` with Legion's own script, so that
`install.js --verify` and Legion's checksum test accept the replaced skill."""

from __future__ import annotations

import shutil
import subprocess

from legion_memory.errors import LegionMemoryError
from legion_memory.legion.layout import CHECKSUM_SCRIPT, Legion


def command_for(legion: Legion) -> str:
    """The one command a user runs when this tool cannot run node itself."""
    return f"cd {legion.root} && node {CHECKSUM_SCRIPT}"


def refresh(legion: Legion, dry_run: bool, node: str | None = None) -> str:
    """What was done about the manifest: regenerated (Legion's script prints what it wrote),
    or the command to run. An installed plugin has no manifest: nothing to do."""
    script = legion.checksum_script
    if script is None:
        return ""
    node = node or shutil.which("node")
    if node is None:
        return f"node not found: run `{command_for(legion)}` to regenerate checksums.sha256"
    if dry_run:
        return f"would run `{command_for(legion)}`"
    try:
        done = subprocess.run(
            [node, str(CHECKSUM_SCRIPT)],
            cwd=legion.root,
            capture_output=True,
            text=True,
            check=False,
            timeout=120,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise _failed(legion, str(exc)) from exc
    if done.returncode != 0:
        raise _failed(legion, (done.stderr.strip().splitlines() or ["no output"])[-1])
    return done.stdout.strip().replace(f"{legion.root}/", "")


def _failed(legion: Legion, why: str) -> LegionMemoryError:
    return LegionMemoryError(
        f"the skill is installed, but regenerating checksums.sha256 failed: {why}",
        where=str(legion.root / CHECKSUM_SCRIPT),
        hint=f"run `{command_for(legion)}`",
    )

"""Test helpers around the real Legion repository: a writable copy, its node test suite, and the
sections of a memory-manager skill."""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
from pathlib import Path

from support.processes import REPO_ROOT

LEGION = REPO_ROOT.parent / "shared" / "legion"
NODE = shutil.which("node")
SKILL_DOC = REPO_ROOT / "docs" / "memory-manager-SKILL.md"
LEGION_SKILL = Path("skills") / "memory-manager" / "SKILL.md"
# The packages Legion's package.json lists; a test file that needs one cannot run without npm.
NPM_MISSING = re.compile(r"Cannot find module '(yaml|ajv|gray-matter)'")
_SUMMARY = re.compile(r"^# (pass|fail) (\d+)$", re.MULTILINE)
_HEADING = re.compile(r"^## (Section (\d+(?:\.\d+)?): .+|Completion Gate|References)$", re.M)


def copy_legion(target: Path) -> Path:
    """A writable copy of the read-only Legion repository."""
    shutil.copytree(LEGION, target, symlinks=True)
    for path in [target, *target.rglob("*")]:
        if not path.is_symlink():
            path.chmod(path.stat().st_mode | stat.S_IWUSR)
    return target


def node_suite(legion: Path) -> dict[str, tuple[int, int]]:
    """(passed, failed) per test file of Legion's suite, leaving out the files that need npm
    packages (they fail to load in a checkout without `npm install`)."""
    results = {}
    for test_file in sorted((legion / "tests").glob("*.test.js")):
        done = node_test(legion, test_file.relative_to(legion))
        if NPM_MISSING.search(done.stdout + done.stderr):
            continue
        counts = dict((kind, int(n)) for kind, n in _SUMMARY.findall(done.stdout))
        results[test_file.name] = (counts.get("pass", 0), counts.get("fail", 0))
    return results


def node_test(legion: Path, test_file: Path) -> subprocess.CompletedProcess[str]:
    assert NODE is not None
    env = {**os.environ, "NODE_OPTIONS": ""}
    return subprocess.run(
        [NODE, "--test", str(test_file)],
        cwd=legion,
        capture_output=True,
        text=True,
        check=False,
        env=env,
        timeout=300,
    )


def sections(text: str) -> dict[str, tuple[str, str]]:
    """Heading key (`2`, `7.5`, `Completion Gate`, `References`) -> (heading, body up to the
    next `## ` heading of that kind)."""
    found = list(_HEADING.finditer(text))
    result = {}
    for index, match in enumerate(found):
        end = found[index + 1].start() if index + 1 < len(found) else len(text)
        key = match.group(2) or match.group(1)
        result[key] = (match.group(1), text[match.end() : end])
    return result


def tree_bytes(root: Path) -> dict[str, bytes]:
    """Every file under `root` with its bytes, and every directory (as b"<dir>")."""
    tree = {}
    for path in sorted(root.rglob("*")):
        relative = str(path.relative_to(root))
        tree[relative] = b"<dir>" if path.is_dir() else path.read_bytes()
    return tree

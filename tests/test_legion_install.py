"""`legion install` into a real Legion checkout and into installed plugins, and back out."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from support.legion import (
    LEGION,
    LEGION_SKILL,
    NODE,
    SKILL_DOC,
    copy_legion,
    node_suite,
    tree_bytes,
)
from support.processes import run_process

needs_legion = pytest.mark.skipif(not LEGION.is_dir(), reason="../shared/legion is not present")
needs_node = pytest.mark.skipif(NODE is None, reason="node is not on PATH")
PACKAGE = {"name": "@9thlevelsoftware/legion", "version": "0.0.1"}
ORIGINAL = b"---\nname: memory-manager\n---\n\n# Memory Manager\n\nhand edits\n"


@pytest.mark.slow
@needs_legion
@needs_node
def test_legions_suite_passes_the_same_and_uninstall_restores_every_byte(tmp_path: Path) -> None:
    legion = copy_legion(tmp_path / "legion")
    before_tree = tree_bytes(legion)
    before = node_suite(legion)
    done = run_process("legion", "install", "--legion", str(legion), cwd=tmp_path)
    assert done.code == 0, done.stderr
    assert done.stdout.splitlines()[:2] == [
        f"Legion checkout: {legion}",
        "replace skills/memory-manager/SKILL.md (original kept in .legion-memory/)",
    ]
    assert done.stdout.splitlines()[2].startswith("Wrote ")
    assert (legion / LEGION_SKILL).read_bytes() == SKILL_DOC.read_bytes()
    assert node_suite(legion) == before
    assert before["memory-manager.test.js"] == (5, 0)
    assert all(failed == 0 for _, failed in before.values())
    done = run_process("legion", "install", "--legion", str(legion), "--uninstall", cwd=tmp_path)
    assert done.code == 0, done.stderr
    assert tree_bytes(legion) == before_tree


@needs_legion
@needs_node
def test_installers_verify_accepts_the_regenerated_checksums(tmp_path: Path) -> None:
    legion = copy_legion(tmp_path / "legion")
    run_process("legion", "install", "--legion", str(legion), cwd=tmp_path, check=True)
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    home.mkdir()
    import subprocess

    done = subprocess.run(
        [str(NODE), str(legion / "bin" / "install.js"), "--claude", "--local", "--verify"],
        cwd=project,
        env={**os.environ, "HOME": str(home)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert "Integrity verification passed" in done.stdout, done.stdout + done.stderr
    installed = project / ".claude" / "legion" / "skills" / "memory-manager" / "SKILL.md"
    assert installed.read_bytes() == SKILL_DOC.read_bytes()


def fake_checkout(root: Path) -> Path:
    (root / "skills" / "memory-manager").mkdir(parents=True)
    (root / "package.json").write_text(json.dumps(PACKAGE), encoding="utf-8")
    (root / LEGION_SKILL).write_bytes(ORIGINAL)
    return root


def fake_install(home: Path, layout: str) -> tuple[Path, list[Path]]:
    """What Legion's installer writes: manifest.json with paths.skills and native artifacts."""
    root = home / layout
    skills = root / "skills"
    kilo = home / ".kilo" / "skills" / "memory-manager" / "SKILL.md"
    copies = [skills / "memory-manager" / "SKILL.md", kilo]
    for copy in copies:
        copy.parent.mkdir(parents=True)
        copy.write_bytes(ORIGINAL)
    manifest = {
        **PACKAGE,
        "paths": {"skills": str(skills), "agents": str(root / "agents")},
        "nativeArtifacts": [{"path": str(kilo)}, {"path": str(kilo.parent), "kind": "dir"}],
    }
    (root / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return root, copies


@pytest.mark.parametrize("layout", [".claude/legion", ".legion"])
def test_an_installed_plugin_in_the_home_directory(tmp_path: Path, layout: str) -> None:
    home = tmp_path / "home"
    root, copies = fake_install(home, layout)
    before = tree_bytes(home)
    work = tmp_path / "elsewhere"
    work.mkdir()
    done = run_process("legion", "install", cwd=work, env={"HOME": str(home)})
    assert done.code == 0, done.stderr
    assert done.stdout == "\n".join(
        [
            f"Legion installed: {root}",
            "replace skills/memory-manager/SKILL.md (original kept in .legion-memory/)",
            f"replace {copies[1]} (original kept in .legion-memory/)",
            "",
        ]
    )
    assert all(copy.read_bytes() == SKILL_DOC.read_bytes() for copy in copies)
    again = run_process("legion", "install", cwd=work, env={"HOME": str(home)})
    assert again.stdout == f"Legion installed: {root}\nalready installed in {root}\n"
    done = run_process("legion", "install", "--uninstall", "--legion", str(root), cwd=work)
    assert done.code == 0, done.stderr
    assert tree_bytes(home) == before


def test_dry_run_changes_nothing(tmp_path: Path) -> None:
    legion = fake_checkout(tmp_path / "legion")
    before = tree_bytes(legion)
    done = run_process("legion", "install", "--legion", str(legion), "--dry-run", cwd=tmp_path)
    assert done.code == 0, done.stderr
    assert done.stdout.endswith("dry run: nothing was changed\n")
    assert tree_bytes(legion) == before


def test_without_node_the_one_command_to_run_is_printed(tmp_path: Path) -> None:
    legion = fake_checkout(tmp_path / "legion")
    (legion / "checksums.sha256").write_text("stale\n", encoding="utf-8")
    (legion / "scripts").mkdir()
    (legion / "scripts" / "generate-checksums.js").write_text("", encoding="utf-8")
    empty = tmp_path / "bin"
    empty.mkdir()
    done = run_process(
        "legion", "install", "--legion", str(legion), cwd=tmp_path, env={"PATH": str(empty)}
    )
    assert done.code == 0, done.stderr
    assert done.stdout.splitlines()[-1] == (
        f"node not found: run `cd {legion} && node scripts/generate-checksums.js` "
        "to regenerate checksums.sha256"
    )


def test_a_directory_that_is_not_legion_is_refused(tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "package.json").write_text('{"name": "something-else"}', encoding="utf-8")
    before = tree_bytes(other)
    done = run_process("legion", "install", "--legion", str(other), cwd=tmp_path)
    assert done.code == 2
    assert done.stdout == ""
    assert done.stderr == (
        f"Error: {other}: not a Legion checkout or installed plugin (name a directory whose "
        "package.json is @9thlevelsoftware/legion with skills/memory-manager/SKILL.md, or an "
        "install directory holding Legion's manifest.json)\n"
    )
    assert tree_bytes(other) == before


def test_nothing_found_names_where_it_looked(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = {"HOME": str(home), "CLAUDE_PLUGIN_ROOT": str(tmp_path / "plugin")}
    done = run_process("legion", "install", cwd=tmp_path, env=env)
    assert done.code == 1
    assert done.stderr == (
        f"Error: {tmp_path}, {tmp_path / 'plugin'}, {home / '.claude' / 'legion'}, "
        f"{home / '.legion'}: no Legion checkout or installed plugin found (pass --legion PATH)\n"
    )


def test_uninstall_refuses_a_copy_changed_since_install(tmp_path: Path) -> None:
    legion = fake_checkout(tmp_path / "legion")
    run_process("legion", "install", "--legion", str(legion), cwd=tmp_path, check=True)
    (legion / LEGION_SKILL).write_bytes(b"edited by hand\n")
    before = tree_bytes(legion)
    done = run_process("legion", "install", "--uninstall", "--legion", str(legion), cwd=tmp_path)
    assert done.code == 1
    assert "changed since the legion-memory skill was installed; nothing was restored" in (
        done.stderr
    )
    assert tree_bytes(legion) == before


def test_uninstall_without_install_is_refused(tmp_path: Path) -> None:
    legion = fake_checkout(tmp_path / "legion")
    done = run_process("legion", "install", "--uninstall", "--legion", str(legion), cwd=tmp_path)
    assert done.code == 1
    assert done.stderr == f"Error: {legion}: the legion-memory skill is not installed here\n"


def test_a_legion_update_since_install_becomes_the_new_original(tmp_path: Path) -> None:
    legion = fake_checkout(tmp_path / "legion")
    run_process("legion", "install", "--legion", str(legion), cwd=tmp_path, check=True)
    updated = ORIGINAL + b"\nversion 2\n"
    (legion / LEGION_SKILL).write_bytes(updated)
    run_process("legion", "install", "--legion", str(legion), cwd=tmp_path, check=True)
    run_process(
        "legion", "install", "--uninstall", "--legion", str(legion), cwd=tmp_path, check=True
    )
    assert (legion / LEGION_SKILL).read_bytes() == updated
    assert not (legion / ".legion-memory").exists()


def test_a_read_only_legion_is_refused_even_when_the_system_would_allow_it(tmp_path: Path) -> None:
    legion = fake_checkout(tmp_path / "legion")
    (legion / LEGION_SKILL).chmod(0o444)
    before = tree_bytes(legion)
    done = run_process("legion", "install", "--legion", str(legion), cwd=tmp_path)
    assert done.code == 1
    assert done.stderr == (
        f"Error: {legion / LEGION_SKILL}: read-only; nothing was changed (install into a writable "
        "copy of this Legion, or make it writable first)\n"
    )
    assert tree_bytes(legion) == before

"""Where a Legion checkout or installed plugin keeps its memory-manager skill, found the way
Legion's own installer (`bin/install.js`) lays an install out."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from legion_memory.errors import InputError, LegionMemoryError

PACKAGE_NAME = "@9thlevelsoftware/legion"
SKILL = Path("skills") / "memory-manager" / "SKILL.md"
SKILL_TAIL = ("memory-manager", "SKILL.md")
CHECKSUMS = "checksums.sha256"
CHECKSUM_SCRIPT = Path("scripts") / "generate-checksums.js"
MANIFEST = "manifest.json"
# The installer's two storage layouts: claude (`.claude/legion/`) and legion (`.legion/`).
INSTALL_DIRS = (Path(".claude") / "legion", Path(".legion"))


@dataclass(frozen=True)
class Legion:
    """One place Legion lives: a checkout (the npm package's source) or an installed plugin."""

    kind: str  # "checkout" or "installed"
    root: Path  # the checkout, or the directory holding the install's manifest.json
    skills: tuple[Path, ...]  # every copy of memory-manager/SKILL.md to replace
    checksums: Path | None  # checksums.sha256 of a checkout; an install has none

    @property
    def checksum_script(self) -> Path | None:
        script = self.root / CHECKSUM_SCRIPT
        return script if self.checksums is not None and script.is_file() else None


def locate(given: Path | None, cwd: Path, home: Path, plugin_root: str = "") -> Legion:
    """The Legion named by `--legion` (a checkout, an install directory or its manifest.json),
    else the first found: the working directory, $CLAUDE_PLUGIN_ROOT, then the installer's local
    and global install directories."""
    if given is not None:
        found = _at(given.expanduser())
        if found is None:
            raise InputError(
                "not a Legion checkout or installed plugin",
                where=str(given),
                hint=f"name a directory whose package.json is {PACKAGE_NAME} with {SKILL}, "
                f"or an install directory holding Legion's {MANIFEST}",
            )
        return found
    candidates = [cwd, *([Path(plugin_root)] if plugin_root else []), home]
    for candidate in candidates:
        found = _at(candidate)
        if found is not None:
            return found
    looked = [str(c) for c in candidates[:-1]] + [str(home / sub) for sub in INSTALL_DIRS]
    raise LegionMemoryError(
        "no Legion checkout or installed plugin found",
        where=", ".join(looked),
        hint="pass --legion PATH",
    )


def _at(path: Path) -> Legion | None:
    if path.name == MANIFEST and path.is_file():
        return _installed(path)
    if not path.is_dir():
        return None
    if _package_name(path / "package.json") == PACKAGE_NAME and (path / SKILL).is_file():
        checksums = path / CHECKSUMS
        return Legion("checkout", path, (path / SKILL,), checksums if checksums.is_file() else None)
    for manifest in (path / MANIFEST, *(path / sub / MANIFEST for sub in INSTALL_DIRS)):
        if manifest.is_file():
            found = _installed(manifest)
            if found is not None:
                return found
    return None


def _package_name(package_json: Path) -> str:
    try:
        data = json.loads(package_json.read_text(encoding="utf-8-sig"))
    except (OSError, ValueError):
        return ""
    return data.get("name", "") if isinstance(data, dict) else ""


def _installed(manifest: Path) -> Legion | None:
    """An install's skill copies: `paths.skills` and any native surface (Kilo, Antigravity) that
    the installer listed among its `nativeArtifacts`."""
    try:
        data = json.loads(manifest.read_text(encoding="utf-8-sig"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("name") != PACKAGE_NAME:
        return None
    paths = data.get("paths") if isinstance(data.get("paths"), dict) else {}
    skills_dir = paths.get("skills") if isinstance(paths, dict) else None
    found = [Path(skills_dir) / SKILL.relative_to("skills")] if skills_dir else []
    found += _native_skills(data.get("nativeArtifacts"))
    existing = tuple(_unique(p for p in found if p.is_file()))
    return Legion("installed", manifest.parent, existing, None) if existing else None


def _native_skills(artifacts: object) -> Iterator[Path]:
    if not isinstance(artifacts, list):
        return
    for artifact in artifacts:
        text = artifact.get("path") if isinstance(artifact, dict) else None
        if isinstance(text, str) and Path(text).parts[-2:] == SKILL_TAIL:
            yield Path(text)


def _unique(paths: Iterable[Path]) -> Iterator[Path]:
    seen: set[Path] = set()
    for path in paths:
        if path not in seen:
            seen.add(path)
            yield path

"""Packages built offline: this project's sdist and wheel, and a wheel of each installed
dependency, rebuilt from the files its RECORD lists, so an installer can work without an index."""

from __future__ import annotations

import re
import subprocess
import sys
import zipfile
from importlib import metadata
from pathlib import Path

from support.processes import REPO_ROOT


def build(kind: str, directory: Path) -> Path:
    """This project's `sdist` or `wheel`, built by setuptools from the checkout into `directory`."""
    directory.mkdir(parents=True, exist_ok=True)
    code = f"from setuptools import build_meta; print(build_meta.build_{kind}({str(directory)!r}))"
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, check=True
    )
    return directory / done.stdout.strip().splitlines()[-1]


def wheelhouse(directory: Path, project: str) -> Path:
    """A wheel of every installed distribution `project` needs, directly or not."""
    directory.mkdir(parents=True, exist_ok=True)
    for name in sorted(_needed(project) - {_normal(project)}):
        _repack(metadata.distribution(name), directory)
    return directory


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _needed(project: str) -> set[str]:
    seen: set[str] = set()
    todo = [project]
    while todo:
        name = _normal(todo.pop())
        if name in seen:
            continue
        seen.add(name)
        for requirement in metadata.requires(name) or []:
            if "extra ==" in requirement:
                continue
            wanted = re.split(r"[ ;<>=!~\[(]", requirement, maxsplit=1)[0]
            try:
                metadata.distribution(wanted)
            except metadata.PackageNotFoundError:
                continue  # a marker excludes it here (another platform or Python)
            todo.append(wanted)
    return seen


def _repack(dist: metadata.Distribution, directory: Path) -> None:
    wheel_info = dist.read_text("WHEEL") or ""
    tags = [line.split(":", 1)[1].strip().split("-") for line in wheel_info.splitlines()
            if line.startswith("Tag:")]  # fmt: skip
    # Several tags (py2-none-any, py3-none-any) are written compressed: py2.py3-none-any.
    tag = "-".join(".".join(dict.fromkeys(parts)) for parts in zip(*tags, strict=True))
    name = re.sub(r"[-.]+", "_", dist.metadata["Name"])
    target = directory / f"{name}-{dist.version}-{tag}.whl"
    base = Path(str(dist.locate_file("")))
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for file in dist.files or []:
            path = base / file
            if (
                path.is_file()
                and "__pycache__" not in file.parts
                and not str(file).startswith("..")
            ):
                archive.write(path, str(file))

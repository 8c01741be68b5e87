"""A committed journal is someone else's input: rolling it back never writes outside memory."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from support.gitrepos import COMMAND, add_outcome, commit, init_memory, run_git
from support.processes import git, read_bytes_of, run_process

JOURNAL = ".planning/memory/.legion-memory.journal"
PAYLOAD = '#!/bin/sh\necho owned > "$(git rev-parse --show-toplevel)/owned"\n'
REFUSAL = "refusing to roll back an interrupted change: "


def _journal(*entries: tuple[str, str | None, str]) -> str:
    files = [{"path": p, "before": before, "after_sha256": after} for p, before, after in entries]
    return json.dumps({"format": "legion-memory-journal", "version": 1, "files": files}) + "\n"


def _victim_of(upstream: Path, tmp_path: Path) -> Path:
    """A teammate's clone of `upstream`, with the git integration installed as the docs say."""
    victim = tmp_path / "victim"
    git(tmp_path, "clone", "-q", str(upstream), str(victim))
    for key, value in (("user.email", "v@example.com"), ("user.name", "V"), ("pull.ff", "only")):
        git(victim, "config", key, value)
    run_process("git", "install", "--command", COMMAND, cwd=victim, check=True)
    return victim


def _commit_journal(upstream: Path, text: str) -> None:
    (upstream / JOURNAL).write_text(text, encoding="utf-8")
    git(upstream, "add", "-f", JOURNAL)
    git(upstream, "commit", "-q", "-m", "memory")


def _everything(victim: Path, outside: Path) -> dict[str, bytes]:
    hooks = victim / ".git" / "hooks"
    files = {f"hooks/{p.name}": p.read_bytes() for p in sorted(hooks.iterdir()) if p.is_file()}
    files.update({f"outside/{p.name}": p.read_bytes() for p in sorted(outside.iterdir())})
    return files


def test_a_pulled_journal_naming_paths_outside_memory_writes_nothing(
    repo: Path, tmp_path: Path
) -> None:
    init_memory(repo, driver=False)
    add_outcome(repo, "first", "main")
    commit(repo, "first")
    victim = _victim_of(repo, tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "kept").write_text("kept\n", encoding="utf-8")
    hook = victim / ".git" / "hooks" / "post-merge"
    journal = _journal(
        ("../../.git/hooks/post-merge", PAYLOAD, hashlib.sha256(hook.read_bytes()).hexdigest()),
        ("../../.git/hooks/pre-commit", PAYLOAD, "absent"),
        (str(outside / "planted"), PAYLOAD, "absent"),
        (str(outside / "kept"), PAYLOAD, hashlib.sha256(b"kept\n").hexdigest()),
    )
    _commit_journal(repo, journal)
    before = _everything(victim, outside)

    pulled = run_git(victim, "pull", "-q")
    assert pulled.returncode == 0, pulled.stderr
    assert REFUSAL in pulled.stderr
    assert "'../../.git/hooks/post-merge', which is not a memory file" in pulled.stderr
    assert _everything(victim, outside) == before
    assert (victim / JOURNAL).read_text(encoding="utf-8") == journal

    memory_before = read_bytes_of(victim / ".planning")
    stored = run_process(
        "store", "error", "--signature", "build fails", "--fix", "retry", "--agent", "coder",
        "--resolved", cwd=victim,
    )  # fmt: skip
    assert stored.code == 1
    assert stored.stderr.startswith(f"Error: {victim / JOURNAL}: {REFUSAL}")
    assert _everything(victim, outside) == before
    assert read_bytes_of(victim / ".planning") == memory_before
    assert not (victim / "owned").exists()


def _archive_linked_to(repo: Path, target: Path) -> tuple[Path, str]:
    """ARCHIVE.md made a link to `target`, and a journal that would roll it back; both returned."""
    archive = repo / ".planning" / "memory" / "ARCHIVE.md"
    archive.unlink(missing_ok=True)
    archive.symlink_to(target)
    journal = _journal(("ARCHIVE.md", PAYLOAD, hashlib.sha256(b"outside\n").hexdigest()))
    (repo / JOURNAL).write_text(journal, encoding="utf-8")
    return archive, journal


def test_a_journal_entry_that_is_a_symbolic_link_is_refused(repo: Path) -> None:
    init_memory(repo, driver=False)
    target = repo / "notes.md"  # inside the project: memory may be read through this link
    target.write_text("outside\n", encoding="utf-8")
    archive, journal = _archive_linked_to(repo, target)

    done = run_process("doctor", "--fix", cwd=repo)
    assert done.code == 1
    assert done.stdout == (
        f".planning/memory/.legion-memory.journal: {REFUSAL}it names ARCHIVE.md, which is a "
        "symbolic link; nothing was written (a journal is only ever written by this tool: inspect "
        "it, then delete it)\n1 problem needs repair\n"
    )
    assert target.read_text(encoding="utf-8") == "outside\n"
    assert archive.is_symlink()
    assert (repo / JOURNAL).read_text(encoding="utf-8") == journal


def test_a_journal_entry_linked_out_of_the_project_is_never_read(
    repo: Path, tmp_path: Path
) -> None:
    init_memory(repo, driver=False)
    target = tmp_path / "outside.md"
    target.write_text("outside\n", encoding="utf-8")
    archive, journal = _archive_linked_to(repo, target)

    done = run_process("doctor", "--fix", cwd=repo)
    assert (done.code, done.stdout) == (1, "")
    assert done.stderr == (
        f"Error: {archive}: resolves outside the project (to {target}); refusing to follow it "
        "(memory lives inside the project: replace the link with the real directory or file "
        "(memory kept elsewhere is the global tier, --scope global))\n"
    )
    assert target.read_text(encoding="utf-8") == "outside\n"
    assert archive.is_symlink()
    assert (repo / JOURNAL).read_text(encoding="utf-8") == journal


def test_a_journal_that_is_itself_a_link_is_not_followed(repo: Path, tmp_path: Path) -> None:
    init_memory(repo, driver=False)
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text(_journal(("OUTCOMES.md", PAYLOAD, "absent")), encoding="utf-8")
    (repo / JOURNAL).symlink_to(elsewhere)
    before = read_bytes_of(repo / ".planning")

    done = run_process("doctor", "--fix", cwd=repo)
    assert done.code == 1
    assert f"{REFUSAL}the journal is a symbolic link" in done.stdout
    assert read_bytes_of(repo / ".planning") == before

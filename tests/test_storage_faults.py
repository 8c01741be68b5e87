"""What the system refuses a store: a lock that is a directory, a FIFO or a dangling link, a lock
held by a hung process, a directory that cannot be made, a read-only or full disk. Each ends in
one line, exit 3 with the record shown, no file changed and nothing created elsewhere."""

from __future__ import annotations

import errno
import fcntl
import os
from pathlib import Path

import pytest
from support.processes import CLI, read_bytes_of

from legion_memory.storage import locking

MEMORY = Path(".planning/memory")
LOCK = MEMORY / ".legion-memory.lock"
STORE = ["store", "pattern", "--pattern", "Retry flaky e2e once", "--context", "CI",
         "--reuse", "flaky tests"]  # fmt: skip
RECORD = (
    "The record was not stored. Here it is in full, to add by hand:\n"
    "ID: \nDate: 2026-05-01\nBranch: main\nPattern: Retry flaky e2e once\nContext: CI\n"
    "Reuse Criteria: flaky tests\nSource: \nTags: \n"
)


def _store(cli: CLI, repo: Path) -> tuple[int, str, str]:
    result = cli("--today", "2026-05-01", "--branch", "main", *STORE, cwd=repo)
    return result.code, result.stdout, result.stderr


def _initialised(cli: CLI, repo: Path) -> dict[str, bytes]:
    assert cli("init", cwd=repo).code == 0
    (repo / LOCK).unlink()
    return read_bytes_of(repo)


def _lock_as(repo: Path, special: str, tmp_path: Path) -> None:
    lock = repo / LOCK
    if special == "directory":
        lock.mkdir()
    elif special == "fifo":
        os.mkfifo(lock)
    else:
        lock.symlink_to(tmp_path / "created-elsewhere")


@pytest.mark.parametrize(
    ("special", "why"),
    [
        ("directory", "cannot open the memory lock: Is a directory"),
        ("fifo", "the memory lock is not a regular file"),
        ("dangling link", "cannot open the memory lock: it is a symbolic link"),
    ],
)
def test_a_lock_that_is_no_lock_file_fails_the_store_with_its_record(
    cli: CLI, repo: Path, tmp_path: Path, special: str, why: str
) -> None:
    before = _initialised(cli, repo)
    _lock_as(repo, special, tmp_path)
    code, out, err = _store(cli, repo)
    assert (code, out) == (3, RECORD)
    assert err == (
        f"Error: {repo / LOCK}: {why}; nothing was written (remove it (no legion-memory command "
        "may be running) and retry)\n"
    )
    assert read_bytes_of(repo) == before
    assert not (tmp_path / "created-elsewhere").exists()


def test_a_lock_held_by_a_hung_process_fails_the_store_with_its_record(
    cli: CLI, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = _initialised(cli, repo)
    monkeypatch.setattr(locking, "LOCK_TIMEOUT_SECONDS", 0.2)
    holder = os.open(repo / LOCK, os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(holder, fcntl.LOCK_EX)  # another open file: flock conflicts as across processes
    try:
        code, out, err = _store(cli, repo)
    finally:
        os.close(holder)
    assert (code, out) == (3, RECORD)
    assert err == (
        f"Error: {repo / LOCK}: memory is locked by another process (retry when the other "
        "legion-memory command has finished)\n"
    )
    assert read_bytes_of(repo) == before


def test_a_memory_directory_that_cannot_be_made_fails_the_store(cli: CLI, repo: Path) -> None:
    (repo / ".planning").write_text("a file, not a directory\n", encoding="utf-8")
    before = read_bytes_of(repo)
    code, out, err = _store(cli, repo)
    assert (code, out) == (3, RECORD)
    assert err == (
        f"Error: {repo / MEMORY}: cannot create the memory directory: Not a directory; nothing "
        "was written\n"
    )
    assert read_bytes_of(repo) == before


def _failing(code: int) -> object:
    def fail(*args: object, **kwargs: object) -> None:
        raise OSError(code, os.strerror(code))

    return fail


@pytest.mark.parametrize(
    ("call", "code"),
    [("replace", errno.EROFS), ("fsync", errno.ENOSPC), ("chmod", errno.EPERM)],
)
def test_a_failed_write_changes_nothing_and_shows_the_record(
    cli: CLI, repo: Path, monkeypatch: pytest.MonkeyPatch, call: str, code: int
) -> None:
    before = _initialised(cli, repo)
    monkeypatch.setattr(os, call, _failing(code))
    result = _store(cli, repo)
    monkeypatch.undo()
    stored = RECORD.replace("ID: \n", "ID: P-001\n")
    path = repo / MEMORY / "PATTERNS.md"
    assert result == (3, stored, f"Error: {path}: could not write: {os.strerror(code)}\n")
    assert read_bytes_of(repo) == before  # no temporary file left either


@pytest.mark.parametrize(
    ("held", "expected"),
    [
        (b"", True),
        (b"a" * 3_000_000, True),  # across chunks
        (b"a" * 3_000_000 + b"b", False),  # one byte more on disk
        (b"a" * 2_999_999, False),  # one byte fewer
    ],
)
def test_a_file_holds_the_bytes_it_was_read_with_or_not(
    tmp_path: Path, held: bytes, expected: bool
) -> None:
    """A store reuses its first parse only when the file, read again under the lock a chunk at a
    time, holds exactly the bytes that parse came from."""
    from legion_memory.storage.files import holds_bytes

    path = tmp_path / "OUTCOMES.md"
    path.write_bytes(b"a" * 3_000_000 if held else b"")
    assert holds_bytes(path, held) is expected
    changed = bytearray(path.read_bytes() or b"x")
    changed[len(changed) // 2] ^= 1
    path.write_bytes(bytes(changed))
    assert holds_bytes(path, held) is False
    path.unlink()
    assert holds_bytes(path, held) is False

"""The import ledger: content hashes that make imports idempotent, in git and under concurrency."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest
from support.interop import MEMORY, TODAY, copy_source, memory_text, seed_memory
from support.processes import CLI, REPO_ROOT, git, read_bytes_of

from legion_memory.errors import WriteError
from legion_memory.interop.import_items import content_hash
from legion_memory.interop.ledger import HEADER, Entry, known_keys, with_entries
from legion_memory.schema.kinds import PATTERN
from legion_memory.storage import writing
from legion_memory.storage.reading import Memory, load_records


def entry(key: str, record_id: str = "P-001") -> Entry:
    return Entry(key, "bullpen", record_id, f"b.json at namespaces.qa[{record_id[-1]}]")


def test_content_hash_is_the_start_of_a_sha256_over_source_and_values() -> None:
    expected = hashlib.sha256(b'["bullpen","qa","pattern","x"]').hexdigest()[:16]
    assert content_hash("bullpen", "qa", "pattern", "x") == expected
    assert content_hash("bullpen", "qa", "pattern x") != expected


def test_a_new_ledger_has_its_header_and_lines_sorted_by_hash() -> None:
    text = with_entries(None, [entry("b" * 16, "P-002"), entry("a" * 16, "P-001")])
    assert text == (
        HEADER
        + "aaaaaaaaaaaaaaaa bullpen P-001 b.json at namespaces.qa[1]\n"
        + "bbbbbbbbbbbbbbbb bullpen P-002 b.json at namespaces.qa[2]\n"
    )
    assert known_keys(text) == {"a" * 16, "b" * 16}


def test_new_lines_go_between_existing_ones_and_nothing_else_changes() -> None:
    old = "# my note\r\n1111111111111111 json - x\r\n9999999999999999 learn P-3 y\r\n# tail"
    text = with_entries(old, [entry("5" * 16), entry("0" * 16, "P-000")])
    assert text == (
        "# my note\r\n"
        "0000000000000000 bullpen P-000 b.json at namespaces.qa[0]\r\n"
        "1111111111111111 json - x\r\n"
        "5555555555555555 bullpen P-001 b.json at namespaces.qa[1]\r\n"
        "9999999999999999 learn P-3 y\r\n"
        "# tail\r\n"
    )


def test_hashes_count_on_both_sides_of_conflict_markers() -> None:
    text = (
        HEADER
        + "<<<<<<< ours\n1111111111111111 bullpen P-002 a\n=======\n"
        + "2222222222222222 learn P-002 b\n>>>>>>> theirs\n"
    )
    assert known_keys(text) == {"1" * 16, "2" * 16}


def test_two_branches_importing_different_items_merge_cleanly(repo: Path) -> None:
    ledger = repo / "IMPORTED.txt"
    base = [entry("1" * 16), entry("5" * 16, "P-005"), entry("9" * 16, "P-009")]
    ledger.write_text(with_entries(None, base), encoding="utf-8")
    git(repo, "add", "IMPORTED.txt")
    git(repo, "commit", "-q", "-m", "ledger")
    git(repo, "checkout", "-q", "-b", "one")
    ledger.write_text(with_entries(ledger.read_text(), [entry("3" * 16, "P-003")]))
    git(repo, "commit", "-q", "-am", "import on one")
    git(repo, "checkout", "-q", "main")
    ledger.write_text(with_entries(ledger.read_text(), [entry("7" * 16, "P-007")]))
    git(repo, "commit", "-q", "-am", "import on main")
    git(repo, "merge", "-q", "--no-edit", "one")
    assert known_keys(ledger.read_text()) == {c * 16 for c in "13579"}


WRITER = """
import sys
from legion_memory.cli.entry import main
sys.exit(main(["--today", "2026-05-01", "import", "bullpen", "bullpen/memory.json"]))
"""


def test_concurrent_imports_of_one_source_add_each_item_once(repo: Path) -> None:
    seed_memory(repo)
    copy_source(repo, "bullpen")
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER],
            cwd=repo,
            env={"PYTHONPATH": str(REPO_ROOT), "PATH": "/usr/bin:/bin"},
            stdout=subprocess.DEVNULL,
        )
        for _ in range(3)
    ]
    assert [worker.wait(timeout=120) for worker in workers] == [0, 0, 0]
    patterns = load_records(Memory.of_project(repo), PATTERN)
    assert [r.id for r in patterns] == ["P-001", "P-002", "P-003"]
    ledger = [line for line in memory_text(repo, "IMPORTED.txt").splitlines() if line[0] != "#"]
    assert len(ledger) == 5


def test_a_failed_write_prints_every_record_and_exits_3(
    cli: CLI, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seed_memory(repo)
    (repo / "b.json").write_text(
        json.dumps({"namespaces": {"qa": [{"text": "Retry flaky e2e once", "type": "pattern"}]}}),
        encoding="utf-8",
    )
    before = read_bytes_of(repo)

    real = writing.atomic_write

    def fail(path: Path, text: str) -> None:
        if path.name == "PATTERNS.md":
            raise WriteError("could not write: No space left on device", where=str(path))
        real(path, text)

    monkeypatch.setattr(writing, "atomic_write", fail)
    result = cli("--today", TODAY, "import", "bullpen", "b.json", cwd=repo)
    assert result.code == 3
    assert result.stdout == (
        "The record was not stored. Here it is in full, to add by hand:\n"
        "ID: P-002\nDate: 2026-05-01\nBranch: main\nPattern: Retry flaky e2e once\n"
        "Context: bullpen pattern in the qa namespace\nReuse Criteria: tasks of the qa role\n"
        "Source: bullpen\nTags: qa, pattern\n"
    )
    path = repo / MEMORY / "PATTERNS.md"
    assert result.stderr == (
        f"Error: {path}: could not write: No space left on device; every file was put back as it "
        "was, nothing changed\n"
    )
    after = read_bytes_of(repo)
    after.pop(".planning/memory/.legion-memory.lock", None)
    assert after == before

"""`legion-memory batch`: JSON lines of commands run in one process, in order, one JSON result per
line, each file parsed once until a write (the batch's own or another process's) changes it."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from support.processes import CLI, REPO_ROOT, read_bytes_of, run_process

from legion_memory.cli.entry import main
from legion_memory.markdown import document
from legion_memory.storage import reading

GLOBALS = ("--today", "2026-03-10", "--branch", "main")
STORE = ("store", "outcome", "--phase", "1", "--agent", "backend-dev", "--outcome", "success")


@pytest.fixture
def project(memory_project: Path) -> Path:
    return memory_project


def _batch(project: Path, lines: list[object]) -> tuple[int, list[dict[str, Any]], str]:
    text = "".join(json.dumps(line) + "\n" for line in lines)
    done = run_process(*GLOBALS, "batch", cwd=project, stdin=text)
    return done.code, [json.loads(line) for line in done.stdout.splitlines()], done.stderr


SEQUENCE: list[tuple[object, tuple[str, ...]]] = [
    (["recall", "outcomes"], ("recall", "outcomes")),
    ([*STORE, "--plan", "01-01", "--summary", "`a | b` exits 0", "--importance", "3"],
     (*STORE, "--plan", "01-01", "--summary", "`a | b` exits 0", "--importance", "3")),
    ({"command": ["store", "outcome"],
      "options": {"phase": "1", "plan": "01-02", "agent": "backend-dev", "outcome": "failed",
                  "summary": "login", "task_type": "backend"}},
     (*STORE[:-1], "failed", "--plan", "01-02", "--summary", "login", "--task-type", "backend")),
    (["recall", "outcomes"], ("recall", "outcomes")),
    ({"argv": ["store", "pattern", "--pattern", "p", "--context", "c", "--reuse", "r"]},
     ("store", "pattern", "--pattern", "p", "--context", "c", "--reuse", "r")),
    (["score", "agents", "--task-type", "general,backend"],
     ("score", "agents", "--task-type", "general,backend")),
    (["forget", "P-001"], ("forget", "P-001")),
    (["recall", "patterns"], ("recall", "patterns")),
    (["briefing"], ("briefing",)),
    (["export", "--format", "csv"], ("export", "--format", "csv")),
]  # fmt: skip


def test_lines_run_in_order_with_the_results_separate_processes_print(project: Path) -> None:
    twin = project.parent / "twin"
    shutil.copytree(project, twin)
    code, results, _ = _batch(project, [line for line, _ in SEQUENCE])
    assert code == 0
    assert [result["line"] for result in results] == list(range(1, len(SEQUENCE) + 1))
    for (_, argv), result in zip(SEQUENCE, results, strict=True):
        done = run_process("--json", *GLOBALS, *argv, cwd=twin)
        expected = json.loads(done.stdout) if argv[0] != "export" else done.stdout
        assert (result["exit_code"], result["result"]) == (done.code, expected), argv
        assert result["notes"] == done.stderr.splitlines(), argv
    assert read_bytes_of(project / ".planning") == read_bytes_of(twin / ".planning")


def test_a_failed_line_gets_its_error_and_the_rest_run(project: Path) -> None:
    lines: list[object] = [
        [*STORE, "--plan", "01-01", "--summary", "first", "--importance", "3"],
        "not a command",
        {"command": ["recall", "outcomes"], "options": {"limit": 0}},
        ["forget", "O-009"],
        [*STORE, "--plan", "01-02", "--summary", "key AKIAABCDEFGHIJKLMNOP", "--importance", "3"],
        ["git", "merge-driver", "a", "b", "c"],
        [*STORE, "--plan", "01-03", "--summary", "second", "--importance", "3"],
    ]
    code, results, _ = _batch(project, lines)
    assert code == 2
    assert [(r["line"], r["exit_code"]) for r in results] == [
        (1, 0), (2, 2), (3, 2), (4, 2), (5, 2), (6, 2), (7, 0),
    ]  # fmt: skip
    assert results[2]["error"] == "recall outcomes: 'limit' is 0 (give at least 1)"
    assert results[3]["error"].endswith(
        "OUTCOMES.md: no record O-009 (check the ID with `legion-memory search` or "
        "`legion-memory recall`)"
    )
    assert "AWS access key" in results[4]["error"]
    assert "AKIAABCDEFGHIJKLMNOP" not in json.dumps(results)
    assert results[5]["error"].startswith("'git merge-driver' is not a command a batch runs")
    assert [results[0]["result"]["id"], results[6]["result"]["id"]] == ["O-001", "O-002"]
    outcomes = (project / ".planning/memory/OUTCOMES.md").read_text(encoding="utf-8")
    assert [line.split(" | ")[0] for line in outcomes.splitlines() if "| O-" in line] == [
        "| O-001",
        "| O-002",
    ]


def test_a_parse_is_kept_until_the_batch_writes_the_file(
    cli: CLI, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    parsed: list[str] = []

    def counted(text: str) -> document.Document:
        parsed.append(text)
        return document.parse(text)

    monkeypatch.setattr(reading, "parse", counted)
    outcomes = project / ".planning/memory/OUTCOMES.md"
    lines = [
        ["recall", "outcomes"],
        ["score", "agents", "--task-type", "general"],
        [*STORE, "--plan", "01-01", "--summary", "one", "--importance", "3"],
        ["recall", "outcomes"],
        ["briefing"],
    ]
    monkeypatch.setattr(sys, "stdin", io.StringIO("".join(json.dumps(x) + "\n" for x in lines)))
    monkeypatch.chdir(project)
    assert main([*GLOBALS, "batch"]) == 0
    texts = [text for text in parsed if "## Records" in text and "Outcome Log" in text]
    # Read once before the store (kept for score and the store's own check), once after it.
    assert len(texts) == 2
    assert texts[1] == outcomes.read_text(encoding="utf-8")


def test_writers_outside_the_batch_are_seen_and_never_collide(project: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    server = subprocess.Popen(
        [sys.executable, "-m", "legion_memory", *GLOBALS, "batch"],
        cwd=project, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert server.stdin is not None and server.stdout is not None

    def ask(line: object) -> dict[str, Any]:
        assert server.stdin is not None and server.stdout is not None
        server.stdin.write(json.dumps(line) + "\n")
        server.stdin.flush()
        answer: dict[str, Any] = json.loads(server.stdout.readline())
        return answer

    first = ask([*STORE, "--plan", "01-01", "--summary", "batch one", "--importance", "3"])
    assert ask(["recall", "outcomes"])["result"]["records"][0]["id"] == "O-001"
    outside = run_process(*GLOBALS, *STORE, "--plan", "02-01", "--summary", "outside",
                          "--importance", "4", cwd=project)  # fmt: skip
    assert outside.code == 0
    recalled = ask(["recall", "outcomes"])["result"]["records"]
    second = ask([*STORE, "--plan", "01-02", "--summary", "batch two", "--importance", "3"])
    server.stdin.close()
    assert server.wait(timeout=30) == 0
    assert [record["id"] for record in recalled] == ["O-002", "O-001"]
    assert [first["result"]["id"], second["result"]["id"]] == ["O-001", "O-003"]
    text = (project / ".planning/memory/OUTCOMES.md").read_text(encoding="utf-8")
    assert [row.split(" | ")[-1] for row in text.splitlines() if row.startswith("| O-")] == [
        "batch one |",
        "outside |",
        "batch two |",
    ]

"""The floor for `store outcome` with the importance inferred: a hand-written script that writes
the same bytes to OUTCOMES.md and prints the same row.

It knows the benchmark's files (one sound table, the spec's columns, no archive of its own) and
does what the store must: the task type and division from the catalog, whether the agent is new
to that task type (only rows naming the agent are looked at), the highest ID by one regex scan,
then the new text written as the tool writes it (under a lock, to a temporary file, fsynced,
renamed, the directory fsynced). No legion_memory import; tests/test_bench_lean.py holds its
output and file bytes equal to the command's.

Usage: python bench/lean_store.py TODAY CATALOG AGENT PHASE PLAN OUTCOME SUMMARY (from the root).
"""

from __future__ import annotations

import fcntl
import gc
import os
import re
import sys

MEMORY = ".planning/memory"
OUTCOMES = f"{MEMORY}/OUTCOMES.md"
HEADERS = ("ID", "Date", "Branch", "Phase", "Plan", "Agent", "Task Type", "Outcome",
           "Importance", "Tags", "Summary")  # fmt: skip
BASE = {"failed": 5, "partial": 3, "success": 2}
# From newline to newline (a literal first character), not `^` at every position.
_ID = re.compile(r"\n\| O-(\d+) ")


def catalog_facts(path: str, agent: str) -> tuple[str, bool]:
    """The agent's first task type, and whether its division is not one listing that type."""
    division, divisions, listed = "", {}, {}
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if line.startswith("## Section 2"):
                break
            if line.startswith("### ") and " Division" in line:
                division = line[4:].split(" Division")[0].strip()
            elif line.startswith("| ") and not line.startswith(("| ID ", "|--")):
                cells = [c.strip() for c in line.strip().strip("|").split("|")]
                divisions[cells[0]] = division
                listed[cells[0]] = [t.strip() for t in cells[-1].split(",")]
    task_type = listed[agent][0]
    owners = {divisions[a] for a, types in listed.items() if task_type in types}
    return task_type, divisions[agent] not in owners


def mentioning(text: str, agent: str) -> list[str]:
    """The rows whose line holds `agent`, found by `str.find` in C, not by a loop over lines."""
    found, position = [], text.find(agent)
    while position >= 0:
        start = text.rfind("\n", 0, position) + 1
        end = text.find("\n", position)
        end = len(text) if end < 0 else end
        if text.startswith("| O-", start):
            found.append(text[start:end])
        position = text.find(agent, end)
    return found


def branch() -> str:
    with open(".git/HEAD", encoding="utf-8") as handle:
        return handle.read().strip().removeprefix("ref: refs/heads/")


def write(text: str) -> None:
    temp = f"{MEMORY}/.legion-memory-{os.urandom(6).hex()}.tmp"
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(text.encode("utf-8"))
        handle.flush()
        os.fsync(handle.fileno())
    os.chmod(temp, os.stat(OUTCOMES).st_mode & 0o7777)
    os.replace(temp, OUTCOMES)
    directory = os.open(MEMORY, os.O_RDONLY)
    os.fsync(directory)
    os.close(directory)


def main() -> None:
    today, catalog, agent, phase, plan, outcome, summary = sys.argv[1:8]
    task_type, cross = catalog_facts(catalog, agent)
    lock = os.open(f"{MEMORY}/.legion-memory.lock", os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(lock, fcntl.LOCK_EX)
    with open(OUTCOMES, encoding="utf-8", newline="") as handle:
        text = handle.read()
    seen = any(
        line.split("|")[7].strip().casefold() == task_type for line in mentioning(text, agent)
    )
    importance = min(5, BASE[outcome] + (not seen) + cross)
    number = max(map(int, _ID.findall("\n" + text)), default=0) + 1
    values = [f"O-{number:03d}", today, branch(), phase, plan, agent, task_type, outcome,
              str(importance), "", summary]  # fmt: skip
    cells = [value.replace("|", "\\|") for value in values]
    write(text + "| " + " | ".join(cells) + " |\n")
    os.close(lock)
    print("| " + " | ".join(HEADERS) + " |")
    print("|" + "|".join("---" for _ in HEADERS) + "|")
    print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
    # As the commands do (docs/decisions.md#no-collection-at-exit): the interpreter's collections
    # at exit then skip what is alive, so the ratio compares the work and not that trick.
    gc.freeze()

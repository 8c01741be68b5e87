"""The floor for `--json recall outcomes`: a hand-written script printing the same bytes.

It knows the benchmark's files (one sound table, the spec's columns) and does only what the answer
needs: it reads the two cells a score needs from every row (Date, Importance) and the ID, keeps
the 20 best, and splits only those rows into values. No legion_memory import: this is what the
command would cost if it were written for this one call. tests/test_bench_lean.py holds its output
equal to the command's.

Usage: python bench/lean_recall.py TODAY (from the project's root).
"""

from __future__ import annotations

import datetime as dt
import gc
import heapq
import json
import sys

OUTCOMES = ".planning/memory/OUTCOMES.md"
KEYS = ("id", "date", "branch", "phase", "plan", "agent", "task_type", "outcome",
        "importance", "tags", "summary")  # fmt: skip
LIMIT = 20
PRUNE_THRESHOLD = 200
TIERS = ((7, 1.0), (30, 0.7), (90, 0.4))


def weight(date: str, today: dt.date) -> tuple[int | None, float]:
    try:
        age = max(0, (today - dt.date.fromisoformat(date)).days)
    except ValueError:
        return None, 0.4
    return age, next((w for limit, w in TIERS if age <= limit), 0.1)


def values(line: str) -> dict[str, object]:
    inner = line.strip()[1:-1].replace("\\|", "\0")
    cells = [c.strip().replace("\0", "|").replace("<br>", "\n") for c in inner.split("|")]
    data: dict[str, object] = dict(zip(KEYS, cells, strict=True))
    if cells[8].isdigit():
        data["importance"] = int(cells[8])
    if cells[3].isdigit() and str(int(cells[3])) == cells[3]:
        data["phase"] = int(cells[3])
    return data


def main() -> None:
    today = dt.date.fromisoformat(sys.argv[1])
    with open(OUTCOMES, encoding="utf-8") as handle:
        rows = [line for line in handle if line.startswith("| O-")]
    ages: dict[str, tuple[int | None, float]] = {}
    scored = []
    for line in rows:
        # The ID, Date and Importance are the first, second and ninth cells, never escaped.
        cells = line.split("|", 10)
        date = cells[2].strip()
        age = ages.get(date) or ages.setdefault(date, weight(date, today))
        value = cells[9].strip()
        score = (int(value) if value in "12345" and value else 0) * age[1]
        if score >= 0.2:
            scored.append((score, date, int(cells[1].strip()[2:]), line, age))
    best = heapq.nlargest(LIMIT, scored, key=lambda item: item[:3])
    records = [
        {**values(line), "days_old": age[0], "recency_weight": age[1],
         "decay_score": round(score, 6)}
        for score, _, _, line, age in best
    ]  # fmt: skip
    notes = []
    if len(rows) > PRUNE_THRESHOLD:
        notes.append(
            f"OUTCOMES.md has {len(rows)} records. Run `/legion:learn --prune` to archive old "
            "entries, or enable `memory.auto_prune` in settings.json."
        )
        print(notes[0], file=sys.stderr)
    print(json.dumps({"records": records, "notes": notes}, ensure_ascii=False, indent=2))


if __name__ == "__main__":
    main()
    # As the commands do (docs/decisions.md#no-collection-at-exit): the interpreter's collections
    # at exit then skip what is alive, so the ratio compares the work and not that trick.
    gc.freeze()

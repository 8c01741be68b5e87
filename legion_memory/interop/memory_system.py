"""memory-system stores as records: `facts/*.json` as patterns and preferences, and the outcome
events of `events/*.jsonl` as outcomes; the session-log events are passed over."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Mapping

from legion_memory.interop.import_items import (
    BASE_IMPORTANCE,
    Conversion,
    Item,
    Skip,
    SourceFile,
    content_hash,
    day_of,
    expect_object,
    json_line,
    load_json,
    make_record,
    pattern_values,
    preference_values,
    text_of,
    token,
)
from legion_memory.schema.kinds import OUTCOME, PATTERN, PREFERENCE
from legion_memory.schema.secrets import quoted

_FACT_KINDS = {"pattern": PATTERN, "learning": PATTERN, "preference": PREFERENCE}
_OUTCOME_WORDS = {
    **dict.fromkeys(
        ("success", "succeeded", "successful", "pass", "passed", "ok", "done"), "success"
    ),
    **dict.fromkeys(("partial", "partially"), "partial"),
    **dict.fromkeys(("failed", "failure", "fail", "error", "errored"), "failed"),
}


def memory_system(files: list[SourceFile], today: dt.date, branch: str) -> Conversion:
    """`facts/*.json` (one fact, or an array of them) and outcome events of `events/*.jsonl`."""
    result = Conversion()
    for file in files:
        if file.path.suffix == ".jsonl":
            result.extend(_events(file, today, branch))
            continue
        data = load_json(file)
        facts = [(data, file.name)]
        if isinstance(data, list):
            facts = [(fact, f"{file.name} at [{index}]") for index, fact in enumerate(data)]
        for fact, where in facts:
            found = _fact(expect_object(fact, where), where, today, branch)
            result.add(found)
    return result


def _fact(fact: dict[str, object], where: str, today: dt.date, branch: str) -> Item | Skip:
    category = text_of(fact, "category", where).lower()
    kind = _FACT_KINDS.get(category)
    if kind is None:
        return Skip(
            where, f"category {quoted(category)} has no memory table" if category else "no category"
        )
    content = text_of(fact, "content", where)
    fact_id = text_of(fact, "id", where)
    origin = text_of(fact, "source", where) or "memory-system"
    day = day_of(fact.get("timestamp"), today, where)
    context = f"memory-system {category} fact from {origin}"
    values: Mapping[str, str]
    if kind is PATTERN:
        source = f"memory-system {fact_id}".strip()
        values = pattern_values(
            day, branch, pattern=content, context=context, source=source, tags=category
        )
    else:
        values = preference_values(
            day, branch, context=context, user_choice=content, agent=token(origin), tags=category
        )
    stamp = json.dumps(fact.get("timestamp"), ensure_ascii=False)
    key = content_hash("memory-system", fact_id, category, content, stamp)
    return Item(make_record(kind, values, where), where, key)


def _events(file: SourceFile, today: dt.date, branch: str) -> Conversion:
    """Events carrying an `outcome` (at top level or in `data`) become outcomes; the others are
    session logs and are passed over."""
    result = Conversion()
    for number, line in enumerate(file.text.split("\n"), start=1):
        if line.strip():
            where = f"{file.name}:{number}"
            event = expect_object(json_line(file, number, line), where)
            result.add(_event(event, where, today, branch))
    return result


def _event(event: dict[str, object], where: str, today: dt.date, branch: str) -> Item | Skip | None:
    nested = event.get("data")
    inner = nested if isinstance(nested, dict) else {}

    def field(key: str) -> str:
        return text_of(event, key, where) or text_of(inner, key, where)

    raw = field("outcome")
    if not raw:
        return None
    outcome = _OUTCOME_WORDS.get(raw.lower())
    if outcome is None:
        return Skip(where, f"outcome {quoted(raw)} is not success, partial or failed")
    name = field("event") or "event"
    values = {
        "date": day_of(event.get("timestamp"), today, where),
        "branch": branch,
        "phase": field("phase") or "N/A",
        "plan": field("plan") or "-",
        "agent": token(field("agent")) or "memory-system",
        "task_type": token(field("task_type")) or "general",
        "outcome": outcome,
        "importance": BASE_IMPORTANCE[outcome],
        "tags": token(name),
        "summary": field("summary") or field("description") or f"{name} ({raw})",
    }
    key = content_hash("memory-system", json.dumps(event, sort_keys=True, ensure_ascii=False))
    return Item(make_record(OUTCOME, values, where), where, key)

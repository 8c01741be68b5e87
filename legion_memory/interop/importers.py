"""Other tools' memory as records: bullpen, memory-system and memory-broker files, and the
`/legion:learn` entries inside memory files. Pure: files come in as text, `today` and `branch` as
values; a value the source lacks gets the default documented in docs/decisions.md.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Mapping

from legion_memory.errors import InputError
from legion_memory.interop.import_items import (
    BASE_IMPORTANCE,
    NOT_RECORDED,
    Conversion,
    Item,
    Skip,
    SourceFile,
    content_hash,
    day_of,
    expect_list,
    expect_object,
    json_line,
    load_json,
    make_record,
    text_of,
    token,
)
from legion_memory.interop.memory_broker import memory_broker
from legion_memory.markdown.document import Document, parse
from legion_memory.schema.kinds import ERROR_FIX, OUTCOME, PATTERN, PREFERENCE, Kind
from legion_memory.schema.learn_entries import LearnEntry, learn_entries
from legion_memory.schema.secrets import quoted
from legion_memory.storage.bulk_append import Removal

IMPORTED_DECISION = "manual-edit"
"""Imported preferences are choices the user made by hand, not answers to an agent's proposal."""
IMPORTED_SIGNAL = "positive"
LEARN_CONTEXT = "recorded with /legion:learn"
LEARN_AGENT = "user"
_BULLPEN_KINDS = {
    "pattern": PATTERN,
    "snippet": PATTERN,
    "failure": ERROR_FIX,
    "decision": PREFERENCE,
    "preference": PREFERENCE,
}
_FACT_KINDS = {"pattern": PATTERN, "learning": PATTERN, "preference": PREFERENCE}
_OUTCOME_WORDS = {
    **dict.fromkeys(
        ("success", "succeeded", "successful", "pass", "passed", "ok", "done"), "success"
    ),
    **dict.fromkeys(("partial", "partially"), "partial"),
    **dict.fromkeys(("failed", "failure", "fail", "error", "errored"), "failed"),
}

Converter = Callable[[list[SourceFile], dt.date, str], Conversion]


def convert(source: str, files: list[SourceFile], today: dt.date, branch: str) -> Conversion:
    """Every item of a foreign source (not `json`: that is the tool's own format)."""
    converters: dict[str, Converter] = {
        "bullpen": bullpen,
        "memory-system": memory_system,
        "memory-broker": memory_broker,
        "learn": learn,
    }
    return converters[source](files, today, branch)


def pattern_values(day: str, branch: str, **values: str) -> dict[str, str]:
    return {"date": day, "branch": branch, "reuse_criteria": NOT_RECORDED, **values}


def error_values(day: str, branch: str, **values: str) -> dict[str, str]:
    return {"date": day, "branch": branch, "fix": NOT_RECORDED, "resolved": "false", **values}


def preference_values(day: str, branch: str, **values: str) -> dict[str, str]:
    defaults = {"decision_point": IMPORTED_DECISION, "signal": IMPORTED_SIGNAL}
    return {"date": day, "branch": branch, "proposed": NOT_RECORDED, **defaults, **values}


def bullpen(files: list[SourceFile], today: dt.date, branch: str) -> Conversion:
    """`{"namespaces": {role: [{text, type, created_at, ...}]}}`: one item per entry."""
    result = Conversion()
    for file in files:
        data = expect_object(load_json(file), file.name)
        if "namespaces" not in data:
            raise InputError("not a bullpen memory file: no 'namespaces' object", where=file.name)
        namespaces = expect_object(data["namespaces"], f"{file.name} at namespaces")
        for role, entries in namespaces.items():
            where = f"{file.name} at namespaces.{role}"
            for index, entry in enumerate(expect_list(entries, where)):
                found = _bullpen_entry(role, entry, f"{where}[{index}]", today, branch)
                result.add(found)
    return result


def _bullpen_entry(
    role: str, entry: object, where: str, today: dt.date, branch: str
) -> Item | Skip:
    data = expect_object(entry, where)
    text = text_of(data, "text", where)
    raw_type = text_of(data, "type", where).lower()
    kind_type = (
        raw_type[:-1] if raw_type.endswith("s") and raw_type[:-1] in _BULLPEN_KINDS else raw_type
    )
    kind = _BULLPEN_KINDS.get(kind_type)
    if kind is None:
        return Skip(
            where, f"type {quoted(raw_type)} has no memory table" if raw_type else "no type"
        )
    day = day_of(data.get("created_at"), today, where)
    agent = token(role)
    tags = ", ".join(dict.fromkeys((agent, kind_type)))
    context = f"bullpen {kind_type} in the {role} namespace"
    entry_id = text_of(data, "id", where)
    values: Mapping[str, str]
    if kind is PATTERN:
        source = f"bullpen {entry_id}".strip()
        values = pattern_values(
            day, branch, pattern=text, context=context, source=source, tags=tags,
            reuse_criteria=f"tasks of the {agent} role",
        )  # fmt: skip
    elif kind is ERROR_FIX:
        values = error_values(day, branch, error_signature=text, agent=agent, tags=tags)
    else:
        values = preference_values(
            day, branch, context=context, user_choice=text, agent=agent, tags=tags
        )
    created = json.dumps(data.get("created_at"), ensure_ascii=False)
    key = content_hash("bullpen", role, kind_type, text, created)
    return Item(make_record(kind, values, where), where, key)


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


def learn(files: list[SourceFile], today: dt.date, branch: str) -> Conversion:
    """`## PAT-/PIT-/PRF-` entries: each becomes a row; the entry's lines are its removal."""
    result = Conversion()
    for file in files:
        document = parse(file.text)
        for entry in learn_entries(document):
            where = f"{file.name}:{entry.line}"
            kind, values = _learn_values(entry, day_of(entry.date, today, where), branch)
            start, stop = _entry_span(document, entry)
            removal = Removal(file.path, start, tuple(document.lines[start:stop]))
            tags = ",".join(entry.tags)
            key = content_hash("learn", entry.id, entry.summary, entry.date, tags, entry.body)
            result.items.append(Item(make_record(kind, values, where), where, key, removal=removal))
    return result


def _learn_values(entry: LearnEntry, day: str, branch: str) -> tuple[Kind, dict[str, str]]:
    headline = entry.summary or entry.body.split("\n", 1)[0]
    tags = ", ".join(entry.tags)
    if entry.type == "pattern":
        context = entry.body or LEARN_CONTEXT
        source = f"/legion:learn {entry.id}"
        return PATTERN, pattern_values(
            day, branch, pattern=headline, context=context, source=source, tags=tags
        )
    if entry.type == "pitfall":
        fix = entry.body or NOT_RECORDED
        resolved = "true" if entry.body else "false"
        return ERROR_FIX, error_values(
            day, branch, error_signature=headline, fix=fix, agent=LEARN_AGENT,
            resolved=resolved, tags=tags,
        )  # fmt: skip
    context = entry.body or LEARN_CONTEXT
    return PREFERENCE, preference_values(
        day, branch, context=context, user_choice=headline, agent=LEARN_AGENT, tags=tags
    )


def _entry_span(document: Document, entry: LearnEntry) -> tuple[int, int]:
    """The entry's lines with its closing `---` and the blank lines before it (and, at the end of
    the file, after it), so that taking it out leaves the file as if it had never been there."""
    count = len(document.lines)
    stop = entry.end
    if stop < count and document.text(stop).strip() == "---":
        stop += 1
    else:
        while stop > entry.line and not document.text(stop - 1).strip():
            stop -= 1  # blank lines before the next heading belong to that heading
    if all(not document.text(index).strip() for index in range(stop, count)):
        stop = count
    start = entry.line - 1
    while start > 0 and not document.text(start - 1).strip():
        start -= 1
    return start, stop

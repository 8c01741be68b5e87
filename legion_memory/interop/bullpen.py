"""bullpen memory files as records: `{"namespaces": {role: [entry, ...]}}`, each entry a pattern,
an error or a preference by its type; defaults for what bullpen lacks are in docs/decisions.md."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Mapping

from legion_memory.errors import InputError
from legion_memory.interop.import_items import (
    Conversion,
    Item,
    Skip,
    SourceFile,
    content_hash,
    day_of,
    error_values,
    expect_list,
    expect_object,
    load_json,
    make_record,
    pattern_values,
    preference_values,
    text_of,
    token,
)
from legion_memory.schema.kinds import ERROR_FIX, PATTERN, PREFERENCE
from legion_memory.schema.secrets import quoted

_BULLPEN_KINDS = {
    "pattern": PATTERN,
    "snippet": PATTERN,
    "failure": ERROR_FIX,
    "decision": PREFERENCE,
    "preference": PREFERENCE,
}


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

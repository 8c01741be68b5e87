"""memory-broker missions as outcomes: `index.json` entries and `missions/*.md` front-matter.

A mission's front-matter (mission_id, goal, completed_at, verdicts_summary, tags) wins over its
index entry; missions listed in the index without a file, and files missing from the index, are
imported too. The outcome is read from verdicts_summary where it says so, else success.
"""

import datetime as dt
import re
from pathlib import Path
from typing import NamedTuple

from legion_memory.errors import InputError
from legion_memory.interop.import_items import (
    BASE_IMPORTANCE,
    FIX_HINT,
    Conversion,
    Item,
    SourceFile,
    content_hash,
    day_of,
    expect_list,
    expect_object,
    load_json,
    make_record,
    text_of,
    token,
)
from legion_memory.markdown.frontmatter import Value, split_front_matter
from legion_memory.schema.kinds import OUTCOME
from legion_memory.schema.secrets import quoted

BROKER_AGENT = "memory-broker"
_FAIL = {
    *("fail", "fails", "failed", "failing", "failure", "failures"),
    *("blocked", "blocker", "blockers", "rejected", "error", "errors"),
}
_PASS = {
    *("pass", "passed", "passes", "passing", "approved", "ok", "green"),
    *("success", "successful", "succeeded"),
}
_PARTIAL = {"partial", "partially", "mixed"}
_NONE = {"0", "no", "zero", "none"}
_COUNTED_WORD = re.compile(r"(?:(\d+|no|zero|none)\s+)?([a-z]+)(?:\s*[:=]\s*(\d+))?")


class _Mission(NamedTuple):
    fields: dict[str, Value]
    where: str
    text: str = ""


def memory_broker(files: list[SourceFile], today: dt.date, branch: str) -> Conversion:
    """One outcome per mission (agent `memory-broker`, task type from its tags)."""
    by_name = {file.path.name: file for file in files if file.path.suffix == ".md"}
    missions: list[_Mission] = []
    listed: set[str] = set()
    for file in files:
        if file.path.name == "index.json":
            for mission, name in _indexed(file, by_name):
                missions.append(mission)
                listed.add(name)
    for name, file in sorted(by_name.items()):
        if name not in listed:
            missions.append(_from_file(file, {}))
    result = Conversion()
    for mission in missions:
        result.items.append(_item(mission, today, branch))
    return result


def _indexed(file: SourceFile, by_name: dict[str, SourceFile]) -> list[tuple[_Mission, str]]:
    data = expect_object(load_json(file), file.name)
    entries = expect_list(data.get("missions", []), f"{file.name} at missions")
    found = []
    for index, raw in enumerate(entries):
        where = f"{file.name} at missions[{index}]"
        entry = expect_object(raw, where)
        fields: dict[str, Value] = {key: _value(entry, key, where) for key in entry}
        mission_id = text_of(entry, "mission_id", where)
        name = Path(text_of(entry, "path", where)).name or f"{mission_id}.md"
        mission_file = by_name.get(name) or by_name.get(f"{mission_id}.md")
        if mission_file is None:
            found.append((_Mission(fields, where), name))
            continue
        found.append((_from_file(mission_file, fields), mission_file.path.name))
    return found


def _value(entry: dict[str, object], key: str, where: str) -> Value:
    value = entry[key]
    if isinstance(value, list):
        return [text_of({"item": item}, "item", f"{where}.{key}") for item in value]
    return text_of(entry, key, where)


def _from_file(file: SourceFile, index_fields: dict[str, Value]) -> _Mission:
    """Front-matter over index values. A file without front-matter needs its index entry."""
    first = file.text.split("\n", 1)[0].strip()
    data, _body = split_front_matter(file.text)
    if first == "---" and not data and not _closed(file.text):
        raise InputError("front-matter is not closed by ---", where=f"{file.name}:1", hint=FIX_HINT)
    if first != "---" and not index_fields:
        raise InputError("mission file has no front-matter", where=f"{file.name}:1", hint=FIX_HINT)
    stem = {"mission_id": Path(file.name).stem}
    return _Mission({**stem, **index_fields, **data}, f"{file.name}:1", file.text)


def _closed(text: str) -> bool:
    return any(line.strip() in {"---", "..."} for line in text.split("\n")[1:])


def _item(mission: _Mission, today: dt.date, branch: str) -> Item:
    mission_id = _flat(mission.fields.get("mission_id"))
    goal = _flat(mission.fields.get("goal"))
    if not goal:
        raise InputError(
            f"mission {quoted(mission_id)} has no goal", where=mission.where, hint=FIX_HINT
        )
    completed = mission.fields.get("completed_at")
    verdicts = _flat(mission.fields.get("verdicts_summary"))
    tags = [token(tag) for tag in _tags(mission.fields.get("tags"))]
    tags = [tag for tag in dict.fromkeys(tags) if tag]
    outcome = verdict_outcome(verdicts)
    detail = f"mission {mission_id}: {verdicts}" if verdicts else f"mission {mission_id}"
    when = _key_where(mission, "completed_at")
    values = {
        "date": day_of(completed if completed else None, today, when),
        "branch": branch,
        "phase": "N/A",
        "plan": "-",
        "agent": BROKER_AGENT,
        "task_type": tags[0] if tags else "general",
        "outcome": outcome,
        "importance": BASE_IMPORTANCE[outcome],
        "tags": ", ".join(tags),
        "summary": f"{goal} ({detail})",
    }
    key = content_hash("memory-broker", mission_id, _flat(completed))
    return Item(make_record(OUTCOME, values, mission.where), mission.where, key)


def verdict_outcome(verdicts: str) -> str:
    """`partial` when verdicts mention it or both passes and failures, `failed` when only
    failures, else `success`. A count of zero (`0 failed`, `fail: 0`, `no blockers`) is none."""
    words = set()
    for match in _COUNTED_WORD.finditer(verdicts.lower()):
        if (match.group(1) or match.group(3) or "") not in _NONE:
            words.add(match.group(2))
    failed, passed = bool(words & _FAIL), bool(words & _PASS)
    if words & _PARTIAL or (failed and passed):
        return "partial"
    return "failed" if failed else "success"


def _flat(value: Value | None) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, list):
        return ", ".join(text for item in value if (text := _flat(item)))
    return ", ".join(f"{key}: {_flat(item)}" for key, item in value.items())


def _tags(value: Value | None) -> list[str]:
    if isinstance(value, list):
        return [_flat(item) for item in value]
    return [part.strip() for part in _flat(value).split(",")]


def _key_where(mission: _Mission, key: str) -> str:
    """The front-matter line that sets `key`, else the mission's own position."""
    name = mission.where.rsplit(":", 1)[0]
    for number, line in enumerate(mission.text.split("\n")[1:], start=2):
        if line.strip() in {"---", "..."}:
            break
        if line.startswith(f"{key}:"):
            return f"{name}:{number}"
    return mission.where

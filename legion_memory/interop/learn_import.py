"""`/legion:learn` entries (`## PAT-`, `## PIT-`, `## PRF-` sections inside memory files) as
records, each with the lines that take it out of its file again (for `import learn --move`)."""

from __future__ import annotations

import datetime as dt

from legion_memory.interop.import_items import (
    NOT_RECORDED,
    Conversion,
    Item,
    SourceFile,
    content_hash,
    day_of,
    error_values,
    make_record,
    pattern_values,
    preference_values,
)
from legion_memory.markdown.document import Document, parse
from legion_memory.schema.kinds import ERROR_FIX, PATTERN, PREFERENCE, Kind
from legion_memory.schema.learn_entries import LearnEntry, learn_entries
from legion_memory.storage.bulk_append import Removal

LEARN_CONTEXT = "recorded with /legion:learn"
LEARN_AGENT = "user"


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

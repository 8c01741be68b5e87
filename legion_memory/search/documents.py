"""What a search finds: a table row, a `/legion:learn` entry or a RETRO.md section, as an entry
with a one-line headline (what snippets and the context block show)."""

import re
from collections.abc import Iterable
from pathlib import Path

from legion_memory.named_tuple import NamedTuple
from legion_memory.schema.kinds import ERROR_FIX, OUTCOME, PATTERN
from legion_memory.schema.learn_entries import LearnEntry
from legion_memory.schema.records import Record
from legion_memory.search.retro_entries import RetroEntry

# Fields that identify or classify a row rather than say something about it.
STRUCTURAL = frozenset({"id", "date", "branch", "phase", "plan", "importance", "resolved"})
ENTRY_TYPES = {
    "outcomes": "outcome",
    "patterns": "pattern",
    "errors": "error-fix",
    "preferences": "preference",
}
LEARN_ENTRY_TYPES = {"pattern": "pattern", "pitfall": "error-fix", "preference": "preference"}

# How much a word counts in each field (docs/decisions.md#search-ranking): the field that says what
# the record is (pattern, summary, signature and fix, the user's choice; a learn entry's summary,
# a retro section's title) above the prose that qualifies it, above context, tags and labels.
MAIN_WEIGHT = 1.0
PROSE_WEIGHT = 0.6
LABEL_WEIGHT = 0.3
MAIN_FIELDS = frozenset({"summary", "pattern", "error_signature", "fix", "user_choice", "title"})
PROSE_FIELDS = frozenset({"reuse_criteria", "proposed", "source", "body"})


def field_weight(key: str) -> float:
    if key in MAIN_FIELDS:
        return MAIN_WEIGHT
    return PROSE_WEIGHT if key in PROSE_FIELDS else LABEL_WEIGHT


class Entry(NamedTuple):
    """One searchable thing: a table row, a learn entry or a retro section. `sections` are its
    searchable fields as (field key, text), main fields first."""

    type: str
    id: str
    path: Path
    line: int
    date: str
    headline: str
    fields: tuple[str, ...]
    prose: tuple[str, ...] = ()
    importance: int | None = None
    agents: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    sections: tuple[tuple[str, str], ...] = ()

    @property
    def file(self) -> str:
        return self.path.name


def by_weight(sections: Iterable[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    """Non-empty sections, heaviest field first (the order snippets look for a match in)."""
    return tuple(sorted(((k, v) for k, v in sections if v), key=lambda s: -field_weight(s[0])))


def one_line(text: str) -> str:
    return " ".join(text.split())


def headline(record: Record) -> str:
    """The record as one line of prose, for snippets and the context block."""
    kind = record.kind
    if kind is OUTCOME:
        text = record["summary"]
    elif kind is PATTERN:
        when = record["reuse_criteria"]
        text = f"{record['pattern']} (reuse when: {when})" if when else record["pattern"]
    elif kind is ERROR_FIX:
        fix = record["fix"]
        text = f"{record['error_signature']}; fix: {fix}" if fix else record["error_signature"]
    else:
        text = _preference_line(record)
    return one_line(text)


def _preference_line(record: Record) -> str:
    proposed, choice = record["proposed"], record["user_choice"]
    if choice and choice != proposed:
        decision = f"user chose {choice} over {proposed}" if proposed else f"user chose {choice}"
    else:
        decision = f"user accepted {proposed}" if proposed else ""
    return ": ".join(part for part in (record["context"], decision) if part)


def record_entry(record: Record, path: Path) -> Entry:
    fields = tuple(v for k, v in record.values.items() if k not in STRUCTURAL and v)
    prose = tuple(record[c.key] for c in record.kind.columns if not c.single_line and record[c.key])
    return Entry(
        type=ENTRY_TYPES[record.kind.name],
        id=record.id,
        path=path,
        line=record.line,
        date=record["date"],
        headline=headline(record),
        fields=fields,
        prose=prose,
        importance=record.importance or None,
        agents=record.agents,
        tags=record.tags,
        sections=by_weight((k, v) for k, v in record.values.items() if k not in STRUCTURAL),
    )


def learn_entry(entry: LearnEntry, path: Path) -> Entry:
    # Date, type and phase bullets classify the entry; they are not words to search.
    fields = (entry.summary, entry.body, entry.fields.get("tags", ""))
    return Entry(
        type=LEARN_ENTRY_TYPES.get(entry.type, entry.type),
        id=entry.id,
        path=path,
        line=entry.line,
        date=entry.date,
        headline=one_line(entry.summary),
        fields=tuple(field for field in fields if field),
        prose=(entry.summary, entry.body),
        tags=entry.tags,
        sections=by_weight(
            (
                ("summary", entry.summary),
                ("body", entry.body),
                ("tags", entry.fields.get("tags", "")),
            )
        ),
    )


def retro_entry(entry: RetroEntry, path: Path) -> Entry:
    return Entry(
        type="retro",
        id=entry.id,
        path=path,
        line=entry.line,
        date=entry.date,
        headline=one_line(entry.title),
        fields=(entry.title, entry.body),
        prose=(entry.title, _plain_markdown(entry.body)),
        sections=by_weight((("title", entry.title), ("body", _plain_markdown(entry.body)))),
    )


_MARKUP = re.compile(r"^\s*(?:#{1,6}\s+|[-*+]\s+|\|?[\s:|-]*-[\s:|-]*$)")


def _plain_markdown(text: str) -> str:
    """Body text for snippets: heading and bullet markers and table delimiter rows removed."""
    lines = (_MARKUP.sub("", line) for line in text.split("\n"))
    return "\n".join(line for line in lines if line.strip())

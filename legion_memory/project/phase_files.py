"""The files an agent created or modified, as a phase's SUMMARY and PLAN files list them.

Agents write these lists in many shapes: bullets with or without backticks under
`## Files Modified`, `## Files Modified (25)` or `## Files Created / Modified` (with `### Created`
sub-headings or `**Created:**` labels), `**path**: what changed` bullets under `## Changes`, a
fenced block of one path a line under a Files heading, tables with a File or Path column
(`| File | Lines | Purpose |`), `key_files`/`key-files` front-matter, and a PLAN's
`files_modified`. Tables without such a column (agent metadata, scores) list no files.
"""

import re
from collections.abc import Iterable, Iterator

from legion_memory.markdown.frontmatter import Value, strings
from legion_memory.markdown.outline import CodeBlock, Item, Section, TableBlock, heading_key, plain
from legion_memory.named_tuple import NamedTuple
from legion_memory.project.phases import PLAN, PlanDocument

CREATED = "created"
MODIFIED = "modified"

_FILES_HEADING = re.compile(r"^(?:(?:key|created|modified|changed|new|updated)\s+)*files?\b")
_CHANGES_HEADING = re.compile(r"^(?:key\s+)?changes(?:\s+made)?$")
_FILE_COLUMNS = {"file", "files", "path", "paths", "file path", "filename"}
_DESCRIPTION_COLUMNS = ("purpose", "description", "change", "changes", "summary", "what", "notes")
# A commit table's Files cell lists what a commit touched, often as bare or shortened names.
_COMMIT_COLUMNS = {"hash", "sha", "commit hash", "message", "commit message"}
_ACTION_COLUMNS = ("action", "change", "status", "type")
_LABEL = re.compile(
    r"^\**\s*(created|modified|new|updated|added|changed|edited)(?=[\s:*])"
    r"\s*(?:files?)?\s*\**\s*:?\s*\**\s*",
    re.IGNORECASE,
)
# An Action cell that says what changed after how: `Modified — wiring`.
_ACTION_SAID = re.compile(
    r"^\W*(?:created|modified|new|updated|added|changed|edited)\W*?\s*[\u2014\u2013:-]+\s+(.+)$",
    re.IGNORECASE,
)
_TOKEN = re.compile(r"`([^`]+)`|\*\*`?([^*`]+?)`?\*\*|([^\s,]+)")
_EXTENSION = re.compile(r"^[^/]*\.[A-Za-z][\w-]{0,11}$")
_DOTFILE = re.compile(r"^\.[\w-]+(?:\.[\w-]+)*$")
_VERSION = re.compile(r"^v?\d+(?:\.\d+)*$")
_LOCATION = re.compile(r"(?::\d+(?:-\d+)?|#L\d+(?:-L?\d+)?)$")
_NEW_MARK = re.compile(r"^\((?:new|created)\)[\s:\u2014\u2013-]*|^(?=(?:new|created)\b)", re.I)
_ABBREVIATIONS = {"e.g", "i.e", "E.g", "I.e"}
_EXTENSIONLESS = {"Makefile", "Dockerfile", "LICENSE", "Procfile", "Gemfile", "Jenkinsfile"}


class FileChange(NamedTuple):
    """One file an agent touched in one plan: how (`created`, `modified`, or unknown) and what."""

    path: str
    plan: str
    action: str = ""
    description: str = ""


def agent_files(document: PlanDocument) -> list[FileChange]:
    """Every file a SUMMARY or PLAN says an agent created or modified, once each, in order."""
    found = list(front_matter_files(document))
    if document.kind != PLAN:
        for section in document.sections:
            found.extend(_section_files(document.plan, section))
    return merged_changes(found)


def phase_files(documents: Iterable[PlanDocument]) -> list[FileChange]:
    """The files of several documents (plan order), one entry per plan and path."""
    return [change for document in documents for change in agent_files(document)]


def front_matter_files(document: PlanDocument) -> Iterator[FileChange]:
    created = ("files_created", "files-created")
    for key in ("key_files", "key-files", "files_modified", "files-modified", *created):
        yield from _listed(
            document.plan, document.front.get(key), CREATED if key in created else ""
        )


def _listed(plan: str, value: Value | None, action: str) -> Iterator[FileChange]:
    if isinstance(value, dict):
        for key, inner in value.items():
            yield from _listed(plan, inner, _action_word(key) or action)
        return
    for text in strings(value):
        paths, description = leading_paths(text, listed=True)
        yield from (FileChange(path, plan, action, description) for path in paths)


def _section_files(plan: str, section: Section) -> Iterator[FileChange]:
    keys = [heading_key(title) for title in section.path]
    in_files = any(_FILES_HEADING.match(key) for key in keys)
    action = next((a for a in map(_action_word, reversed(keys)) if a), "") if in_files else ""
    yield from _heading_file(plan, section)
    if in_files or (keys and _CHANGES_HEADING.match(keys[-1])):
        for item in section.items():
            yield from _item_files(plan, item, action, strict=not in_files)
    if in_files:
        yield from _code_block_files(plan, section, action)
    for table in section.tables():
        yield from _table_files(plan, table, action if in_files else "")


def _code_block_files(plan: str, section: Section, action: str) -> Iterator[FileChange]:
    """A fenced block under a Files heading with a path opening every line (what `git diff
    --name-only` prints, or `src/lib.rs (module registered)`) is the file list, the rest of a
    line its description; a block with any other line (a command, a total) is not. A glob
    (`icons/*.png`) names no one file: it is passed over."""
    for block in section.blocks:
        if not isinstance(block, CodeBlock):
            continue
        lines = [line for line in block.text.split("\n") if line.strip() and "*" not in line]
        listed = [leading_paths(line, listed=True) for line in lines]
        if listed and all(len(paths) == 1 for paths, _ in listed):
            yield from (FileChange(paths[0], plan, action, said) for paths, said in listed)


def _heading_file(plan: str, section: Section) -> Iterator[FileChange]:
    """`### skills/x/SKILL.md (new)`: a heading that is a path, with at most a marker after it."""
    paths, rest = leading_paths(plain(section.title), listed=False)
    marked = _NEW_MARK.match(rest)
    marker = re.fullmatch(r"\((?:new|created|modified|updated|changed)\)", rest, re.IGNORECASE)
    if len(paths) == 1 and (marker or ("/" in paths[0] and not rest)):
        yield FileChange(paths[0], plan, CREATED if marked else _action_word(rest))


def _action_word(text: str) -> str:
    lowered = text.lower()
    created = "creat" in lowered or re.search(r"\b(new|added)\b", lowered) is not None
    modified = re.search(r"modif|updat|chang|edit", lowered) is not None
    if created and not modified:
        return CREATED
    return MODIFIED if modified and not created else ""


def _item_files(plan: str, item: Item, action: str, *, strict: bool) -> Iterator[FileChange]:
    """Files of one bullet: `path - what`, `**path**: what`, `Created: a, b`, or a label whose
    nested bullets are the files. `strict` (outside Files sections) wants a marked path."""
    text = item.text
    label = _LABEL.match(text)
    if label:
        action = _action_word(label.group(1)) or action
        text = text[label.end() :]
    paths, description = leading_paths(text, listed=True)
    if paths and not (strict and not _marked_lead(text)):
        marked = _NEW_MARK.match(description)
        item_action = CREATED if marked else action
        description = description[marked.end() :] if marked else description
        yield from (FileChange(path, plan, item_action, description) for path in paths)
    for child in item.children:
        yield from _item_files(plan, child, action, strict=strict)


def _marked_lead(text: str) -> bool:
    return text.startswith(("`", "**"))


def _table_files(plan: str, table: TableBlock, action: str) -> Iterator[FileChange]:
    names = [plain(cell).lower() for cell in table.header]
    columns = [index for index, name in enumerate(names) if name in _FILE_COLUMNS]
    if not columns or _COMMIT_COLUMNS.intersection(names):
        return
    described = next((names.index(n) for n in _DESCRIPTION_COLUMNS if n in names), None)
    acted = next((names.index(n) for n in _ACTION_COLUMNS if n in names), None)
    for row in table.rows:
        cell = row[columns[0]] if columns[0] < len(row) else ""
        paths, _ = leading_paths(cell.replace("<br>", ", "), listed=True, every=True)
        said = _ACTION_SAID.match(_cell(row, acted)) if described is None else None
        description = _cell(row, described) or (said.group(1) if said else "")
        row_action = _action_word(_cell(row, acted)) or action
        yield from (FileChange(path, plan, row_action, description) for path in paths)


def _cell(row: tuple[str, ...], index: int | None) -> str:
    return row[index].strip() if index is not None and index < len(row) else ""


def leading_paths(text: str, *, listed: bool, every: bool = False) -> tuple[list[str], str]:
    """The path(s) a line starts with (`a`, `b` — ...) and the description after them.

    `listed` (the line is an entry of a file list) also accepts well-known extension-less file
    names such as Makefile; `every` takes every path of the line, not only the leading ones."""
    paths: list[str] = []
    rest = text.strip()
    while rest:
        token = _TOKEN.match(rest)
        if token is None:
            break
        path = clean_path(next(group for group in token.groups() if group is not None))
        if not looks_like_path(path, listed=listed):
            if every:
                rest = rest[token.end() :].lstrip(" ,;")
                continue
            break
        paths.append(path)
        rest = rest[token.end() :]
        separator = re.match(r"\s*(?:,|\band\b)\s*", rest)
        if separator is None:
            break
        rest = rest[separator.end() :]
    description = rest.strip().lstrip(":—\u2013->").strip()
    return paths, description


def clean_path(token: str) -> str:
    """`./src/a.py:12,` -> `src/a.py` (no location suffix, quote or trailing punctuation)."""
    path = token.strip().strip("\"'").rstrip(",;:.)").lstrip("(")
    path = _LOCATION.sub("", path).replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    return path


def looks_like_path(token: str, *, listed: bool) -> bool:
    """A file path (has a directory or an extension), not a version, URL, glob or sentence."""
    if not token or any(ch.isspace() for ch in token) or "://" in token:
        return False
    if token.startswith("-") or any(ch in token for ch in "*?{}<>|()[]\"'"):
        return False
    if _VERSION.match(token) or not re.search(r"[A-Za-z]", token) or token in _ABBREVIATIONS:
        return False
    if "/" in token or _EXTENSION.match(token) or _DOTFILE.match(token):
        return True
    return listed and token in _EXTENSIONLESS


def merged_changes(changes: list[FileChange]) -> list[FileChange]:
    """One entry per (plan, path): the first, completed by later mentions' action/description."""
    merged: dict[tuple[str, str], FileChange] = {}
    for change in changes:
        key = (change.plan, change.path)
        seen = merged.get(key)
        if seen is None:
            merged[key] = change
            continue
        action = seen.action or change.action
        if CREATED in (seen.action, change.action):
            action = CREATED
        merged[key] = seen._replace(
            action=action, description=seen.description or change.description
        )
    return list(merged.values())

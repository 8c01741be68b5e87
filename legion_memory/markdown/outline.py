"""A planning document as an outline: headed sections holding paragraphs, lists, tables and code.

SUMMARY and PLAN files are free-form markdown written by agents in many styles. mistune reads them
into an AST (so tables, nested lists and code fences are understood the way GitHub renders them),
and this module flattens that AST into sections whose blocks keep their inline markup as markdown
text (`code`, **bold**), which is what the readers of these files look for. A plain document is
read into the same AST line by line without importing mistune (`line_blocks`), and only a
document that reader doubts is given to mistune (docs/decisions.md#outline-without-mistune).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from legion_memory.named_tuple import NamedTuple

TYPE_CHECKING = False  # not typing's: docs/decisions.md#hot-paths-without-typing
if TYPE_CHECKING:
    from typing import Any

    Token = dict[str, Any]

_COUNT_SUFFIX = re.compile(r"\s*\(\d+\)\s*$")
# What agents put around a section's name: a number (`1.`, `2)`, `3.1`), a letter (`A.`), an
# emoji or a mark before it; a colon, a mark or an emoji after it.
_LEADING = re.compile(
    r"^[\W_]*(?:(?:\d+(?:\.\d+)+\.?|\d+[.)]|[a-z][.)]|[ivx]+[.)])\s+)?[\W_]*", re.IGNORECASE
)
_TRAILING = re.compile(r"[^\w)]+$")
_TASK_BOX = re.compile(r"^\[[ xX]\]\s+")
_NBSP_HEADING = re.compile(r"(?m)^( {0,3}#{1,6})\u00a0")
_BOLD_LABEL = re.compile(r"^\*\*([^*\n]+?):\*\*$|^\*\*([^*\n]+?)\*\*:$")


class Item(NamedTuple):
    """One list item: its own text (paragraphs joined by spaces) and its nested items."""

    text: str
    children: tuple[Item, ...] = ()


class Paragraph(NamedTuple):
    """A paragraph's text; its soft line breaks stay line breaks (`**Status:** x` lines)."""

    text: str


class ListBlock(NamedTuple):
    items: tuple[Item, ...]
    ordered: bool = False


class TableBlock(NamedTuple):
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


class CodeBlock(NamedTuple):
    text: str


Block = Paragraph | ListBlock | TableBlock | CodeBlock


class Section:
    """A heading and the blocks up to the next heading; `level` 0 is the text before any heading.

    `path` holds the titles of the enclosing headings, outermost first, then this one."""

    __slots__ = ("blocks", "level", "path", "title")

    def __init__(self, title: str, level: int, path: tuple[str, ...] = ()) -> None:
        self.title = title
        self.level = level
        self.path = path
        self.blocks: list[Block] = []

    @property
    def key(self) -> str:
        return heading_key(self.title)

    def paragraphs(self) -> Iterator[str]:
        """Each paragraph on one line."""
        return (_one_line(b.text) for b in self.blocks if isinstance(b, Paragraph))

    def lines(self) -> Iterator[str]:
        """Each line of each paragraph, as written."""
        for block in self.blocks:
            if isinstance(block, Paragraph):
                yield from (line.strip() for line in block.text.split("\n") if line.strip())

    def items(self) -> Iterator[Item]:
        """The top-level items of every list in the section."""
        for block in self.blocks:
            if isinstance(block, ListBlock):
                yield from block.items

    def every_item(self) -> Iterator[Item]:
        """Every item of every list, nested ones after the item they are under: a claim or a
        result is as often written one level down (`- Automated:` then its checks)."""
        return (found for item in self.items() for found in _depth_first(item))

    def row_lines(self) -> Iterator[str]:
        """Each row of each table as one line, its non-empty cells joined by ` — `: agents
        write requirements, decisions and checks as tables as often as lists."""
        for table in self.tables():
            yield from (" — ".join(cell for cell in row if cell) for row in table.rows)

    def pairs(self) -> Iterator[str]:
        """Each row of a two-column table as `label: value`: a table of fields
        (`| Status | Complete |`) says what `**Status:** Complete` lines say. Not its head row,
        which names columns (`| Agent | Role |` heads a list of agents, and names none)."""
        for table in self.tables():
            if len(table.header) == 2:
                yield from (f"{row[0]}: {row[1]}" for row in table.rows if len(row) == 2)

    def tables(self) -> Iterator[TableBlock]:
        return (block for block in self.blocks if isinstance(block, TableBlock))


class LazyOutline:
    """A body's sections, read the first time they are asked for: those of a PLAN seldom are
    (its readers want its front-matter), and reading is most of what a document costs."""

    __slots__ = ("_body", "_sections")

    def __init__(self, body: str) -> None:
        self._body = body
        self._sections: tuple[Section, ...] | None = None

    def sections(self) -> tuple[Section, ...]:
        if self._sections is None:
            self._sections = tuple(outline(self._body))
        return self._sections


def outline(markdown: str) -> list[Section]:
    """The sections of a markdown text (front-matter already removed), in document order."""
    # Imported here: the commands that import the outline's types but read no markdown do not
    # compile the line reader's patterns.
    from legion_memory.markdown.line_blocks import plain_tokens

    markdown = _spaced_headings(markdown)
    tokens = plain_tokens(markdown)
    return sections_of(mistune_tokens(markdown) if tokens is None else tokens)


def line_outline(markdown: str) -> list[Section] | None:
    """The sections as the line reader reads them; None when it leaves the text to mistune."""
    from legion_memory.markdown.line_blocks import plain_tokens

    tokens = plain_tokens(_spaced_headings(markdown))
    return None if tokens is None else sections_of(tokens)


def mistune_outline(markdown: str) -> list[Section]:
    """The sections as mistune reads them, whatever the text."""
    return sections_of(mistune_tokens(_spaced_headings(markdown)))


def _spaced_headings(markdown: str) -> str:
    """`##` then a no-break space (what some keyboards type for Option+Space, and what text pasted
    from a web page holds) as `## `: markdown would render it as a paragraph beginning `##`, but
    the writer meant a heading."""
    if "\u00a0" not in markdown:
        return markdown
    return _NBSP_HEADING.sub(r"\1 ", markdown)


def mistune_tokens(markdown: str) -> list[Token]:
    import mistune  # lazily: only for what the line reader doubts

    parse = mistune.create_markdown(renderer=None, plugins=["table"])
    # Emphasis stays literal text: mistune (like GitHub) would read the underscores of
    # `src/__init__.py` as bold markers and lose them, and readers want `**x**` as written anyway.
    parse.inline.rules.remove("emphasis")
    tokens: list[Token] = parse(markdown)  # type: ignore[assignment]
    return tokens


def sections_of(tokens: list[Token]) -> list[Section]:
    """mistune's tokens (`renderer=None`) as sections. A paragraph that is only a bold label
    (`**Decisions:**`, before the list it names) opens a section one level below the heading
    it is under, as a heading would: agents write sections both ways."""
    sections = [Section("", 0)]
    headed = 0  # the level of the last real heading
    for token in tokens:
        if token["type"] == "heading":
            headed = int(token["attrs"]["level"])
            title = inline(token.get("children", [])).strip()
            sections.append(Section(title, headed, (*_enclosing(sections, headed), title)))
            continue
        block = _block(token)
        text = block.text if isinstance(block, Paragraph) else ""
        first, _, rest = text.partition("\n")
        label = _BOLD_LABEL.match(first)
        if label:
            # Never a title (level 1), even above the first heading.
            title, level = label.group(1) or label.group(2), max(headed, 1) + 1
            sections.append(Section(title, level, (*_enclosing(sections, level), title)))
            # `**Summary:**` with its text on the next line: that text is the section's.
            block = Paragraph(rest.strip()) if rest.strip() else None
        if block is not None:
            sections[-1].blocks.append(block)
    return sections


def _depth_first(item: Item) -> Iterator[Item]:
    yield item
    for child in item.children:
        yield from _depth_first(child)


def _enclosing(sections: list[Section], level: int) -> tuple[str, ...]:
    """Titles of the headings that enclose a new heading of `level`, outermost first."""
    for section in reversed(sections):
        if 0 < section.level < level:
            return section.path
    return ()


def _block(token: Token) -> Block | None:
    kind = token["type"]
    if kind == "paragraph":
        return Paragraph(inline(token.get("children", [])).strip())
    if kind == "list":
        items = tuple(_item(child) for child in token.get("children", []))
        return ListBlock(items, bool(token.get("attrs", {}).get("ordered")))
    if kind == "table":
        table = _table(token)
        if len(table.header) == 1:
            # A one-column table is a list written as a table: its rows are what a reader of
            # items (decisions, files, checks) looks for.
            cells = (_TASK_BOX.sub("", row[0]) for row in table.rows if row and row[0])
            return ListBlock(tuple(Item(cell) for cell in cells))
        return table
    if kind == "block_code":
        return CodeBlock(str(token.get("raw", "")))
    return None


def _item(token: Token) -> Item:
    texts: list[str] = []
    children: list[Item] = []
    for child in token.get("children", []):
        if child["type"] in {"block_text", "paragraph"}:
            texts.append(_one_line(inline(child.get("children", []))))
        elif child["type"] == "list":
            children.extend(_item(grandchild) for grandchild in child.get("children", []))
    # A task list's box (`- [x] text`) says whether it is done, not what it is.
    text = _TASK_BOX.sub("", " ".join(text for text in texts if text))
    return Item(text, tuple(children))


def _table(token: Token) -> TableBlock:
    header: tuple[str, ...] = ()
    rows: list[tuple[str, ...]] = []
    for part in token.get("children", []):
        if part["type"] == "table_head":
            header = tuple(_cell(cell) for cell in part.get("children", []))
        elif part["type"] == "table_body":
            for row in part.get("children", []):
                rows.append(tuple(_cell(cell) for cell in row.get("children", [])))
    return TableBlock(header, tuple(rows))


def _cell(token: Token) -> str:
    # A pipe inside a cell is written `\|`; what the cell says is `|`.
    return _one_line(inline(token.get("children", []))).replace("\\|", "|")


def _one_line(text: str) -> str:
    return " ".join(line.strip() for line in text.split("\n")).strip()


def inline(tokens: list[Token]) -> str:
    """Inline tokens back to markdown text: code spans keep their backticks."""
    parts: list[str] = []
    for token in tokens:
        kind = token["type"]
        if kind == "codespan":
            parts.append(f"`{token.get('raw', '')}`")
        elif kind in {"softbreak", "linebreak"}:
            parts.append("\n")
        elif "children" in token:
            parts.append(inline(token["children"]))
        else:
            parts.append(str(token.get("raw", "")))
    return "".join(parts)


def heading_key(title: str) -> str:
    """A heading's title lowercased without a trailing count, numbering or marks around it:
    `Files (25)` -> `files`, `3. Decisions:` -> `decisions`, `✅ Status: Complete` ->
    `status: complete`."""
    folded = _COUNT_SUFFIX.sub("", heading_text(title)).strip().lower()
    return _TRAILING.sub("", folded) or folded


def heading_text(title: str) -> str:
    """A heading's title without markup and without the numbering or marks before it:
    `1. Status: Complete` -> `Status: Complete`."""
    text = plain(title)
    return _LEADING.sub("", text) or text


def plain(text: str) -> str:
    """Markdown inline text without code and emphasis markers."""
    return text.replace("`", "").replace("**", "").strip()

"""A list read as mistune 3.4's list parser reads it: its items' lines (continued by indentation
or lazily), each item's text read as blocks of its own, the list ended by a sibling of another
kind, a blank line before unindented text, or a block that interrupts it."""

from __future__ import annotations

import re

from legion_memory.markdown.line_inline import Doubtful
from legion_memory.markdown.line_rules import BLANK_LINE, Token, item_breaks, line_at
from legion_memory.named_tuple import NamedTuple

TYPE_CHECKING = False  # not typing's: docs/decisions.md#hot-paths-without-typing
if TYPE_CHECKING:
    from collections.abc import Callable

    from legion_memory.markdown.line_blocks import BlockState

    Parse = Callable[..., None]
    Dispatch = Callable[[re.Match[str], BlockState], int | None]

_HAS_TEXT = re.compile(r"(\s*)\S")
_BULLETS = {".": r"\d{1,9}\.", ")": r"\d{1,9}\)", "*": r"\*", "+": r"\+", "-": "-"}
# mistune stops descending at twenty levels; documents nested this deep are left to it.
_DEEPEST = 12


class Marker(NamedTuple):
    """A list item's first line: its indentation, its marker, and the text after the marker."""

    spaces: str
    marker: str
    text: str


class ItemRules(NamedTuple):
    """What ends one item's lines: the next item of its list, or a block that interrupts it."""

    sibling: re.Pattern[str]
    breaks: re.Pattern[str]
    dispatch: Dispatch


class ItemLines(NamedTuple):
    src: str
    following: Marker | None = None
    """The next item of the same list, when one ended this one."""
    placed: tuple[int, int] | None = None
    """(token index, end) when a block that interrupts the list ended it."""


def read_list(
    found: re.Match[str], state: BlockState, parse: Parse, dispatch: Dispatch
) -> int | None:
    """Read the list starting at `found`; where it ends (None: the line is paragraph text)."""
    first = Marker(*found.group("list_1", "list_2", "list_3"))
    ordered = len(first.marker) > 1
    if not first.text.strip() or (ordered and int(first.marker[:-1]) != 1):
        end = state.append_paragraph()  # neither can interrupt a paragraph
        if end is not None:
            return end
    if state.depth >= _DEEPEST:
        raise Doubtful("lists nested this deep")
    state.cursor = found.end() + 1
    token: Token = {"type": "list", "attrs": {"ordered": ordered}, "children": []}
    bullet = _BULLETS[first.marker[-1]]
    item: Marker | None = first
    placed = None
    while item is not None:
        lines = _item(bullet, item, token, state, parse, dispatch)
        item, placed = lines.following, lines.placed
    if placed is not None:
        state.tokens.insert(placed[0], token)
        return placed[1]
    state.tokens.append(token)
    return state.cursor


def _item(
    bullet: str, item: Marker, token: Token, state: BlockState, parse: Parse, dispatch: Dispatch
) -> ItemLines:
    leading = len(item.spaces) + len(item.marker)
    text, width = _first_line(item.text, leading)
    sibling = re.compile(
        rf"^(?P<listitem_1> {{0,{min(leading, 3)}}})(?P<listitem_2>{bullet})"
        r"(?P<listitem_3>[ \t]*|[ \t][^\n]+)$"
    )
    lines = _lines(ItemRules(sibling, item_breaks(leading), dispatch), state, text, width)
    child = state.__class__(_item_source(text, lines.src, width), state.depth + 1)
    parse(child, tables=False)
    token["children"].append({"type": "list_item", "children": child.tokens})
    return lines


def _first_line(text: str, leading: int) -> tuple[str, int]:
    """The item's first line as its content starts, and the indentation that continues it."""
    if not _HAS_TEXT.match(text):
        return "", leading + 1
    indent = len(text) - len(text.lstrip(" "))
    width = 1 if indent >= 5 else indent  # five spaces or more: indented code in the item
    return text[width:] + "\n", leading + width


def _lines(rules: ItemRules, state: BlockState, text: str, width: int) -> ItemLines:
    src = ""
    blank_before = False
    while state.cursor < len(state.src):
        line = line_at(state.src, state.cursor)
        if BLANK_LINE.match(line):
            src, blank_before = src + "\n", True
        elif _indent(line) >= width:
            if blank_before and not text and not src.strip():
                break  # an item may begin with one blank line at most
            src, blank_before = src + line, False
        else:
            ended = _ending(rules, state, line)
            if ended is not None:
                return ended._replace(src=src)
            if blank_before:
                break
            src += line  # a lazy continuation line
        state.cursor += len(line)
    return ItemLines(src)


def _ending(rules: ItemRules, state: BlockState, line: str) -> ItemLines | None:
    """How an unindented line ends the item: as the next item, as the end of the list (a list
    of another kind), or as a block that interrupts it; None when it does not."""
    interrupting = rules.breaks.match(state.src, state.cursor)
    if interrupting is None or interrupting.lastgroup != "thematic_break":
        following = rules.sibling.match(line)
        if following is not None:
            state.cursor += len(line)
            return ItemLines("", Marker(*following.group("listitem_1", "listitem_2", "listitem_3")))
        if interrupting is not None and interrupting.lastgroup == "list":
            return ItemLines("")
    if interrupting is None:
        return None
    index = len(state.tokens)
    end = rules.dispatch(interrupting, state)
    return ItemLines("", placed=(index, end)) if end else None


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _item_source(text: str, src: str, width: int) -> str:
    """The item's text as its own document: continuation indentation taken off, trailing blank
    lines dropped."""
    cleaned = "\n".join(
        line[width:] if _indent(line) >= width else line for line in src.split("\n")
    )
    return _strip_end(text + cleaned)


def _strip_end(src: str) -> str:
    end = len(src)
    while end and src[end - 1].isspace():
        end -= 1
    newline = src.find("\n", end)
    return src[:newline] + "\n" if newline >= 0 else src

"""Plain markdown's blocks read line by line as mistune 3.4 reads them (its table plugin on), as
mistune's token list with the inline text already read, or `Doubtful`.

It follows mistune's block loop rule for rule (the same patterns, tried in the same order) for
what planning files hold: ATX and setext headings, paragraphs, fenced code, thematic breaks,
lists (nested, loose or tight) and pipe tables. Block quotes, HTML blocks, indented code, link
reference definitions, tabs and unusual whitespace are doubtful: mistune reads those documents
(docs/decisions.md#outline-without-mistune).
"""

from __future__ import annotations

import re

from legion_memory.markdown.line_inline import Doubtful, inline_text
from legion_memory.markdown.line_lists import read_list
from legion_memory.markdown.line_rules import (
    ATX_TRIM,
    BLOCK_RULES,
    LIST_RULES,
    SETEXT_FALLBACK,
    Token,
    line_at,
)
from legion_memory.markdown.line_tables import read_nptable, read_table

_ODD_SPACE = re.compile(r"[^\S \n]")
_WHITESPACE = " \t\n\r\x0b\x0c"


class BlockState:
    """mistune's block state: the source, the cursor and the tokens read so far."""

    __slots__ = ("cursor", "depth", "src", "tokens")

    def __init__(self, src: str, depth: int = 0) -> None:
        self.src = src
        self.cursor = 0
        self.depth = depth
        self.tokens: list[Token] = []

    def last_is_paragraph(self) -> bool:
        return bool(self.tokens) and self.tokens[-1]["type"] == "paragraph"

    def add_paragraph(self, text: str) -> None:
        if self.last_is_paragraph():
            self.tokens[-1]["text"] += text
        else:
            self.tokens.append({"type": "paragraph", "text": text})

    def append_paragraph(self) -> int | None:
        """The current line joined to a paragraph just read (its end), else None."""
        if not self.last_is_paragraph():
            return None
        line = line_at(self.src, self.cursor)
        self.tokens[-1]["text"] += line
        return self.cursor + len(line)


def plain_tokens(markdown: str) -> list[Token] | None:
    """mistune's tokens of a markdown text (inline text read), or None when doubtful."""
    src = markdown.replace("\r\n", "\n").replace("\r", "\n")
    if not src.endswith("\n"):
        src += "\n"
    if _ODD_SPACE.search(src):
        return None
    state = BlockState(src)
    try:
        parse(state, tables=True)
        return [resolve(token) for token in state.tokens]
    except Doubtful:
        return None


def parse(state: BlockState, *, tables: bool) -> None:
    """mistune's block loop: at each line the first rule that matches, else paragraph text."""
    rules = BLOCK_RULES if tables else LIST_RULES
    src = state.src
    while state.cursor < len(src):
        line = line_at(src, state.cursor)
        if _indented_code_line(line):
            if state.append_paragraph() is None:
                raise Doubtful("indented code")
            state.cursor += len(line)
            continue
        found = rules.match(src, state.cursor)
        end = dispatch(found, state) if found else None
        if end is None:
            state.add_paragraph(line)
            state.cursor += len(line)
        else:
            state.cursor = end


def dispatch(found: re.Match[str], state: BlockState) -> int | None:
    """Read the block rule `found` matched; where it ends, or None when it is paragraph text."""
    kind = found.lastgroup
    if kind == "fenced_code":
        return _fenced_code(found, state)
    if kind == "atx_heading":
        return _atx_heading(found, state)
    if kind == "setex_heading":
        return _setext_heading(found, state)
    if kind == "thematic_break":
        state.tokens.append({"type": "thematic_break"})
        return found.end() + 1
    if kind == "list":
        return read_list(found, state, parse, dispatch)
    if kind == "blank_line":
        state.tokens.append({"type": "blank_line"})
        return found.end()
    if kind == "table":
        return read_table(found, state)
    if kind == "nptable":
        return read_nptable(found, state)
    raise Doubtful(str(kind))  # indent_code, block_quote, ref_link, raw_html, block_html


def _indented_code_line(line: str) -> bool:
    text = line[:-1] if line.endswith("\n") else line
    return len(text) > 4 and text.startswith("    ")


def _fenced_code(found: re.Match[str], state: BlockState) -> int | None:
    spaces, marker, info = found.group("fenced_1", "fenced_2", "fenced_3")
    fence = marker[0]
    if info and fence == "`" and fence in info:
        return None
    closing = re.compile(rf"^ {{0,3}}{re.escape(fence)}{{{len(marker)},}}[ \t]*(?:\n|$)", re.M)
    start = found.end() + 1
    close = closing.search(state.src, start)
    code = state.src[start : close.start()] if close else state.src[start:]
    if spaces and code:
        code = re.sub(f"^ {{0,{len(spaces)}}}", "", code, flags=re.M)
    state.tokens.append({"type": "block_code", "raw": code})
    return close.end() if close else len(state.src)


def _atx_heading(found: re.Match[str], state: BlockState) -> int:
    text = found.group("atx_2").strip(_WHITESPACE)
    if text:
        text = ATX_TRIM.sub("", text)
    level = len(found.group("atx_1"))
    state.tokens.append({"type": "heading", "text": text, "attrs": {"level": level}})
    return found.end() + 1


def _setext_heading(found: re.Match[str], state: BlockState) -> int | None:
    if state.last_is_paragraph():
        last = state.tokens[-1]
        last["type"] = "heading"
        last["attrs"] = {"level": 1 if found.group("setext_1") == "=" else 2}
        return found.end() + 1
    other = SETEXT_FALLBACK.match(state.src, state.cursor)
    return dispatch(other, state) if other else None


def resolve(token: Token) -> Token:
    """A token with its inline text read, as mistune renders it for `renderer=None`."""
    if "children" in token:
        token["children"] = [resolve(child) for child in token["children"]]
    elif "text" in token:
        token["children"] = [
            {"type": "text", "raw": inline_text(token.pop("text").strip(" \r\n\t\f"))}
        ]
    return token

"""mistune 3.4's block patterns, copied so that the line reader tries the same rules in the same
order without importing mistune (a test holds them equal to the installed mistune's)."""

from __future__ import annotations

import re

TYPE_CHECKING = False  # not typing's: docs/decisions.md#hot-paths-without-typing
if TYPE_CHECKING:
    from typing import Any

    Token = dict[str, Any]
else:
    Token = dict

LINK_LABEL = r"(?=[\s\S]{0,999}\])(?:[^\\\[\]]|\\.){0,999}"
LIST_PATTERN = r"^(?P<list_1> {0,3})(?P<list_2>[\*\+-]|\d{1,9}[.)])(?P<list_3>[ \t]*|[ \t].+)$"
SPECIFICATION = {
    "blank_line": r"(^[ \t\v\f]*\n)+",
    "atx_heading": r"^ {0,3}(?P<atx_1>#{1,6})(?!#+)(?P<atx_2>[ \t]*|[ \t]+.*?)$",
    "setex_heading": r"^ {0,3}(?P<setext_1>=|-){1,}[ \t]*$",
    "fenced_code": r"^(?P<fenced_1> {0,3})(?P<fenced_2>`{3,}|~{3,})[ \t]*(?P<fenced_3>.*?)$",
    "indent_code": (
        r"^(?: {4}| *\t)[^\n]+(?:\n+|$)"
        r"((?:(?: {4}| *\t)[^\n]+(?:\n+|$))|\s)*"
    ),
    "thematic_break": r"^ {0,3}((?:-[ \t]*){3,}|(?:_[ \t]*){3,}|(?:\*[ \t]*){3,})$",
    "ref_link": r"^ {0,3}\[(?P<reflink_1>" + LINK_LABEL + r")\]:",
    "block_quote": r"^ {0,3}>(?P<quote_1>.*?)$",
    "list": LIST_PATTERN,
    "raw_html": r"^ {0,3}(</?[A-Za-z][A-Za-z0-9-]*|<!--|<\?|<![A-Z]|<!\[CDATA\[)",
    "table": r"^ {0,3}\|[^\n]*\|[ \t]*(?:\n|$)",
    "nptable": r"^ {0,3}\S[^\n]*\|[^\n]*(?:\n|$)",
    # Broader than mistune's HTML block start (any `<`): it only ever makes the reader doubt.
    "block_html": r"^ {0,3}<",
}
_LIST_RULES = (
    "fenced_code", "indent_code", "atx_heading", "setex_heading", "thematic_break",
    "block_quote", "list", "ref_link", "raw_html", "blank_line",
)  # fmt: skip
# What ends a list item's lines when it is not indented as the item's text is.
_ITEM_BREAKS = ("thematic_break", "fenced_code", "atx_heading", "block_quote", "block_html", "list")


def alternation(names: tuple[str, ...]) -> re.Pattern[str]:
    """The rules as mistune joins them: the first that matches wins, its name `lastgroup`."""
    return re.compile("|".join(f"(?P<{name}>{SPECIFICATION[name]})" for name in names), re.M)


BLOCK_RULES = alternation((*_LIST_RULES, "table", "nptable"))
LIST_RULES = alternation(_LIST_RULES)
SETEXT_FALLBACK = alternation(("thematic_break", "list"))
BLANK_LINE = re.compile(SPECIFICATION["blank_line"], re.M)
ATX_TRIM = re.compile(r"(\s+|^)#+\s*$")
_ITEM_BREAK_CACHE: dict[int, re.Pattern[str]] = {}


def item_breaks(leading_width: int) -> re.Pattern[str]:
    """What ends an item whose marker is `leading_width` wide: its rules, indented at most as
    far as the marker when that is under three columns."""
    found = _ITEM_BREAK_CACHE.get(leading_width)
    if found is None:
        pairs = [(name, SPECIFICATION[name]) for name in _ITEM_BREAKS]
        if leading_width < 3:
            bound = f" {{0,{leading_width}}}"
            pairs = [(name, pattern.replace(" {0,3}", bound, 1)) for name, pattern in pairs]
        found = re.compile("|".join(f"(?P<{n}>(?<=\\n){p})" for n, p in pairs), re.M)
        _ITEM_BREAK_CACHE[leading_width] = found
    return found


def line_at(src: str, pos: int) -> str:
    """The line starting at `pos`, with its newline."""
    end = src.find("\n", pos)
    return src[pos:] if end < 0 else src[pos : end + 1]

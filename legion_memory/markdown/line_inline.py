"""Inline markdown back to the outline's text without mistune: code spans, backslash escapes,
line breaks and inline HTML read as mistune 3.4 reads them (emphasis off), or `Doubtful`.

The outline keeps inline text as markdown (docs/decisions.md#outline-without-mistune): only these
constructs change it. Links, images and autolinks would change it too (their target is dropped);
a text that could hold one is not read here but left to mistune.
"""

from __future__ import annotations

import re


class Doubtful(Exception):
    """Markdown the line reader cannot be sure to read as mistune does: mistune reads it."""


_PUNCTUATION = "[" + re.escape("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~") + "]"  # string.punctuation
_TAG_NAME = r"[A-Za-z][A-Za-z0-9-]*"
_ATTRIBUTES = (
    r"(?:\s+[A-Za-z_:][A-Za-z0-9_.:-]*"
    r"(?:\s*=\s*(?:[^ !\"'=<>`]+|'[^']*?'|\"[^\"]*?\"))?)*"
)
_AUTO_EMAIL = (
    r"<[a-zA-Z0-9.!#$%&'*+\/=?^_`{|}~-]+@[a-zA-Z0-9]"
    r"(?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?"
    r"(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*>"
)
# mistune's inline rules in its order, emphasis removed as the outline removes it.
_RULES = re.compile(
    "|".join(
        f"(?P<{name}>{pattern})"
        for name, pattern in (
            ("escape", rf"(?:\\{_PUNCTUATION})+"),
            ("codespan", r"`{1,}"),
            ("link", r"!?\["),
            ("link_close", r"\]+"),
            ("auto_link", r"<[A-Za-z][A-Za-z0-9.+-]{1,31}:[^<>\x00-\x20]*>"),
            ("auto_email", _AUTO_EMAIL),
            ("inline_html", r"<(?:/?[A-Za-z]|!|\?)"),
            ("linebreak", r"(?:\\| {2,})\n\s*"),
            ("softbreak", r" *\n\s*"),
        )
    )
)
_TRIGGER = re.compile(r"[\n!<\[\\\]`]")
_ESCAPED = re.compile(rf"\\({_PUNCTUATION})")
_BACKTICKS = re.compile(r"`+")
_DECLARATION = re.compile(r"<![A-Z]+[ \t\n\r\f]")
_TAG = re.compile(rf"<{_TAG_NAME}{_ATTRIBUTES}\s*/?>|</{_TAG_NAME}\s*>")
_CLOSERS = (("<!--", "-->", 4), ("<?", "?>", 2), ("<![CDATA[", "]]>", 9))


def inline_text(src: str) -> str:
    """The outline's text of an inline source: code spans in single backticks, escapes
    resolved, each line break one newline, inline HTML as written."""
    if "](" in src:
        raise Doubtful("a link or an image")
    parts: list[str] = []
    pos = 0
    while pos < len(src):
        text_end = _text_end(src, pos)
        if text_end > pos:
            parts.append(src[pos:text_end])
            pos = text_end
            if pos >= len(src):
                break
        found = _RULES.match(src, pos)
        after = _construct(src, found, parts) if found else None
        if after is None:
            parts.append(src[pos])
            pos += 1
        else:
            pos = after
    return "".join(parts)


def _text_end(src: str, pos: int) -> int:
    """Where the plain text from `pos` ends: at the next character a rule starts with, or at
    the spaces (or a backslash) before a line end."""
    trigger = _TRIGGER.search(src, pos)
    if trigger is None:
        return len(src)
    end = trigger.start()
    if trigger.group() != "\n":
        return end
    start = end
    while start > pos and src[start - 1] == " ":
        start -= 1
    if start == end and start > pos and src[start - 1] == "\\":
        return start - 1
    return start


def _construct(src: str, found: re.Match[str], parts: list[str]) -> int | None:
    """The text of the construct `found` starts, added to `parts`; where it ends (None: it
    is no construct after all, and its first character is text)."""
    kind = found.lastgroup
    if kind in {"auto_link", "auto_email"}:
        raise Doubtful("an autolink")
    if kind == "escape":
        parts.append(_ESCAPED.sub(r"\1", found.group()))
    elif kind == "codespan":
        return _code_span(src, found, parts)
    elif kind == "inline_html":
        return _inline_html(src, found.start(), parts)
    elif kind in {"linebreak", "softbreak"}:
        parts.append("\n")
    else:  # `[`, `![` and `]`: without a `](` and without references they stay text
        parts.append(found.group())
    return found.end()


def _code_span(src: str, found: re.Match[str], parts: list[str]) -> int:
    """A code span closes at the next run of exactly as many backticks."""
    marker = found.group()
    start = found.end()
    end = next((m.start() for m in _BACKTICKS.finditer(src, start) if m.group() == marker), None)
    if end is None:
        parts.append(marker)
        return start
    code = src[start:end].replace("\n", " ")
    if code.strip(" ") and code.startswith(" ") and code.endswith(" "):
        code = code[1:-1]
    parts.append(f"`{code}`")
    return end + len(marker)


def _inline_html(src: str, start: int, parts: list[str]) -> int | None:
    end = _html_end(src, start)
    if end is not None:
        parts.append(src[start:end])
    return end


def _html_end(src: str, start: int) -> int | None:
    if src.startswith("<!-->", start):
        return start + 5
    if src.startswith("<!--->", start):
        return start + 6
    for opener, closer, width in _CLOSERS:
        if src.startswith(opener, start):
            return _closed(src, closer, start + width)
    if src.startswith("<!", start):
        declaration = _DECLARATION.match(src, start)
        return _closed(src, ">", declaration.end()) if declaration else None
    tag = _TAG.match(src, start)
    return tag.end() if tag else None


def _closed(src: str, closer: str, pos: int) -> int | None:
    close = src.find(closer, pos)
    return close + len(closer) if close >= 0 else None

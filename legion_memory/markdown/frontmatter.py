"""YAML-ish front-matter of Legion planning files, read as plain data and never executed.

Legion's SUMMARY files open with a `---` block of nested keys, block lists (`- item`) and flow lists
(`[a, b]`). This reads exactly that subset (strings, lists and mappings, by indentation) so that no
YAML library, and nothing able to construct objects, ever sees project files.
"""

import re

from legion_memory.named_tuple import NamedTuple

Value = str | list["Value"] | dict[str, "Value"]


# `choice: X` opens a mapping item; `"Use X: because"` or `Use flag.Visit (not X): y` do not.
_MAPPING_ITEM = re.compile(r"^[A-Za-z_][\w -]*:(?:\s|$)")


class _Line(NamedTuple):
    indent: int
    text: str


def split_front_matter(text: str) -> tuple[dict[str, Value], str]:
    """The front-matter mapping (empty when there is none) and the body after it."""
    lines = text.split("\n")
    # Blank lines an editor or an agent left above the opening `---` do not hide the block.
    start = next((i for i, line in enumerate(lines) if line.strip()), len(lines))
    if start == len(lines) or lines[start].strip() != "---":
        return {}, text
    for end in range(start + 1, len(lines)):
        if lines[end].strip() in {"---", "..."}:
            kept = [raw for raw in lines[start + 1 : end] if _meaningful(raw)]
            data, _ = _mapping([_Line(_indent(raw), raw.strip()) for raw in kept], 0, 0)
            return data, "\n".join(lines[end + 1 :])
    return {}, text


def _meaningful(raw: str) -> bool:
    stripped = raw.strip()
    return bool(stripped) and not stripped.startswith("#")


def _indent(raw: str) -> int:
    return len(raw) - len(raw.lstrip(" "))


def _mapping(lines: list[_Line], start: int, indent: int) -> tuple[dict[str, Value], int]:
    result: dict[str, Value] = {}
    index = start
    while index < len(lines) and lines[index].indent >= indent:
        line = lines[index]
        key, _, rest = line.text.partition(":")
        if line.text.startswith("- ") or not _:
            index += 1  # not a `key: value` line at this level: skip what cannot be read
            continue
        index += 1
        if rest.strip():
            result[key.strip()] = scalar_or_flow(rest.strip())
        elif index < len(lines) and lines[index].indent > line.indent:
            result[key.strip()], index = _block(lines, index, lines[index].indent)
        elif index < len(lines) and lines[index].text.startswith("- "):
            result[key.strip()], index = _list(lines, index, lines[index].indent)
        else:
            result[key.strip()] = ""
    return result, index


def _block(lines: list[_Line], start: int, indent: int) -> tuple[Value, int]:
    if lines[start].text.startswith("- ") or lines[start].text == "-":
        return _list(lines, start, indent)
    return _mapping(lines, start, indent)


def _list(lines: list[_Line], start: int, indent: int) -> tuple[list[Value], int]:
    items: list[Value] = []
    index = start
    while index < len(lines) and lines[index].indent == indent:
        text = lines[index].text
        if not (text.startswith("- ") or text == "-"):
            break
        end = index + 1
        while end < len(lines) and lines[end].indent > indent:
            end += 1
        items.append(_item(text[1:].strip(), lines[index + 1 : end], indent))
        index = end
    return items, index


def _item(text: str, below: list[_Line], indent: int) -> Value:
    """A list item and the lines indented under it. `- choice: X` over `rationale: Y` is one
    mapping (read apart, its keys would land in the mapping around the list); a plain item over
    more text is one folded string."""
    if not below:
        return scalar_or_flow(text)
    if _MAPPING_ITEM.match(text):
        inner = min(line.indent for line in below)
        mapping, _ = _mapping([_Line(min(indent + 2, inner), text), *below], 0, 0)
        return mapping
    return scalar_or_flow(" ".join([text, *(line.text for line in below)]))


def scalar_or_flow(text: str) -> Value:
    """`[a, "b"]` as a list, a quoted or plain scalar as a string."""
    if text.startswith("[") and text.endswith("]"):
        inner = text[1:-1].strip()
        return [_unquote(part.strip()) for part in _flow_items(inner)] if inner else []
    return _unquote(text)


def _flow_items(inner: str) -> list[str]:
    """A flow list's items, split at the commas outside quotes: `"a, b", c` is two items."""
    items: list[str] = []
    current: list[str] = []
    quote = ""
    for char in inner:
        if quote:
            quote = "" if char == quote else quote
        elif char in {'"', "'"} and not "".join(current).strip():
            quote = char
        elif char == ",":
            items.append("".join(current))
            current = []
            continue
        current.append(char)
    return [*items, "".join(current)]


def _unquote(text: str) -> str:
    if len(text) >= 2 and text[0] == text[-1] and text[0] in {'"', "'"}:
        return text[1:-1]
    return text


def strings(value: Value | None) -> list[str]:
    """Every string inside a value, depth first: what `key_files` or `requirements` list."""
    if value is None:
        return []
    if isinstance(value, str):
        return [value] if value else []
    if isinstance(value, list):
        return [text for item in value for text in strings(item)]
    return [text for item in value.values() for text in strings(item)]

"""Refusal of values that look like credentials: memory is committed to git and read by agents.

One detector serves every writer, every importer and `validate`. A value is checked as written
and as a scanner would have to read it to see through a disguise: with escapes and splits undone
(`\\|`, `|`, `<br>`, line breaks and zero-width characters between token characters), compatibility
forms folded (full-width letters), and base64-looking tokens decoded.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from itertools import compress, repeat
from operator import contains

from legion_memory.errors import InputError
from legion_memory.schema.secret_rules import (
    ANCHORS,
    CASE_ALIASES,
    FOLDED_ANCHORS,
    PREFILTER_RUN,
    PREFILTER_WORDS,
    RULES,
    RUN_CHARACTERS,
    RUNS,
    TOKEN_CHARS,
)

_INVISIBLE = "\u00ad\u180e\u200b\u200c\u200d\u200e\u200f\u2060\u2061\u2062\u2063\u2064\ufeff"
# A split inside a token: (escaped) pipes, `<br>`s or line breaks touching a token character (a
# table's ` | ` between two words is no split). Invisible characters are dropped before the splits
# are undone, so the pattern need not hold them (a class of them is slow to compile).
_MARKS = r"(?:\\?\||<br\s*/?>|\r?\n)+"
_SPLIT = rf"(?<=[{TOKEN_CHARS}]){_MARKS}|{_MARKS}(?=[{TOKEN_CHARS}])"
_SPLIT_MARKS = ("|", "<", "\n", "\r")
_DROP_INVISIBLE = dict.fromkeys(map(ord, _INVISIBLE))
_BASE64 = r"[A-Za-z0-9+/]{16,}={0,2}|[A-Za-z0-9_-]{16,}={0,2}"
_URL_SAFE = bytes.maketrans(b"-_", b"+/")
_MAX_DEPTH = 2  # base64 inside base64 is still read; deeper nesting is not a disguise seen


def secret_kind(value: str) -> str | None:
    """The kind of credential `value` seems to hold, or None."""
    return _kind(value, _MAX_DEPTH)


def _kind(value: str, depth: int) -> str | None:
    for variant in secret_variants(value):
        if not _may_match(variant):
            continue  # the common case: no rule can match, none is compiled or run
        kind = _first_rule_matching(variant)
        if kind:
            return kind
        if depth:
            for decoded in _decoded_tokens(variant):
                found = _kind(decoded, depth - 1)
                if found:
                    return found
    return None


def could_hold_secret(text: str) -> bool:
    """False only when no value read from `text` (a table row as written in its file) can look
    like a secret: one search of the row instead of a check of each of its values."""
    if not text.isascii() or "\\|" in text or "<" in text:
        return True  # an escape, a `<br>` or an invisible character may hide a split token
    return _may_match(text)


def _may_match(text: str) -> bool:
    return has_prefilter_word(text) or has_prefilter_run(text)


def has_prefilter_word(text: str) -> bool:
    """Whether the lowered text holds a word some rule needs (the substring tests run from C)."""
    lowered = text.lower()
    return any(map(lowered.__contains__, PREFILTER_WORDS))


def has_prefilter_run(text: str) -> bool:
    """Whether the text holds a run of token characters as long as the shortest rule needs."""
    return has_run(text, RUN_CHARACTERS, _PREFILTER_LENGTH)


_PREFILTER_LENGTH = int(PREFILTER_RUN.rstrip("}").rpartition("{")[2])


def has_run(text: str, characters: str, length: int) -> bool:
    """Whether `text` holds `length` of `characters` in a row: each marked `x` (one of them) by
    one `str.translate`, then one substring search. A store checks a few short values, and a
    pattern would cost it more to compile than all its checks."""
    return "x" * length in text.translate(_marks(characters))


@cache
def _marks(characters: str) -> dict[int, str]:
    return str.maketrans(dict.fromkeys(characters, "x"))


def secret_variants(value: str) -> Iterator[str]:
    """`value` as the detector reads it: as written, then with compatibility forms folded,
    invisible characters dropped and splits undone, and with escaped pipes as pipes."""
    yield value
    if value.isascii() and not any(map(value.__contains__, _SPLIT_MARKS)):
        return  # the common case: nothing disguised, nothing to undo
    folded = value
    if not value.isascii():
        import unicodedata  # a C module, imported only for text that is not ASCII

        folded = unicodedata.normalize("NFKC", value)
        if any(map(folded.__contains__, _INVISIBLE)):
            folded = folded.translate(_DROP_INVISIBLE)
    # Every split mark holds a pipe, a `<` or a line feed (invisible characters are dropped above).
    marked = "|" in folded or "<" in folded or "\n" in folded
    joined = _joined(folded) if marked else folded
    if joined != value:
        yield joined
    if "\\|" in joined:
        yield joined.replace("\\|", "|")


def secret_variants_of(values: list[str]) -> list[list[str]]:
    """`list(secret_variants(value))` of each value, the usual answer found for all at once:
    a value that compatibility folding leaves as it is and that holds no invisible character
    and no split mark is read as itself alone. One NFKC pass over the values joined by NULs
    (a starter no composition involves, so each value folds as it would alone); a value
    holding a NUL sends every value to be read alone."""
    joined = "\0".join(values)
    folded = values
    if not joined.isascii():
        import unicodedata  # a C module, imported only for text that is not ASCII

        folded = unicodedata.normalize("NFKC", joined).split("\0")
    if len(folded) != len(values):
        return [list(secret_variants(value)) for value in values]
    odd: set[int] = set()
    for mark in (*_INVISIBLE, "|", "<", "\n"):
        if mark in joined:
            odd.update(compress(range(len(values)), map(contains, values, repeat(mark))))
    return [
        [value] if fold == value and at not in odd else list(secret_variants(value))
        for at, (value, fold) in enumerate(zip(values, folded, strict=True))
    ]


def _joined(text: str) -> str:
    """`re.sub(_SPLIT, "", text)`: each run of marks goes when a token character touches it.
    Found run by run from C, instead of trying the split's lookarounds at every character."""
    pieces = []
    last = 0
    marks = _pipe_runs(text) if "<" not in text and "\n" not in text else None
    if marks is None:  # a `<br>` or a line break may be a mark: the pattern finds them
        marks = (mark.span() for mark in split_marks().finditer(text))
    for start, end in marks:
        if (start and text[start - 1] in _TOKEN_SET) or text[end : end + 1] in _TOKEN_SET:
            pieces.append(text[last:start])
            last = end
    return "".join([*pieces, text[last:]]) if pieces else text


def _pipe_runs(text: str) -> Iterator[tuple[int, int]]:
    """The spans `split_marks` finds in a text whose only marks are (escaped) pipes: each run of
    `|` and `\\|`, a run opening at a pipe or at the backslash just before it. Without compiling
    the pattern: a summary holding a pipe is common, and its check is a store's."""
    at = text.find("|")
    while at >= 0:
        start = at - 1 if at and text[at - 1] == "\\" else at
        end = at + 1
        while text[end : end + 1] == "|" or text[end : end + 2] == "\\|":
            end += 1 if text[end] == "|" else 2
        yield start, end
        at = text.find("|", end)


_TOKEN_SET = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_+/=.~-")


@cache
def split_marks() -> re.Pattern[str]:
    """What may split a token to hide it: (escaped) pipes, `<br>`s and line breaks, in runs."""
    return re.compile(_MARKS)


def _first_rule_matching(text: str) -> str | None:
    """The kind of the first rule matching `text`. A rule none of whose anchors `text` holds
    cannot match it, so it is neither compiled nor run."""
    folded = _folded(text)
    for kind, pattern in RULES:
        anchors = ANCHORS.get(kind)
        if anchors is not None and not any(anchor in text for anchor in anchors):
            continue
        run = RUNS.get(kind)
        if run is not None and not has_run(text, *run):
            continue
        anchors = FOLDED_ANCHORS.get(kind)
        if anchors is not None and not any(anchor in folded for anchor in anchors):
            continue
        if _compiled(pattern).search(text):
            return kind
    return None


def _folded(text: str) -> str:
    """`text` in lower case, with the characters `(?i)` also takes for an ASCII letter replaced by
    that letter: a case-insensitive match of a lowercase literal is then a substring of it."""
    if not text.isascii():
        text = text.translate(_ALIASES)
    return text.lower()


_ALIASES = str.maketrans(CASE_ALIASES)


@cache
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def _decoded_tokens(text: str) -> Iterator[str]:
    """The text of every token in `text` that is base64 (standard or URL-safe) of UTF-8 text."""
    for match in re.finditer(_BASE64, text):
        # Only now, and a C module: `base64` would add its own imports for one translation, and a
        # value without a long token (most of them) needs neither.
        import binascii

        token = match[0].rstrip("=")
        if len(token) % 4 == 1:
            continue  # no base64 encoding has this length
        padded = token + "=" * (-len(token) % 4)
        try:
            data = (
                # What `base64.urlsafe_b64decode` does: the URL-safe letters made standard,
                # then a decode that skips what is not base64.
                binascii.a2b_base64(padded.encode("ascii").translate(_URL_SAFE))
                if "_" in padded or "-" in padded
                else binascii.a2b_base64(padded, strict_mode=True)
            )
            decoded = data.decode("utf-8")
        except (ValueError, binascii.Error):
            continue
        if decoded.isprintable() or all(c.isprintable() or c in "\t\r\n" for c in decoded):
            yield decoded


def refuse_secrets(field: str, value: str) -> None:
    """InputError naming the field and the kind of secret; the value itself is never echoed."""
    kind = secret_kind(value)
    if kind is not None:
        raise InputError(secret_message(field, kind), hint=SECRET_HINT)


SECRET_HINT = "remove it and describe the change instead (e.g. 'rotated the API key')"


def secret_message(field: str, kind: str) -> str:
    article = _article(kind)
    return f"{field} looks like it contains {article} {kind}; secrets are never stored in memory"


def _article(kind: str) -> str:
    return "an" if kind[0] in "AEIOUaeiou" else "a"


def quoted(value: str) -> str:
    """`value` in quotes for a message, unless it could hold a secret: then a placeholder."""
    kind = secret_kind(value)
    return (
        f"'{value}'"
        if kind is None
        else f"(a value withheld: it looks like {_article(kind)} {kind})"
    )

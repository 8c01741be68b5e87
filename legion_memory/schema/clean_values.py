"""Which of many values are plainly neither a secret nor hold a control character, found by
testing them together: the values joined, each regex and prefilter word searched once over the
joined text from C, and only the values a match falls in set aside for the detector
(docs/decisions.md#secrets-tested-together). `row_checks` asks it of each column's distinct
values in a chunk of rows."""

import re
from bisect import bisect_right
from functools import cache, partial
from itertools import accumulate, compress, count
from operator import add, not_

from legion_memory.schema.fields import control_character
from legion_memory.schema.secret_rules import PREFILTER_RUN, PREFILTER_WORDS, RUN_CHARACTERS
from legion_memory.schema.secrets import secret_variants_of

TYPE_CHECKING = False  # not typing's: docs/decisions.md#hot-paths-without-typing
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import AnyStr


def suspicious(values: "Sequence[str]") -> set[str]:
    """The values not plainly clean, that is, not known without reading them further to be
    neither a secret nor hold a control character: those the detector does not read as written
    (`_read_as_written`), and those whose texts hold a prefilter word, a long run or a control
    character. Every text the detector reads of any other value is the value with some of its
    split marks taken out; with all of them out, a word or a long run any of those texts holds is
    still there, none being made of marks: without one no rule can match. The suspicious ones
    are left to the detector (docs/decisions.md#validate-from-lines).

    The values are tested together, joined by spaces (no mark, control or token character, nor
    part of a prefilter word, so no match spans two values): each test runs once over the joined
    text, from C, and only the values a match falls in are set aside
    (docs/decisions.md#secrets-tested-together)."""
    written = _read_as_written(values)
    starts, data = _joined_bytes(written)
    caught = _owners(starts, data.translate(_CONTROL_BYTES), b"x")
    texts = written
    marked = _owners(starts, data.translate(_ODD_BYTES), b"x").difference(caught)
    if marked:  # the texts with their split marks taken out
        texts = list(written)
        for offset in marked:
            texts[offset] = _unmarked(texts[offset])
        starts, data = _joined_bytes(texts)
    caught |= _owners(starts, data.translate(_TOKEN_BYTES), b"x" * _RUN)
    # Lowering ASCII letters alone: of the characters beyond ASCII only U+0130 and the Kelvin
    # sign lower to ASCII, and `_read_as_written` leaves both out.
    lowered = data.lower()
    for word in _PREFILTER_BYTES:
        caught |= _owners(starts, lowered, word)
    unread = set(values).difference(written) if len(written) != len(values) else set()
    return unread.union([written[offset] for offset in caught])


def _read_as_written(values: "Sequence[str]") -> list[str]:
    """The values every text the detector reads of which is the value with split marks taken
    out (`secret_variants`), and whose control characters, if any, are ASCII: the ASCII values,
    and the others that are printable (so hold no control, invisible or surrogate character),
    that compatibility folding leaves as they are, and that hold no U+0130 (which lowers to an
    ASCII `i` and a combining dot, where UTF-8's bytes lower to themselves)."""
    ascii_values = list(compress(values, map(str.isascii, values)))
    if len(ascii_values) == len(values):
        return ascii_values
    import unicodedata  # a C module, imported only for text that is not ASCII

    wide = list(compress(values, map(not_, map(str.isascii, values))))
    printable = list(compress(wide, map(str.isprintable, wide)))
    kept = list(compress(printable, map(partial(unicodedata.is_normalized, "NFKC"), printable)))
    if "\u0130" in "".join(kept):
        kept = [value for value in kept if "\u0130" not in value]
    return ascii_values + kept


def _joined_bytes(texts: list[str]) -> tuple[list[int], bytes]:
    """The texts joined by single spaces as UTF-8, and where each starts in the bytes."""
    joined = " ".join(texts)
    if joined.isascii():
        return _starts(texts), joined.encode("ascii")
    encoded = list(map(str.encode, texts))
    return _starts(encoded), b" ".join(encoded)


def _unmarked(text: str) -> str:
    """A text with every split mark taken out (`split_marks().sub("", text)`), and with it
    at most a backslash or a CR that a removed mark left beside a pipe or a line feed: neither is
    a token character nor in a prefilter word, so no word or run of the marks' removal is lost,
    and `str.replace` runs from C where the marks' pattern, tried at every character, does not."""
    if "<" in text:
        text = _br_mark().sub("", text)
    return text.replace("\\|", "").replace("|", "").replace("\r\n", "").replace("\n", "")


@cache
def _br_mark() -> re.Pattern[str]:
    """The `<br>` of the split marks (in lower case only, as `split_marks` has it)."""
    return re.compile(r"<br\s*/?>")


def _starts(texts: "list[str] | list[bytes]") -> list[int]:
    """Where each text starts once they are joined by single spaces: the lengths summed, plus
    one space before each text but the first (every step from C)."""
    return list(map(add, accumulate(map(len, texts), initial=0), count()))


def clean_as_read(values: set[str]) -> set[str]:
    """Of the `suspicious` values (those the detector folds, those not printable, and
    those a word or run was found in), those that are neither a secret nor hold a control
    character, found as the detector finds them: a value no variant of which holds a prefilter
    word or a long token run is no secret, for no rule is tried on it. The variants of every value
    are tested together, as `suspicious` tests values
    (docs/decisions.md#secrets-tested-together)."""
    listed = list(values)
    variants = secret_variants_of(listed)
    texts = [text for found in variants for text in found]
    owner = [offset for offset, found in enumerate(variants) for _ in found]
    # UTF-8 encodes every character that is not ASCII as bytes that are not: no token byte.
    encoded = [text.encode("utf-8", "surrogatepass") for text in texts]
    starts = _starts(encoded)
    data = b" ".join(encoded).translate(_TOKEN_BYTES)
    caught = _owners(starts, data, b"x" * _RUN)
    lowered = list(map(str.lower, texts))
    starts = _starts(lowered)
    joined = " ".join(lowered)
    for word in PREFILTER_WORDS:
        caught |= _owners(starts, joined, word)
    suspect = {owner[offset] for offset in caught}
    if not "".join(listed).isprintable():  # else no value holds a control character
        suspect.update(
            offset for offset, value in enumerate(listed) if control_character(value) is not None
        )
    return {value for offset, value in enumerate(listed) if offset not in suspect}


def _owners(starts: list[int], text: "AnyStr", found: "AnyStr") -> set[int]:
    """The offsets of the values (starting at `starts` in the joined `text`) holding `found`:
    one search from C per value that holds it, none for the others."""
    owners = set()
    at = text.find(found)
    while at >= 0:
        owner = bisect_right(starts, at) - 1
        owners.add(owner)
        at = text.find(found, starts[owner + 1])
    return owners


# The ASCII characters that make a value more than itself: a split mark (which a disguised token
# hides behind) or a control character (fields' class, less what is not ASCII). Listed, not
# compiled as classes and tried on every byte, which cost each command that validates 2.6 M
# instructions (1% of a 1,000-row diff; tests/test_validate_rows.py holds the lists to them).
ASCII_CONTROL = "".join(map(chr, (*range(0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F)))
SPLIT_MARKS = "|<\n\r"


def marking(characters: str) -> bytes:
    """A `bytes.translate` table marking each of the ASCII `characters` as `x` and every other
    byte as a space (not ASCII is never translated: the values tested are ASCII)."""
    table = bytearray(b" " * 256)
    for character in characters:
        table[ord(character)] = ord("x")
    return bytes(table)


_ODD_BYTES = marking(SPLIT_MARKS + ASCII_CONTROL)
_CONTROL_BYTES = marking(ASCII_CONTROL)
_PREFILTER_BYTES = tuple(word.encode("ascii") for word in PREFILTER_WORDS)
_TOKEN_BYTES = marking(RUN_CHARACTERS)
_RUN = int(PREFILTER_RUN.rstrip("}").rpartition("{")[2])
"""A run of this many token characters, as `PREFILTER_RUN` (one class, repeated) finds it."""

"""A secret rule runs only on values holding one of its anchors: the anchors never make the
detector miss, or name otherwise, a secret that running every rule finds."""

from __future__ import annotations

import base64
import binascii
import re
import sys

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from legion_memory.schema import secrets
from legion_memory.schema.secret_rules import (
    ANCHORS,
    CASE_ALIASES,
    FOLDED_ANCHORS,
    PREFILTER_RUN,
    RULES,
    RUN_CHARACTERS,
    RUNS,
)

UNANCHORED = {"AWS secret access key"}
ALL_RULES = [(kind, re.compile(pattern)) for kind, pattern in RULES]
PATTERNS = dict(RULES)
BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))


def _every_rule_kind(value: str, depth: int = 2) -> str | None:
    """The detector as it was before anchors: every rule on every variant the prefilter passes."""
    for variant in secrets.secret_variants(value):
        if not secrets._may_match(variant):
            continue
        for kind, rule in ALL_RULES:
            if rule.search(variant):
                return kind
        if depth:
            for decoded in secrets._decoded_tokens(variant):
                found = _every_rule_kind(decoded, depth - 1)
                if found:
                    return found
    return None


def _holds_anchor(kind: str, text: str) -> bool:
    if kind in ANCHORS:
        return any(anchor in text for anchor in ANCHORS[kind])
    return any(anchor in secrets._folded(text) for anchor in FOLDED_ANCHORS[kind])


def _aws_secret() -> st.SearchStrategy[str]:
    """A bare AWS secret key: 40 base64 characters, an upper and a lower case letter and a digit."""
    rest = st.lists(st.sampled_from(BASE64), min_size=37, max_size=37)
    return rest.flatmap(lambda chars: st.permutations([*chars, "K", "q", "7"])).map("".join)


def _match_of(kind: str) -> st.SearchStrategy[str]:
    if kind in UNANCHORED:
        return _aws_secret()
    return st.from_regex(PATTERNS[kind])


_ALIAS_OF = {"i": "\u0131\u0130", "s": "\u017f", "k": "\u212a"}


def _with_aliases(text: str, picks: list[bool]) -> str:
    """`text` with some of its i, s and k (in either case) written as the characters `(?i)` also
    matches them to."""
    chars = list(text)
    for index, char in enumerate(chars):
        aliases = _ALIAS_OF.get(char.lower(), "")
        if aliases and picks[index % len(picks)]:
            chars[index] = aliases[index % len(aliases)]
    return "".join(chars)


@st.composite
def _embedded(draw: st.DrawFn) -> tuple[str, str]:
    kind = draw(st.sampled_from([kind for kind, _ in RULES]))
    match = draw(_match_of(kind))
    if draw(st.booleans()):
        match = _with_aliases(match, draw(st.lists(st.booleans(), min_size=1, max_size=8)))
    around = st.text(max_size=20) | st.sampled_from(["", " ", "deployed with ", " | ", "\n"])
    return kind, draw(around) + match + draw(around)


def test_every_rule_but_the_bare_aws_key_has_anchors_of_one_case() -> None:
    kinds = [kind for kind, _ in RULES]
    assert set(ANCHORS) | set(FOLDED_ANCHORS) | UNANCHORED == set(kinds)
    assert not set(ANCHORS) & set(FOLDED_ANCHORS)
    assert not (set(ANCHORS) | set(FOLDED_ANCHORS)) & UNANCHORED
    for kind in FOLDED_ANCHORS:
        assert "(?i" in PATTERNS[kind], kind
        assert all(anchor == anchor.lower() for anchor in FOLDED_ANCHORS[kind]), kind


def test_case_aliases_are_every_character_ignorecase_takes_for_an_ascii_letter() -> None:
    everything = "".join(chr(c) for c in range(sys.maxunicode + 1) if not 0xD800 <= c <= 0xDFFF)
    found = {
        char: letter
        for letter in "abcdefghijklmnopqrstuvwxyz"
        for char in re.findall(f"(?i){letter}", everything)
        if not char.isascii()
    }
    assert found == CASE_ALIASES


@SETTINGS
@given(_embedded())
def test_a_text_a_rule_matches_holds_one_of_its_anchors(case: tuple[str, str]) -> None:
    kind, text = case
    if re.search(PATTERNS[kind], text):
        assert kind in UNANCHORED or _holds_anchor(kind, text), (kind, text)


@SETTINGS
@given(_embedded())
def test_anchored_rules_find_what_every_rule_finds(case: tuple[str, str]) -> None:
    _, text = case
    assert secrets.secret_kind(text) == _every_rule_kind(text), text


@SETTINGS
@given(st.text(max_size=60))
def test_anchored_rules_find_what_every_rule_finds_in_any_text(text: str) -> None:
    assert secrets.secret_kind(text) == _every_rule_kind(text), text


def test_a_keyword_spelt_with_case_aliases_is_still_refused() -> None:
    """A 16-character run lets the prefilter pass the value as it is; the anchors of the
    case-insensitive rules are found through the aliases, not only in the NFKC-folded variant."""
    run = "engineering-senior-developer"
    header = f"Author\u0130zation: Bearer {'abcdef0123456789' * 2} by {run}"
    assignment = f"pa\u017f\u017fword=hunter22! by {run}"
    for text, kind in (
        (header, "Authorization header"),
        (assignment, "password or API key assignment"),
    ):
        assert secrets._first_rule_matching(text) == kind
        assert secrets.secret_kind(text) == _every_rule_kind(text) == kind


def _decoded_by_base64(text: str) -> list[str]:
    """`secrets._decoded_tokens` as written with the `base64` module."""
    found = []
    for match in re.finditer(secrets._BASE64, text):
        token = match[0].rstrip("=")
        if len(token) % 4 == 1:
            continue
        padded = token + "=" * (-len(token) % 4)
        try:
            data = (
                base64.urlsafe_b64decode(padded)
                if re.search(r"[_-]", padded)
                else binascii.a2b_base64(padded, strict_mode=True)
            )
            decoded = data.decode("utf-8")
        except (ValueError, binascii.Error):
            continue
        if decoded.isprintable() or all(c.isprintable() or c in "\t\r\n" for c in decoded):
            found.append(decoded)
    return found


_ENCODED = (
    st.one_of(
        st.text(min_size=10, max_size=40).map(lambda t: t.encode("utf-8")),
        st.binary(min_size=10, max_size=40),
    )
    .flatmap(lambda data: st.sampled_from([base64.urlsafe_b64encode(data), base64.b64encode(data)]))
    .map(bytes.decode)
)


@SETTINGS
@given(st.lists(_ENCODED | st.text(max_size=20), max_size=4).map(" ".join))
def test_tokens_decode_as_the_base64_module_decodes_them(text: str) -> None:
    assert list(secrets._decoded_tokens(text)) == _decoded_by_base64(text), text


def _class_chars(pattern: str) -> str:
    """Every code point below U+3000 (and the case aliases) that one character class matches."""
    points = [*range(0x3000), *map(ord, CASE_ALIASES)]
    return "".join(chr(p) for p in points if re.fullmatch(pattern, chr(p)))


def test_the_run_characters_are_the_classes_they_stand_for() -> None:
    """The prefilter's run and a rule's run are marked by `str.translate` from listed
    characters, not by their patterns: the lists are the patterns' classes."""
    assert _class_chars(PREFILTER_RUN.rpartition("{")[0]) == "".join(sorted(RUN_CHARACTERS))
    assert sorted(RUNS) == sorted(UNANCHORED)
    for kind, (characters, length) in RUNS.items():
        assert f"[A-Za-z0-9+/]{{{length}}}" in PATTERNS[kind]
        assert _class_chars("[A-Za-z0-9+/]") == "".join(sorted(characters))


@SETTINGS
@given(st.text(st.sampled_from([*BASE64[::7], "-", "_", "=", ".", "~", " ", "日", "\u212a"])))
def test_a_run_is_found_where_its_pattern_finds_one(text: str) -> None:
    for characters, length in [(RUN_CHARACTERS, 16), *RUNS.values()]:
        pattern = f"[{re.escape(characters)}]{{{length}}}"
        assert secrets.has_run(text, characters, length) == (re.search(pattern, text) is not None)
    assert secrets.has_prefilter_run(text) == (re.search(PREFILTER_RUN, text) is not None)


@SETTINGS
@given(_aws_secret(), st.text(st.sampled_from(" -|日"), max_size=4))
def test_a_bare_aws_secret_key_holds_its_run(key: str, around: str) -> None:
    characters, length = RUNS["AWS secret access key"]
    assert secrets.has_run(around + key + around, characters, length)


@SETTINGS
@given(st.lists(st.sampled_from(["|", "\\", "\\|", "a", " ", "\r", "日"]), max_size=12))
def test_pipe_marks_are_the_runs_the_split_pattern_finds(pieces: list[str]) -> None:
    """A text whose only marks are pipes has its runs found without compiling the pattern."""
    text = "".join(pieces)
    expected = [mark.span() for mark in re.finditer(secrets._MARKS, text)]
    assert list(secrets._pipe_runs(text)) == expected

"""The tokens of `markdown.words` are those of the pattern it no longer compiles."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from legion_memory.markdown.words import token_list, token_spans

PATTERN = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]|[^\W_]+")
# The ranges' edges and their neighbours, word characters of other scripts, marks and separators.
EDGES = "\u30fb\u3097\u309b\u303f\u3040\u30ff\u3100\u33ff\u3400\u4dbf\u4dc0\u4dff\u4e00\u9fff"
EDGES += "\ua000\uabff\uac00"
OTHERS = "\ud7af\ud7b0aZ09_ -.\u00e9\u0301\u0660\u00b2\U0001f600\u3000\uff21\n"
texts = st.text(st.sampled_from(EDGES + OTHERS)) | st.text()


@settings(max_examples=3000)
@given(texts)
def test_the_tokens_are_the_pattern_s(text: str) -> None:
    assert token_list(text) == PATTERN.findall(text)
    expected = [(match.start(), match.group()) for match in PATTERN.finditer(text)]
    assert list(token_spans(text)) == expected


def test_a_cjk_character_is_a_word_unless_a_run_it_ends_began_otherwise() -> None:
    assert token_list("日本語 abc日本 テスト_x 한국") == [
        *("日", "本", "語", "abc日本", "テ", "ス", "ト", "x", "한", "국"),
    ]

"""The line reader of planning markdown against mistune: on every document it reads (it may leave
a document to mistune, never read one differently) the outline is mistune's, on the real Legion
repository's markdown and on generated documents full of what the two could disagree on."""

from __future__ import annotations

import mistune
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.processes import REPO_ROOT

from legion_memory.markdown import line_inline, line_rules
from legion_memory.markdown.frontmatter import split_front_matter
from legion_memory.markdown.outline import (
    Block,
    CodeBlock,
    Item,
    ListBlock,
    Paragraph,
    Section,
    TableBlock,
    line_outline,
    mistune_outline,
    outline,
)

LEGION = REPO_ROOT.parent / "shared" / "legion"
Shape = list[tuple[str, int, tuple[str, ...], list[Block]]]


def shape(sections: list[Section] | None) -> Shape | None:
    return None if sections is None else [(s.title, s.level, s.path, s.blocks) for s in sections]


def assert_same_as_mistune(text: str) -> bool:
    """The line reader's outline is mistune's whenever it gives one; whether it gave one."""
    read = shape(line_outline(text))
    if read is not None:
        assert read == shape(mistune_outline(text)), text
    assert shape(outline(text)) == shape(mistune_outline(text))
    return read is not None


@pytest.mark.skipif(not LEGION.is_dir(), reason="../shared/legion is not present")
def test_every_markdown_file_of_legion_reads_as_mistune_reads_it() -> None:
    read = 0
    files = sorted(LEGION.rglob("*.md"))
    for path in files:
        text = path.read_text(encoding="utf-8")
        for document in {text, split_front_matter(text)[1]}:
            read += assert_same_as_mistune(document)
    assert files and read  # the line reader read some of them, and each as mistune did


PLAIN = """# Phase 1 Plan 01: Schema ### \n\n**Status:** Complete  \n**Agent:** `a-b`\\
next line\n\n## Files Modified (2)\n\n- `src/a.py` - the \\| entry\n  continued lazily
- **src/b.py**: changed\n\n    - nested `x`` ``y`\n\n1. first\n2) other kind\n\n| File | What |
|:---|---:|\n| `a` | x \\| y |\n\nTitle\n===\n***\n```py\ncode\n  ~~~\n```\n~~~\nunclosed
"""


TITLE = "Phase 1 Plan 01: Schema"
FILES = "Files Modified (2)"
EXPECTED = [
    ("", 0, (), []),
    (TITLE, 1, (TITLE,), [Paragraph("**Status:** Complete\n**Agent:** `a-b`\nnext line")]),
    (FILES, 2, (TITLE, FILES), [
        ListBlock((
            Item("`src/a.py` - the | entry continued lazily"),
            Item("**src/b.py**: changed", (Item("nested `x`` ``y`"),)),
        )),
        ListBlock((Item("first"),), ordered=True),
        ListBlock((Item("other kind"),), ordered=True),
        TableBlock(("File", "What"), (("`a`", "x | y"),)),
    ]),
    ("Title", 1, ("Title",), [CodeBlock("code\n  ~~~\n"), CodeBlock("unclosed\n")]),
]  # fmt: skip


def test_a_plain_summary_is_read_by_lines_as_mistune_reads_it() -> None:
    assert assert_same_as_mistune(PLAIN)
    assert shape(line_outline(PLAIN)) == EXPECTED


@pytest.mark.parametrize(
    "text",
    [
        "> quoted\n# H\n",
        "<div>\n# H\n</div>\n",
        "    indented code\n# H\n",
        "[ref]: https://example.com\n\nA [ref] link.\n",
        "A [link](https://example.com).\n",
        "An <https://example.com> autolink.\n",
        "A\ttab.\n",
        "A non\u00a0breaking space.\n",
    ],
)
def test_what_the_line_reader_doubts_is_left_to_mistune(text: str) -> None:
    assert line_outline(text) is None
    assert shape(outline(text)) == shape(mistune_outline(text))


def test_the_copied_patterns_are_the_installed_mistunes() -> None:
    block = mistune.BlockParser.SPECIFICATION
    copied = {name: pattern for name, pattern in line_rules.SPECIFICATION.items()}
    assert copied.pop("block_html") == r"^ {0,3}<"  # broader than mistune's: only for doubt
    from mistune.plugins import table

    assert copied.pop("table") == table.TABLE_PATTERN
    assert copied.pop("nptable") == table.NP_TABLE_PATTERN
    assert copied == {name: block[name] for name in copied}
    inline = mistune.InlineParser.SPECIFICATION
    names = [n for n in mistune.InlineParser.DEFAULT_RULES if n != "emphasis"] + ["softbreak"]
    assert line_inline._RULES.pattern == "|".join(f"(?P<{n}>{inline[n]})" for n in names)


# Lines of the kinds the two readers could disagree on, put together in any order.
_INLINE = st.sampled_from([
    "text", "`code`", "``two `ticks``", "` spaced `", "`unclosed", "\\|", "\\*", "\\\\", "\\",
    "**bold**", "_under_", "a|b", "<br>", "<b>x</b>", "<!-- c -->", "<!x", "<?p?>", "[x]", "![i]",
    "]", "[ ]", "&amp;", "#", " #", "##", "  ", "   ", "x  ", "1.", "-", "*", "\ufeff", "é",
])  # fmt: skip
_LEAD = st.sampled_from(["", " ", "  ", "   ", "    ", "      "])
_MARK = st.sampled_from([
    "# ", "## ", "###### ", "####### ", "#", "# x #", "## x ##  ", "- ", "* ", "+ ", "1. ", "2. ",
    "1) ", "10. ", "-", "> ", "| ", "```", "````", "~~~", "```py", "``` `x`", "~~~ `x`", "---",
    "===", "- - -", "***", "___", "=-=", "|---|---|", "| --- |", "|:-:|", "a | b", "--|--", "",
    "<div>", "<a href='x'>", "[r]: /u", "\t", "\u00a0",
])  # fmt: skip


@st.composite
def lines(draw: st.DrawFn) -> str:
    words = draw(st.lists(_INLINE, max_size=4))
    return draw(_LEAD) + draw(_MARK) + " ".join(words)


@st.composite
def documents(draw: st.DrawFn) -> str:
    text = "\n".join(draw(st.lists(lines(), max_size=14)))
    ending = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    return text.replace("\n", ending) + draw(st.sampled_from(["", ending]))


@settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents())
def test_generated_documents_read_as_mistune_reads_them(text: str) -> None:
    assert_same_as_mistune(text)


_PLAIN_MARK = st.sampled_from(["# ", "## ", "- ", "  - ", "1. ", "", "| a | b |", "```", "---"])
_PLAIN_WORD = st.sampled_from(["text", "`code`", "src/a.py", "\\|", "**Status:**", "a | b"])


@settings(max_examples=500, deadline=None)
@given(st.lists(st.tuples(_PLAIN_MARK, st.lists(_PLAIN_WORD, max_size=3)), max_size=10))
def test_generated_plain_documents_are_read_by_lines(parts: list[tuple[str, list[str]]]) -> None:
    text = "".join(f"{mark}{' '.join(words)}\n" for mark, words in parts)
    assert assert_same_as_mistune(text)


# Characters and fragments markdown gives meaning to, in any order: what no line grammar foresees.
_PIECES = st.sampled_from([
    *"`\\[]()<>!*_|#-=~:.1 \n\n\nabx/", "    ", "```", "~~~", "- ", "1. ", "| ", "<br>", "<a>",
    "---\n", "\r\n", "\r", "\ufeff",
])  # fmt: skip


@settings(max_examples=2000, deadline=None)
@given(st.lists(_PIECES, max_size=60).map("".join))
def test_generated_character_soups_read_as_mistune_reads_them(text: str) -> None:
    assert_same_as_mistune(text)

"""validate's shortcut: a table whose every line is a plain row is one GitHub (mistune) shows as
a table, so validate may skip mistune's pass for it. Checked against mistune over any tables."""

from __future__ import annotations

from hypothesis import event, given, settings
from hypothesis import strategies as st

from legion_memory.markdown.cells import cell_count
from legion_memory.markdown.document import parse
from legion_memory.schema.validation import _plainly_a_table, _renders_as_table

# Cell text with what can change a table's reading: pipes, backslashes, backticks, spaces, tabs.
pieces = st.sampled_from(["a", "é", " ", "\t", "`", "|", "\\", "\\\\", "-", ":", "<br>", "\r"])
cells = st.lists(pieces, max_size=6).map("".join)
delimiters = st.sampled_from(["---", ":--", "--:", ":-:", " - ", "-", "--- "])
endings = st.sampled_from(["\n", "\r\n", " \n", "|\n", ""])
indents = st.sampled_from(["", "", "", " ", "    "])


@st.composite
def tables(draw: st.DrawFn) -> str:
    width = draw(st.integers(1, 4))
    header = [draw(st.text(st.sampled_from("abc |"), min_size=1, max_size=5)) for _ in range(width)]
    lines = [
        draw(indents) + "|" + "|".join(header) + "|\n",
        "|" + "|".join(draw(delimiters) for _ in range(width)) + "|\n",
    ]
    for _ in range(draw(st.integers(0, 4))):
        row = "|".join(draw(cells) for _ in range(draw(st.integers(width - 1, width + 1))))
        lines.append(draw(indents) + "|" + row + "|" + draw(endings))
    return "## Records\n\n" + "".join(lines) + draw(endings)


@settings(max_examples=600, deadline=None)
@given(tables())
def test_a_plain_table_is_one_mistune_sees(text: str) -> None:
    document = parse(text)
    for table in document.tables:
        # The shortcut is taken only when every row has the header's cell count (checked first).
        counted = all(cell_count(document.text(i)) == len(table.columns) for i in table.rows)
        plain = counted and _plainly_a_table(document, table)
        event("plain" if plain else "not plain")
        if plain:
            assert _renders_as_table(document, table), text

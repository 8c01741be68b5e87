"""Which side's live file reaches a pick's result: git takes a file whole from the side that
changed it when the other left it as base had it (docs/decisions.md#archive-moves)."""

from __future__ import annotations

import pytest

from legion_memory.gitops.picked_archive import _reaches_result


@pytest.mark.parametrize(
    ("blobs", "ours", "theirs"),
    [
        (("b", "b", "b"), True, True),  # nobody changed it
        (("b", "o", "b"), True, False),  # ours changed it alone: git takes ours's
        (("b", "b", "t"), False, True),  # theirs changed it alone: git takes theirs's
        (("b", "o", "t"), True, True),  # both changed it: the driver merges the two
        (("b", "x", "x"), True, True),  # both changed it alike
        (None, False, False),  # git could not say: never leave a row out
    ],
)
def test_a_live_file_reaches_the_result_unless_git_takes_the_other_side_s_whole(
    blobs: tuple[str, str, str] | None, ours: bool, theirs: bool
) -> None:
    assert (_reaches_result("ours", blobs), _reaches_result("theirs", blobs)) == (ours, theirs)

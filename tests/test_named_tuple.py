"""`legion_memory.named_tuple.NamedTuple` builds, without `typing`, the class `typing.NamedTuple`
builds from the same class body."""

from __future__ import annotations

import pickle
import subprocess
import sys
import typing
from typing import Any

import pytest
from support.processes import REPO_ROOT

from legion_memory.named_tuple import NamedTuple as LeanNamedTuple


def _classes(base: Any) -> Any:
    class Row(base):  # type: ignore[misc]
        """A row."""

        number: int
        name: str = "none"
        tags: tuple[str, ...] = ()

        @property
        def label(self) -> str:
            return f"{self.number}:{self.name}"

        def tagged(self, tag: str) -> bool:
            return tag in self.tags

        @classmethod
        def first(cls) -> Row:
            return cls(1)

    return Row


LEAN, TYPED = _classes(LeanNamedTuple), _classes(typing.NamedTuple)


def test_the_class_behaves_as_typing_builds_it() -> None:
    for row_class in (LEAN, TYPED):
        row = row_class(7, "seven", ("a",))
        assert row == (7, "seven", ("a",))
        assert repr(row) == "Row(number=7, name='seven', tags=('a',))"
        assert (row.label, row.tagged("a"), row.tagged("b")) == ("7:seven", True, False)
        assert row_class.first() == (1, "none", ())
        assert row._replace(name="x") == (7, "x", ("a",))
        assert row._asdict() == {"number": 7, "name": "seven", "tags": ("a",)}
        assert row_class._fields == ("number", "name", "tags")
        assert row_class._field_defaults == {"name": "none", "tags": ()}
        assert row_class.__doc__ == "A row."
        hints = typing.get_type_hints(row_class)
        assert hints == {"number": int, "name": str, "tags": tuple[str, ...]}
        assert row_class.__module__ == __name__
        assert isinstance(row, tuple)
        with pytest.raises(AttributeError):
            row.number = 8  # type: ignore[attr-defined]


def test_a_subclass_keeps_the_fields() -> None:
    class Named(LEAN):  # type: ignore[misc, valid-type]
        def shout(self) -> str:
            return str(self.name).upper()

    assert Named(2, "two").shout() == "TWO"
    assert Named(2)._fields == ("number", "name", "tags")


def test_a_field_without_default_after_one_with_a_default_is_refused() -> None:
    with pytest.raises(TypeError, match="without a default follows one with a default"):

        class Bad(LeanNamedTuple):
            first: int = 0
            second: int  # type: ignore[misc]


def test_namedtuple_attributes_cannot_be_redefined() -> None:
    with pytest.raises(AttributeError, match="Cannot overwrite NamedTuple attribute _replace"):

        class Bad(LeanNamedTuple):
            field: int

            def _replace(self) -> None: ...  # type: ignore[misc]


def test_instances_pickle() -> None:
    from legion_memory.storage.reading import Memory
    from legion_memory.storage.scopes import Scoped

    tier = Scoped("project", Memory(REPO_ROOT))
    assert pickle.loads(pickle.dumps(tier)) == tier


def test_importing_it_imports_no_typing() -> None:
    code = "import sys, legion_memory.named_tuple; print('typing' in sys.modules)"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO_ROOT
    )
    assert done.stdout == "False\n"

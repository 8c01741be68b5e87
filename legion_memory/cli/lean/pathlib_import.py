"""Importing `pathlib` without `urllib.parse`, which it imports for `Path.as_uri` alone.

`urllib.parse` (and the `ipaddress` it imports) cost a hot command a third of `python -c pass`
in instructions, and no command of the tool makes a URI of a path
(docs/decisions.md#pathlib-without-urllib).
"""

from __future__ import annotations

import sys

_PARSE = "urllib.parse"


def import_pathlib() -> None:
    """Import `pathlib` with a stand-in for `urllib.parse` that imports the real module when
    `Path.as_uri` first calls it; the stand-in is gone once `pathlib` is imported, so anything
    importing `urllib.parse` later gets the real module."""
    if "pathlib" in sys.modules or _PARSE in sys.modules:
        return
    stand_in = type(sys)(_PARSE)
    stand_in.quote_from_bytes = _quote_from_bytes  # type: ignore[attr-defined]
    sys.modules[_PARSE] = stand_in
    try:
        import pathlib
    except ImportError:  # a `pathlib` that takes more of `urllib.parse`: it gets the real one
        del sys.modules[_PARSE]
        import pathlib  # noqa: F401
    finally:
        if sys.modules.get(_PARSE) is stand_in:
            del sys.modules[_PARSE]


def _quote_from_bytes(data: bytes, safe: str = "/") -> str:
    from urllib.parse import quote_from_bytes

    return quote_from_bytes(data, safe)

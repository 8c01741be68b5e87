"""Other tools' memory as records, one module per format: bullpen, memory-system and
memory-broker files, and the `/legion:learn` entries inside memory files. Pure: files come in as
text, `today` and `branch` as values (the `json` source is the tool's own format, read by
`json_exchange`)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

from legion_memory.interop.bullpen import bullpen
from legion_memory.interop.import_items import Conversion, SourceFile
from legion_memory.interop.learn_import import learn
from legion_memory.interop.memory_broker import memory_broker
from legion_memory.interop.memory_system import memory_system

Converter = Callable[[list[SourceFile], dt.date, str], Conversion]
CONVERTERS: dict[str, Converter] = {
    "bullpen": bullpen,
    "memory-system": memory_system,
    "memory-broker": memory_broker,
    "learn": learn,
}


def convert(source: str, files: list[SourceFile], today: dt.date, branch: str) -> Conversion:
    """Every item of a foreign source (not `json`: that is the tool's own format)."""
    return CONVERTERS[source](files, today, branch)

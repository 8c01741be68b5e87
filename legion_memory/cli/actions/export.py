"""What `export` does: print every record with its kind and ID; a plain function of the Context
and the command's options, run by the lean dispatcher."""

from __future__ import annotations

import sys

from legion_memory.cli.context import Context
from legion_memory.schema.kinds import KINDS, kind_named


def export(
    context: Context, fmt: str = "json", file: str = "all", include_archive: bool = False
) -> None:
    """Print every record with its kind and ID; `import json` reads the json format back."""
    from legion_memory.interop.json_exchange import check_format, export_records, render_export

    check_format(fmt)
    kinds = list(KINDS.values()) if file == "all" else [kind_named(file)]
    enabled = context.settings.enabled
    entries = export_records(context.memory, kinds, include_archive) if enabled else []
    sys.stdout.write(render_export(entries, kinds, fmt))

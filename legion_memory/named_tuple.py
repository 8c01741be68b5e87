"""`NamedTuple` for the modules a hot command imports: `typing.NamedTuple`'s class syntax, built
without importing `typing` (docs/decisions.md#hot-paths-without-typing).

Type checkers see `typing.NamedTuple` itself. At run time a class written `class Row(NamedTuple):`
with annotated fields, defaults, methods and properties becomes what `typing` makes of it: a
`collections.namedtuple` with the class's namespace on it. Only the class syntax is offered (no
functional form, no `Generic` base), and the annotations are kept as the strings they are, which
`typing` would turn into forward references, compiling each one.
"""

__all__ = ["NamedTuple"]

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NamedTuple
else:
    from collections import namedtuple

    # What `namedtuple` sets itself, as `typing` leaves them; a class may not redefine the rest.
    _OWN = frozenset({"__module__", "__name__", "__annotations__"})
    _PROHIBITED = frozenset({
        "__new__", "__init__", "__slots__", "__getnewargs__", "_fields", "_field_defaults",
        "_make", "_replace", "_asdict", "_source",
    })  # fmt: skip

    class _NamedTupleMeta(type):
        def __new__(cls, name, bases, namespace):
            fields = namespace.get("__annotations__", {})
            defaulted = [field in namespace for field in fields]
            if defaulted != sorted(defaulted):
                raise TypeError(f"{name}: a field without a default follows one with a default")
            defaults = [namespace[field] for field in fields if field in namespace]
            made = namedtuple(name, fields, defaults=defaults, module=namespace["__module__"])
            made.__annotations__ = dict(fields)
            for key, value in namespace.items():
                if key in _PROHIBITED:
                    raise AttributeError(f"Cannot overwrite NamedTuple attribute {key}")
                if key not in _OWN and key not in fields:
                    setattr(made, key, value)
            return made

    NamedTuple = type.__new__(_NamedTupleMeta, "NamedTuple", (), {})

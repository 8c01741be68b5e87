"""`NamedTuple` for the modules a hot command imports: `typing.NamedTuple`'s class syntax, built
without importing `typing` (docs/decisions.md#hot-paths-without-typing).

Type checkers see `typing.NamedTuple` itself. At run time a class written `class Row(NamedTuple):`
with annotated fields, defaults, methods and properties becomes a tuple subclass with what
`collections.namedtuple` gives one (fields by name, `_make`, `_replace`, `_asdict`, `_fields`,
`_field_defaults`, its repr, pickling) and the class's namespace on it. It is built without the
source text `namedtuple` compiles for each class: a hot command defines a score of them, and
compiling was most of their cost. Only the class syntax is offered (no functional form, no
`Generic` base), and the annotations are kept as the strings they are.
"""

__all__ = ["NamedTuple"]

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NamedTuple
else:
    from operator import itemgetter

    # What the class gets from here; a class may not redefine these.
    _OWN = frozenset({"__module__", "__annotations__"})
    _PROHIBITED = frozenset({
        "__new__", "__init__", "__slots__", "__getnewargs__", "_fields", "_field_defaults",
        "_make", "_replace", "_asdict", "_source",
    })  # fmt: skip
    _tuple_new = tuple.__new__

    def _constructor(fields, defaults):
        """`__new__` taking the fields by position or name, the defaulted ones optional."""
        width = len(fields)
        first_default = width - len(defaults)

        def __new__(cls, *args, **kwargs):
            if len(args) == width and not kwargs:
                return _tuple_new(cls, args)
            if len(args) > width:
                raise TypeError(f"{cls.__name__}() takes {width} arguments but {len(args)} given")
            values = list(args)
            for index in range(len(args), width):
                name = fields[index]
                if name in kwargs:
                    values.append(kwargs.pop(name))
                elif index >= first_default:
                    values.append(defaults[index - first_default])
                else:
                    raise TypeError(f"{cls.__name__}() missing required argument: {name!r}")
            if kwargs:
                raise TypeError(f"{cls.__name__}() got unexpected arguments: {sorted(kwargs)}")
            return _tuple_new(cls, values)

        return __new__

    def _make(cls, iterable):
        made = _tuple_new(cls, iterable)
        if len(made) != len(cls._fields):
            raise TypeError(f"Expected {len(cls._fields)} arguments, got {len(made)}")
        return made

    def _replace(self, /, **changes):
        made = self._make(map(changes.pop, self._fields, self))
        if changes:
            raise ValueError(f"Got unexpected field names: {list(changes)!r}")
        return made

    def __repr__(self):
        pairs = zip(self._fields, self, strict=True)
        shown = ", ".join(f"{name}={value!r}" for name, value in pairs)
        return f"{self.__class__.__name__}({shown})"

    def _asdict(self):
        return dict(zip(self._fields, self, strict=True))

    def __getnewargs__(self):
        return tuple(self)

    class _NamedTupleMeta(type):
        def __new__(cls, name, bases, namespace):
            fields = tuple(namespace.get("__annotations__", {}))
            defaulted = [field in namespace for field in fields]
            if defaulted != sorted(defaulted):
                raise TypeError(f"{name}: a field without a default follows one with a default")
            defaults = tuple(namespace[field] for field in fields if field in namespace)
            defaulted_fields = fields[len(fields) - len(defaults) :]
            own = {
                "__doc__": f"{name}({', '.join(fields)})",
                "__slots__": (),
                "_fields": fields,
                "_field_defaults": dict(zip(defaulted_fields, defaults, strict=True)),
                "__new__": _constructor(fields, defaults),
                "_make": classmethod(_make),
                "_replace": _replace,
                "__repr__": __repr__,
                "_asdict": _asdict,
                "__getnewargs__": __getnewargs__,
                "__match_args__": fields,
                "__module__": namespace["__module__"],
                "__annotations__": dict(namespace.get("__annotations__", {})),
            }
            for index, field in enumerate(fields):
                own[field] = property(itemgetter(index), doc=f"Alias for field number {index}")
            for key, value in namespace.items():
                if key in _PROHIBITED:
                    raise AttributeError(f"Cannot overwrite NamedTuple attribute {key}")
                if key not in _OWN and key not in fields:
                    own[key] = value
            return type(name, (tuple,), own)

    NamedTuple = type.__new__(_NamedTupleMeta, "NamedTuple", (), {})

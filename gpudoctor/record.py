"""Value classes without the dataclasses module.

gpudoctor's value classes (Finding, Verdict, Check, Node, Config, ...) were dataclasses. The
dataclasses module imports ``inspect`` (and ``ast``, ``dis``, ``tokenize`` beneath it), and
each ``@dataclass`` compiles its generated methods when its module is imported: 7-9 ms of
every run's start on the H100 node, paid by the prolog tier on every job
(docs/benchmarks.md, "The prolog tier against the NVML floor"). These bases give the same
behaviour from a class's ``_fields`` and a plain ``__init__``: ``repr`` and ``==`` field by
field in declaration order, unhashable when mutable; frozen: assignment refused, hashed by
its fields (as @dataclass(frozen=True) does: Lib/dataclasses.py, _cmp_fn, _repr_fn,
_hash_action, _frozen_get_del_attr).
"""


class _New(object):
    """The default of a field made fresh for each instance (dataclasses' default_factory):
    ``def __init__(self, hosts=NEW): self.hosts = [] if hosts is NEW else hosts``, so that an
    explicit None stays None, as it did."""

    __slots__ = ()

    def __repr__(self):
        return "NEW"


NEW = _New()


class FrozenInstanceError(AttributeError):
    """A field of a frozen value was assigned or deleted (dataclasses.FrozenInstanceError's role)."""


class Record(object):
    """Instances are their ``_fields``: compared and shown by them, in that order."""

    __slots__ = ()
    _fields = ()

    def _values(self):
        return tuple(getattr(self, f) for f in self._fields)

    def __repr__(self):
        return "%s(%s)" % (type(self).__qualname__,
                           ", ".join("%s=%r" % (f, getattr(self, f)) for f in self._fields))

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return self._values() == other._values()
        return NotImplemented

    __hash__ = None  # mutable: like a dataclass with eq and without frozen


class FrozenRecord(Record):
    """A Record whose fields are set once, in ``__init__`` (through ``_set``), and hashed."""

    __slots__ = ()

    def _set(self, **values):
        for name, value in values.items():
            object.__setattr__(self, name, value)

    def __setattr__(self, name, value):
        raise FrozenInstanceError("cannot assign to field %r" % name)

    def __delattr__(self, name):
        raise FrozenInstanceError("cannot delete field %r" % name)

    def __hash__(self):
        return hash(self._values())

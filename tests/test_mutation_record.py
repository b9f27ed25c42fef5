"""The value classes on gpudoctor/record.py behave as the dataclasses they replaced (158d581).

Each class is compared with its dataclass twin, rebuilt here from the definitions at 158d581^
(gpudoctor/registry.py, runner.py, config.py, drift.py, inventory.py, node.py,
transport/__init__.py): the same fields and defaults (a fresh list/dict per instance for a
``default_factory``, an explicit None kept), the same repr, == field by field and only with the
same class, hashed by the fields when frozen and unhashable when not, assignment and deletion
refused when frozen (dataclasses.FrozenInstanceError's messages, Lib/dataclasses.py
_frozen_get_del_attr). A mistake there changes a report's equality or a verdict's dedup in sets
silently. Written against the mutants of docs/mutation.md ("This round's new code")."""

import dataclasses
import inspect

import pytest

from gpudoctor.config import Config
from gpudoctor.drift import Group
from gpudoctor.inventory import Host
from gpudoctor.node import Node
from gpudoctor.record import NEW, FrozenInstanceError, FrozenRecord, Record
from gpudoctor.registry import NA, Check, Finding, Pass, Skip, Verdict
from gpudoctor.runner import CheckResult, Report
from gpudoctor.transport import Payload

REQ = object()  # no default
LIST, DICT = object(), object()  # field(default_factory=list / dict)

# (class, frozen, [(field, default)]) as the @dataclass definitions at 158d581^ declared them
SPECS = [
    (Finding, False, [("severity", REQ), ("message", REQ), ("observed", None), ("expected", None), ("fix", None),
                      ("exports", DICT), ("hosts", LIST), ("check", "")]),
    (Verdict, True, [("status", REQ), ("text", REQ), ("hosts", ())]),
    (Check, True, [("id", REQ), ("title", REQ), ("func", REQ), ("needs", ()), ("severity", "error"),
                   ("scope", "node"), ("module", ""), ("also_reads", ())]),
    (CheckResult, False, [("id", REQ), ("title", REQ), ("severity", REQ), ("scope", REQ), ("status", "na"),
                          ("outcomes", DICT), ("findings", LIST), ("crashed", DICT), ("tracebacks", DICT)]),
    (Report, False, [("nodes", REQ), ("results", REQ), ("findings", REQ), ("strict", False)]),
    (Config, False, [("min_shm_bytes", 1 << 30), ("expected_gpus", None), ("bf16", False), ("select", LIST),
                     ("ignore", LIST), ("strict", False), ("severity", DICT), ("python", None),
                     ("python_source", None), ("timeout", 30.0), ("source", None), ("slots", DICT),
                     ("launch", None), ("history", None), ("state_dir", None), ("history_runs", None),
                     ("history_states", None), ("history_bytes", None), ("fallback", None)]),
    (Group, False, [("value", REQ), ("hosts", REQ)]),
    (Host, False, [("name", REQ), ("slots", None), ("source", "")]),
    (Node, False, [("host", REQ), ("facts", None), ("error", None), ("error_kind", None), ("via", None),
                   ("fallback_from", None)]),
    (Payload, False, [("python", None), ("options", DICT), ("per_host_options", DICT), ("script", None),
                      ("fast", False)]),
]
IDS = [s[0].__name__ for s in SPECS]


def _twin(cls, frozen, fields):
    spec = []
    for name, default in fields:
        if default is REQ:
            spec.append((name, object))
        elif default is LIST or default is DICT:
            spec.append((name, object, dataclasses.field(default_factory=list if default is LIST else dict)))
        else:
            spec.append((name, object, dataclasses.field(default=default)))
    return dataclasses.make_dataclass(cls.__name__, spec, frozen=frozen)


def _values(fields, tag):
    """A distinct value for every field (hashable, so that frozen records can be hashed)."""
    return {name: ("%s-%s" % (name, tag),) for name, _ in fields}


def _required(fields, tag):
    return {k: v for k, v in _values(fields, tag).items() if dict(fields)[k] is REQ}


def _pairs(cls, frozen, fields, **kw):
    twin = _twin(cls, frozen, fields)
    return cls(**kw), twin(**kw)


@pytest.mark.parametrize("cls,frozen,fields", SPECS, ids=IDS)
def test_fields_and_defaults_are_the_dataclass_ones(cls, frozen, fields):
    assert cls._fields == tuple(name for name, _ in fields)
    ours, theirs = _pairs(cls, frozen, fields, **_required(fields, "a"))
    for name, default in fields:
        assert getattr(ours, name) == getattr(theirs, name), name
        assert type(getattr(ours, name)) is type(getattr(theirs, name)), name
    # a default_factory gives each instance its own list or dict
    other = cls(**_required(fields, "a"))
    for name, default in fields:
        if default is LIST or default is DICT:
            assert getattr(ours, name) is not getattr(other, name), name
            # an explicit None stays None (it is not the "make a fresh one" marker)
            assert getattr(cls(**dict(_required(fields, "a"), **{name: None})), name) is None, name


@pytest.mark.parametrize("cls,frozen,fields", SPECS, ids=IDS)
def test_every_argument_lands_in_its_field_by_keyword_and_by_position(cls, frozen, fields):
    values = _values(fields, "b")
    by_kw = cls(**values)
    by_pos = cls(*[values[name] for name, _ in fields])
    for name, _ in fields:
        assert getattr(by_kw, name) == values[name], name
        assert getattr(by_pos, name) == values[name], name


@pytest.mark.parametrize("cls,frozen,fields", SPECS, ids=IDS)
def test_repr_is_the_dataclass_repr(cls, frozen, fields):
    ours, theirs = _pairs(cls, frozen, fields, **_values(fields, "c"))
    assert repr(ours) == repr(theirs)
    assert repr(ours).startswith(cls.__name__ + "(")
    ours, theirs = _pairs(cls, frozen, fields, **_required(fields, "c"))
    assert repr(ours) == repr(theirs)


@pytest.mark.parametrize("cls,frozen,fields", SPECS, ids=IDS)
def test_equality_is_field_by_field_and_only_with_the_same_class(cls, frozen, fields):
    values = _values(fields, "d")
    a, b = cls(**values), cls(**values)
    assert a == b and not (a != b)
    for name, _ in fields:  # one field differs: not equal, as with the dataclass
        changed = dict(values, **{name: ("other",)})
        assert cls(**changed) != a, name
        assert not (cls(**changed) == a), name
        theirs = _twin(cls, frozen, fields)
        assert (theirs(**changed) == theirs(**values)) is False
    twin = _twin(cls, frozen, fields)(**values)
    assert a != twin and twin != a  # same fields, another class
    assert a != tuple(values.values()) and a != None  # noqa: E711
    assert a.__eq__(tuple(values.values())) is NotImplemented

    class Sub(cls):
        pass

    assert Sub(**values) != a and a != Sub(**values)  # dataclasses compare `other.__class__ is self.__class__`


@pytest.mark.parametrize("cls,frozen,fields", SPECS, ids=IDS)
def test_hash_and_assignment_follow_frozen(cls, frozen, fields):
    values = _values(fields, "e")
    ours, theirs = _pairs(cls, frozen, fields, **values)
    name = fields[0][0]
    if not frozen:
        with pytest.raises(TypeError):
            hash(ours)
        setattr(ours, name, ("new",))
        assert getattr(ours, name) == ("new",)
        delattr(ours, name)
        assert not hasattr(ours, name)
        return
    assert hash(ours) == hash(theirs) == hash(cls(**values)) == hash(tuple(values[n] for n, _ in fields))
    assert hash(ours) != hash(cls(**dict(values, **{fields[-1][0]: ("other",)})))
    for action in (lambda o: setattr(o, name, 1), lambda o: delattr(o, name)):
        with pytest.raises(dataclasses.FrozenInstanceError) as want:
            action(theirs)
        with pytest.raises(FrozenInstanceError) as got:
            action(ours)
        assert str(got.value) == str(want.value)
        assert isinstance(got.value, AttributeError)
        assert getattr(ours, name) == values[name]  # unchanged
    with pytest.raises(FrozenInstanceError, match="'new_attr'"):
        ours.new_attr = 1


def test_verdicts_dedup_in_sets_and_dicts():
    seen = {Pass("x"), Pass("x"), Pass("x", hosts=["a"]), NA("x"), Skip("x"), Pass("y")}
    assert len(seen) == 5
    assert {Pass("x", ["a", "b"]): 1}[Verdict("pass", "x", ("a", "b"))] == 1
    assert Pass("x") != NA("x") and Pass("x") != Pass("x", ["a"])


def test_the_bases_alone():
    assert repr(Record()) == "Record()" and Record() == Record()
    assert repr(FrozenRecord()) == "FrozenRecord()" and hash(FrozenRecord()) == hash(())
    assert repr(NEW) == "NEW"  # what help() and inspect show as those defaults
    assert "exports=NEW" in str(inspect.signature(Finding))

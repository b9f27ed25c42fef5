"""gpudoctor/jsonout.py's dumps_facts writes json.dumps(doc, indent=1, sort_keys=True)'s text,
and gather._shape_problem's quick path says what its walk says."""

import enum
import glob
import json
import os
import random

import pytest

from gpudoctor import gather
from gpudoctor.jsonout import dumps_facts

HERE = os.path.dirname(os.path.abspath(__file__))
FACTS = sorted(f for f in glob.glob(os.path.join(HERE, "..", "fixtures", "**", "*.json"), recursive=True)
               if '"gpudoctor.facts/1"' in open(f, encoding="utf-8", errors="replace").read())


def json_text(doc):
    return json.dumps(doc, indent=1, sort_keys=True)


def test_the_facts_fixtures_and_several_nodes_as_facts_writes_them():
    assert len(FACTS) >= 20
    docs = {}
    for path in FACTS:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        assert dumps_facts(doc) == json_text(doc), path
        docs[os.path.relpath(path, HERE)] = doc
    # `gpudoctor facts` on several nodes: {host: facts or {"error": ..., "error_kind": ...}}
    docs["down"] = {"error": "no answer within 30s", "error_kind": "timeout"}
    assert dumps_facts(docs) == json_text(docs)


def _random_value(rng, depth):
    pick = rng.randrange(14 if depth < 5 else 9)
    if pick == 0:
        return None
    if pick == 1:
        return rng.random() < 0.5
    if pick == 2:
        return rng.choice([0, -1, 7, 2 ** 63, -(2 ** 70), rng.randrange(-10 ** 6, 10 ** 6)])
    if pick == 3:
        return rng.choice([0.0, -0.0, 1.5, 1e-300, 1e300, 3.141592653589793, float("nan"), float("inf"),
                           float("-inf"), rng.uniform(-1e6, 1e6)])
    if pick < 9:
        return "".join(rng.choice(['a', 'Z', ' ', '"', '\\', '\n', '\t', '\x00', '\x7f', '\u00e9', '\u2028',
                                   '\U0001f600', '/', ':', ',', '{', ']']) for _ in range(rng.randrange(8)))
    if pick < 11:
        return [_random_value(rng, depth + 1) for _ in range(rng.randrange(5))]
    if pick < 13:
        return dict(("".join(rng.choice("ab\"\\\u00e9\n") for _ in range(rng.randrange(4))) + str(i),
                     _random_value(rng, depth + 1)) for i in range(rng.randrange(5)))
    return tuple(_random_value(rng, depth + 1) for _ in range(rng.randrange(3)))


def test_random_documents_give_json_dumps_text():
    rng = random.Random(20)
    for _ in range(600):
        doc = _random_value(rng, 0)
        assert dumps_facts(doc) == json_text(doc), repr(doc)[:300]


class Colour(enum.IntEnum):
    RED = 1


class Text(str):
    pass


def test_what_it_leaves_to_json_is_written_or_refused_as_json_does():
    for doc in ({"a": Colour.RED}, {"a": [Text("x")]}, {1: "one", 2: "two"}, {"a": {True: 2, False: 1}}, {"a": {None: 1}},
                {"a": {1.5: "x"}}, {"a": (1, [2, {"b": ()}])}, "x", 3, None, 2.5, [], {}):
        assert dumps_facts(doc) == json_text(doc), doc
    loop = {"a": []}
    loop["a"].append(loop)
    with pytest.raises(ValueError, match="Circular reference"):
        dumps_facts(loop)
    with pytest.raises(TypeError):
        dumps_facts({"a": {1, 2}})
    with pytest.raises(TypeError):
        dumps_facts({"a": {1: "x", "b": "y"}})  # json's sorted() of mixed keys


def _walk_problem(doc):
    """_shape_problem's walk alone (the rule before the quick path)."""
    saved = gather._shape_fine
    gather._shape_fine = lambda doc: None
    try:
        return gather._shape_problem(doc)
    finally:
        gather._shape_fine = saved


def _nest(depth, leaf):
    doc = leaf
    for i in range(depth):
        doc = {"k": doc} if i % 2 else [doc]
    return doc


def test_shape_quick_path_says_what_the_walk_says():
    docs = [json.load(open(p, encoding="utf-8")) for p in FACTS[:6]]
    rng = random.Random(7)
    docs += [_random_value(rng, 0) for _ in range(300)]
    for depth in (30, 31, 32, 33, 34, 60):
        for leaf in ("x", 1, [], {}, [1], {"a": 1}, "\ud800"):
            docs.append(_nest(depth, leaf))
    docs += [{"a": "\udc00", "b": _nest(40, 1)}, {"\ud800": 1}, {"a": ["ok", "\ud83d"]}, {"a": ("\ud800",)},
             {"a": Text("\ud800")}, {1: "\ud800"}, {"a": b"bytes"}, {"a": "\ud83d\ude00"}, {"a": "\ud83d", "b": "\ude00"}]
    bad = 0
    for doc in docs:
        want = _walk_problem(doc)
        assert gather._shape_problem(doc) == want, repr(doc)[:200]
        if gather._shape_fine(doc):
            assert want is None
        bad += want is not None
    assert bad >= 20  # deep and surrogate cases were judged

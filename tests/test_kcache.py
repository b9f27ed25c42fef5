"""gpudoctor/explain/kcache.py clause by clause: what names a cache file, and which contents are read back.

tests/test_explain_speed.py proves the cache gives what the TOML gives and that only this user's own files are read.
These tests reach the checks behind the checksum: every body here is sealed as privcache.write seals it (the first
line carries the SHA-256 of the body), so a body is refused for its shape alone, one clause at a time (mutation
round 9 found the shape checks, the key's bytes and the size bounds untested: docs/mutation.md).
"""

import json
import marshal
import os
import sys

import pytest

from gpudoctor import privcache
from gpudoctor.explain import kcache


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    return tmp_path


def _files(root, contents):
    paths = []
    for name, data in contents:
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
        paths.append(str(p))
    return paths


# ------------------------------------------------------------------ the key


def test_the_key_is_the_files_names_and_bytes(tmp_path):
    a = _files(tmp_path / "a", [("x.toml", b"one"), ("y.toml", b"two")])
    key = kcache.key_of(a, str(tmp_path / "a"))
    assert len(key) == 64 and int(key, 16) >= 0
    assert kcache.key_of(a, str(tmp_path / "a")) == key  # the same files: the same key
    # the same layout under another root: the same key (names are taken relative to the root)
    b = _files(tmp_path / "b", [("x.toml", b"one"), ("y.toml", b"two")])
    assert kcache.key_of(b, str(tmp_path / "b")) == key
    # a byte changed, a name changed, the order changed, a file more: another key
    assert kcache.key_of(_files(tmp_path / "c", [("x.toml", b"onE"), ("y.toml", b"two")]), str(tmp_path / "c")) != key
    assert kcache.key_of(_files(tmp_path / "d", [("z.toml", b"one"), ("y.toml", b"two")]), str(tmp_path / "d")) != key
    assert kcache.key_of(list(reversed(a)), str(tmp_path / "a")) != key
    assert kcache.key_of(a + a[:1], str(tmp_path / "a")) != key
    # the bytes are framed by their length: moving a byte from one file to the next is another key
    e = _files(tmp_path / "e", [("x.toml", b"on"), ("y.toml", b"etwo")])
    f = _files(tmp_path / "f", [("x.toml", b"one"), ("y.toml", b"two")])
    assert kcache.key_of(e, str(tmp_path / "e")) != kcache.key_of(f, str(tmp_path / "f"))
    # a file outside the root is named by its whole path: the same bytes under another root differ
    assert kcache.key_of(a, str(tmp_path / "elsewhere")) != key


def _expected(fmt, files, names):
    """The key as kcache's docstring defines it, computed here: SHA-256 over the format and the interpreter's
    version, then per file its name, its length and its bytes, each field framed by NUL."""
    import hashlib

    h = hashlib.sha256(("%s\0%s\0" % (fmt, sys.version)).encode())
    for path, name in zip(files, names):
        with open(path, "rb") as f:
            data = f.read()
        h.update(b"\0" + name.encode("utf-8", "surrogateescape") + b"\0" + str(len(data)).encode() + b"\0" + data)
    return h.hexdigest()


def test_the_key_is_the_documented_digest(tmp_path):
    here = os.path.join(os.path.dirname(os.path.abspath(kcache.__file__)), "knowledge.py")
    a = _files(tmp_path, [("x.toml", b"one"), ("sub/y.toml", b"two")])
    # knowledge.py comes first, by its whole path (it is not under the knowledge root)
    assert kcache.key_of(a, str(tmp_path)) == _expected(kcache.FORMAT, [here] + a, [here, "x.toml", "sub/y.toml"])
    outside = str(tmp_path / "other")
    assert kcache.key_of(a, outside) == _expected(kcache.FORMAT, [here] + a, [here] + a)
    this = os.path.abspath(kcache.__file__)
    assert kcache.sites_key(a) == _expected(kcache.SITES_FORMAT, [here, this] + a,
                                            ["knowledge.py", "kcache.py", "x.toml", "y.toml"])


def test_a_file_name_that_is_not_utf8_still_gives_a_key(tmp_path):
    name = os.fsdecode(b"\xff-odd.toml")  # a Linux name of bytes that are not UTF-8 (a surrogate escape)
    with open(os.path.join(str(tmp_path), name), "wb") as f:
        f.write(b"x")
    path = os.path.join(str(tmp_path), name)
    assert len(kcache.key_of([path], str(tmp_path))) == 64
    assert len(kcache.sites_key([path])) == 64


def test_the_key_follows_the_interpreter_and_the_format(tmp_path, monkeypatch):
    a = _files(tmp_path, [("x.toml", b"one")])
    key = kcache.key_of(a, str(tmp_path))
    monkeypatch.setattr(sys, "version", sys.version + " (another build)")
    assert kcache.key_of(a, str(tmp_path)) != key
    monkeypatch.undo()
    monkeypatch.setattr(kcache, "FORMAT", kcache.FORMAT + "x")
    assert kcache.key_of(a, str(tmp_path)) != key


def test_an_unreadable_file_gives_no_key(tmp_path):
    a = _files(tmp_path, [("x.toml", b"one")])
    assert kcache.key_of(a + [str(tmp_path / "absent.toml")], str(tmp_path)) is None
    assert kcache.sites_key(a + [str(tmp_path / "absent.json")]) is None


def test_the_sites_key_follows_names_bytes_and_format(tmp_path, monkeypatch):
    a = _files(tmp_path / "a", [("x.json", b"{}")])
    key = kcache.sites_key(a)
    assert len(key) == 64
    assert kcache.sites_key(_files(tmp_path / "b", [("x.json", b"{}")])) == key  # by base name: the folder is not in it
    assert kcache.sites_key(_files(tmp_path / "c", [("y.json", b"{}")])) != key
    assert kcache.sites_key(_files(tmp_path / "d", [("x.json", b"[]")])) != key
    monkeypatch.setattr(kcache, "SITES_FORMAT", kcache.SITES_FORMAT + "x")
    assert kcache.sites_key(a) != key


def test_the_file_names(cache):
    key = "0123456789abcdef" * 4
    assert kcache._path(key) == os.path.join(str(cache), "gpudoctor", "knowledge-" + key[:40] + ".json")
    assert kcache._sites_path(key) == os.path.join(str(cache), "gpudoctor", "sites-" + key[:40] + ".marshal")


# ------------------------------------------------------------------ the knowledge docs: shape, clause by clause

KEY = "ab" * 32


def _seal(path, head, body):
    os.makedirs(os.path.dirname(path), 0o700, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(privcache._sealed(head, body) + b"\n" + body)


def _docs(body):
    _seal(kcache._path(KEY), ("%s %s" % (kcache.FORMAT, KEY)).encode(), body)
    return kcache.read(KEY, 1)


GOOD = {"docs": [{"entry": [{"id": "a.b"}]}], "needles": {"abcd(e|f)": ["abcd"]}}


def test_a_sealed_good_body_is_read_back(cache):
    assert _docs(json.dumps(GOOD).encode()) == (GOOD["docs"], GOOD["needles"])
    # a table without entries is a table (settings.toml has none)
    assert _docs(json.dumps({"docs": [{"rows": []}], "needles": {}}).encode()) == ([{"rows": []}], {})


@pytest.mark.parametrize("doc", [
    [GOOD],  # not a dict
    {"docs": {"0": {}}, "needles": {}},  # docs not a list
    {"docs": [], "needles": {}},  # not one table per file
    {"docs": [{}, {}], "needles": {}},
    {"docs": ["x"], "needles": {}},  # a table that is not a dict
    {"docs": [{"entry": {"id": "a"}}], "needles": {}},  # entries not a list
    {"docs": [{"entry": [{"id": "a"}, "b"]}], "needles": {}},  # an entry that is not a table
    {"docs": [{}], "needles": [["a", ["b"]]]},  # needles not a dict
    {"docs": [{}], "needles": {"a": "abcd"}},  # a needle list that is a string
    {"docs": [{}], "needles": {"a": []}},  # an empty needle list
    {"docs": [{}], "needles": {"a": ["abcd", ""]}},  # an empty needle
    {"docs": [{}], "needles": {"a": ["abcd", 7]}},  # a needle that is no string
    {"needles": {}},  # no docs
    {"docs": [{}]},  # no needles
], ids=lambda d: json.dumps(d)[:40])
def test_a_sealed_body_of_another_shape_is_refused(cache, doc):
    assert _docs(json.dumps(doc).encode()) is None


def test_bodies_that_are_not_json_are_refused(cache):
    assert _docs(b"[" * 100000 + b"]" * 100000) is None  # deeper than the parser goes (RecursionError)
    assert _docs(b"\xff\xfe") is None
    assert _docs(b"") is None


def test_no_key_reads_and_writes_nothing(cache):
    assert kcache.read("", 1) is None and kcache.read(None, 1) is None
    kcache.write("", ['{}'], {})
    kcache.write_sites(None, [[]])
    assert kcache.read_sites("", 1) is None
    assert not (cache / "gpudoctor").exists()


def test_write_keeps_nothing_over_the_bound(cache, monkeypatch):
    docs, needles = ['{"entry": [{"id": "a.b"}]}'], {"abcd": ["abcd"]}
    size = len(("%s %s" % (kcache.FORMAT, KEY)).encode()) + 1 + len(
        ('{"docs": [%s], "needles": %s}' % (docs[0], json.dumps(needles))).encode())
    monkeypatch.setattr(kcache, "MAX", size - 1)
    kcache.write(KEY, docs, needles)
    assert not os.path.exists(kcache._path(KEY))
    monkeypatch.setattr(kcache, "MAX", size + 100)  # the seal's own bytes are privcache's, inside read's limit
    kcache.write(KEY, docs, needles)
    assert kcache.read(KEY, 1) == ([{"entry": [{"id": "a.b"}]}], needles)


def test_write_at_the_bound_writes_and_removes_the_other_keys_files(cache, monkeypatch):
    docs, needles = ['{"entry": [{"id": "a.b"}]}', '{"rows": []}'], {"abcd": ["abcd"]}
    size = len(("%s %s" % (kcache.FORMAT, KEY)).encode()) + 1 + len(
        ('{"docs": [%s], "needles": %s}' % (", ".join(docs), json.dumps(needles))).encode())
    monkeypatch.setattr(kcache, "MAX", size)  # exactly at the bound: written
    kcache.write(KEY, docs, needles)
    assert os.path.exists(kcache._path(KEY))
    monkeypatch.setattr(kcache, "MAX", 8 << 20)
    assert kcache.read(KEY, 2) == ([{"entry": [{"id": "a.b"}]}, {"rows": []}], needles)  # two tables, joined
    folder = os.path.dirname(kcache._path(KEY))
    for other in ("knowledge-old.json", "knowledge-keep.txt", "sites-old.marshal"):
        with open(os.path.join(folder, other), "w") as f:
            f.write("x")
    kcache.write("cd" * 32, docs, needles)  # another key: the old key's file and any knowledge-*.json go
    assert sorted(os.listdir(folder)) == sorted(["knowledge-" + ("cd" * 32)[:40] + ".json", "knowledge-keep.txt",
                                                 "sites-old.marshal"])
    rows = [[ROW]]
    size = len(("%s %s" % (kcache.SITES_FORMAT, KEY)).encode()) + 1 + len(marshal.dumps(rows))
    monkeypatch.setattr(kcache, "SITES_MAX", size)
    kcache.write_sites(KEY, rows)
    assert sorted(os.listdir(folder)) == sorted(["knowledge-" + ("cd" * 32)[:40] + ".json", "knowledge-keep.txt",
                                                 "sites-" + KEY[:40] + ".marshal"])


def test_write_of_what_json_cannot_hold_is_no_error(cache):
    kcache.write(KEY, ['{}'], {"a": {1, 2}})  # a set: TypeError inside json.dumps, swallowed
    assert not os.path.exists(kcache._path(KEY))


# ------------------------------------------------------------------ the sites rows: shape, clause by clause

ROW = ["a.b", r"abcd \d{1,4}", ["abcd"], {"id": "x.1", "code": 3, "sure": 0.5, "hit": True, "none": None,
                                           "fix": ["f", "g"]}]


def _sites(rows, n=2):
    _seal(kcache._sites_path(KEY), ("%s %s" % (kcache.SITES_FORMAT, KEY)).encode(), marshal.dumps(rows))
    return kcache.read_sites(KEY, n)


def test_sealed_good_rows_are_read_back(cache):
    assert _sites([[ROW], []]) == [[ROW], []]
    assert _sites([[ROW[:2] + [None, {}]], []]) == [[ROW[:2] + [None, {}]], []]  # a row without needles


@pytest.mark.parametrize("row", [
    ROW[:3],  # three fields
    ROW + [1],  # five
    [1] + ROW[1:],  # the family not a string
    ROW[:1] + [b"abcd"] + ROW[2:],  # the regex not a string
    ROW[:3] + [[("id", "x")]],  # the shown fields not a dict
    ROW[:2] + ["abcd"] + ROW[3:],  # needles a string
    ROW[:2] + [["abcd", 1]] + ROW[3:],  # a needle that is no string
    ROW[:3] + [{1: "x"}],  # a key that is no string
    ROW[:3] + [{"id": b"x"}],  # a value of no plain type
    ROW[:3] + [{"fix": ["f", 2]}],  # a list of more than strings
    ROW[:3] + [{"fix": ("f",)}],  # a tuple
    ROW[:3] + [{"sub": {"a": "b"}}],  # a nested dict
], ids=lambda r: repr(r)[:40])
def test_a_row_of_another_shape_is_refused(cache, row):
    assert not kcache._row_ok(row)
    assert _sites([[ROW, row], []]) is None


def test_rows_of_another_count_or_container_are_refused(cache):
    assert _sites([[ROW]], n=2) is None  # one list per generated file
    assert _sites([[ROW], [], []], n=2) is None
    assert _sites([[ROW], ()], n=2) is None  # a tuple for a file's rows
    assert _sites({0: [ROW]}, n=1) is None
    assert _sites([[tuple(ROW)], []]) is None


def test_write_sites_keeps_nothing_over_the_bound(cache, monkeypatch):
    rows = [[ROW], []]
    size = len(("%s %s" % (kcache.SITES_FORMAT, KEY)).encode()) + 1 + len(marshal.dumps(rows))
    monkeypatch.setattr(kcache, "SITES_MAX", size - 1)
    kcache.write_sites(KEY, rows)
    assert not os.path.exists(kcache._sites_path(KEY))
    monkeypatch.setattr(kcache, "SITES_MAX", size + 100)
    kcache.write_sites(KEY, rows)
    assert kcache.read_sites(KEY, 2) == rows


def test_write_sites_of_what_marshal_cannot_hold_is_no_error(cache):
    kcache.write_sites(KEY, [[object()]])
    assert not os.path.exists(kcache._sites_path(KEY))

"""Mutation round 22 (docs/mutation.md): Context.read's size bound (a node's file is read up to ``limit``, 1 MiB by
default: 64 KiB first, then the rest up to the limit) and its decoding. Round 22 measured read() with the collector's
mutation tests: reading past the limit, dropping the first 64 KiB, stopping at 64 KiB and a strict decode all lived."""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from gpudoctor.collector.base import Context  # noqa: E402


def _file(tmp_path, name, size):
    body = b"".join(b"%07d\n" % i for i in range(size // 8 + 1))[:size]
    (tmp_path / name).write_bytes(body)
    return str(tmp_path / name), body.decode()


def test_read_stops_at_its_limit_and_keeps_the_start(tmp_path):
    ctx = Context(python=None)
    path, body = _file(tmp_path, "big", 3 << 20)
    assert ctx.read(path) == body[:1 << 20]  # 1 MiB by default, from the first byte
    assert ctx.read(path, limit=100000) == body[:100000]
    assert ctx.read(path, limit=1000) == body[:1000]


def test_read_takes_a_file_past_64_kib_whole(tmp_path):
    ctx = Context(python=None)
    for size in (65535, 65536, 65537, 100000):
        path, body = _file(tmp_path, "f%d" % size, size)
        assert ctx.read(path) == body, size


def test_read_replaces_bytes_that_are_no_utf8(tmp_path):
    (tmp_path / "bad").write_bytes(b"driver \xff\xfe 550\n")
    assert Context(python=None).read(str(tmp_path / "bad")) == "driver \ufffd\ufffd 550\n"
    assert Context(python=None).read(str(tmp_path / "nosuch"), default="none") == "none"

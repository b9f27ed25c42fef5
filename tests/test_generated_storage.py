"""How the big generated tables and slices are stored (size20; docs/explain.md "Generated knowledge"): gzip'd
(<name>.json.gz, tools/data/*.gz) by tools/knowgen.py, deterministically, read through one helper
(knowledge.generated_path / read_json / open_table), and the tracked tree stays under what the device tool carries."""

import gzip
import json
import os
import subprocess
import sys

import pytest

from gpudoctor.explain import knowledge

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tools"))
import gzip_tables  # noqa: E402
import knowgen  # noqa: E402

DATA = os.path.join(REPO, "tools", "data")
# what gzip_bytes writes for PROBE with the zlib the committed files were written with (1.2.13, Debian 12's)
PROBE = b"gpudoctor generated table\n" * 4
PROBE_GZ = "1f8b08000000000002ff4b2f284dc94f2ec92f52484fcd4b2d4a2c494d5128494cca49e54aa7aa0c005cea33f568000000"


def _stored():
    return sorted(os.path.join(d, n) for d in (knowledge.GENERATED_DIR, DATA) for n in os.listdir(d)
                  if n.endswith(".gz"))


def test_every_stored_gz_is_deterministic_utf8_text():
    paths = _stored()
    assert any(p.endswith(".json.gz") for p in paths) and any(p.startswith(DATA) for p in paths)
    same_zlib = knowgen.gzip_bytes(PROBE).hex() == PROBE_GZ
    for p in paths:
        with open(p, "rb") as f:
            raw = f.read()
        # RFC 1952 header: deflate, no FNAME / FCOMMENT / FEXTRA flags, MTIME 0, XFL 2 (level 9), OS 255
        assert raw[:10] == b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff", p
        text = gzip.decompress(raw)
        text.decode("utf-8")
        if same_zlib:  # (another zlib may compress otherwise: then the header and the text are what must hold)
            assert knowgen.gzip_bytes(text) == raw, p
        if p.endswith(".json.gz"):
            assert text.endswith(b"\n") and json.loads(text) == knowledge.read_json(p)


def test_a_table_is_stored_in_one_form_and_read_the_same_from_either(tmp_path, monkeypatch):
    names = os.listdir(knowledge.GENERATED_DIR)
    gz = {n[:-len(".json.gz")] for n in names if n.endswith(".json.gz")}
    plain = {n[:-len(".json")] for n in names if n.endswith(".json")}
    assert gz and not gz & plain
    paths = knowledge.generated_files()
    assert [knowledge.table_name(p) for p in paths] == sorted(gz | plain, key=lambda n: n + ".json")
    name = sorted(gz)[0]
    stored = knowledge.generated_path(name)
    assert stored.endswith(".json.gz") and knowgen.out_path(name).endswith(".json.gz")
    doc = knowledge.read_generated(name)
    assert doc["header"]["generator"].startswith("tools/gen_") and knowgen.committed(name) == doc
    # the same text plain and gzip'd: the same document, the same site rows
    with open(stored, "rb") as f:
        text = gzip.decompress(f.read()).decode("utf-8")
    (tmp_path / (name + ".json")).write_text(text, encoding="utf-8")
    knowgen.save_text(str(tmp_path / "x.json.gz"), text)
    assert knowledge.read_json(str(tmp_path / (name + ".json"))) == knowledge.read_json(str(tmp_path / "x.json.gz"))
    with knowledge.open_table(str(tmp_path / "x.json.gz")) as f:
        assert f.read() == text
    monkeypatch.setattr(knowledge, "GENERATED_DIR", str(tmp_path))
    assert knowledge.generated_path(name) == str(tmp_path / (name + ".json"))
    assert knowledge._site_rows(str(tmp_path / (name + ".json"))) == knowledge._site_rows(stored)


def test_a_damaged_gz_table_is_a_value_error_and_generated_table_is_empty(tmp_path, monkeypatch):
    (tmp_path / "bad.json.gz").write_bytes(knowgen.gzip_bytes(b'{"header": {}}\n')[:-12])
    with pytest.raises(ValueError):
        knowledge.read_json(str(tmp_path / "bad.json.gz"))
    monkeypatch.setattr(knowledge, "GENERATED_DIR", str(tmp_path))
    monkeypatch.setattr(knowledge, "_TABLES", {})
    assert knowledge.generated_table("bad") == {} and knowledge.generated_table("missing") == {}


def test_open_write_and_slices_read_through_gz(tmp_path):
    path = str(tmp_path / "s_slice.txt.gz")
    with knowgen.open_write(path) as f:
        f.write("#! version v1\n=== a/b.py @3\nraise X('y')\n")
    with open(path, "rb") as f:
        first = f.read()
    knowgen.save_text(path, "#! version v1\n=== a/b.py @3\nraise X('y')\n")
    with open(path, "rb") as f:
        assert f.read() == first  # written twice, the same bytes
    files, version = knowgen.read_slice(path)
    assert version == "v1" and files == [("a/b.py", "\n\nraise X('y')\n")]
    plain = tmp_path / "p.txt"
    plain.write_text("x\n")
    gz = gzip_tables.convert(str(plain))
    assert not plain.exists() and gzip.decompress(open(gz, "rb").read()) == b"x\n"


def test_the_tracked_tree_fits_the_device_tool():
    """The device tool carries the working tree (tracked files) up to 64 MiB; keep room for the session's own."""
    try:
        out = subprocess.run(["git", "-C", REPO, "ls-files", "-z"], capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    paths = [os.path.join(REPO, p.decode("utf-8", "surrogateescape")) for p in out.split(b"\0") if p]
    total = sum(os.path.getsize(p) for p in paths if os.path.isfile(p) and not os.path.islink(p))
    assert 1 << 20 < total <= 56 << 20, "tracked tree %.1f MiB: gzip the big tables (tools/gzip_tables.py)" % (
        total / (1 << 20))

"""tools/gen_errno.py in the test's own process (test_explain_generated.py runs it in another
interpreter, where a mutation tool sees no test of it): the errno table regenerated from this
interpreter's errno.errorcode / os.strerror and compared whole with the committed one where this
machine's Python and C library are the ones it names (Python docs, "errno"; glibc strerror), and the
matcher rules of build() on small rows: the four ways programs print an errno ('[Errno N] text',
'text (errno: N)', 'text (N)', 'errno=N ... text'), the bare text only from 22 characters, the
kernel-only ENOTSUPP 524 (Linux include/linux/errno.h), a meaning only with a family. ~0.1 s."""

import contextlib
import io
import json
import os
import re
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tools"))

import gen_errno  # noqa: E402
import knowgen  # noqa: E402


@pytest.fixture(autouse=True)
def _default_output_elsewhere(tmp_path, monkeypatch):
    """The committed table read first; a generator that lost its -o then writes in tmp_path, not
    over the committed file (a mutant did, and every later test compared with its output)."""
    full = knowgen.committed("errno")
    monkeypatch.setattr(knowgen, "OUT_DIR", str(tmp_path / "default"))
    return full


def test_the_table_regenerates_here_when_this_is_the_machine_it_names(tmp_path, _default_output_elsewhere):
    full = _default_output_elsewhere
    rows, version = gen_errno.rows_here()
    assert ("ENOTSUPP", 524) in [r[:2] for r in rows]  # the kernel's own code, not in Python's table
    assert version.endswith("; Linux include/linux/errno.h: ENOTSUPP 524")
    if version != full["header"]["version"]:
        pytest.skip("another Python or C library than the committed table's: %s" % version)
    out = tmp_path / "errno.json"
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        assert gen_errno.main(["-o", str(out)]) == 0
    assert printed.getvalue().startswith(str(out) + ": %d codes, " % len(full["sites"]))
    with open(out) as f:
        got = json.load(f)
    assert {k: v for k, v in got["header"].items() if k != "date"} == \
        {k: v for k, v in full["header"].items() if k != "date"}
    assert got["sites"] == full["sites"] and got["unassigned"] == full["unassigned"]


def test_the_slice_regenerates_its_committed_codes(tmp_path, _default_output_elsewhere):
    got = knowgen.regenerated(gen_errno.main, os.path.join(REPO, "tools", "data", "errno_slice.tsv"),
                              tmp_path / "errno.json")
    full = {s["id"]: s for s in _default_output_elsewhere["sites"]}
    assert len(got["sites"]) == 4 and all(s == full[s["id"]] for s in got["sites"])


def test_build_matchers_and_meanings():
    name = next(n for n in gen_errno.MEANS if n in gen_errno.FAMILIES)
    rows = [(name, 28, "No space left on device"), ("EXYZ", 7, "Short text"), ("EABC", 9, "x" * 22)]
    doc = gen_errno.build(rows, "v1")
    a, b, c = doc["sites"]
    assert doc["header"]["version"] == "v1" and doc["header"]["generator"] == gen_errno.GENERATOR
    assert a["id"] == "errno.%s" % name.lower() and a["code"] == 28 and a["family"] == gen_errno.FAMILIES[name]
    assert a["rule"] == "FAMILIES[%s]" % name
    assert (a["means"], a["fix"]) == (gen_errno.MEANS[name][0], list(gen_errno.MEANS[name][1]))
    assert b["family"] is None and b["rule"] is None and "means" not in b
    for text in ("[Errno 7] Short text", "Short text (errno: 7)", "Short text (errno 7)", "Short text (7)",
                 "errno=7, Short text", "errno: 7 while Short text"):
        assert re.search(b["re"], text), text
    for text in ("Short text", "[Errno 8] Short text", "Short text (70)"):  # too common alone; another code
        assert not re.search(b["re"], text), text
    assert re.search(c["re"], "x" * 22) and not re.search(b["re"], "Short text")  # 22 characters: alone too
    assert not re.search(gen_errno.build([("E", 9, "x" * 21)], "v")["sites"][0]["re"], "x" * 21)


def test_main_writes_the_committed_files_name_by_default(tmp_path):
    with contextlib.redirect_stdout(io.StringIO()):
        gen_errno.main(["--slice", os.path.join(REPO, "tools", "data", "errno_slice.tsv")])
    assert (tmp_path / "default" / "errno.json").exists()  # knowgen.OUT_DIR, moved here by the fixture

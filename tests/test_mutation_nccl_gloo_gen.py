"""tools/gen_nccl_messages.py and tools/gen_gloo_messages.py (MSG_FIX rows' lookup, the ibvwrap
macro sites, knowgen.stale_fixes), against a mutation run (docs/mutation.md, "This round's new code,
third pass"): before these tests no test ran either generator in the test's own process
(test_explain_nccl_sites.py reads the committed tables), so a mutation tool saw none of their code
tested. Here each regenerates its recorded slice (tools/data/*_slice.txt) in-process and is compared
site by site with the committed table; the macro reader is fed a small file in the form of NVIDIA/nccl
src/misc/ibvwrap.cc (`#define IBV_PTR_CHECK_ERRNO(..., name) ... WARN("Call to " name " failed with
error %s", ...)`, used with a string literal for `name`); main's stale-row check runs with the
repository reader replaced by the slice. ~0.2 s."""

import os
import re
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tools"))

import gen_gloo_messages as gloo  # noqa: E402
import gen_nccl_messages as nccl  # noqa: E402
import knowgen  # noqa: E402

SLICES = os.path.join(REPO, "tools", "data")


@pytest.mark.parametrize("gen, name, n, fixed", [(nccl, "nccl_messages", 27, 16), (gloo, "gloo_messages", 3, 1)])
def test_the_slice_regenerates_its_committed_sites(gen, name, n, fixed, tmp_path):
    got = knowgen.regenerated(gen.main, os.path.join(SLICES, name + "_slice.txt"), tmp_path / "out.json")
    full = knowgen.committed(name)
    assert got["header"]["source"] == full["header"]["source"]
    assert got["header"]["version"] == full["header"]["version"].split(";")[0]  # (the full table adds --older's)
    assert len(got["sites"]) == n and sum(1 for s in got["sites"] if s.get("fix")) == fixed
    by_text = {}
    for s in full["sites"]:
        by_text.setdefault((s.get("level") or s.get("kind"), s["text"]), s)
    for s in got["sites"]:
        want = by_text[(s.get("level") or s.get("kind"), s["text"])]
        if want["id"] != s["id"]:  # the whole tree prints this format first in another file: one site there
            want = dict(want, id=s["id"], where=s["where"])
        assert s == want, s["id"]
    assert got["unassigned"] == sorted(s["id"] for s in got["sites"] if not s.get("family"))


IBVWRAP = r'''#include "ibvwrap.h"
#define IBV_CHECK(call, retval, name) \
  retval = call; \
  if (retval == NULL) { WARN("Call to " name " failed with error %s", strerror(errno)); return ncclSystemError; }
#define IBV_INFO(call, name) do { \
  if (call != 0) { INFO(NCCL_NET, "Call to " name " failed: device gone"); } } while (0)
#define IBV_PLAIN(call, name) do { if (call != 0) { WARN("ibv call failed: %s", name); } } while (0)
#define NO_LOG(call, name) do { call; } while (0)
ncclResult_t wrap_ibv_open_device(struct ibv_context** ret, struct ibv_device* device) {
  IBV_CHECK(ibv_internal_open_device(device), *ret, "ibv_open_device");
  IBV_CHECK(ibv_internal_alloc_pd(device),
            *ret, "ibv_alloc_pd");
  IBV_CHECK(other(device), *ret, name_in_a_variable);
  IBV_CHECK(too_few, "ibv_x");
  XIBV_CHECK(a, b, "ibv_not_this_macro");
  IBV_INFO(ibv_internal_close(device), "ibv_close_device");
  IBV_PLAIN(ibv_internal_foo(device), "ibv_foo");
  NO_LOG(ibv_internal_bar(device), "ibv_bar");
}
'''


def test_a_macro_that_joins_its_name_parameter_gives_a_site_per_use():
    assert list(nccl.sites_of("src/misc/ibvwrap.cc", IBVWRAP)) == [
        ("WARN", "src/misc/ibvwrap.cc:4", "Call to "),               # the #define's own call: too vague alone
        ("WARN", "src/misc/ibvwrap.cc:7", "ibv call failed: %s"),    # a name passed as an argument: one site
        ("WARN", "src/misc/ibvwrap.cc:10", "Call to ibv_open_device failed with error %s"),
        ("WARN", "src/misc/ibvwrap.cc:11", "Call to ibv_alloc_pd failed with error %s"),  # at the use's first line
        ("INFO", "src/misc/ibvwrap.cc:16", "Call to ibv_close_device failed: device gone"),
    ]
    # the uses become sites with their own family and fix; the #define's call stays unassigned
    doc = nccl.build([("src/misc/ibvwrap.cc", IBVWRAP)], "test")
    sites = {s["text"]: s for s in doc["sites"]}
    assert sites["Call to "]["re"] is None and sites["Call to "]["family"] is None
    reg = sites["Call to ibv_open_device failed with error %s"]
    assert reg["id"] == "nccl.warn.src_misc_ibvwrap_cc_10" and reg["family"] and reg["fix"]
    assert doc["header"]["version"] == "test" and doc["results"] is nccl.RESULTS_FALLBACK


def test_an_older_release_adds_only_the_formats_it_alone_prints():
    new = [("src/a.cc", 'void f() { WARN("Connection closed by remote peer %s", x); }\n')]
    old = [("src/a.cc", 'void f() {\n WARN("Connection closed by remote peer %s", x);\n'
                        ' WARN("NET/Socket : message truncated : receiving %d bytes instead of %d", a, b); }\n')]
    doc = nccl.build(new, "2.30.7", older=[("2.11.4", old)])
    assert [(s["id"], s.get("until")) for s in doc["sites"]] == [
        ("nccl.warn.src_a_cc_1", None), ("nccl.warn.v2_11_4.src_a_cc_3", "2.11.4")]
    assert doc["header"]["version"] == "2.30.7; formats only older releases print, from 2.11.4"
    assert doc["sites"][1]["fix"] and doc["sites"][1]["means"]  # its MSG_FIX row (the 2.4-2.11 wording)


def _main_over_the_slice(gen, name, monkeypatch, tmp_path, rows):
    files = knowgen.read_slice(os.path.join(SLICES, name + "_slice.txt"))
    monkeypatch.setattr(gen, "from_repo", lambda repo, rev: files)
    monkeypatch.setattr(gen, "MSG_FIX", rows)
    return gen.main(["--repo", str(tmp_path), "-o", str(tmp_path / "out.json")])


@pytest.mark.parametrize("gen, name", [(nccl, "nccl_messages"), (gloo, "gloo_messages")])
def test_main_stops_when_a_fix_row_finds_no_site(gen, name, monkeypatch, tmp_path, capsys):
    got = knowgen.regenerated(gen.main, os.path.join(SLICES, name + "_slice.txt"), tmp_path / "slice.json")
    used = [r for r in gen.MSG_FIX if any(s.get("fix") and re.search(r[0], s["text"])
                                          for s in got["sites"])]
    assert used
    assert _main_over_the_slice(gen, name, monkeypatch, tmp_path, used) == 0
    capsys.readouterr()
    stale = used + [(r"^a message NCCL no longer prints", "gone", ["x"]), (r"^another one", "gone", ["y"])]
    with pytest.raises(SystemExit) as e:
        _main_over_the_slice(gen, name, monkeypatch, tmp_path, stale)
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.rstrip().endswith("MSG_FIX entries match no assigned site of this revision: ^a message NCCL no longer "
                                 "prints; ^another one"), err


def test_give_fix_takes_the_first_matching_row_for_an_assigned_site():
    rows = [(r"^no", "m0", ["f0"]), (r"socket", "m1", ["f1", "f2"]), (r"interface", "m2", ["f3"])]
    site = {"family": "nccl.socket"}
    knowgen.give_fix(site, rows, "no socket interface found")
    assert site == {"family": "nccl.socket", "means": "m0", "fix": ["f0"]}
    site = {"family": "nccl.socket"}
    knowgen.give_fix(site, rows, "a socket interface")
    assert site["means"] == "m1" and site["fix"] == ["f1", "f2"] and site["fix"] is not rows[1][2]
    site = {"family": None}
    knowgen.give_fix(site, rows, "socket")
    assert site == {"family": None}
    site = {"family": "x"}
    knowgen.give_fix(site, rows, "the text matches none")
    assert site == {"family": "x"}

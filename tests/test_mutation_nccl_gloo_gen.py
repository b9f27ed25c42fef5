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


@pytest.fixture(autouse=True)
def _default_output_elsewhere(tmp_path, monkeypatch):
    """A generator that lost its -o writes in tmp_path, never over a committed table (in a
    mutation run's copy one mutant would otherwise change what every later test compares with)."""
    cache = {name: knowgen.committed(name) for name in ("nccl_messages", "gloo_messages")}
    monkeypatch.setattr(knowgen, "committed", cache.__getitem__)
    monkeypatch.setattr(knowgen, "OUT_DIR", str(tmp_path / "default"))


@pytest.mark.parametrize("gen, name, n, fixed", [(nccl, "nccl_messages", 30, 21), (gloo, "gloo_messages", 3, 1)])
def test_the_slice_regenerates_its_committed_sites(gen, name, n, fixed, tmp_path):
    got = knowgen.regenerated(gen.main, os.path.join(SLICES, name + "_slice.txt"), tmp_path / "out.json")
    full = knowgen.committed(name)
    for k in ("source", "generator", "note"):
        assert got["header"][k] == full["header"][k], k
    assert got["header"]["version"] == full["header"]["version"].split(";")[0]  # (the full table adds --older's)
    assert len(got["sites"]) == n and sum(1 for s in got["sites"] if s.get("fix")) == fixed
    by_text = {}
    for s in full["sites"]:
        by_text.setdefault((s.get("level") or s.get("kind"), s["text"]), s)
    for s in got["sites"]:
        want = by_text[(s.get("level") or s.get("kind"), s["text"])]
        if want["where"] != s["where"]:  # the whole tree prints this format first in another file: one site there
            want = dict(want, id=s["id"], where=s["where"])
        assert s == want, s["id"]
    assert got["unassigned"] == sorted(s["id"] for s in got["sites"] if not s.get("family"))


IBVWRAP = r"""
#include "ibvwrap.h"
#define IBV_PLAIN(call, name) do { if (call != 0) { WARN("ibv call failed: %s", name); } } while (0)
#define IBV_CHECK(call, retval, name) \
  retval = call; \
  if (retval == NULL) { WARN("Call to " name " failed with error %s", strerror(errno)); return ncclSystemError; }
#define IBV_INFO(call, name) do { \
  if (call != 0) { INFO(NCCL_NET,"Call to " name " failed: device gone"); } } while (0)
#define IBV_NS(call,name) do { if (call) WARN("Call to " name " went wrong"); } while (0)
#define NO_LOG(call, name) do { call; } while (0)
ncclResult_t wrap_ibv_open_device(struct ibv_context** ret, struct ibv_device* device) {
  IBV_CHECK(ibv_internal_open_device(device), *ret, "ibv_open_device");
  IBV_CHECK(ibv_internal_alloc_pd(device),
            *ret, "ibv_alloc_pd");
  IBV_CHECK(other(device), *ret, name_in_a_variable);
  IBV_CHECK(too_few, "ibv_x");
  XIBV_CHECK(a, b, "ibv_not_this_macro");
  IBV_CHECK(ibv_internal_dereg_mr(mr), *ret, "ibv_dereg_mr");
  IBV_INFO(ibv_internal_close(device), "ibv_close_device");
  IBV_PLAIN(ibv_internal_foo(device), "ibv_foo");
  IBV_NS(ibv_internal_ns(device), "ibv_ns");
  NO_LOG(ibv_internal_bar(device), "ibv_bar");
  INFO(NCCL_INIT|NCCL_NET "a", "no comma in the first argument's place failed");
  INFO(NCCL_NET, "a failed message after it");
}
"""


def test_a_macro_that_joins_its_name_parameter_gives_a_site_per_use():
    assert list(nccl.sites_of("src/misc/ibvwrap.cc", IBVWRAP)) == [
        ("WARN", "src/misc/ibvwrap.cc:3", "ibv call failed: %s"),    # a name passed as an argument: one site
        ("WARN", "src/misc/ibvwrap.cc:6", "Call to "),               # the #define's own call: too vague alone
        ("WARN", "src/misc/ibvwrap.cc:9", "Call to "),
        ("INFO", "src/misc/ibvwrap.cc:24", "a failed message after it"),
        ("WARN", "src/misc/ibvwrap.cc:12", "Call to ibv_open_device failed with error %s"),
        ("WARN", "src/misc/ibvwrap.cc:13", "Call to ibv_alloc_pd failed with error %s"),  # at the use's first line
        ("WARN", "src/misc/ibvwrap.cc:18", "Call to ibv_dereg_mr failed with error %s"),  # after uses it skips
        ("INFO", "src/misc/ibvwrap.cc:19", "Call to ibv_close_device failed: device gone"),
        ("WARN", "src/misc/ibvwrap.cc:21", "Call to ibv_ns went wrong"),  # parameters without blanks
    ]
    # the uses become sites with their own family and fix; the #define's call stays unassigned
    doc = nccl.build([("src/misc/ibvwrap.cc", IBVWRAP)], "test")
    sites = {s["id"]: s for s in doc["sites"]}
    assert sites["nccl.warn.src_misc_ibvwrap_cc_6"]["re"] is None
    assert sites["nccl.warn.src_misc_ibvwrap_cc_6"]["family"] is None
    reg = sites["nccl.warn.src_misc_ibvwrap_cc_12"]
    assert reg["text"] == "Call to ibv_open_device failed with error %s" and reg["family"] and reg["fix"]
    assert doc["header"]["version"] == "test" and doc["results"] is nccl.RESULTS_FALLBACK
    assert doc["header"]["generator"] == nccl.GENERATOR and doc["header"]["note"].startswith(
        "WARN(...) and failure INFO(...) format strings of NCCL's src/; families from the RULES table of the generator")


def test_short_formats_match_only_after_nccls_prefix():
    src = ('void f() {\n WARN("Failed to send: %d", a);\n WARN("Unable to write: %s", b);\n'
           ' WARN("NVLS failed: %s", c);\n WARN("Failed to open %s", d);\n}\n')
    sites = {s["text"]: s for s in nccl.build([("src/a.cc", src)], "t")["sites"]}
    short, long_, own, generic = (sites[t] for t in ("Failed to send: %d", "Unable to write: %s", "NVLS failed: %s",
                                                     "Failed to open %s"))
    assert short["re"].startswith(nccl._CONTEXT) and short["re"] != nccl._CONTEXT  # 13 characters of literal
    assert not long_["re"].startswith(nccl._CONTEXT)  # 14: matches alone
    assert not own["re"].startswith(nccl._CONTEXT)  # names NCCL's own thing
    assert generic["rule"] == "too-generic" and generic["re"] is None and "fix" not in generic


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


def test_main_defaults(monkeypatch, tmp_path):
    files = nccl.from_slice(os.path.join(SLICES, "nccl_messages_slice.txt"))
    asked = []
    monkeypatch.setattr(nccl, "from_repo", lambda repo, rev: asked.append(("repo", repo, rev)) or files)
    monkeypatch.setattr(nccl, "older_releases", lambda repo, rev: asked.append(("older", repo, rev)) or [])
    monkeypatch.setattr(nccl, "MSG_FIX", [])
    monkeypatch.setattr(knowgen, "OUT_DIR", str(tmp_path))
    assert nccl.main(["--repo", "/x/nccl", "--older"]) == 0
    assert asked == [("repo", "/x/nccl", "HEAD"), ("older", "/x/nccl", "HEAD")]
    assert (tmp_path / "nccl_messages.json").exists()  # the default output's name
    asked.clear()
    nccl.main(["--repo", "/x/nccl", "--rev", "v2.30.7-1"])
    assert asked == [("repo", "/x/nccl", "v2.30.7-1")]  # no --older: no older releases read


def test_gloo_short_io_messages_match_only_after_gloos_prefix():
    src = ('void f() {\n  GLOO_THROW_IO_EXCEPTION("Read timeout ", peer_.str());\n'
           '  GLOO_THROW_IO_EXCEPTION("Connect timeout, address ", a, " unreachable");\n'
           '  GLOO_ENFORCE_EQ(x, y, "Mismatch here");\n}\n')
    sites = gloo.build([("gloo/transport/tcp/pair.cc", src)], "commit x")["sites"]
    assert [(s["id"], s["kind"], s["family"], s["rule"]) for s in sites] == [
        ("gloo.io.gloo_transport_tcp_pair_cc_2", "io", "gloo.timeout", "timeout"),
        ("gloo.io.gloo_transport_tcp_pair_cc_3", "io", "gloo.timeout", "timeout"),
        ("gloo.enforce.gloo_transport_tcp_pair_cc_4", "enforce", "gloo.enforce", "enforce")]
    prefix = r"\[[^\]\n]{0,200}\.(?:cc|h):\d{1,6}\] [^\n]{0,200}?"
    assert sites[0]["re"].startswith(prefix)  # 'Readtimeout' (11): GLOO_ERROR_MSG's prefix first
    assert not sites[1]["re"].startswith(prefix) and not sites[2]["re"].startswith(prefix)
    # the prefix as gloo prints it (gloo/common/error.h: "[" __FILE__ ":" __LINE__ "] ")
    assert re.search(sites[0]["re"], "[../third_party/gloo/gloo/transport/tcp/pair.cc:598] Read timeout [10.0.0.2]:1")
    assert not re.search(sites[0]["re"], "Read timeout [10.0.0.2]:1")


def test_gloo_main_defaults(monkeypatch, tmp_path):
    files = knowgen.read_slice(os.path.join(SLICES, "gloo_messages_slice.txt"))
    asked = []
    monkeypatch.setattr(gloo, "from_repo", lambda repo, rev: asked.append((repo, rev)) or files)
    monkeypatch.setattr(gloo, "MSG_FIX", [])
    monkeypatch.setattr(knowgen, "OUT_DIR", str(tmp_path))
    assert gloo.main(["--repo", "/x/gloo"]) == 0
    assert asked == [("/x/gloo", "HEAD")] and (tmp_path / "gloo_messages.json").exists()


def test_gloo_repeated_vague_and_boundary_formats():
    src = ('void f() {\n  GLOO_THROW_IO_EXCEPTION("Read timeout ", a);\n  GLOO_THROW_IO_EXCEPTION("Read timeout ", b);\n'
           '  GLOO_THROW_IO_EXCEPTION("Oops ", c);\n  GLOO_THROW_IO_EXCEPTION("Socket went away!", d);\n'
           '  GLOO_THROW_IO_EXCEPTION("Socket went away!!", d);\n}\n')
    sites = gloo.build([("gloo/x.cc", src)], "c")["sites"]
    # one site per format (the first place); a format too vague to match is listed, never guessed
    assert [(s["id"], s["rule"]) for s in sites] == [
        ("gloo.io.gloo_x_cc_2", "timeout"), ("gloo.io.gloo_x_cc_4", "no literal anchor of 8+ characters"),
        ("gloo.io.gloo_x_cc_5", "io"), ("gloo.io.gloo_x_cc_6", "io")]
    assert sites[1]["re"] is None and sites[1]["family"] is None
    prefix = r"\[[^\]\n]{0,200}\.(?:cc|h):\d{1,6}\] [^\n]{0,200}?"
    assert sites[2]["re"].startswith(prefix) and not sites[3]["re"].startswith(prefix)  # 15 and 16 characters


def test_nccl_versions_of_several_older_releases_and_info_lines():
    new = [("src/a.cc", 'void f() { INFO(NCCL_INIT, "all good here"); INFO(NCCL_NET, "Send failed badly %d", x); }\n')]
    old = [("src/a.cc", 'void f() {\n WARN("Connection closed by remote peer %s", x);\n}\n')]
    doc = nccl.build(new, "2.30.7", older=[("2.11.4", old), ("2.10.3", old)])
    assert doc["header"]["version"] == "2.30.7; formats only older releases print, from 2.11.4, 2.10.3"
    assert [s["text"] for s in doc["sites"]] == ["Send failed badly %d", "Connection closed by remote peer %s"]


def test_nccl_skips_windows_files_and_calls_without_a_literal():
    files = [("src/os/windows_net.cc", 'void f() { WARN("Windows socket failed %d", e); }\n'),
             ("src/a.cc", 'void f() { WARN(msg); WARN("Socket poll failed badly %d", e); }\n')]
    assert [(s["where"], s["text"]) for s in nccl.build(files, "t")["sites"]] == [
        ("src/a.cc:1", "Socket poll failed badly %d")]

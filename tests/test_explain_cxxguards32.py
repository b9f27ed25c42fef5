"""explain-cxxguards32 (issue 18): torch's C++ checks (TORCH_CHECK and its forms, C10_THROW_ERROR, message constants)
as generated/cxx_guards.json.gz (tools/gen_cxx_guards.py, from the torch 2.13.0+cpu wheel's headers and
c10/core/Device.cpp), and what explain answers with them on real recordings
(fixtures/recorded/explain-cxxguards32/, README.md there says how they were made)."""

import gzip
import json
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import gen_cxx_guards as gen  # noqa: E402

from gpudoctor.explain import explain_text, load_knowledge  # noqa: E402

TABLE = os.path.join(ROOT, "gpudoctor", "data", "knowledge", "generated", "cxx_guards.json.gz")
REC = os.path.join(ROOT, "fixtures", "recorded", "explain-cxxguards32")


def _table():
    with gzip.open(TABLE, "rt", encoding="utf-8") as f:
        return json.load(f)


def _explain(name):
    with open(os.path.join(REC, name), encoding="utf-8") as f:
        return explain_text(f.read(), load_knowledge(), source=name)["findings"][0]


# ---------------------------------------------------------------- the reading of C++ source

SRC = r'''
namespace c10 {
Device::Device(const std::string& device_string) : Device(Type::CPU) {
  TORCH_CHECK(!device_string.empty(), "Device string must not be empty");
  // a comment "with a string" TORCH_CHECK(false, "not a site")
  if (mode == 2) {
    TORCH_CHECK_VALUE(false, "mode two is not supported for ", device_string, " devices");
  } else {
    C10_THROW_ERROR(IndexError, "index " + std::to_string(i) + " is past the end of the list");
  }
}
inline void check_dims(const Tensor& self, int64_t k) {
  TORCH_CHECK(self.dim() == 4, "expected a 4-D input tensor but got ", self.dim(), " dimensions");
  TORCH_CHECK(k >= 0);
}
constexpr auto kFooTimeoutErrorStr = "Foo ran for more than set timeout ({} ms) and gave up";
}
'''


def test_sites_of_reads_each_check_its_function_and_condition():
    rows = {r["text"]: r for r in gen.sites_of("c10/core/Device.cpp", SRC)}
    assert "not a site" not in " ".join(rows)  # (a comment's text is no site)
    r = rows["Device string must not be empty"]
    assert (r["func"], r["guard"], r["kind"], r["negated"]) == ("Device::Device", "!device_string.empty()",
                                                               "RuntimeError", True)
    r = rows["mode two is not supported for %s devices"]
    assert (r["kind"], r["guard"], r["negated"]) == ("ValueError", "mode == 2", False)
    r = rows["index %s is past the end of the list"]
    assert (r["kind"], r["guard"]) == ("IndexError", "!(mode == 2)")  # (the else branch of the if above)
    r = rows["expected a 4-D input tensor but got %s dimensions"]
    assert (r["func"], r["guard"]) == ("check_dims", "self.dim() == 4")
    assert "Expected k >= 0 to be true, but got false." in rows  # (TORCH_CHECK without a message)
    assert "Foo ran for more than set timeout (%s ms) and gave up" in rows  # (a message constant, {} a value)


@pytest.mark.parametrize("cond,want", [
    ("device_index >= 0", "device_index >= 0 (not negative)"),
    ("self.is_contiguous()", "self contiguous (call .contiguous() on it first)"),
    ("self.dim() == 4", "self with 4 dimensions"),
    ("!tensors.empty()", "tensors not empty"),
    ("a.device() == b.device()", "a on the device b.device() (.to(...) both alike)"),
    ("a > 0 && b > 0", None),  # (two conditions: not one thing to say)
])
def test_wants_reads_the_condition(cond, want):
    assert gen.wants(cond) == want


def test_piece_format_joins_literals_and_makes_values_wildcards():
    assert gen.piece_format('"a" "b%"') == "ab%%"
    assert gen.piece_format("c10::str(\"x=\", x, \" y\")") == "x=%s y"
    assert gen.piece_format("foo(bar)") == "%s"


# ---------------------------------------------------------------- the committed table

def test_table_has_the_device_rpc_and_arg_parser_sites_with_their_families():
    by_text = {s["text"]: s for s in _table()["sites"]}
    s = by_text["Invalid device string: '%s'"]
    assert (s["family"], s["func"], s["guard"], s["in_wheel"]) == ("torch.usage", "Device::Device", "!has_error", True)
    assert "'cuda:0'" in s["fix"][0]
    s = by_text["RPC ran for more than set timeout (%s ms) and will now be marked with an error"]
    assert s["family"] == "torch.rpc_timeout" and "timeout=" in s["fix"][0]
    s = by_text["Device index must not be negative"]
    assert (s["guard"], s["wants"]) == ("device_index >= 0", "device_index >= 0 (not negative)")


def test_arg_parser_sites_read_from_the_recorded_cpp_and_found_in_the_wheel():
    by_text = {s["text"]: s for s in _table()["sites"]}
    s = by_text["%s(): argument '%s' (position %ld) must be %s, not %s"]
    assert (s["family"], s["func"], s["kind"], s["in_wheel"]) == ("torch.usage", "FunctionSignature::parse",
                                                                  "TypeError", True)
    assert s["guard"] == "raise_exception && !(is_kwd)"  # (its `else if (raise_exception)`, then the else of is_kwd)
    assert "{%2|" in s["fix"][0]  # (the argument's name from the message)
    # the wheel prints these with {} (fmt) where the recorded source has %ld: the pieces between values still match
    assert gen.literal_pieces("%s(): argument '%s' (position %ld) must be %s, not %s") == [
        "(): argument '", "' (position", ") must be"]


def test_every_assigned_site_is_in_the_wheel_and_its_matcher_is_bounded():
    for s in _table()["sites"]:
        if s.get("family") or s.get("hint"):
            assert s["in_wheel"] in (True, "cuda-only"), s["id"]
        assert not re.search(r"(?<!\\)[*+](?!\?)", s["re"].replace("\\*", "").replace("\\+", "")), s["id"]
        assert len(re.findall(r"\{0,\d+\}", s["re"])) <= gen.MAX_GAPS


def test_regenerated_from_the_slice_gives_the_committed_rows(tmp_path):
    out = tmp_path / "cxx.json"
    subprocess.run([sys.executable, os.path.join(ROOT, "tools", "gen_cxx_guards.py"), "--slice",
                    os.path.join(ROOT, "tools", "data", "cxx_guards_slice.txt.gz"), "-o", str(out)], check=True,
                   capture_output=True)
    got = {(s["where"], s["text"]): (s.get("family"), s.get("hint"), s["guard"], s.get("wants"))
           for s in json.loads(out.read_text())["sites"] if s.get("family") or s.get("hint")}
    want = {(s["where"], s["text"]): (s.get("family"), s.get("hint"), s["guard"], s.get("wants"))
            for s in _table()["sites"] if s.get("family") or s.get("hint")}
    assert got == want


# ---------------------------------------------------------------- explain on the real recordings

@pytest.mark.parametrize("name,family,words", [
    ("device_str.txt", "torch.usage", "'cuda:0'"),  # torch.device('0')
    ("set_device_str.txt", "torch.usage", "torch.cuda.set_device(0)"),  # (was code.exception)
    ("device_type.txt", "torch.usage", "'cuda' (NVIDIA"),  # torch.device('cdua:0')
    ("device_neg.txt", "torch.usage", "LOCAL_RANK"),  # torch.device('cuda', -2)
    ("rpc_timeout.txt", "torch.rpc_timeout", "timeout=SECONDS"),  # 2 TensorPipe workers, rpc_timeout=1
    ("argparse_type.txt", "torch.usage", "pass other as Tensor"),  # torch.add(t, "1"): python_arg_parser.cpp
])
def test_explain_names_the_fix_of_the_cxx_check(name, family, words):
    f = _explain(name)
    assert f["family"] == family
    assert words in f["causes"][0]["fix"][0]

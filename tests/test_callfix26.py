"""callfix26 (issue 18 "name the fix"): the call a library refused and the argument / state its check read.

generated/call_guards.json.gz (tools/gen_call_guards.py, from the torch 2.13.0+cpu, accelerate 1.15.0 and
transformers 5.24.0 wheels) and its reader gpudoctor/explain/callguard.py, on real runs recorded in
fixtures/explain/callfix26/ (torchrun, two gloo processes on CPU; its README says how).
"""

import glob
import gzip
import json
import os
import subprocess
import sys

import pytest

from gpudoctor.explain import callguard
from gpudoctor.explain import explain_text, load_knowledge

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIX = os.path.join(ROOT, "fixtures", "explain", "callfix26")
TABLE = os.path.join(ROOT, "gpudoctor", "data", "knowledge", "generated", "call_guards.json.gz")
TORCH_WHEEL = sorted(glob.glob("/opt/wheels/torch-2.13.0+cpu-*.whl"))


@pytest.fixture(scope="module")
def kb():
    return load_knowledge()


def _sites():
    with gzip.open(TABLE, "rt") as f:
        return json.load(f)["guards"]


def _root(kb, name):
    with open(os.path.join(FIX, name + ".log"), "rb") as f:
        res = explain_text(f.read(), kb, source=name)
    assert res["findings"] and res["findings"][0]["role"] == "root"
    return res["findings"][0]


def _fixes(f):
    return [x for c in f["causes"] for x in c["fix"]]


def test_table_reads_the_guard_and_the_public_call():
    by = {s["where"].rsplit(":", 1)[0] + "|" + s["text"]: s for s in _sites()}
    s = by["torch/distributed/distributed_c10d.py|The arg 'group_size' (%s) must not exceed the world size (%s)"]
    assert s["api"] == ["torch.distributed.distributed_c10d.new_subgroups"]
    assert s["guard"] == "world_size < group_size" and s["params"] == ["group_size"]
    # a private helper: its public callers, and the public call's argument handed on by name
    s = next(v for k, v in by.items() if k.startswith("torch/distributed/distributed_c10d.py|Rank %s is out of range"))
    assert "torch.distributed.distributed_c10d.new_group" in s["api"] and s["params"] == ["ranks"]
    # a function defined under a module-level `if` (device_mesh.py: `if not is_available(): ... else:`)
    s = next(v for k, v in by.items() if k.startswith("torch/distributed/device_mesh.py|Each mesh_dim_name must be"))
    assert s["func"].endswith(".init_device_mesh") and s["params"] == ["mesh_dim_names"]
    # FSDP's constructor argument kept as self._use_orig_params reads as that argument
    assert any("use_orig_params" in x["state"] for x in _sites() if x["package"] == "torch")
    # no family, and no 'sites' (knowledge.py makes patterns of a table's assigned sites)
    with gzip.open(TABLE, "rt") as f:
        assert json.load(f)["sites"] == []
    assert not any(x.get("family") for x in _sites())


@pytest.mark.parametrize("name,call,arg", [
    ("new_subgroups_too_big", "torch.distributed.new_subgroups", "change group_size= (an argument of the call)"),
    ("mesh_dim_names_repeated", "torch.distributed.device_mesh.init_device_mesh", "change mesh_dim_names= ("),
    ("device_id_cuda_on_cpu_build", "torch.distributed.init_process_group", "change device_id= ("),
    ("new_group_rank_out_of_range", "torch.distributed.new_group", "change ranks= ("),
    ("scatter_without_list_on_src", "torch.distributed.scatter", "change scatter_list= ("),
    # send hands its group_dst on to _check_not_self_rank as `rank`
    ("send_to_self", "torch.distributed.send", "change group= (an argument of the call), dst= (an argument of the call), group_dst= ("),
])
def test_fix_names_the_call_and_the_argument(kb, name, call, arg):
    f = _root(kb, name)
    line = next((x for x in _fixes(f) if " refuses this when `" in x), None)
    assert line is not None, _fixes(f)
    assert line.startswith(call + " refuses this when `") and arg in line
    assert "mis.py line " in line  # the user's own call
    assert any("tools/gen_call_guards.py" in n for n in f["notes"])


def test_the_users_call_reaching_another_public_function(kb):
    # the user called broadcast; the check is get_group_rank's (public too): its argument is broadcast's to hand on
    line = next(x for x in _fixes(_root(kb, "broadcast_src_not_in_group")) if " refuses this when `" in x)
    assert line.startswith("your call to broadcast reaches torch.distributed.get_group_rank, which refuses this when")
    assert "change what your call to broadcast hands on as global_rank" in line


def test_message_alone_not_under_another_librarys_frames():
    # a site's words raised in library frames none of which is that site: not this check
    tb = {"msg": "The arg 'group_size' (4) must not exceed the world size (2)",
          "frames": [("/x/site-packages/other/mod.py", 3, "f")]}
    assert callguard.find(tb) is None


def test_documented_words_come_from_param_docs(kb):
    line = next(x for x in _fixes(_root(kb, "new_subgroups_too_big")) if " refuses this when `" in x)
    assert "documented: group_size (torch.distributed.new_subgroups): \u201cThe size of each subgroup." in line


@pytest.mark.parametrize("name", ["mesh_shape_not_world", "broadcast_src_out_of_range"])
def test_nothing_without_an_argument_or_a_python_site(kb, name):
    # the mesh check reads only DeviceMesh's private layout; gloo's broadcast refuses in C++
    assert not any(" refuses this when `" in x for x in _fixes(_root(kb, name)))


def test_healthy_texts_get_nothing(kb):
    paths = sorted(glob.glob(os.path.join(ROOT, "fixtures", "logs", "healthy", "*.log")))[:40]
    assert paths
    for p in paths:
        with open(p, "rb") as f:
            res = explain_text(f.read(), kb, source=os.path.basename(p))
        for f_ in res["findings"]:
            assert not any(" refuses this when `" in x for x in _fixes(f_)), p


def test_find_message_alone_only_when_unambiguous():
    # no frames: the message alone, read the same at every site it matches
    got = callguard.find({"msg": "The arg 'group_size' (4) must not exceed the world size (2)", "frames": []})
    assert got and got[0]["params"] == ["group_size"] and got[1] is None
    assert callguard.find({"msg": "something else entirely", "frames": []}) is None


@pytest.mark.skipif(not TORCH_WHEEL, reason="the torch 2.13.0+cpu wheel is not in /opt/wheels")
def test_generator_reads_the_wheel(tmp_path):
    out = tmp_path / "cg.json"
    subprocess.run([sys.executable, os.path.join(ROOT, "tools", "gen_call_guards.py"), "--wheel", TORCH_WHEEL[-1],
                    "-o", str(out)], check=True, capture_output=True, timeout=300)
    got = {(s["where"], s["guard"]) for s in json.loads(out.read_text())["guards"]}
    want = {(s["where"], s["guard"]) for s in _sites() if s["package"] == "torch"}
    assert got == want

"""callarg29 (issue 18 "name the fix"): the argument of the user's collective call that c10d's check read.

generated/c10d_args.json (tools/gen_c10d_args.py, from the torch 2.13.0+cpu wheel: Utils.hpp's assert helpers,
ProcessGroupGloo.hpp's ops, Types.hpp's options, distributed_c10d.py's collectives) and its reader
gpudoctor/explain/callarg.py, on real runs recorded here (fixtures/recorded/callarg29/: torchrun, two gloo processes
on CPU, torch 2.13.0+cpu; mis.py says what each case calls) and on the seen sets' texts (bench/data).
"""

import glob
import json
import os

import pytest

from gpudoctor.explain import callarg
from gpudoctor.explain import explain_text, load_knowledge

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REC = os.path.join(ROOT, "fixtures", "recorded", "callarg29")
BENCH = os.path.join(ROOT, "bench", "data")


@pytest.fixture(scope="module")
def kb():
    return load_knowledge()


def _text(name):
    with open(os.path.join(REC, name + ".log"), "rb") as f:
        return f.read()


def _case(case_id):
    for path in sorted(glob.glob(os.path.join(BENCH, "explain_heldout_*.jsonl"))):
        with open(path, encoding="utf-8") as f:
            for line in f:
                if ('"%s"' % case_id) in line:
                    row = json.loads(line)
                    if row["id"] == case_id:
                        return row["text"].encode("utf-8")
    raise AssertionError(case_id)


def _root(kb, data):
    res = explain_text(data, kb, source="t")
    assert res["findings"] and res["findings"][0]["role"] == "root"
    return res["findings"][0]


def _lines(f):
    return [x for c in f["causes"] for x in c["fix"] if "c10d's" in x or "its check _ensure" in x
            or "to the NCCL backend" in x]


def test_regenerated_from_the_slice_is_the_committed_table(tmp_path):
    import sys

    sys.path.insert(0, os.path.join(ROOT, "tools"))
    import gen_c10d_args
    import knowgen

    got = knowgen.regenerated(gen_c10d_args.main, gen_c10d_args.SLICE, tmp_path / "c10d_args.json")
    want = knowgen.committed("c10d_args")
    got["header"].pop("date")
    want["header"].pop("date")
    assert got == want


def test_table_reads_the_helpers_ops_and_the_collectives_arguments():
    t = callarg.table()
    assert t["sites"] == [] and t["header"]["version"].startswith("torch 2.13.0+cpu; pytorch/pytorch ProcessGroupNCCL")
    by = {(h["helper"], h["text"]): h for h in t["helpers"]}
    root = by[("assertRootRank", "invalid root rank: ")]
    assert root["test"] == "rank < 0 || rank >= size" and root["reads"] == "rank"
    assert by[("assertScatterInputTensorList", "Incorrect input list size ")]["reads"] == "input"
    assert by[("assertRootTensor", "invalid root tensor: ")]["reads"] == "root_tensor"
    # ProcessGroup.hpp's method (what Python calls), its tensor parameters in order
    assert t["ops"]["scatter"] == {"tensors": ["outputTensors", "inputTensors"], "options": "ScatterOptions",
                                   "root": True}
    assert t["ops"]["all_gather_single"]["tensors"] == ["outputBuffer", "inputBuffer"]
    assert t["ops"]["allreduce"]["root"] is False
    calls = {c["api"]: c for c in t["calls"]}
    # opts.rootRank = group_src, group_src = _canonicalize_group_rank(group, src, group_src, ...)
    assert calls["torch.distributed.broadcast"]["root"] == ["group_src", "src"]
    # group.scatter(output_tensors, input_tensors, opts) with input_tensors = [scatter_list]
    assert calls["torch.distributed.scatter"]["args"] == [["tensor"], ["scatter_list"]]
    assert calls["torch.distributed.all_gather"]["checks"]["_ensure_all_tensors_same_dtype"] == [["tensor_list"],
                                                                                                ["tensor"]]
    assert calls["torch.distributed.all_reduce"]["root"] == []


@pytest.mark.parametrize("name, want", [
    ("reduce_dst_world", ["torch.distributed.reduce hands dst= / group_dst= to ProcessGroupGloo::reduce as "
                          "opts.rootRank", "`rank < 0 || rank >= size`", "a rank in 0 .. world_size - 1",
                          "(it passes dst=world)", "mis.py line 12"]),
    ("broadcast_src_negative", ["torch.distributed.broadcast hands src= / group_src=", "assertRootRank"]),
    ("gather_src_list_short", ["torch.distributed.gather hands gather_list= to ProcessGroupGloo::gather as its "
                               "output tensor list", "a list of exactly world_size tensors",
                               "(it passes gather_list=out)"]),
    ("all_to_all_list_short", ["torch.distributed.all_to_all hands input_tensor_list=",
                               "`inputTensorListSize != static_cast<size_t>(worldSize)`"]),
    ("scatter_uneven", ["torch.distributed.scatter hands tensor= / scatter_list=", "assertSizesMatch",
                        "(it passes tensor=t, scatter_list=parts)"]),
    ("all_gather_sizes_differ", ["torch.distributed.all_gather hands tensor_list= / tensor=", "assertSizesMatch"]),
    ("all_gather_dtype", ["torch.distributed.all_gather hands tensor_list=bufs and tensor=t to its check "
                          "_ensure_all_tensors_same_dtype", "torch.empty_like(t) or dtype=t.dtype"]),
])
def test_recorded_runs_name_the_argument(kb, name, want):
    f = _root(kb, _text(name))
    lines = _lines(f)
    assert len(lines) == 1, lines
    for w in want:
        assert w in lines[0], (w, lines[0])
    assert f["causes"][0]["fix"].index(lines[0]) <= 1  # after the cause's first fix, not buried


def test_callfix26s_recorded_broadcast(kb):
    # callfix26 recorded dist.broadcast(t, src=dist.get_world_size()) and found no Python site for it
    with open(os.path.join(ROOT, "fixtures", "explain", "callfix26", "broadcast_src_out_of_range.log"), "rb") as f:
        lines = _lines(_root(kb, f.read()))
    assert len(lines) == 1 and "torch.distributed.broadcast hands src= / group_src=" in lines[0]


def test_all_gather_short_list_is_not_a_helper_message(kb):
    # 'invalid output tensor list at index 0 (expected length 2, got 1)' is ProcessGroupGloo.cpp's own text, not one
    # of Utils.hpp's helpers: nothing is guessed for it (the existing answer names the fix)
    assert _lines(_root(kb, _text("all_gather_short_list"))) == []


@pytest.mark.parametrize("case_id, want", [
    ("p20-broadcast_src_equals_world", ["torch.distributed.broadcast hands src= / group_src=", "(it passes src=world)",
                                        "0 .. world_size - 1"]),
    ("p2-broadcast_src_out_of_range", ["torch.distributed.broadcast hands src= / group_src="]),
    ("p36-all_gather_output_dtype_mismatch", ["tensor_list=gathered and tensor=emb", "torch.empty_like(emb)",
                                              "dtype=emb.dtype"]),
])
def test_seen_texts(kb, case_id, want):
    lines = _lines(_root(kb, _case(case_id)))
    assert len(lines) == 1
    for w in want:
        assert w in lines[0], (w, lines[0])


def test_no_collective_frame_no_line(kb):
    # the same C++ message without distributed_c10d.py's collective in the traceback (another library's frames):
    # which Python argument became the root rank is not known, nothing is added
    text = _text("reduce_dst_world").replace(b"distributed_c10d.py", b"other_lib.py")
    f = _root(kb, text)
    assert _lines(f) == []


def test_unknown_helper_message_no_line(kb):
    text = _text("reduce_dst_world").replace(b"invalid root rank: 2", b"some other refusal of 2 here")
    res = explain_text(text, kb, source="t")
    assert not any(_lines(f) for f in res["findings"])


def test_healthy_log_nothing(kb):
    text = b"[rank0] step 10 loss 1.23\n[rank1] step 10 loss 1.21\ntraining done\n"
    res = explain_text(text, kb, source="t")
    assert not res["findings"]


def test_hostile_path_is_quoted(kb):
    text = _text("reduce_dst_world").replace(b"/work/main/fixtures/recorded/callarg29/mis.py",
                                             b"/tmp/x$(touch P)/mis.py")
    lines = _lines(_root(kb, text))
    assert lines and "'/tmp/x$(touch P)/mis.py'" in lines[0]


def test_user_expression_only_when_plain():
    row = {"api": "torch.distributed.reduce", "params": ["tensor", "dst", "op", "group", "async_op", "group_dst"]}
    uf = {"src": "dist.reduce(t, dst=os.system('x') or 1, group=g)"}
    assert callarg._bound(uf, row) == {"tensor": "t", "group": "g"}
    assert callarg._bound({"src": "dist.reduce(t, 3)"}, row) == {"tensor": "t", "dst": "3"}


def _guard_lines(f):
    return [x for c in f["causes"] for x in c["fix"] if "not a tuple" in x or "must be distinct" in x
            or "must have the same length" in x]


@pytest.mark.parametrize("name, want", [
    ("mesh_dim_names_no_comma", 'mesh_dim_names=("dp") is the string "dp", not a tuple'),
    ("mesh_2d_one_name_no_comma", 'write mesh_dim_names=("dp_shard",) with the comma'),
])
def test_one_element_tuple_without_its_comma(kb, name, want):
    f = _root(kb, _text(name))
    lines = _guard_lines(f)
    assert len(lines) == 1 and want in lines[0], lines
    fixes = f["causes"][0]["fix"]
    # right after callguard's line for the same check
    assert " refuses this when `" in fixes[fixes.index(lines[0]) - 1]


def test_distinct_entries_from_the_guard(kb):
    for data in (_case("p32-devicemesh_repeated_dim_name"),
                 open(os.path.join(ROOT, "fixtures", "explain", "callfix26", "mesh_dim_names_repeated.log"),
                      "rb").read()):
        lines = _guard_lines(_root(kb, data))
        assert len(lines) == 1 and lines[0].startswith("the entries of mesh_dim_names= must be distinct"), lines


def test_tuple_rule_needs_a_plain_string_and_a_len_test():
    import re

    assert callarg._PAREN_STR.match('("dp")') and callarg._PAREN_STR.match("( 'a-b' )")
    for v in ('("dp",)', "(dp)", '("a b")', '("$(x)")', '("dp") + x'):
        assert not callarg._PAREN_STR.match(v), v
    assert callarg._DISTINCT.search("len(set(ranks)) != len(ranks)")
    assert not callarg._DISTINCT.search("len(set(a)) != len(b)")
    assert re.search(callarg._SAME_LEN, "len(a) != len(b)")


@pytest.mark.parametrize("name, want", [
    # through the private check the collective hands its argument to
    ("batch_isend_irecv_empty", ["torch.distributed.batch_isend_irecv hands p2p_op_list= to its check "
                                 "_check_p2p_op_list, and `p2p_op_list[0]`", "has no elements",
                                 "(it passes p2p_op_list=ops)"]),
    # in the collective itself
    ("barrier_device_ids_empty", ["torch.distributed.barrier reads its argument device_ids=, and `device_ids[0]`",
                                  "(it passes device_ids=ids)"]),
])
def test_index_into_an_empty_argument(kb, name, want):
    f = _root(kb, _text(name))
    lines = [x for c in f["causes"] for x in c["fix"] if "reads its element" in x]
    assert len(lines) == 1, lines
    for w in want:
        assert w in lines[0], (w, lines[0])


def test_index_rule_needs_the_printed_subscript(kb):
    # the same IndexError whose printed line does not index the argument (another statement of the function):
    # nothing is said about the argument
    text = _text("barrier_device_ids_empty").replace(b"device_ids[0])", b"other[0])")
    f = _root(kb, text)
    assert not [x for c in f["causes"] for x in c["fix"] if "reads its element" in x]


def test_index_table_from_the_source():
    t = callarg.table()
    assert t["index"]["_check_p2p_op_list"] == [["p2p_op_list", 0]]
    assert t["index"]["barrier"] == [["device_ids", 0]]
    assert t["checks"]["torch.distributed.batch_isend_irecv"] == {"_check_p2p_op_list": [["p2p_op_list"]]}
    assert t["check_params"]["_check_p2p_op_list"] == ["p2p_op_list"]
    assert t["signature"]["torch.distributed.barrier"][:2] == ["group", "async_op"]


@pytest.mark.parametrize("case_id, want", [
    # torch 2.9's all_gather_into_tensor raises in its own frame; 2.13 made it an alias of all_gather_single
    ("p2-all_gather_into_tensor_size", ["torch.distributed.all_gather_into_tensor hands output_tensor= / "
                                        "input_tensor= to the NCCL backend", "output tensor size must be equal to "
                                        "world_size times input tensor size", "(it passes output_tensor=full"]),
    ("p2-reduce_scatter_shape", ["torch.distributed.reduce_scatter_tensor hands output= / input=",
                                 "`inputTensor.numel() != outputTensor.numel() * size_`",
                                 "(it passes output=shard, input=grads)"]),
    ("p2-nccl_non_contiguous", ["torch.distributed.all_reduce hands tensor= to the NCCL backend",
                                "Tensors must be contiguous", "(it passes tensor=g)"]),
])
def test_nccl_tensor_refusals(kb, case_id, want):
    lines = _lines(_root(kb, _case(case_id)))
    assert len(lines) == 1, lines
    for w in want:
        assert w in lines[0], (w, lines[0])


def test_nccl_table_and_aliases():
    t = callarg.table()
    by = {r["text"]: r for r in t["nccl"]}
    assert by["Tensors must be contiguous"]["reads"] == "tensors"
    assert by["input tensor must be the same size as output size times world size"]["test"] == \
        "inputTensor.numel() != outputTensor.numel() * size_"
    assert by["Input tensor data type is not supported for NCCL process group: "]["reads"] == "input"
    calls = {c["api"]: c for c in t["calls"]}
    alias = calls["torch.distributed.all_gather_into_tensor"]
    assert alias["op"] == "all_gather_single" and alias["args"] == [["output_tensor"], ["input_tensor"]]


def test_patterns_on_untrusted_text_are_bounded():
    # the message and the user's line are untrusted: every pattern callarg runs on them repeats a bounded number of
    # times (no '*', '+' or '{n,}'), as STYLE.md asks of a matcher, so no line can make one run long
    import re

    unbounded = re.compile(r"(?<!\\)[*+]|\{\d+,\}")
    pats = [callarg._PREFIX.pattern, callarg._PAREN_STR.pattern, callarg._INDEX_MSG.pattern]
    pats += [h["re"] for h in callarg.table()["helpers"]] + [r["re"] for r in callarg.table()["nccl"]]
    for p in pats:
        assert not unbounded.search(p), p
    # and the user's line is cut before it is read
    row = {"api": "torch.distributed.reduce", "params": ["tensor", "dst"]}
    assert callarg._bound({"src": "x = 1; " * 20000 + "dist.reduce(t, dst=d)"}, row) == {}


def _grad_lines(f):
    return [x for c in f["causes"] for x in c["fix"] if "autograd refuses" in x]


def test_requires_grad_on_the_users_own_line(kb):
    # p16: `p /= WORLD` on a parameter (check_inplace's is_leaf && requires_grad)
    lines = _grad_lines(_root(kb, _case("p16-allreduce_param_leaf")))
    assert len(lines) == 1 and lines[0].startswith("p is a tensor that requires grad"), lines
    assert "with torch.no_grad():" in lines[0] and "p.data / p.detach()" in lines[0]


@pytest.mark.parametrize("data", [lambda: _case("p34-context_parallel_leaf_buffers_require_grad"),
                                  lambda: _text("context_parallel_buffer_requires_grad")])
def test_requires_grad_under_a_library_call(kb, data):
    # context_parallel(mesh, buffers=[q], ...) resizes the buffers in place: autograd's resize_ check
    lines = _grad_lines(_root(kb, data()))
    assert len(lines) == 1 and lines[0].startswith("your call to context_parallel changes in place"), lines
    assert "x.detach(), or create them with requires_grad=False" in lines[0]


def test_requires_grad_rules_read_the_line():
    assert callarg._AUG.match("    p /= WORLD").group(1) == "p"
    assert callarg._AUG.match("w[0] += 1").group(1) == "w"
    assert not callarg._AUG.match("x == y")
    assert callarg._INPLACE.search("model.weight.add_(d)").group(1) == "model.weight"


def _assert_lines(f):
    return [x for c in f["causes"] for x in c["fix"] if " asserts `" in x]


@pytest.mark.parametrize("case_id, want", [
    ("p34-context_parallel_seq_not_divisible", "your call to context_parallel reaches _generate_indices, which asserts "
     "`seq_length % (world_size * 2) == 0` (its own names, computed from what it was passed): seq_length must be "
     "divisible by world_size * 2"),
    ("p35-timm_auto_augment_policy_string", "your call to create_transform reaches rand_augment_transform, which "
     "asserts `config[0] == 'rand'`"),
])
def test_bare_assert_read_from_the_printed_statement(kb, case_id, want):
    lines = _assert_lines(_root(kb, _case(case_id)))
    assert len(lines) == 1 and lines[0].startswith(want), lines


def test_bare_assert_hostile_statement_not_written(kb):
    data = _case("p35-timm_auto_augment_policy_string").replace(b"assert config[0] == 'rand'",
                                                                 b"assert config[0] == '$(touch M)'")
    assert _assert_lines(_root(kb, data)) == []

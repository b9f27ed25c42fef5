"""words14 (issue 18): settings that make a run slow or different, taken from the documents that say so, and the
distributed symptoms whose causes PyTorch's docs list.

- NCCL's own env page (docs/userguide/source/env.rst of NVIDIA/nccl, read by tools/gen_nccl_env.py into
  gpudoctor/data/nccl_env.json): every variable of its "Debugging" part is a row of settings.py (set to a value other
  than the documented default, a told slowness names it, its own doc sentence quoted);
- torch.set_default_dtype(torch.float64), optimizer foreach=False, torch.profiler left on (its call, its with_stack /
  profile_memory switches, or a warning printed from torch/profiler/profiler.py itself);
- "N as fast" told as slowness;
- DistributedSampler seeded per rank, torch.nn.utils.clip_grad_norm_ under FSDP, dist.reduce read on a rank other
  than dst (the docs of DistributedSampler, FullyShardedDataParallel.clip_grad_norm_ and torch.distributed.reduce).

The texts are written here, in this session's own words (torch is not installed on this machine, so no run made
them): the code and env lines are in the forms the programs and shells print (cited beside each); the profiler's
warning line is the wording of torch/profiler/profiler.py's warn() call in torch 2.11."""

import json
import os
import subprocess
import sys

import pytest

from gpudoctor import data
from gpudoctor.explain import explain_text, settings

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _root(text):
    r = explain_text(text)
    return r, (r["findings"][0] if r["findings"] else None)


def _all(f):
    return "\n".join(c["text"] + " " + " ".join(c["fix"]) for c in f["causes"])


TOLD = [
    # an `env | grep NCCL` dump; the variable is in the Debugging part of NCCL's page and no hand row judges it
    ("All-reduce on this node is half as fast as on its twin next to it.\n$ env | grep NCCL\nNCCL_SHM_DISABLE=0\n"
     "NCCL_NTHREADS=512\nNCCL_CHECK_POINTERS=1\nNCCL_DEBUG=WARN\n", "nccl.env_slows", "NCCL_CHECK_POINTERS"),
    # NCCL's own ENV line (src/misc/param.cc: INFO(NCCL_ENV, "%s set by environment to %s."))
    ("Since the image update our step takes twice as long.\n"
     "n1:88:88 [0] NCCL INFO NCCL_PROTO set by environment to LL\n", "nccl.env_slows", "NCCL_PROTO"),
    # a call in a pasted module
    ("Our trainer is about 4x slower and uses twice the memory since we import the shared utils.\n"
     "# utils.py\nimport torch\ntorch.set_default_dtype(torch.float64)\n", "torch.slow_setting", "set_default_dtype"),
    # an optimizer built in a pasted snippet
    ("With the low-memory settings each step takes 56 ms instead of 30 ms, much slower.\n"
     "opt = torch.optim.AdamW(model.parameters(), lr=3e-4, foreach=False)\n", "torch.slow_setting", "foreach"),
    # the profiler's context manager around the loop
    ("Training got about 50% slower than last month.\n"
     "with torch.profiler.profile(activities=[ProfilerActivity.CUDA], record_shapes=True) as prof:\n"
     "    for step, batch in enumerate(loader):\n", "torch.slow_debug_setting", "profile"),
    # a warning printed from the profiler's own module (warnings.warn's 'file:line: Category: message' form)
    ("Training is much slower than the same script last month, no errors.\n"
     "/opt/venv/lib/python3.12/site-packages/torch/profiler/profiler.py:224: UserWarning: Warning: Profiler clears "
     "events at the end of each cycle.Only events from the current cycle will be reported.\n  _warn_once(\n"
     "step 100 loss 4.6 3.2 ms/step\n", "torch.slow_debug_setting", "profiler"),
]


@pytest.mark.parametrize("text, entry, name", TOLD)
def test_told_slowness_names_the_setting(text, entry, name):
    r, f = _root(text)
    assert f is not None and f["id"] == entry and f.get("from_settings"), r
    assert name.lower() in f["causes"][0]["text"].lower()


@pytest.mark.parametrize("text", [t for t, _e, _n in TOLD])
def test_without_a_told_symptom_no_root(text):
    # the same settings with the user's sentence taken away: a healthy log shows its environment too
    body = text.split("\n", 1)[1]
    r, f = _root(body)
    assert not (f and f.get("from_settings")), r


def test_the_documented_default_is_no_cause():
    # NCCL_NTHREADS=512 is the page's default, NCCL_SHM_DISABLE=0 not the 'set to 1' value: neither is named
    r, f = _root("Our all-reduce is half as fast as on the other node.\nNCCL_NTHREADS=512\nNCCL_SHM_DISABLE=0\n")
    assert f is None or "NCCL_NTHREADS" not in _all(f) and "NCCL_SHM_DISABLE" not in _all(f), r


def test_the_profiler_as_the_users_instrument_is_no_cause():
    # 'the profiler shows' is how the user measured the slowdown, not a profiler left on (review14)
    r, f = _root("The profiler shows the backward pass is slow on 8 GPUs.\n")
    assert not (f and f["id"] == "torch.slow_debug_setting"), r
    r, f = _root("Since we added the profiler around the loop, every step is 3x slower.\n")
    assert f is not None and f["id"] == "torch.slow_debug_setting", r


def test_an_older_releases_default_is_no_cause():
    # env.rst (https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html) states these defaults for older
    # releases only: NCCL_NET_GDR_READ is 1 on NVLink platforms since 2.4.2, NCCL_CUMEM_ENABLE auto-enabled since
    # 2.19; so a value set to today's default is not told as the slowdown's cause (review14)
    r, f = _root("Our all-reduce is half as fast as on the other node.\nNCCL_NET_GDR_READ=1\nNCCL_CUMEM_ENABLE=1\n")
    assert f is None or "NCCL_NET_GDR_READ" not in _all(f) and "NCCL_CUMEM_ENABLE" not in _all(f), r
    sys.path.insert(0, os.path.join(REPO, "tools"))
    import gen_nccl_env

    def default(values):
        rst = "Debugging\n=========\n\nNCCL_X\n------\n\nThe variable.\n\nValues accepted\n^^^^^^^^^^^^^^^\n" + values
        return gen_nccl_env.read_doc_parts(rst)[0]["NCCL_X"].get("doc_default")

    # the page's own sentences (NCCL_NET_GDR_READ, NCCL_CUMEM_ENABLE, NCCL_LL_THRESHOLD, NCCL_PXN_C2C)
    assert default("Before 2.4.2, the default value is 0 for all platforms. Since 2.4.2, the default value is 1 "
                   "for NVLink-based platforms and 0 otherwise.") == "varies"
    assert default("0 or 1. Default is 0 in 2.18 (disabled); since 2.19 this feature is auto-enabled by default "
                   "if the system supports it.") == "varies"
    assert default("The default is 16384 (up to 2.2) or is dependent on the number of ranks (2.3 and later).") == "varies"
    assert default("Default is 1 (since NCCL 2.28; it was 0 in NCCL 2.27).") == "1"
    assert settings.table() and not any(r["id"] == "nccl_doc_nccl_net_gdr_read" for r in settings.table())


def test_generated_rows_come_from_nccls_debugging_part():
    doc = data.load("nccl_env")
    debug = {n for n, e in doc["names"].items() if e.get("doc_part") == "Debugging"}
    assert {"NCCL_PROTO", "NCCL_ALGO", "NCCL_P2P_DISABLE", "NCCL_BUFFSIZE", "NCCL_MAX_NCHANNELS"} <= debug
    assert "NCCL_SOCKET_IFNAME" not in debug and "NCCL_DEBUG" not in debug  # System configuration
    assert "best setting" in doc["doc_parts"]["Debugging"]
    rows = {r["id"]: r for r in settings.table()}
    hand = {k for r in rows.values() if not r.get("generated") for k in r["keys"]}
    gen = {r["keys"][0].upper() for r in rows.values() if r.get("generated") and r["id"].startswith("nccl_doc_")}
    # every Debugging variable no hand row judges, except those whose stated default is an older release's
    assert gen == {n for n in debug if n.lower() not in hand and doc["names"][n].get("doc_default") != "varies"}
    assert rows["nccl_doc_nccl_check_pointers"]["when"] == "!=0"
    assert rows["nccl_doc_nccl_p2p_direct_disable"]["when"] == "=1"


def test_generator_reads_the_pages_parts(tmp_path):
    # a slice of env.rst (NVIDIA/nccl 5067397c, docs/userguide/source/env.rst) kept in tools/data
    sys.path.insert(0, os.path.join(REPO, "tools"))
    import gen_nccl_env

    with open(os.path.join(REPO, "tools", "data", "nccl_env_doc_slice.rst")) as f:
        recs, intro = gen_nccl_env.read_doc_parts(f.read())
    full = data.load("nccl_env")
    assert intro["Debugging"] == full["doc_parts"]["Debugging"]
    for name, rec in recs.items():
        got = {k: v for k, v in full["names"][name].items() if k in rec}
        assert got == rec, name
    assert recs["NCCL_BUFFSIZE"]["doc_default"] == "4194304"
    assert recs["NCCL_P2P_DISABLE"]["doc_sets"] == "1" and recs["NCCL_SOCKET_IFNAME"]["doc_part"] == "System configuration"


def test_as_fast_is_told_slowness():
    assert settings._SLOW.search("our all-reduce is less than half as fast as on the other node")
    assert settings._SLOW.search("it runs at a third as fast")
    assert not settings._SLOW.search("as fast as possible")


DIST = [
    # DistributedSampler's docs: the seed 'should be identical across all processes in the distributed group'
    ("With 2 GPUs the model is worse than with 1 GPU. I counted the distinct samples both ranks saw per epoch: "
     "only 3100 of 4096.\nsampler = DistributedSampler(ds, shuffle=True, seed=rank)\n",
     "torch.no_distributed_sampler", "seed=<the same number"),
    # FullyShardedDataParallel.clip_grad_norm_: the norm over every rank's shard
    ("After moving from DDP to FSDP the grad norm we log is different on the two ranks.\n"
     "torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n", "torch.ranks_diverge", "model.clip_grad_norm_"),
    # torch.distributed.reduce: only rank dst receives the result
    ("Our two ranks log different validation losses every epoch and we use it for early stopping on every rank.\n"
     "dist.reduce(val, dst=0)\n", "torch.metric_differs_ranks", "all_reduce"),
]


@pytest.mark.parametrize("text, entry, fix", DIST)
def test_distributed_words_get_the_documented_cause_first(text, entry, fix):
    r, f = _root(text)
    assert f is not None and f["id"] == entry, r
    assert fix in " ".join(f["causes"][0]["fix"]), f["causes"][0]


NAMED = [
    # slower and twice the memory, no setting shown: the float64 default dtype (8 bytes an element against 4)
    ("Since we import the shared helpers our model trains 4x slower and needs twice the memory. No errors.\n"
     "step 50 loss 4.60 9.2 ms/step\n", "torch.slow_setting", "set_default_dtype"),
    # the optimizer named in the sentence that tells the slowdown
    ("With the optimizer settings from our memory-saving guide a step takes 56 ms instead of 30 ms.\n"
     "step 50 loss 2.87 59.7 ms/step\n", "torch.slow_setting", "foreach"),
]


@pytest.mark.parametrize("text, entry, name", NAMED)
def test_a_slowdown_that_names_the_settings_subject_gets_the_family_answer(text, entry, name):
    r, f = _root(text)
    assert f is not None and f["id"] == entry and f["confidence"] == "family", r
    assert name in _all(f)


def test_naming_the_subject_without_a_slowdown_is_no_answer():
    r, f = _root("We changed the optimizer settings and use twice the memory now, fine for us.\nstep 50 loss 2.87\n")
    assert not (f and f["id"] == "torch.slow_setting"), r


def test_lightnings_tensor_cores_message_is_the_fp32_matmul_setting():
    # Lightning's message on an A100 with float32 matmul precision 'highest' (wording as printed by lightning 2.x,
    # e.g. https://lightning.ai/docs/pytorch/stable/ users' logs; lightning/fabric/accelerators/cuda.py)
    msg = ("You are using a CUDA device ('NVIDIA A100-SXM4-40GB') that has Tensor Cores. To properly utilize them, you "
           "should set `torch.set_float32_matmul_precision('medium' | 'high')` which will trade-off precision for "
           "performance. For more details, read https://pytorch.org/docs/stable/generated/"
           "torch.set_float32_matmul_precision.html#torch.set_float32_matmul_precision\n")
    r, f = _root("Training is much slower than I expected on this A100.\n" + msg)
    assert f is not None and f["id"] == "torch.slow_setting" and "set_float32_matmul_precision('high')" in _all(f), r
    r, f = _root("GPU available: True (cuda), used: True\n" + msg + "Epoch 0: 100%|##########| 50/50\n")
    assert f is None or not f.get("from_settings"), r
    # the message's own `torch.set_float32_matmul_precision('medium' | 'high')` is not read as a setting of 'medium'
    assert [x[:3] for x in settings.read_line(msg)] == [("To properly utilize them, you should set", "on", "said")]


def test_the_same_random_draws_in_every_rank():
    # accelerate's set_seed docs: device_specific differs the seed on each device with the process index
    r, f = _root("On 4 GPUs every rank applies the same random augmentation to its images, step after step.\n"
                 "seed_everything(42)\n")
    assert f is not None and f["id"] == "torch.ranks_same_random", r
    assert "device_specific=True" in " ".join(f["causes"][0]["fix"])


def test_loss_differs_multi_gpu_lists_set_epoch_when_the_sampler_is_there():
    r, f = _root("The loss on 4 GPUs is worse than on 1 GPU after the same number of epochs.\n"
                 "sampler = DistributedSampler(ds, shuffle=True)\n")
    assert f is not None and f["id"] == "torch.loss_differs_multi_gpu", r
    assert "set_epoch" in _all(f)

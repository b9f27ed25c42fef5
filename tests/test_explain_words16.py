"""words16 (issue 18): settings that slow or change a run, from the documents that define them
(tools/gen_runtime_switches.py -> gpudoctor/data/runtime_switches.json), joined to the symptom the user tells.

The texts in tests/data/words16/ are outputs of runs made here (CPU, no GPU on this machine):
- tri.log: tests/data/words16/triton_scale.py run with TRITON_INTERPRET=1 (triton 3.8.0, torch 2.14.1+cu130 on CPU;
  Triton cannot compile for a GPU here, so the interpreter is the only way it runs: 887 ms per call for 2^18 floats);
- jaxrec.log: tests/data/words16/jax_varbatch.py (jax 0.10.2 on CPU) with jax.config.update("jax_log_compiles",
  True), fed batches of 96..127 rows: JAX's own 'Compiling jit(train_step) with global shapes and types ...' for
  every step (0.3-0.8 s of XLA compilation each);
- jaxmiss.log: the same loop (tests/data/words16/jax_varbatch_misses.py) with jax_explain_cache_misses instead: JAX's
  'TRACING CACHE MISS at ...' / '  for train_step defined at ...' / 'different input types' for every step;
- modload.log: an env dump and a torch import with CUDA_MODULE_LOADING=EAGER set (torch 2.14.1+cu130).
The user's sentence on top of each is added here (said in each test); every case is run again without it and must
give no root: a setting with no told symptom is never a root (words14's rule).
"""

import os
import sys

import pytest

from gpudoctor import explain
from gpudoctor.explain import settings
from explainhelp import ANSWERED

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(REPO, "tests", "data", "words16")


def _read(name):
    with open(os.path.join(DATA, name), encoding="utf-8") as f:
        return f.read()


def _nccl_fixture(name):
    with open(os.path.join(REPO, "fixtures", "explain", "nccl-info-h100-2026-11-25", name), encoding="utf-8") as f:
        return f.read()


def _root(text):
    r = explain.explain_text(text)
    f = r["findings"][0] if r["verdict"] in ANSWERED and r["findings"] else None
    return r, f


def _all_text(f):
    return " ".join(c["text"] + " " + " ".join(c["fix"]) for c in f["causes"])


CASES = [
    # (name, told sentence added here, the run's output, root entry, a word its first cause must hold)
    ("triton_interpret", "Our Triton scale kernel is correct but painfully slow in the training job: almost a second "
                         "per call.\n", "tri.log", "torch.slow_debug_setting", "TRITON_INTERPRET"),
    ("jax_recompiles", "Our JAX training loop is very slow: every step takes 0.4-0.9 s although the model is tiny.\n",
     "jaxrec.log", "torch.slow_setting", "compiled for 6 different input shapes"),
    ("jax_cache_misses", "Our JAX training loop is very slow: every step takes 0.7-0.9 s although the model is tiny.\n",
     "jaxmiss.log", "torch.slow_setting", "train_step compiled for 6 different input shapes"),
    ("cuda_module_loading", "Every rank spends ~5 s in its first CUDA call and already holds 1.3 GB of GPU memory "
                            "before any tensor exists.\n", "modload.log", "torch.slow_setting", "CUDA_MODULE_LOADING=EAGER"),
]


@pytest.mark.parametrize("name,told,log,entry,word", CASES, ids=[c[0] for c in CASES])
def test_told_symptom_with_the_setting_is_the_root(name, told, log, entry, word):
    r, f = _root(told + _read(log))
    assert f is not None and f["id"] == entry, (r["verdict"], r.get("root"))
    assert word in f["causes"][0]["text"]
    # without the user's sentence the same output is no failure
    r2, f2 = _root(_read(log))
    assert f2 is None and r2["verdict"] == "no_error"


def test_triton_interpret_is_sure_and_names_the_readme():
    _r, f = _root(CASES[0][1] + _read("tri.log"))
    assert f["confidence"] == "cause"  # the README's words: instead of running on the GPU (a 'high' row, the only one)
    assert "uses the Triton interpreter instead of running on the GPU" in f["causes"][0]["text"]
    assert "unset TRITON_INTERPRET" in f["causes"][0]["fix"][0]


def test_jax_recompile_fix_pads_batches():
    _r, f = _root(CASES[1][1] + _read("jaxrec.log"))
    c = f["causes"][0]
    assert "train_step" in c["text"] and "pad batches" in c["fix"][0] and "JAX_LOG_COMPILES=1" in c["fix"][0]


def test_jax_flag_set_in_code_is_read():
    # jax.config.update is JAX's own way to set a flag (jax/_src/config.py): the value after the name is the setting
    text = ("The training loop is 30x slower than yesterday.\n"
            "import jax\njax.config.update(\"jax_disable_jit\", True)\nstep 10 loss 0.52 step_time 812 ms\n")
    _r, f = _root(text)
    assert f is not None and f["id"] == "torch.slow_debug_setting"
    assert f["causes"][0]["text"].startswith("jax_disable_jit=True (line 3, a call)")
    assert _root(text.split("\n", 1)[1])[1] is None


def test_slow_start_told_alone_answers_the_load_rows():
    # no setting in the text, the same container elsewhere starts fast: the rows of a slow start and of memory held at
    # init (the CUDA page's EAGER bullet) come first, with the env command to compare both jobs
    text = ("Every process spends ~5 s in its first CUDA call and holds ~1.3 GB before any tensor exists; the same "
            "container started from a clean shell: first CUDA op 0.7 s, 620 MiB.\n")
    _r, f = _root(text)
    assert f is not None and f["id"] == "torch.slow_setting" and f["confidence"] == "family"
    assert f["causes"][0]["text"].startswith("CUDA_MODULE_LOADING:")
    assert "CUDA_MODULE_LOADING" in " ".join(f["debug"])


def test_a_run_compared_in_figures_is_a_told_slowness():
    st = settings.State()
    settings._told(st, 1, "The kernel takes 4.7 SECONDS per call in the job; the same script on another node takes "
                          "0.05 ms.")
    assert [t[1] for t in st.told] == ["slow"] and st.told[0][3]
    st = settings.State()
    settings._told(st, 1, "On the other node it takes 1.2 s per step and 1.0 s here.")
    assert st.told == []  # (the figures agree)
    st = settings.State()
    settings._told(st, 1, "The same script takes 2.4 s per step on the old node and 1.0 s here, which is fine.")
    assert st.told == []  # (the user says it is fine)


def test_split_host_identity_on_one_machine_is_the_socket_fallback():
    # the fixture's two ranks set their own NCCL_HOSTID on one H100 VM (its README); the slowness sentence is added
    text = ("all_reduce of 4 MiB takes 40 ms in this job; the same script started without our wrapper takes 0.3 ms.\n"
            + _nccl_fixture("fakehosts-2ranks-default.log"))
    _r, f = _root(text)
    assert f is not None and f["id"] == "nccl.falls_back_to_sockets" and f["confidence"] == "cause"
    c = f["causes"][0]
    assert "one machine (vm)" in c["text"] and "NCCL_HOSTID set to fakenode" in c["text"]
    assert "unset NCCL_HOSTID" in c["fix"][0]
    r2, _f2 = _root(_nccl_fixture("fakehosts-2ranks-default.log"))
    assert r2["verdict"] == "no_error"
    # one node's own log of a job across nodes names one host too, with fewer processes than nRanks: not a split
    # identity (review16)
    node0 = text.replace("nRanks 2 nNodes 2 localRanks 1", "nRanks 4 nNodes 2 localRanks 2")
    _r, f = _root(node0)
    assert f is None or "one machine" not in f["causes"][0]["text"]


def test_env_dump_with_every_new_setting_and_no_complaint_stays_healthy():
    text = "\n".join(["CUDA_MODULE_LOADING=EAGER", "CUDA_CACHE_DISABLE=1", "CUDA_FORCE_PTX_JIT=1",
                      "CUDA_DEVICE_WAITS_ON_EXCEPTION=1", "TRITON_INTERPRET=1", "TRITON_ALWAYS_COMPILE=1",
                      "MLIR_ENABLE_DUMP=1", "JAX_DISABLE_JIT=1", "JAX_DEBUG_NANS=True",
                      "XLA_PYTHON_CLIENT_ALLOCATOR=platform", "epoch 1 done in 12.3 s", ""]) + _read("jaxrec.log")
    r = explain.explain_text(text)
    assert r["verdict"] == "no_error"


def test_every_generated_row_is_in_the_table_after_the_hand_rows():
    ids = [r["id"] for r in settings.table()]
    got = [i for i in ids if i.startswith("runtime_")]
    assert {"runtime_cuda_cuda_module_loading", "runtime_triton_triton_interpret", "runtime_jax_compile",
            "runtime_jax_xla_python_client_allocator", "runtime_jax_jax_disable_jit"} <= set(got)
    assert "runtime_cuda_cuda_launch_blocking" not in got  # (the hand row of settings.toml judges it)
    assert ids.index(got[0]) > ids.index("cuda_launch_blocking")


def test_generator_regenerates_the_committed_rows(tmp_path):
    sys.path.insert(0, os.path.join(REPO, "tools"))
    import gen_runtime_switches
    import knowgen

    got = knowgen.regenerated(gen_runtime_switches.main, os.path.join(REPO, "tools", "data",
                                                                      "runtime_switches_slice.txt"), tmp_path / "o.json")
    from gpudoctor import data

    full = data.load("runtime_switches")
    assert got["header"]["version"] == full["header"]["version"]
    by_id = {s["id"]: s for s in full["sites"]}
    for s in got["sites"]:
        assert by_id.get(s["id"]) == s, s["id"]
    rules = {s["rule"] for s in got["sites"] if s.get("rule")}
    assert rules == {k for k, _t in gen_runtime_switches.RULES}
    assert {s["var"] for s in got["sites"] if s.get("rule") == "interpreter"} == {"TRITON_INTERPRET"}
    assert {s["var"] for s in got["sites"] if s.get("rule") == "load_eager"} == {"CUDA_MODULE_LOADING"}
    assert sum(1 for s in got["sites"] if not s.get("family")) >= 40  # the rest are listed, unassigned


# jax-ml/jax#19213 (https://github.com/jax-ml/jax/issues/19213): its reproducer's output, JAX's device set printed as
# '{cuda(id=0)}' and nvidia-smi's 12626MiB / 16160MiB after one tiny op; the told sentence is jax-ml/jax#19267's
# ("Jax still allocates ~90% of memory when the first jax call is made"), added here
_JAX_19213_OUT = ("{cuda(id=0)}\n"
                  "|   0  Tesla V100-PCIE...  On   | 00000001:00:00.0 Off |                  Off |\n"
                  "| N/A   26C    P0    36W / 250W |  12626MiB / 16160MiB |      0%      Default |\n")


def test_jax_on_a_gpu_with_memory_told_names_its_preallocation():
    told = "Jax still allocates ~90% of memory when the first jax call is made, so too much GPU memory is used.\n"
    _r, f = _root(told + _JAX_19213_OUT)
    assert f is not None and f["id"] == "cuda.oom"
    assert "JAX will preallocate 90%" in _all_text(f) and "XLA_PYTHON_CLIENT_PREALLOCATE=false" in _all_text(f)
    assert _root(_JAX_19213_OUT)[1] is None
    # the issue's own reproducer sets it false before importing jax: the row does not claim what the text undoes
    code = 'import os\nos.environ["XLA_PYTHON_CLIENT_PREALLOCATE"] = "false"\nimport jax\n'
    _r, f = _root(told + code + _JAX_19213_OUT)
    assert f is None or "JAX will preallocate" not in _all_text(f)


# pytorch/pytorch#44828 (https://github.com/pytorch/pytorch/issues/44828): THCudaCheck's line for a kernel with no
# image for the GPU (a K80, sm_37); the env line and the arch-list line (the output of cuda.toml's debug command,
# torch.cuda.get_device_capability() and torch.cuda.get_arch_list()) are added here
_NO_IMAGE = ("THCudaCheck FAIL file=/pytorch/aten/src/ATen/native/cuda/Dropout.cu line=147 error=209 : no kernel image "
             "is available for execution on the device\n")


def test_forced_ptx_jit_is_the_first_cause_of_no_kernel_image_when_set():
    _r, f = _root("$ env | grep CUDA_\nCUDA_FORCE_PTX_JIT=1\n" + _NO_IMAGE)
    assert f is not None and f["id"] == "cuda.no_kernel_image"
    assert f["causes"][0]["text"].startswith("CUDA_FORCE_PTX_JIT=1 (line 2, an environment setting)")
    assert "ignore any CUBIN embedded in an application" in f["causes"][0]["text"]


def test_an_arch_list_holding_the_gpu_points_at_forced_jit():
    _r, f = _root("(3, 7) ['sm_37', 'sm_50', 'sm_60', 'sm_70']\n" + _NO_IMAGE)
    assert f["id"] == "cuda.no_kernel_image"
    assert "arch list holds this GPU's sm_37" in f["causes"][1]["text"]  # after the entry's own first cause
    _r, f = _root("(3, 7) ['sm_50', 'sm_60', 'sm_70']\n" + _NO_IMAGE)
    assert not any("CUDA_FORCE_PTX_JIT" in c["text"] for c in f["causes"])  # the build lacks sm_37: no such cause


# triton-lang/triton#5995 (https://github.com/triton-lang/triton/issues/5995), as posted: the vector-add tutorial
# "crazy slow" on an RTX 4070 (0.03-0.07 GB/s against torch's 8-110), the script setting TRITON_INTERPRET before
# importing triton
TRITON_5995 = """Hi, I'm trying to start the tutorials on Triton-Lang.org. I'm working on the vector-add tutorial, and noticed the performance results to be crazy slow.

vector-add-performance:
       size    Triton       Torch
0    4096.0  0.033637    8.000000
1    8192.0  0.048363   13.714286
2   16384.0  0.055879   27.428571

My code is as follows. I'm running on GeForce RTX 4070 GPU. Please help! Thank you.

import os

os.environ["TRITON_INTERPRET"] = "1"

import triton, torch
import triton.language as tl
"""


def test_triton_5995_names_the_interpreter():
    _r, f = _root(TRITON_5995)
    assert f is not None and f["id"] == "torch.slow_debug_setting"
    assert f["causes"][0]["text"].startswith("TRITON_INTERPRET=1 (line 13, an environment setting)")


def test_nccl_hostid_built_from_the_rank_in_a_wrapper_is_the_cause():
    # the wrapper's line is a shell command substitution ($(hostname)) joined to the rank: read whole; NCCL's
    # getHostHash (src/misc/utils.cc) takes NCCL_HOSTID for the host's identity
    wrapper = "$ cat run.sh\nexport NCCL_HOSTID=$(hostname)-ctr$LOCAL_RANK\nexec python train.py\n"
    assert settings.read_line("export NCCL_HOSTID=$(hostname)-ctr$LOCAL_RANK") == [
        ("NCCL_HOSTID", "$(hostname)-ctr$LOCAL_RANK", "env", 7)]
    _r, f = _root("all_reduce on one 8-GPU box is 40x slower than with plain torchrun.\n" + wrapper)
    assert f is not None and f["id"] == "nccl.falls_back_to_sockets" and f["confidence"] == "cause"
    assert f["causes"][0]["text"].startswith("NCCL_HOSTID=$(hostname)-ctr$LOCAL_RANK (line 3")
    assert _root(wrapper)[1] is None
    # one identity per machine (what earlier planted sets used to fake two nodes) is not built from the rank
    _r, f = _root("all_reduce is 40x slower than with plain torchrun.\nexport NCCL_HOSTID=fakenode0\n")
    assert f is None or not f["causes"][0]["text"].startswith("NCCL_HOSTID=")


def test_jax_full_precision_matmuls_are_a_low_cause_of_a_told_slowness():
    # jax/_src/config.py's help: "The 'bfloat16' option is the fastest and least precise; 'float32' is similar to full
    # float32 precision"; 'highest' is the legacy name of the same end of the enum
    text = "Our JAX model trains 3x slower on the H100s than the same script did last month.\n" \
           "export JAX_DEFAULT_MATMUL_PRECISION=highest\n"
    _r, f = _root(text)
    assert f is not None and f["id"] == "torch.slow_setting" and f["confidence"] == "family"
    assert f["causes"][0]["text"].startswith("JAX_DEFAULT_MATMUL_PRECISION=highest (line 2")
    assert _root(text.replace("highest", "bfloat16"))[1] is None or \
        not _root(text.replace("highest", "bfloat16"))[1]["causes"][0]["text"].startswith("JAX_DEFAULT")

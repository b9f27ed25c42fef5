"""JAX's, XLA's, ONNX Runtime's and three kinds of torch's own refusals (issue 18, frameworks16): read from the jax
0.12.0 (and older 0.4.30) wheel, XLA's xla/parse_flags_from_env.cc, the onnxruntime 1.32.0 wheel and the torch 2.14.1
wheel (tensor parallelism's plan warnings, DCP's file names, dynamic-shape constraints) by tools/gen_jax_messages.py,
tools/gen_onnxruntime_messages.py and tools/gen_torch_extra_messages.py (their slices in tools/data/ keep the
statements of the assigned sites at their line numbers): each generator regenerates the committed sites; outputs made
here by running jax 0.10.2 (CPU), XLA, onnxruntime 1.32.0 and torch 2.13.0+cpu (tests/data/jaxort/, README.md there
says how) and texts of public threads (cited per text) get their entry and the fix the code that raises them points
at; a healthy JAX run stays healthy.
"""

import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tools"))

import gen_jax_messages  # noqa: E402
import gen_onnxruntime_messages  # noqa: E402
import gen_torch_extra_messages  # noqa: E402
import knowgen  # noqa: E402

from gpudoctor import explain  # noqa: E402

DATA = os.path.join(REPO, "tests", "data", "jaxort")

# made here: (file, entry, family, a regex over the first cause's fixes)
RUNS = [
    ("pmap_more.log", "jax.sharding_shape", "usercode.shape_mismatch", r"local_device_count"),
    ("pmap_more_unfiltered.log", "jax.sharding_shape", "usercode.shape_mismatch", r"local_device_count"),
    ("shard_indiv.log", "jax.sharding_shape", "usercode.shape_mismatch", r"multiple of the mesh axis"),
    ("dist_late.log", "jax.distributed_init", "code.exception", r"top of the program"),
    ("dist_noargs.log", "jax.distributed_init", "code.exception", r"num_processes=.*process_id="),
    # libarg names the argument the line wrote (process_id=2) beside the site's own fix
    ("dist_badid.log", "jax.distributed_init", "code.exception", r"change process_id in that call"),
    ("xla_flag.log", "xla.flags", "xla.flags", r"misspelled"),
    ("tracer.log", "jax.tracer", "code.exception", r"jax\.lax\.cond"),
    ("ort_cuda.log", "onnxruntime.provider_absent", "code.python_env", r"pip install onnxruntime-gpu"),
    ("ort_feed_shape.log", "onnxruntime.input_shape", "usercode.shape_mismatch", r"dynamic_axes"),
    ("ort_feed_dtype.log", "onnxruntime.input_dtype", "usercode.dtype_mismatch", r"astype\(np\.float32\)"),
    ("tp_plan.log", "torch.tp_plan", "torch.distributed_usage", r"named_modules"),
    ("dcp_per_rank.log", "torch.dcp_files", "torch.checkpoint_load", r"same checkpoint_id on every rank"),
    ("mark_dynamic.log", "compile.dynamic_constraint", "torch.compile_error", r"x\.shape\[0\]"),
]

REAL = {
    # https://github.com/Naozumi520/g2pW-Cantonese/issues/1 (the CPU wheel in requirements.txt; onnxruntime-gpu fixed it)
    "ort_cpu_wheel_g2pw_1": (
        "UserWarning: Specified provider 'CUDAExecutionProvider' is not in available provider names.Available "
        "providers: 'AzureExecutionProvider, CPUExecutionProvider'\n", "onnxruntime.provider_absent",
        r"onnxruntime-gpu"),
    # https://github.com/bytedance/LatentSync/issues/225 (onnxruntime 1.x, the model then ran on the CPU)
    "ort_cpu_latentsync_225": (
        "/workspace/lipsync_backend_ad/lipsync-venv/lib/python3.10/site-packages/onnxruntime/capi/"
        "onnxruntime_inference_collection.py:118: UserWarning: Specified provider 'CUDAExecutionProvider' is not in "
        "available provider names.Available providers: 'AzureExecutionProvider, CPUExecutionProvider'\n"
        "  warnings.warn(\nApplied providers: ['CPUExecutionProvider'], with options: {'CPUExecutionProvider': {}}\n",
        "onnxruntime.provider_absent", r"onnxruntime-gpu"),
    # https://github.com/jax-ml/jax/issues/22755 (a jitted update that does not fit the GPU)
    "xla_oom_jax_22755": (
        "Traceback (most recent call last):\n  File \"./hydrogen-finiteT-hf-new/src/main.py\", line 720, in <module>\n"
        "    = update(params_flow, params_van, params_wfn, state_idx, mo_coeff, bands, s, x, keys)\n"
        "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 3743729664 "
        "bytes.\n", "xla.oom", r"jax\.checkpoint"),
    # https://github.com/kingoflolz/mesh-transformer-jax/issues/66 (the plain StreamExecutor allocator's wording)
    "xla_oom_mesh_transformer_66": (
        "RuntimeError: Resource exhausted: Failed to allocate request for 32.00MiB (33554432B) on device ordinal 0\n",
        "xla.oom", r"XLA_PYTHON_CLIENT_MEM_FRACTION"),
    # https://github.com/pytorch/pytorch/issues/141251 (torch <= 2.5's wording of a specialized dynamic size)
    "dynamic_inferred_constant_141251": (
        "Not all values of RelaxedUnspecConstraint(L['old_my_residual_1'].size()[0]) are valid because "
        "L['old_my_residual_1'].size()[0] was inferred to be a constant (256).\n", "compile.dynamic_constraint",
        r"x\.shape\[0\]"),
    # https://github.com/mlnomadpy/flaxchat/issues/8 (jax.default_backend() at import time, initialize() after it)
    "jax_init_late_flaxchat_8": (
        "RuntimeError: jax.distributed.initialize() must be called before any JAX calls that might initialise the "
        "XLA backend. This includes any computation, but also calls to jax.devices, jax.device_put, and others.\n",
        "jax.distributed_init", r"top of the program"),
}


def _regenerates(main, name, slice_name, tmp_path):
    got = knowgen.regenerated(main, os.path.join(REPO, "tools", "data", slice_name), tmp_path / (name + ".json"))
    full = knowgen.committed(name)
    assert got["header"]["version"] == full["header"]["version"]
    by_text = {s["text"]: s for s in full["sites"]}
    for s in got["sites"]:
        assert {k: v for k, v in s.items() if k not in ("id", "where")} == \
            {k: v for k, v in by_text[s["text"]].items() if k not in ("id", "where")}, s["id"]
    # every assigned site of the full read is in the slice
    assert {t for t, s in by_text.items() if s.get("family")} <= {s["text"] for s in got["sites"]}
    assert full["unassigned"] == sorted(s["id"] for s in full["sites"] if not s.get("family"))
    return got


def test_generators_regenerate_the_committed_sites_from_their_slices(tmp_path):
    got = _regenerates(gen_jax_messages.main, "jax_messages", "jax_messages_slice.txt", tmp_path)
    assert len(got["sites"]) >= 200
    got = _regenerates(gen_onnxruntime_messages.main, "onnxruntime_messages", "onnxruntime_messages_slice.txt",
                       tmp_path)
    assert len(got["sites"]) >= 20
    got = _regenerates(gen_torch_extra_messages.main, "torch_extra_messages", "torch_extra_messages_slice.txt",
                       tmp_path)
    assert len(got["sites"]) >= 10


def test_what_the_readers_find_and_the_rules_keep_out():
    sites = {s["text"]: s for s in knowgen.committed("jax_messages")["sites"]}
    # jax <= 0.4's `msg = ("... {} ..."); raise ValueError(msg.format(...))` (the older wheel)
    old = sites["compiling computation that requires %s logical devices, but only %s XLA devices are available "
                "(num_replicas=%s)"]
    assert old["family"] == "jax.sharding_shape" and old["older"] == "jax 0.4.30"
    # XLA's LOG(QFATAL) stream: the ternary both ways, `envvar` each variable the function compares it with
    for text in ("Unknown flag in XLA_FLAGS: %s%s", "Unknown flags in XLA_FLAGS: %s%s",
                 "Unknown flag in TF_XLA_FLAGS: %s%s"):
        assert sites[text]["family"] == "xla.flags", text
    # the user's call order and arguments -> code.exception's case; the shape against the mesh -> the shape family
    assert sites["coordinator_address should be defined."]["family"] == "jax.distributed_init"
    # jax.Array's copies of numpy's own TypeErrors name no library: a plain numpy traceback says the same (review16)
    for text in ("len() of unsized object", "iteration over a 0-d array"):
        assert sites[text]["family"] is None, text
    # jax/_src/errors.py's classes, as the traceback prints them (the mixin's _module_name, the class name)
    assert sites["jax.errors.TracerBoolConversionError: %s"]["family"] == "jax.tracer"
    assert not any(t.startswith("jax.errors.JAXTypeError") for t in sites)
    # XLA's allocators: StrCat's two ternaries on one condition take one branch together (no device text with the host
    # advice), the constexpr explanation resolved; StrFormat's format as it is
    assert sites["Out of memory while trying to allocate %s bytes."]["family"] == "xla.oom"
    assert "XLA_PJRT_GPU_HOST_MEMORY_LIMIT_GB" in next(t for t in sites if t.startswith("Out of host memory"))
    assert not any(t.startswith("Out of memory") and "HOST_MEMORY_LIMIT" in t for t in sites)
    assert sites["Failed to allocate request for %s (%uB) on device ordinal %d"]["family"] == "xla.oom"
    assert sites["%s implies that array axis %s is partitioned %s times, but the dimension size is %s (full shape: "
                 "%s, per-dimension tiling factors: %s should evenly divide the shape)"]["family"] == "jax.sharding_shape"
    # the CUDA backend's own messages are framework_libs.json's; internal invariants and warnings are no family
    assert all(not s["family"] for t, s in sites.items() if "CUDA-enabled jaxlib" in t)
    assert all(not s["family"] for s in sites.values() if s["level"] == "warning")
    assert all(not s["family"] for t, s in sites.items() if "file a bug" in t)
    ort = {s["text"]: s for s in knowgen.committed("onnxruntime_messages")["sites"]}
    # the one warning that is the failure (the provider is dropped), the others context only
    absent = ort["Specified provider '%s' is not in available provider names.Available providers: '%s'"]
    assert absent["family"] == "onnxruntime.provider_absent" and absent["level"] == "warning"
    assert ort["Duplicate provider '%s' encountered, ignoring."]["family"] is None
    # too few words of its own to be assigned by the file alone
    assert ort["Unsupported device type: %s"]["family"] is None
    # the C++ session's feed checks: ORT_MAKE_STATUS / the ostr stream joined, the moniker both ways (one branch per
    # message), only the input side assigned
    assert ort["Got invalid dimensions for input: %s for the following indices"]["family"] == "onnxruntime.input_shape"
    assert ort["Got invalid dimensions for output: %s for the following indices"]["family"] is None
    assert "feed names has %s elements, but fetch has %s elements." not in ort
    tx = {s["text"]: s for s in knowgen.committed("torch_extra_messages")["sites"]}
    # DCP's shard file name read from filesystem.py (prefix f"__{rank}_", DEFAULT_SUFFIX) as FileNotFoundError prints it
    assert tx["[Errno 2] No such file or directory: '%s/__%d_%d.distcp'"]["family"] == "torch.dcp_files"
    # a message handed to symbolic_shapes' record_constraint_violation helper through a name assigned above it
    assert any(s["family"] == "compile.dynamic_constraint" for t, s in tx.items() if "specialized it to be a constant" in t)
    assert tx["Not all values of %s are valid because %s was inferred to be a constant (%s)."]["older"] == "torch 2.4.1"
    assert tx["Parallelize plan key '%s' could not be resolved: no submodule matching token '%s' in module %s, skipping "
              "this plan entry."]["family"] == "torch.tp_plan"


def test_pep695_type_parameters_are_read_on_python_311():
    src = "def vmap[F: Callable](fun: F) -> F:\n    raise ValueError('vmap must be given a function here')\n"
    assert gen_jax_messages._py311(src).startswith("def vmap(fun: F) -> F:")


def test_runs_made_here_get_their_entry_and_fix(kb):
    for name, want, family, fix_re in RUNS:
        with open(os.path.join(DATA, name)) as f:
            res = explain.explain_text(f.read(), kb)
        root = res["findings"][0] if res["findings"] else None
        assert root and root["id"] == want, (name, [f["id"] for f in res["findings"]])
        assert root.get("family") == family, (name, root.get("family"))
        assert re.search(fix_re, "\n".join(root["causes"][0]["fix"])), (name, root["causes"][0]["fix"])


def test_public_threads_get_their_entry_and_fix(kb):
    for name, (text, want, fix_re) in REAL.items():
        res = explain.explain_text(text, kb)
        root = res["findings"][0] if res["findings"] else None
        assert root and root["id"] == want, (name, [f["id"] for f in res["findings"]])
        assert re.search(fix_re, "\n".join(root["causes"][0]["fix"])), (name, root["causes"][0]["fix"])


def test_a_healthy_jax_run_stays_healthy(kb):
    # a two-process JAX run's own lines (jax 0.10.2 here) and onnxruntime on the provider it has
    res = explain.explain_text(
        "process 0/2 local [CpuDevice(id=0)] global 2\nstep 0 loss 62.07114\nstep 10 loss 0.59275\n"
        "onnxruntime 1.32.0 device CPU\nsession providers: ['CPUExecutionProvider']\ndone loss 0.000000\n", kb)
    assert res["verdict"] == "no_error" and not res["findings"]

#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/vllm_messages.json: what vLLM prints when its parallel layout does not fit
the GPUs or the model (tensor / pipeline / data parallel sizes, attention heads), when the KV cache does not fit
(gpu_memory_utilization, max_model_len), when its executors (multiprocessing, Ray placement groups) cannot start the
workers, and what its distributed layer (custom all-reduce, pynccl, shared-memory broadcast) refuses.

Read from the vllm wheel (PyPI), never executed (tools/wheelmsgs.py): every `raise X("...")`, `assert ..., "..."`
and logger .error / .warning call of FILES, and a message built in a variable first and then raised. Each becomes a
bounded matcher assigned to a knowledge family (knowledge/serving.toml and existing ones) by RULES, by its words
first, then by the part of vLLM that raises it (ctx-*); MSG_FIX gives a message its own meaning and fix, written
from the condition that raises it. Warnings are context only (vLLM warns and goes on: 'Custom allreduce is disabled
because your platform lacks GPU P2P capability'); a raise no rule assigns is listed, never guessed.

Usage:
    pip download --no-deps --only-binary :all: --platform manylinux_2_28_x86_64 --python-version 3.11 vllm -d /tmp/w
    pip download ... vllm==0.6.3.post1 -d /tmp/w    (the older release most 2024 threads quote)
    python tools/gen_vllm_messages.py --wheel /tmp/w/vllm-0.33.0-...whl --older /tmp/w/vllm-0.6.3.post1-...whl \\
        [--record tools/data/vllm_messages_slice.txt] [-o OUT]
    python tools/gen_vllm_messages.py --slice tools/data/vllm_messages_slice.txt -o OUT   (the test)

Source: vllm (https://pypi.org/project/vllm/, Apache-2.0; https://github.com/vllm-project/vllm): vllm/distributed/
(parallel_state.py, utils.py, device_communicators/: custom all-reduce, pynccl, shm_broadcast), vllm/executor/ and
vllm/v1/executor/, vllm/config.py and vllm/config/, vllm/engine/arg_utils.py, vllm/worker/ and vllm/v1/worker/
(gpu_worker.py), vllm/v1/core/kv_cache_utils.py and kv_cache_planning.py, vllm/platforms/cuda.py, vllm/v1/engine/
utils.py (Ray data-parallel placement) and core_client.py (waiting for the engine core), vllm/utils/mem_utils.py.
The regenerated table read vllm 0.33.0 and the older 0.6.3.post1. Engine arguments: https://docs.vllm.ai/en/latest/configuration/engine_args.html; memory:
https://docs.vllm.ai/en/latest/configuration/conserving_memory.html; distributed serving:
https://docs.vllm.ai/en/latest/serving/parallelism_scaling.html.
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402
import wheelmsgs  # noqa: E402

GENERATOR = "tools/gen_vllm_messages.py"
FILES = (r"^vllm/(?:distributed/(?:parallel_state|utils|communication_op)\.py|distributed/device_communicators/"
         r"(?:custom_all_reduce|custom_all_reduce_utils|all_reduce_utils|cuda_communicator|pynccl|pynccl_wrapper|"
         r"shm_broadcast|cuda_wrapper|quick_all_reduce|symm_mem|base_device_communicator)\.py|executor/[a-z_]+\.py|"
         r"v1/executor/[a-z_0-9]+\.py|config\.py|config/(?:parallel|cache|model|vllm|scheduler|device|load|"
         r"quantization)\.py|engine/arg_utils\.py|worker/(?:worker|cache_engine|worker_base)\.py|"
         r"v1/worker/(?:gpu_worker|worker_base)\.py|v1/core/kv_cache_(?:utils|planning)\.py|"
         r"platforms/(?:cuda|interface)\.py|v1/engine/(?:utils|core_client)\.py|utils/mem_utils\.py)$")

# the memory left for the KV cache after the weights and the profiled activations: gpu_memory_utilization x the GPU,
# against max_model_len's need (v1/core/kv_cache_planning.py _check_enough_kv_cache_memory; worker/worker.py in 0.6)
KV = (r"No available memory for the cache blocks|max seq len|larger than the available KV cache memory|"
      r"maximum number of tokens that can be stored in KV cache|not enough GPU memory available|"
      r"Error in memory profiling|GPU memory utilization must be|exceeds available Mamba cache blocks")
# the parallel layout against the GPUs and the model
PARALLEL = (r"must be divisible by tensor parallel size|^World size \(%s\) is larger than the number of available "
            r"GPUs|^world_size \(%s\) must be equal to the tensor_parallel_size|is not divisible by group_size=|"
            r"must evenly divide the total world size|^Pipeline parallelism is not supported for this model|"
            r"requires `--tensor-parallel-size`|must be divisible by dcp_size|must be divisible by the number of data "
            r"parallel node groups|must be a multiple of number of devices per node|divisible by nnodes_within_dp|"
            r"is not equal to tensor_model_parallel_size|less than max local gpu count")
# (rule, knowledge entry, {field: regex}); fields: where (path:line), text, level. The first that matches wins.
RULES = [
    # ensure_divisibility's '%s is not divisible by %s': the same words in Megatron's, vLLM's and SGLang's helpers (and
    # torch's): a line of it names no library, so no family from this table (megatron_messages.json has its own)
    ("shared-helper", None, {"text": r"^%s is not divisible by %s$"}),
    ("internal", None, {"text": r"should not happen|should always exist|out of sync with|is not initialized$|"
                                r"already initialized|should be attached to a non-NCCL group|should be tested with a "
                                r"non-NCCL group|must be set by this point|^%s [!=]= %s$|unexpected error|"
                                r"should be checked during init|^Invalid index type|not supported yet\.?$|"
                                r"not implemented|does not exist for VLLM_USE_RAY_SPMD_WORKER|worker loop is disabled"}),
    ("kv-cache", "serving.kv_cache_memory", {"text": KV}),
    ("parallel", "serving.parallel_config", {"text": PARALLEL}),
    ("bf16", "cuda.bf16_unsupported", {"text": r"^Bfloat16 is only supported on GPUs with compute capability"}),
    ("ray-resources", "ray.resources", {"text": r"placement group|[Pp]lacement bundle|Ray does not allocate any GPUs|"
                                                r"No nodes with resources found in Ray cluster|Current node has no %s "
                                                r"available|Not enough total available nodes|No %s found in Ray "
                                                r"cluster"}),
    # shm_broadcast.py: the message queue's shared memory in /dev/shm ('Increase %s (e.g. --shm-size or --ipc=host)')
    ("shm", "shm.size", {"text": r"^Insufficient space in %s for %s: %s MiB required"}),
    # platforms/cuda.py (0.6): the job hides every GPU
    ("no-gpu", "cuda.not_available", {"text": r"^CUDA_VISIBLE_DEVICES is set to empty string"}),
    ("nccl-library", "nccl.lib_missing", {"text": r"^Failed to load NCCL library from"}),
    ("p2p", "gpu.p2p", {"text": r"testing peer-to-peer access"}),
    ("custom-allreduce", "serving.custom_allreduce", {"text": r"^Failed: Cuda error %scsrc/custom_all_reduce\.cuh:"}),
    ("no-ray", "code.package_too_old", {"text": r"install Ray with `pip install ray`|requires installation of ray|"
                                                r"Ray accelerated DAG is not installed|Ray version %s is required"}),
    # by the part of vLLM that raises it: the message names what it refused
    ("ctx-config", "serving.config", {"level": r"^(?:raise|error)$",
                                      "where": r"^vllm/(?:config|engine/arg_utils|platforms/)"}),
    ("ctx-executor", "serving.executor", {"level": r"^(?:raise|error)$",
                                          "where": r"^vllm/(?:executor/|v1/executor/|v1/engine/(?:utils|core_client)\.py|"
                                                   r"worker/|v1/worker/)"}),
    ("ctx-distributed", "serving.distributed", {"level": r"^(?:raise|error)$", "where": r"^vllm/distributed/"}),
]

_MEM_DOC = "https://docs.vllm.ai/en/latest/configuration/conserving_memory.html"
# What one message means and what to do: [(regex over the text, means, [fix])]
MSG_FIX = [
    (r"^No available memory for the cache blocks",
     "vLLM's profiling run found nothing left for the KV cache: gpu_memory_utilization x the GPU's memory is used up by "
     "the weights and the activations of the profiling batch (another process on the GPU, a model too large for the "
     "GPUs, or a low gpu_memory_utilization).",
     ["raise --gpu-memory-utilization (default 0.9; LLM(gpu_memory_utilization=...)) if nothing else uses the GPU "
      "(nvidia-smi); else spread the model over more GPUs (--tensor-parallel-size N), quantize it, or lower "
      "--max-num-seqs / --max-num-batched-tokens (the profiling batch); " + _MEM_DOC]),
    (r"max seq len \(%s\)|^To serve at least one request with the model's max seq len",
     "The KV cache that fits in gpu_memory_utilization (after the weights) holds fewer tokens than one request of "
     "max_model_len needs: the model's context length (from its config) is longer than this GPU memory can serve.",
     ["lower --max-model-len (LLM(max_model_len=...)) to what the message estimates fits, or raise "
      "--gpu-memory-utilization, or add GPUs (--tensor-parallel-size), or a smaller --kv-cache-dtype fp8; " + _MEM_DOC]),
    (r"^Error in memory profiling",
     "vLLM measured more free GPU memory after loading than before: another process freed memory on the same GPU "
     "during startup (two vLLM instances or a training job sharing the GPU).",
     ["give the vLLM instance its own GPU (CUDA_VISIBLE_DEVICES), or start the instances one after another; set "
      "--gpu-memory-utilization to the share each may take"]),
    (r"^GPU memory utilization must be",
     "--gpu-memory-utilization is the fraction of each GPU vLLM may use: a value above 1 (a percentage, or GiB) is "
     "refused.",
     ["--gpu-memory-utilization 0.9 (a fraction between 0 and 1)"]),
    (r"^Cannot auto-fit max_model_len: not enough GPU memory",
     "max_model_len=-1 (auto-fit) found no GPU memory left for even one token of KV cache after the weights.",
     ["raise --gpu-memory-utilization, add GPUs (--tensor-parallel-size), or use a smaller / quantized model; "
      + _MEM_DOC]),
    (r"^Total number of attention heads \(%s\) must be divisible by tensor parallel size",
     "Tensor parallelism splits the attention heads evenly over the GPUs: the model's number of heads is not a "
     "multiple of --tensor-parallel-size.",
     ["--tensor-parallel-size to a divisor of the head count (e.g. 2, 4, 8 for 32 or 64 heads); to use more GPUs add "
      "--pipeline-parallel-size (pipeline stages split the layers instead)"]),
    (r"^World size \(%s\) is larger than the number of available GPUs|less than max local gpu count",
     "tensor_parallel_size x pipeline_parallel_size (the world size) asks for more GPUs than this node shows "
     "(CUDA_VISIBLE_DEVICES, the container's --gpus, the job's allocation).",
     ["--tensor-parallel-size x --pipeline-parallel-size <= the GPUs of the node (nvidia-smi -L; echo "
      "$CUDA_VISIBLE_DEVICES); across nodes start a Ray cluster and --distributed-executor-backend ray (the message's "
      "advice), or --nnodes with the multiprocessing backend"]),
    (r"^world_size \(%s\) must be equal to the tensor_parallel_size",
     "The executor's world size is not tensor x pipeline (x context) parallel size: a parallel config changed after "
     "it was built, or an external launcher started another number of processes.",
     ["start as many processes as --tensor-parallel-size x --pipeline-parallel-size (torchrun --nproc-per-node with "
      "distributed_executor_backend='external_launcher'), or leave the world size to vLLM"]),
    (r"is not divisible by group_size=",
     "Tensor parallelism splits a quantized layer's input into shards that are not whole quantization groups: the "
     "--tensor-parallel-size does not fit this model's quantization group size.",
     ["a smaller --tensor-parallel-size (the message's advice), with --pipeline-parallel-size for more GPUs"]),
    (r"To allow overriding this maximum, set the env var VLLM_ALLOW_LONG_MAX_MODEL_LEN=1",
     "vllm/config (_get_and_verify_max_len): the --max-model-len asked for is longer than the model's config allows "
     "(max_position_embeddings or model_max_length in its config.json, with its rope scaling): the model was not "
     "trained for a longer context.",
     ["lower --max-model-len (LLM(max_model_len=...)) to the derived maximum the message gives",
      "only for a model that supports the longer context (rope scaling set up for it): export "
      "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 (the message's variable)"]),
    (r"^Bfloat16 is only supported on GPUs with compute capability",
     "The model's dtype is bfloat16 and this GPU is older than Ampere (compute capability < 8.0: V100, T4, RTX 20xx).",
     ["--dtype half (the message's advice; LLM(dtype='half'))"]),
    (r"^The quantization method %s is not supported for the current GPU",
     "The checkpoint's quantization method needs a newer GPU than this one (the message gives both compute "
     "capabilities): its kernels were not built for it.",
     ["use a checkpoint of another quantization method that this GPU supports (GPTQ/AWQ for older GPUs), the "
      "unquantized model, or a GPU of that capability; docs: https://docs.vllm.ai/en/latest/features/quantization/"]),
    (r"^Ray does not allocate any GPUs on the driver node",
     "vLLM's Ray executor wants one of the placement group's GPU bundles on the node the driver (the vllm serve "
     "process) runs on, and Ray gave none there: the driver runs on a node without GPUs or whose GPUs are taken.",
     ["start vllm serve on a node of the Ray cluster that has free GPUs (ray status), or ray start that node with "
      "--num-gpus"]),
    (r"^Cannot provide a placement group of placement_group_specs",
     "The Ray cluster could not give the tensor x pipeline parallel GPU bundles in time: fewer free GPUs than the "
     "world size (nodes not joined, GPUs held by other actors).",
     ["ray status   (every node joined, enough free GPUs); --tensor-parallel-size x --pipeline-parallel-size <= the "
      "free GPUs"]),
    (r"^Every node should have a unique IP address",
     "Ray reports two nodes of the vLLM workers with the same IP: VLLM_HOST_IP / HOST_IP set to one address on every "
     "node, or containers that share an address.",
     ["unset VLLM_HOST_IP (or set it per node to that node's own address); give each node's Ray its own "
      "--node-ip-address"]),
    (r"^Timed out waiting for engine core processes to start\.",
     "vllm/v1/engine/core_client.py: the engine core processes did not report ready within VLLM_ENGINE_READY_TIMEOUT_S: "
     "loading a large model's weights (from a slow or network file system, or downloading them) took longer, or a "
     "worker hangs at start (NCCL between the GPUs, a dead peer).",
     ["export VLLM_ENGINE_READY_TIMEOUT_S=<seconds> above the time the weights take to load (the message's variable); "
      "put the weights on a local disk; if a worker hangs instead, run with NCCL_DEBUG=INFO and read where it stops"]),
    (r"^Worker proc %s died unexpectedly|^Worker %s pid %s died, exit code: %s",
     "vllm/v1/executor/multiproc_executor.py: a GPU worker process exited; its exit code says how: -9 (SIGKILL) is most "
     "often the host's out-of-memory killer (loading weights into CPU memory on every worker), -11 / -6 a crash in a "
     "kernel or library; its own error, if any, is earlier in the log.",
     ["for -9: sudo dmesg -T | grep -i 'killed process' (the host OOM killer): give the job more host memory, or load "
      "the weights with fewer copies in CPU memory (safetensors, --load-format); else read the worker's own error "
      "above this line"]),
    (r"^Failed to load NCCL library from",
     "vLLM's pynccl could not load libnccl (VLLM_NCCL_SO_PATH, else the nvidia-nccl-cu12 wheel torch brings): "
     "missing, or built for another CUDA.",
     ["pip install --force-reinstall nvidia-nccl-cu12 (the version torch pins: pip show torch), or export "
      "VLLM_NCCL_SO_PATH=<path of a libnccl.so.2 for this CUDA>"]),
    (r"^Unable to load Ray which is required for multi-node|^Failed to import Ray|"
     r"^Using Ray backend requires installation of ray",
     "--distributed-executor-backend ray (or a multi-node layout) needs the ray package, which is not installed.",
     ["pip install 'ray[default]' (the same version on every node), or --distributed-executor-backend mp on one node"]),
]


# The custom all-reduce's CUDA calls (csrc/custom_all_reduce.cuh, compiled into the wheel's _C library): its CUDACHECK
# prints "Failed: Cuda error %s:%d '%s'" with __FILE__, the build's path of custom_all_reduce.cuh. Both strings are
# read from the library (their printable runs, as GNU strings finds them), and the site is that format with the file's
# name after the build's folder: "Failed: Cuda error /workspace/csrc/custom_all_reduce.cuh:455 'invalid argument'"
LIBRARIES = ("vllm/_C_stable_libtorch.abi3.so", "vllm/_C.abi3.so")
CUDACHECK = b"Failed: Cuda error %s:%d '%s'"
CUSTOM_AR = b"csrc/custom_all_reduce.cuh"


def library_strings(wheel):
    """The runs of the first of LIBRARIES in ``wheel`` that hold CUDACHECK and CUSTOM_AR, one a line ('' if none)."""
    import zipfile

    with zipfile.ZipFile(wheel) as z:
        name = next((n for n in LIBRARIES if n in z.namelist()), None)
        if name is None:
            return name, ""
        data = z.read(name)
    out = [r for r in (knowgen.run_around(data, n) for n in (CUDACHECK, CUSTOM_AR)) if r is not None]
    return name, "\n".join(out) + "\n"


def library_sites(files, ids, seen):
    """The custom all-reduce's CUDACHECK site of each library text (library_strings) that holds both strings."""
    out = []
    for path, src in files:
        if not path.endswith(".so"):
            continue
        lines = src.splitlines()
        fmt = next((ln for ln in lines if ln == CUDACHECK.decode()), None)
        cuh = next((i for i, ln in enumerate(lines, 1) if ln.endswith(CUSTOM_AR.decode())), None)
        if fmt is None or cuh is None:
            continue
        text = "Failed: Cuda error %s" + CUSTOM_AR.decode() + ":%d '%s'"
        if text in seen:
            continue
        seen.add(text)
        m = re.match(r"older/([a-z_]+)-([^/]+)/(.+)$", path)
        out.append(wheelmsgs.site_for("vllm." + ("%s_%s_" % (m.group(1), knowgen.slug(m.group(2))) if m else ""),
                                      ids, "raise", "%s:%d" % (m.group(3) if m else path, cuh), text, RULES, MSG_FIX,
                                      older=m and "%s %s" % (m.group(1), m.group(2))))
    return out


def build(files, version):
    seen, ids = set(), set()
    sites = wheelmsgs.py_sites(files, "vllm.", RULES, MSG_FIX, seen, ids)
    sites += library_sites(files, ids, seen)
    return {"header": knowgen.header("vllm (https://pypi.org/project/vllm/)", version, GENERATOR,
                                     "raise/assert/logger messages of vllm/distributed, the executors, the config "
                                     "and engine arguments, the workers, the KV cache planning and the CUDA "
                                     "platform; families from the RULES table of the generator"),
            "sites": sites}


def read(wheel, older=None):
    files, version = wheelmsgs.from_wheel(wheel, FILES, "vllm")
    files.append(library_strings(wheel))
    if older:
        ofiles, oversion = wheelmsgs.from_wheel(older, FILES, "vllm")
        ofiles.append(library_strings(older))
        files += [("older/vllm-%s/%s" % (oversion.split()[1], p), src) for p, src in ofiles]
        version += "; older: " + oversion
    return files, version


def main(argv):
    return wheelmsgs.main(argv, __doc__, "vllm_messages", "vllm", read, build, MSG_FIX, GENERATOR,
                          lambda s: s.get("fix"), "the statements of the sites with a fix of their own",
                          lambda files, doc: [(p, 1, src) for p, src in files if p.endswith(".so") and src.strip()])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

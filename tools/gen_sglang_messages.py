#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/sglang_messages.json: what SGLang's server prints when its arguments
refuse each other, when its KV cache pool does not fit (--mem-fraction-static, --context-length), when its parallel
layout does not fit the model, and what its distributed layer (custom all-reduce, pynccl, shared-memory broadcast)
refuses. The shape of tools/gen_vllm_messages.py (tools/wheelmsgs.py), with the same families (knowledge/serving.toml).

Read from the sglang wheel (PyPI), never executed: every `raise X("...")`, `assert ..., "..."` and logger .error /
.warning call of FILES, and a message built in a variable first and then raised (model_executor/pool_configurator.py:
`msg = "Not enough memory. Please try to increase --mem-fraction-static."`). Warnings are context only; a raise no rule
assigns is listed, never guessed.

Usage:
    pip download --no-deps --only-binary :all: sglang -d /tmp/w
    pip download --no-deps --only-binary :all: sglang==0.4.6.post5 -d /tmp/w   (the release 2025 threads quote)
    python tools/gen_sglang_messages.py --wheel /tmp/w/sglang-0.5.23-...whl --older /tmp/w/sglang-0.4.6.post5-...whl \\
        [--record tools/data/sglang_messages_slice.txt]
    python tools/gen_sglang_messages.py --slice tools/data/sglang_messages_slice.txt -o OUT   (the test)

Source: sglang (https://pypi.org/project/sglang/, Apache-2.0; https://github.com/sgl-project/sglang, python/sglang/srt/):
server_args.py and arg_groups/ (the server's arguments and their checks), distributed/ (parallel_state.py, utils.py,
device_communicators/: custom all-reduce, pynccl, shm_broadcast), model_executor/model_runner.py,
pool_configurator.py and runner/decode_cuda_graph_runner.py (the decode CUDA graphs' capture),
mem_cache/kv_cache_configurator.py, managers/tp_worker.py and scheduler.py (and 0.4's model_executor/cuda_graph_runner.py,
mem_cache/memory_pool.py). The regenerated table read sglang 0.5.23 and the older 0.4.6.post5. Server arguments:
https://docs.sglang.ai/advanced_features/server_arguments.html.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402
import wheelmsgs  # noqa: E402

GENERATOR = "tools/gen_sglang_messages.py"
FILES = (r"^sglang/srt/(?:server_args\.py|arg_groups/[a-z_]+\.py|distributed/(?:parallel_state|utils|"
         r"communication_op)\.py|distributed/device_communicators/(?:custom_all_reduce|custom_all_reduce_utils|"
         r"pynccl|pynccl_wrapper|shm_broadcast|cuda_wrapper)\.py|model_executor/(?:model_runner|pool_configurator|"
         r"runner/decode_cuda_graph_runner|cuda_graph_runner)\.py|mem_cache/memory_pool\.py|"
         r"mem_cache/kv_cache_configurator\.py|managers/(?:tp_worker|scheduler)\.py)$")

KV = (r"--mem-fraction-static|mem_fraction_static|Not enough memory|max_total_num_tokens|KV cache pool|"
      r"not enough GPU memory|--context-length|Not enough space for mamba|state cache is too small")
PARALLEL = (r"must be divisible by --tp-size|must be divisible by (?:the )?(?:tp|tensor parallel|world) size|"
            r"tp_size \* pp_size|number of GPUs")
RULES = [
    # ensure_divisibility's '%s is not divisible by %s': the same words in Megatron's, vLLM's and SGLang's helpers (and
    # torch's): a line of it names no library, so no family from this table (megatron_messages.json has its own)
    ("shared-helper", None, {"text": r"^%s is not divisible by %s$"}),
    # a wrapper: the scheduler logs the traceback of what failed in it, whose own lines name the error
    ("wrapper", None, {"text": r"^Scheduler hit an exception: %s$"}),
    ("internal", None, {"text": r"should not happen|is not initialized$|already initialized|should be attached to a "
                                r"non-NCCL group|^%s [!=]= %s$|not implemented|not supported yet\.?$|"
                                r"double free|^Unexpected |memory leak detected"}),
    # runner/decode_cuda_graph_runner.py: the capture of the decode graphs, its solutions appended
    ("cuda-graph", "serving.cuda_graph", {"text": r"^Capture cuda graph failed: "}),
    ("kv-cache", "serving.kv_cache_memory", {"text": KV}),
    ("parallel", "serving.parallel_config", {"text": PARALLEL}),
    ("nccl-library", "nccl.lib_missing", {"text": r"^Failed to load NCCL library from"}),
    ("p2p", "gpu.p2p", {"text": r"testing peer-to-peer access"}),
    # a check elsewhere (mem_cache/, the pool configurator) that names the server flag or SGLANG_ variable it refuses
    ("flag", "serving.config", {"level": r"^(?:raise|error)$", "text": r"--[a-z][a-z0-9-]{3,60}|SGLANG_[A-Z0-9_]{3,60}"}),
    ("ctx-config", "serving.config", {"level": r"^(?:raise|error)$", "where": r"^sglang/srt/(?:server_args|arg_groups/)"}),
    ("ctx-executor", "serving.executor", {"level": r"^(?:raise|error)$",
                                          "where": r"^sglang/srt/(?:managers/|model_executor/model_runner)"}),
    ("ctx-distributed", "serving.distributed", {"level": r"^(?:raise|error)$", "where": r"^sglang/srt/distributed/"}),
]

MSG_FIX = [
    (r"^Not enough memory\. Please try to increase --mem-fraction-static",
     "python/sglang/srt/model_executor/pool_configurator.py: after the weights (and CUDA graphs' reserve) the share "
     "--mem-fraction-static of each GPU leaves no room for the KV cache pool: a model too large for the GPUs, another "
     "process on the GPU, or a low fraction.",
     ["raise --mem-fraction-static (e.g. 0.85-0.9) if nothing else uses the GPU (nvidia-smi); else spread the model "
      "(--tp 2/4/8), quantize it, or free the GPU (an RL trainer colocated with the rollout: lower its share)"]),
]


def build(files, version):
    sites = wheelmsgs.py_sites(files, "sglang.", RULES, MSG_FIX)
    return {"header": knowgen.header("sglang (https://pypi.org/project/sglang/)", version, GENERATOR,
                                     "raise/assert/logger messages of sglang/srt's server arguments, distributed "
                                     "layer, model runner and KV pool configuration, scheduler and TP worker; "
                                     "families from the RULES table of the generator"),
            "sites": sites}


def read(wheel, older=None):
    files, version = wheelmsgs.from_wheel(wheel, FILES, "sglang")
    if older:
        ofiles, oversion = wheelmsgs.from_wheel(older, FILES, "sglang")
        files += [("older/sglang-%s/%s" % (oversion.split()[1], p), src) for p, src in ofiles]
        version += "; older: " + oversion
    return files, version


def main(argv):
    return wheelmsgs.main(argv, __doc__, "sglang_messages", "sglang", read, build, MSG_FIX, GENERATOR,
                          lambda s: s.get("fix") or s.get("family") in ("serving.kv_cache_memory",
                                                                        "serving.parallel_config", "serving.cuda_graph"),
                          "the statements of the sites with a fix of their own, and a few more")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

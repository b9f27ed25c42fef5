"""vLLM, SGLang and Triton messages (issue 18, serving13): read from the vllm 0.33.0 (and older 0.6.3.post1), sglang
0.5.23 and triton 3.9.0 (and older 3.0.0) wheels by tools/gen_vllm_messages.py, gen_sglang_messages.py and
gen_triton_messages.py (their slices tools/data/{vllm,sglang,triton}_messages_slice.txt keep the statements of the
sites tested here with their line numbers): each generator regenerates the committed sites, and real texts of public
threads (cited per text) get their entry and the fix the code that raises them points at.
"""

import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tools"))

import gen_sglang_messages  # noqa: E402
import gen_triton_messages  # noqa: E402
import gen_vllm_messages  # noqa: E402
import knowgen  # noqa: E402
from explainhelp import explain_paste, fixes, ids, root_id, root_of  # noqa: E402

GENERATORS = {"vllm_messages": gen_vllm_messages, "sglang_messages": gen_sglang_messages,
              "triton_messages": gen_triton_messages}

_LD = "/usr/bin/ld: cannot find -lcuda: No such file or directory\ncollect2: error: ld returned 1 exit status\n"
REAL = {
    # https://github.com/pytorch/pytorch/issues/103417 (torch.compile; Triton's launcher build, the linker's lines only)
    "triton_ld_pytorch_103417": (_LD * 3, "triton.build", r"TRITON_LIBCUDA_PATH"),
    # https://github.com/JIA-Lab-research/Seg-Zero/issues/63 (triton 3.x: the linker's line, then the build command)
    "triton_ld_segzero_63": (
        "/usr/bin/ld: cannot find -lcuda\ncollect2: error: ld returned 1 exit status\n\n"
        "subprocess.CalledProcessError: Command '['/usr/bin/gcc', '/tmp/tmpe7nu9b0l/main.c', '-O3', '-shared', '-fPIC', "
        "'-Wno-psabi', '-o', '/tmp/tmpe7nu9b0l/cuda_utils.cpython-312-x86_64-linux-gnu.so', '-lcuda', "
        "'-L/home/sim/anaconda3/envs/visionreasoner/lib/python3.12/site-packages/triton/backends/nvidia/lib', "
        "'-L/lib/x86_64-linux-gnu', '-L/lib/i386-linux-gnu', "
        "'-I/home/sim/anaconda3/envs/visionreasoner/lib/python3.12/site-packages/triton/backends/nvidia/include', "
        "'-I/tmp/tmpe7nu9b0l', '-I/home/sim/anaconda3/envs/visionreasoner/include/python3.12']' returned non-zero "
        "exit status 1.\n", "triton.build", r"TRITON_LIBCUDA_PATH|ldconfig"),
    # https://github.com/triton-lang/triton/pull/1981 (triton 2.x: the linker's lines, then a KeyError of the cache)
    "triton_ld_1981": ("/usr/bin/ld: cannot find -lcuda\ncollect2: error: ld returned 1 exit status\n"
                       "Traceback (most recent call last):\n  File \"<string>\", line 21, in add_kernel\n"
                       "KeyError: ('2-.-0-.-0--d6252949da17ceb5f3a278a70250af13',)\n", "triton.build",
                       r"TRITON_LIBCUDA_PATH"),
    # https://github.com/lllyasviel/FramePack/issues/350 (its title: Triton's compiler pipeline)
    "triton_passmanager_framepack_350": ("RuntimeError: PassManager::run failed\n", "triton.compile",
                                         r"MLIR error above"),
    # https://github.com/intel/intel-xpu-backend-for-triton/issues/4580 (MLIR's own line with the kernel's file)
    "triton_mlir_xpu_4580": ("/tmp/torchinductor_jovyan/qn/cqnwmj5hliwreiqlsg6gpi7a3vnqtqahsv4jpcktf6twphrkuvwt.py:18:0: "
                             "error: Failures have been detected while processing an MLIR pass pipeline\n"
                             "Error: `RuntimeError: PassManager::run failed`\n", "triton.compile", r"MLIR"),
    # https://github.com/triton-lang/triton/issues/8539 (a DGX Spark's sm_121a, the wheel's ptxas too old for it)
    "triton_ptxas_8539": ("triton.runtime.errors.PTXASError: PTXAS error: Internal Triton PTX codegen error\n`ptxas` "
                          "stderr:\nptxas fatal   : Value 'sm_121a' is not defined for option 'gpu-name'\n\nRepro "
                          "command: /home/xxxx/miniforge3/envs/pt10/lib/python3.10/site-packages/triton/backends/nvidia/"
                          "bin/ptxas -lineinfo -v --gpu-name=sm_121a /tmp/tmpkw7ug6t8.ptx -o /tmp/tmpkw7ug6t8.ptx.o\n",
                          "triton.ptxas", r"TRITON_PTXAS_PATH"),
    # https://github.com/QwenLM/Qwen3/issues/295 (vLLM 0.4, the v0 worker's check)
    "vllm_kv_qwen_295": ("    raise ValueError(\nValueError: The model's max seq len (32768) is larger than the maximum "
                         "number of tokens that can be stored in KV cache (7344). Try increasing "
                         "`gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.\n",
                         "serving.kv_cache_memory", r"--max-model-len"),
    # https://github.com/vllm-project/vllm/issues/2652 (52 heads, 8 GPUs)
    "vllm_heads_2652": ("ValueError: Total number of attention heads (52) must be divisible by tensor parallel size "
                        "(8).\n", "serving.parallel_config", r"--tensor-parallel-size to a divisor"),
    # https://github.com/vllm-project/vllm/issues/7077 (vLLM 0.5.3: forked workers; the cause's fix names vLLM's variable)
    "vllm_fork_7077": ("(VllmWorkerProcess pid=13359) ERROR 08-02 18:15:15 multiproc_worker_utils.py:226] RuntimeError: "
                       "Cannot re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing, you must use "
                       "the 'spawn' start method\n(VllmWorkerProcess pid=13360) ERROR 08-02 18:15:15 "
                       "multiproc_worker_utils.py:226] Exception in worker VllmWorkerProcess while processing method "
                       "init_device: Cannot re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing, "
                       "you must use the 'spawn' start method, Traceback (most recent call last):\n",
                       "cuda.init_failed", r"export VLLM_WORKER_MULTIPROC_METHOD=spawn"),
    # https://github.com/vllm-project/vllm/issues/29639 (v1 engine: a worker failed earlier; only the engine's line here)
    "vllm_engine_29639": ("(APIServer pid=184662) RuntimeError: Engine core initialization failed. See root cause above. "
                          "Failed core proc(s): {}\n", "serving.executor", r"first error of a worker|find the first error"),
    # https://github.com/vllm-project/vllm/pull/35616 (the message as that PR made it, vllm/v1/engine/core_client.py)
    "vllm_ready_timeout_35616": ("TimeoutError: Timed out waiting for engine core processes to start. This is often caused "
                                 "by slow weight loading for large models. Waited 600s (configured by "
                                 "VLLM_ENGINE_READY_TIMEOUT_S). To increase the timeout, set the environment variable: "
                                 "VLLM_ENGINE_READY_TIMEOUT_S=<seconds>\n", "serving.executor",
                                 r"export VLLM_ENGINE_READY_TIMEOUT_S"),
    # https://github.com/sgl-project/sglang/issues/5285 (sglang's decode CUDA graphs, out of memory while capturing)
    "sglang_graph_5285": ("  File \"/sgl-workspace/sglang/python/sglang/srt/model_executor/cuda_graph_runner.py\", line "
                          "269, in __init__\n    raise Exception(\nException: Capture cuda graph failed: CUDA out of "
                          "memory. Tried to allocate 448.00 MiB. GPU 7 has a total capacity of 95.00\n",
                          "serving.cuda_graph", r"smaller --mem-fraction-static"),
    # https://github.com/vllm-project/vllm/issues/9774 (the custom all-reduce's CUDACHECK, no traceback after it)
    "vllm_custom_ar_9774": ("Failed: Cuda error /workspace/csrc/custom_all_reduce.cuh:336 'invalid argument'\n",
                            "serving.custom_allreduce", r"--disable-custom-all-reduce"),
    # https://github.com/vllm-project/vllm/issues/42609 (expandable_segments with DP and TP: the IPC of VMM memory)
    "vllm_custom_ar_42609": ("PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True \\\nvllm serve Qwen/Qwen3-0.6B "
                             "--data-parallel-size 2 --tensor-parallel-size 2\nFailed: Cuda error "
                             "custom_all_reduce.cuh:455 'invalid argument'\nEngineCore failed to start: Worker proc "
                             "VllmWorker-* died unexpectedly\n", "serving.custom_allreduce", r"expandable_segments"),
    # https://github.com/sgl-project/sglang/issues/4330 (sglang 0.4.3.post2, the KV pool after the weights)
    "sglang_mem_4330": ("RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.\n",
                        "serving.kv_cache_memory", r"--mem-fraction-static"),
}


def test_generators_regenerate_the_committed_sites_from_their_slices(tmp_path):
    for name, gen in GENERATORS.items():
        got = knowgen.regenerated(gen.main, os.path.join(REPO, "tools", "data", name + "_slice.txt"),
                                  tmp_path / (name + ".json"))
        full = knowgen.committed(name)
        assert got["header"]["version"] == full["header"]["version"], name
        by_text = {s["text"]: s for s in full["sites"]}
        assert len(got["sites"]) >= 8, name
        for s in got["sites"]:
            assert {k: v for k, v in s.items() if k not in ("id", "where")} == \
                {k: v for k, v in by_text[s["text"]].items() if k not in ("id", "where")}, (name, s["id"])
        assert full["unassigned"] == sorted(s["id"] for s in full["sites"] if not s.get("family")), name
    sites = {s["text"]: s for s in knowgen.committed("triton_messages")["sites"]}
    # what the toolchain prints for the launcher build, read from the code that specifies it: -lcuda (triton 3.0's
    # `libraries = ['cuda']`), -l:libcuda.so.1 (3.9's), the #included Python.h (unassigned), and the build command's repr
    assert sites["cannot find -lcuda"]["family"] == "triton.build" and sites["cannot find -lcuda"]["older"]
    assert sites["cannot find -l:libcuda.so.1"]["family"] == "triton.build"
    # the header line is every C build's: read, but no family by itself (triton.toml's `together` gives it Triton's)
    assert sites["fatal error: Python.h: No such file or directory"]["rule"] == "compiler-header"
    assert sites["fatal error: Python.h: No such file or directory"]["family"] is None
    assert "fatal error: stdbool.h: No such file or directory" not in sites  # a C library's own header
    assert sites["'%s', '-O3', '-shared', '-fPIC', '-Wno-psabi', '-o', '%s'"]["family"] == "triton.build"
    # the C++ compiler's message, read from libtriton.so
    assert sites["PassManager::run failed"]["family"] == "triton.compile"
    vllm_sites = {s["text"]: s for s in knowgen.committed("vllm_messages")["sites"]}
    # the custom all-reduce's CUDACHECK format and its file, both read from the wheel's _C library
    assert vllm_sites["Failed: Cuda error %scsrc/custom_all_reduce.cuh:%d '%s'"]["family"] == "serving.custom_allreduce"
    # the bundled ptxas' own message for a GPU it does not know (the option: compiler.py's --gpu-name)
    assert sites["Value '%s' is not defined for option 'gpu-name'"]["family"] == "triton.ptxas"
    vllm = {s["text"]: s for s in knowgen.committed("vllm_messages")["sites"]}
    # a warning is context: vLLM turns its custom all-reduce off and goes on
    assert vllm["Custom allreduce is disabled because your platform lacks GPU P2P capability or P2P test failed. To "
                "silence this warning, specify disable_custom_all_reduce=True explicitly."]["family"] is None


def test_real_texts_get_their_entry_and_fix(cli, tmp_path):
    for name, (text, want, fix_re) in REAL.items():
        rc, doc = explain_paste(cli, tmp_path, text, "--file", name=name + ".txt", rcs=(0, 1))
        if name == "vllm_fork_7077":
            # torch's message: whichever table's site ranks first, cuda.init_failed's cause for vLLM's forked workers
            # is offered with vLLM's variable
            got = next(f for f in doc["findings"] if f["id"] == want)
            assert re.search(fix_re, fixes(got)), fixes(got)
            continue
        assert root_id(doc) == want, (name, ids(doc))
        # the first cause's fix: the site's own (MSG_FIX) or the family's cause its words name
        assert re.search(fix_re, "\n".join(root_of(doc)["causes"][0]["fix"])), (name, fixes(root_of(doc)))
    # a line that lost the rest of torch's message still names the fork, and vLLM's variable first
    rc, doc = explain_paste(cli, tmp_path, REAL["vllm_fork_7077"][0].split("\n")[1].split(" To use")[0] + "\n",
                            "--file", name="cut.txt", rcs=(0, 1))
    got = next(f for f in doc["findings"] if f["id"] == "cuda.init_failed")
    assert "VLLM_WORKER_MULTIPROC_METHOD=spawn" in got["causes"][0]["fix"][0]


def test_a_healthy_start_and_vllms_fallback_warning_are_no_failure(cli, tmp_path):
    healthy = {
        # https://github.com/vllm-project/vllm/issues/10517 (the 20k run that started: memory profiling, KV cache)
        "profile_10517": ("Loading model weights took 14.9888 GB\nMemory profiling results: total_gpu_memory=23.58GiB "
                          "initial_memory_usage=15.34GiB peak_torch_memory=17.06GiB memory_usage_post_profile=15.35GiB "
                          "non_torch_memory=0.35GiB kv_cache_size=3.81GiB gpu_memory_utilization=0.90\n"
                          "GPU blocks: 1952, # CPU blocks: 2048\nMaximum concurrency for 20000 tokens per request: "
                          "1.56x\n"),
        # https://github.com/vllm-project/vllm/issues/4770 (vLLM's custom all-reduce turned off: NCCL does it instead)
        "fallback_4770": ("(eager_allreduce pid=3040) INFO 05-13 08:48:35 utils.py:132] reading GPU P2P access cache from "
                          "/root/.config/vllm/gpu_p2p_access_cache_for_0,1.json\n(eager_allreduce pid=3040) WARNING "
                          "05-13 08:48:35 custom_all_reduce.py:166] Custom allreduce is disabled because your platform "
                          "lacks GPU P2P capability or P2P test failed. To silence this warning, specify "
                          "disable_custom_all_reduce=True explicitly.\n"),
    }
    for name, text in healthy.items():
        rc, doc = explain_paste(cli, tmp_path, text, "--file", name=name + ".txt", rcs=(0, 1))
        assert doc["verdict"] == "no_error" and root_id(doc) is None, (name, ids(doc))
    # the warning is told as what it is (knowledge/serving.toml serving.custom_allreduce_off)
    assert [c["id"] for c in doc["context"]] == ["serving.custom_allreduce_off"], doc["context"]


def test_a_missing_header_is_tritons_only_beside_tritons_lines(cli, tmp_path):
    # the compiler's header line is what every C build prints (review13-c): psutil's setup.py without Python.h is no
    # Triton failure; ld's 'cannot find -lcuda' stays triton.build by itself (driver.py's `libraries`)
    psutil = ("  building 'psutil._psutil_linux' extension\n  gcc -pthread -Wno-unused-result -fPIC "
              "-I/usr/include/python3.10 -c psutil/_psutil_common.c -o build/temp/_psutil_common.o\n"
              "  psutil/_psutil_common.c:9:10: fatal error: Python.h: No such file or directory\n"
              "      9 | #include <Python.h>\n        |          ^~~~~~~~~~\n  compilation terminated.\n"
              "  error: command '/usr/bin/gcc' failed with exit code 1\n")
    rc, doc = explain_paste(cli, tmp_path, psutil, "--file", name="psutil.txt", rcs=(0, 1))
    assert "triton.build" not in ids(doc), ids(doc)
    ld = ("  building 'my_ext._C' extension\n  g++ -pthread -shared build/temp.linux-x86_64-cpython-310/csrc/ops.o "
          "-L/usr/local/cuda/lib64 -lcuda -lcudart -o build/lib.linux-x86_64-cpython-310/my_ext/_C.so\n"
          "  /usr/bin/ld: cannot find -lcuda: No such file or directory\n  collect2: error: ld returned 1 exit status\n"
          "  error: command '/usr/bin/g++' failed with exit code 1\n  ERROR: Failed building wheel for my_ext\n")
    rc, doc = explain_paste(cli, tmp_path, ld, "--file", name="ld.txt", rcs=(0, 1))
    assert root_id(doc) == "triton.build", ids(doc)
    # the same header line beside a frame of Triton's driver.py (it builds the launcher with the header): Triton's, with
    # the Python.h cause's fix
    triton = ("/tmp/tmpq1w2e3/main.c:5:10: fatal error: Python.h: No such file or directory\ncompilation terminated.\n"
              "Traceback (most recent call last):\n  File \"/opt/venv/lib/python3.11/site-packages/triton/backends/"
              "nvidia/driver.py\", line 72, in __init__\n    mod = compile_module_from_src(Path(os.path.join(dirname, "
              "\"driver.c\")).read_text(), \"cuda_utils\")\n")
    rc, doc = explain_paste(cli, tmp_path, triton, "--file", name="triton.txt", rcs=(0, 1))
    assert root_id(doc) == "triton.build", ids(doc)
    assert re.search(r"python3-dev", fixes(root_of(doc))), fixes(root_of(doc))

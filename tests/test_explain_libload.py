"""CUDA library loading outside torch (issue 18): what JAX, XLA (TensorFlow shares it) and PaddlePaddle print
when libcuda / libcudnn / libcublas / libnccl / ptxas are missing or of the wrong version.

The messages are generated from the frameworks' sources (tools/gen_framework_libs.py; its slice
tools/data/framework_libs_slice.txt keeps the functions read, verbatim): the generator regenerates the committed
table, and real texts from public threads (cited per text) get the family and the fix the thread settled on,
through the CLI; the finding says which framework printed the line.
"""

import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SLICE = os.path.join(REPO, "tools", "data", "framework_libs_slice.txt")
sys.path.insert(0, os.path.join(REPO, "tools"))

import gen_framework_libs as gen  # noqa: E402
import knowgen  # noqa: E402
from explainhelp import assert_root, explain_paste, fixes  # noqa: E402

# name -> (text, entry, family, a word of the fix the thread settled on)
REAL = {
    # https://github.com/jax-ml/jax/issues/20519 (jax 0.4.25 from the cuda12_pip wheels; fixed by installing the
    # cuDNN the wheel wants)
    "jax_20519": ("CUDA backend failed to initialize: Unable to load cuDNN. Is it installed? (Set "
                  "TF_CPP_MIN_LOG_LEVEL=0 and rerun for more info.)\n", "jax.cuda_libs", "cuda.libs", "jax[cuda12]"),
    # https://github.com/conda-forge/jax-feedstock/issues/149 (conda's cuDNN 8.9 under jax 0.4.31: needs >= 9.1)
    "jax_feedstock_149": (
        "CUDA backend failed to initialize: Unable to use CUDA because of the following issues with CUDA components:\n"
        "Outdated cuDNN installation found.\nVersion JAX was built against: 8907\nMinimum supported: 9100\n"
        "Installed version: 8907\nThe local installation version must be no lower than 9100..(Set "
        "TF_CPP_MIN_LOG_LEVEL=0 and rerun for more info.)\n", "jax.cuda_libs", "cuda.libs", "nvidia-cudnn-cu12"),
    # https://github.com/MIT-REALM/gcbfplus/issues/1 (jax <= 0.4.30's form of the check: jax/_src/xla_bridge.py of
    # jax-v0.4.25; the answer: a newer cuDNN)
    "jax_gcbfplus_1": ("CUDA backend failed to initialize: Found cuDNN version 8600, but JAX was built against version "
                       "8906, which is newer. The copy of cuDNN that is installed must be at least as new as the version "
                       "against which JAX was built. (Set TF_CPP_MIN_LOG_LEVEL=0 and rerun for more info.)\n",
                       "jax.cuda_libs", "cuda.libs", "nvidia-cudnn-cu12"),
    # https://github.com/jax-ml/jax/issues/20722 (jaxlib without its CUDA extra; settled: pip install jax[cuda12])
    "jax_20722": ("CUDA backend failed to initialize: jaxlib/cuda/versions_helpers.cc:90: operation gpuDeviceGetAttribute( "
                  "&major, GPU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device) failed: CUDA_ERROR_NOT_INITIALIZED (Set "
                  "TF_CPP_MIN_LOG_LEVEL=0 and rerun for more info.)\n", "jax.backend_init", "cuda.init_failed",
                  "jax[cuda12]"),
    # https://github.com/KosinskiLab/AlphaPulldown/issues/237 (JAX logs the quiet failure at INFO and runs on the CPU)
    "alphapulldown_237": (
        "I0105 14:05:05.749943 140453630969664 xla_bridge.py:660] Unable to initialize backend 'cuda': Found cuSOLVER "
        "version 11002, but JAX was built against version 11401, which is newer. The copy of cuSOLVER that is installed "
        "must be at least as new as the version against which JAX was built.\n"
        "I0105 14:05:05.750318 140453630969664 xla_bridge.py:660] Unable to initialize backend 'rocm': NOT_FOUND: Could "
        "not find registered platform with name: \"rocm\". Available platform names are: CUDA\n",
        "jax.cuda_libs", "cuda.libs", "LD_LIBRARY_PATH"),
    # https://github.com/jax-ml/jax/issues/24866 (XLA's cuInit line with 802: the fabric manager's own entry wins)
    "jax_24866": ("2024-11-12 15:37:25.005059: E external/xla/xla/stream_executor/cuda/cuda_driver.cc:152] failed call to "
                  "cuInit: INTERNAL: CUDA error: Failed call to cuInit: CUDA_ERROR_SYSTEM_NOT_READY: system not yet "
                  "initialized\n", "cuda.system_not_ready", "cuda.system_not_ready", "nvidia-fabricmanager"),
    # https://github.com/jax-ml/jax/issues/15361 (a comment's log); the maintainer's answer in
    # https://github.com/jax-ml/jax/issues/16901: reinstall with the pip CUDA wheels in a fresh environment
    "xla_cudnn_15361": (
        "2023-07-31 01:53:45.016563: E external/xla/xla/stream_executor/cuda/cuda_dnn.cc:427] Loaded runtime CuDNN "
        "library: 8.5.0 but source was compiled with: 8.6.0.  CuDNN library needs to have matching major version and "
        "equal or higher minor version. If using a binary install, upgrade your CuDNN library.  If building from "
        "sources, make sure the library loaded at runtime is compatible with the version specified during compile "
        "configuration.\n", "libload.cudnn_version", "cudnn.version", "jax[cuda12]"),
    # https://github.com/PaddlePaddle/PaddleNLP/issues/2980 (paddlepaddle 2.2.2, CUDA 11.0: LD_LIBRARY_PATH)
    "paddle_2980": (
        "RuntimeError: (PreconditionNotMet) The third-party dynamic library (libcublas.so) that Paddle depends on is "
        "not configured correctly. (error code is libcublas.so: cannot open shared object file: No such file or "
        "directory)\n  Suggestions:\n  1. Check if the third-party dynamic library (e.g. CUDA, CUDNN) is installed "
        "correctly and its version is matched with paddlepaddle you installed.\n  2. Configure third-party dynamic "
        "library environment variables as follows:\n  - Linux: set LD_LIBRARY_PATH by `export LD_LIBRARY_PATH=...`\n"
        "  - Windows: set PATH by `set PATH=XXX; (at /paddle/paddle/fluid/platform/dynload/dynamic_loader.cc:285)\n",
        "paddle.dynload", "cuda.libs", "LD_LIBRARY_PATH"),
    # https://github.com/jax-ml/jax/issues/7239 (TF's older asm_compiler.cc; the maintainer: ptxas is not on PATH)
    "ptxas_7239": (
        "2021-07-10 19:06:52.914859: W external/org_tensorflow/tensorflow/stream_executor/gpu/asm_compiler.cc:77] "
        "Couldn't get ptxas version string: Internal: Couldn't invoke ptxas --version\n", "libload.ptxas",
        "cuda.ptx_toolchain", "PATH"),
    # https://github.com/kuku-sichuan/FPN_Faster_RCNN/issues/3 (settled: CUDA_VISIBLE_DEVICES named a GPU that
    # does not exist)
    "cuinit_fpn3": ("failed call to cuInit: CUDA_ERROR_NO_DEVICE\n", "libload.cuinit", "cuda.init_failed",
                    "CUDA_VISIBLE_DEVICES"),
}


def test_generator_regenerates_the_committed_table_from_the_slice(tmp_path):
    got = knowgen.regenerated(gen.main, SLICE, tmp_path / "framework_libs.json")
    full = knowgen.committed("framework_libs")
    assert got["header"]["version"] == full["header"]["version"] and "openxla/xla@" in got["header"]["version"]
    assert got["sites"] == full["sites"] and got["unassigned"] == full["unassigned"]
    by_text = {s["text"]: s for s in got["sites"]}
    # each framework's messages come from its own file; a LOG stream's operands are %s, a format its first line
    assert by_text["Unable to load %s. Is it installed?"]["where"] == "JAX jax_plugins/cuda/__init__.py"
    assert by_text["Could not create cudnn handle: %s"]["family"] == "libload.cudnn_handle"
    assert by_text["kernel version %s does not match DSO version %s -- cannot find working devices in this "
                   "configuration"]["family"] == "libload.cuinit"
    paddle = [t for t in by_text if t.startswith("The third-party dynamic library")]
    assert paddle == ["The third-party dynamic library (%s) that Paddle depends on is not configured correctly. "
                      "(error code is %s)"]
    # informational lines and ROCm's are no sites of a family
    assert by_text["device: %s, cuDNN Version: %s.%s."]["family"] is None


def test_matchers_find_the_line_and_not_a_neighbour():
    sites = {s["text"]: s for s in knowgen.committed("framework_libs")["sites"]}
    dso = re.compile(sites["Could not load dynamic library '%s'; dlerror: %s"]["re"])
    assert dso.search("W dso_loader.cc:64] Could not load dynamic library 'libcudnn.so.8'; dlerror: libcudnn.so.8: "
                      "cannot open shared object file")
    assert not dso.search("Successfully opened dynamic library libcudnn.so.8")


def test_real_texts_get_the_family_the_framework_and_the_thread_s_fix(cli, tmp_path):
    for name, (text, entry, family, fix) in REAL.items():
        rc, doc = explain_paste(cli, tmp_path, text, "--file", name=name + ".txt", rcs=(0,))
        root = assert_root(doc, entry=entry, verdict="root_cause")
        assert root["family"] == family, (name, root["family"])
        assert fix in fixes(root, " "), (name, fix, fixes(root, " "))


def test_a_paddle_version_warning_alone_is_no_root_cause(cli, tmp_path):
    # paddle.utils.run_check()'s output in a public repository's installation notes (a stored code-search copy,
    # PaddlePaddle 2.x on CUDA 11.2): the cuDNN warning, then 'PaddlePaddle works well on 1 GPU': a warning
    text = ("W1114 22:57:32.436527    32 device_context.cc:465] device: 0, cuDNN Version: 8.0.\n"
            "W1114 22:57:33.949204    32 device_context.h:397] WARNING: device: 0. The installed Paddle is compiled "
            "with CUDNN 8.1, but CUDNN version in your machine is 8.0, which may cause serious incompatible bug. "
            "Please recompile or reinstall Paddle with compatible CUDNN version.\n"
            "PaddlePaddle works well on 1 GPU.\n")
    rc, doc = explain_paste(cli, tmp_path, text, "--file", rcs=(0,))
    assert doc["verdict"] == "no_error", [f["id"] for f in doc["findings"]]

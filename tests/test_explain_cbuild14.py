"""Building C/C++/CUDA extensions (issue 18, cbuild14): each CUDA release's nvcc read from its PyPI wheels
(tools/gen_cuda_nvcc.py -> generated/cuda_nvcc.json: the host compiler check of crt/host_config.h, the architectures of
ptxas --help, the -std dialects of the CUDA 13 nvcc binaries), and build.toml's entries
(build.host_compiler, build.nvcc_std, build.python_headers, build.isolation, and the generic build.wheel_failed for
pip's and setuptools' wrapper lines).

The texts in fixtures/build/ were made on this machine by the real programs (2026-11-26):
- pip23_wheel_missing_header.log: pip 23.2.1 `pip wheel --no-deps ./badhdr` (setuptools' build_ext, gcc 12.2) of a
  package whose C source includes a header that is not installed;
- pip23_build_isolation_no_torch.log: pip 23.2.1 `pip wheel --no-deps ./needtorch`, whose setup.py imports torch, in
  pip's isolated build environment (pyproject.toml requires setuptools only);
- gcc12_python_h_missing.log: gcc 12.2 compiling `#include <Python.h>` without Python's include folder;
- gcc12_cuda118_host_config.log: gcc 12.2 including CUDA 11.8's crt/host_config.h (nvidia-cuda-nvcc-cu11 11.8.89)
  with __CUDACC__ defined, as nvcc does (the header's #warning about a direct include is left out);
- pip23_wheel_built_verbose_healthy.log: pip 23.2.1 `pip wheel -v --no-deps ./good` of a C extension that builds
  (gcc's command lines, setuptools' and pip's progress): a healthy log;
- torch213_cuda_extension_cuda_home_unset.log: torch 2.13.0+cpu, `python setup.py build_ext` of a CUDAExtension with
  CUDA_HOME unset and no nvcc on PATH; torch213_load_inline_no_ninja.log: torch.utils.cpp_extension.load_inline with no
  ninja on PATH;
- nvcc13_*.log: nvcc 13.0.88 of the nvidia-cuda-nvcc wheel, `nvcc <flags> -c k.cu` with -arch=sm_35,
  -gencode arch=compute_50,code=sm_50, -arch=compute_61 and -std=c++23.
"""

import os
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SLICE = os.path.join(REPO, "tools", "data", "cuda_nvcc_slice.txt")
FIX = os.path.join(REPO, "fixtures", "build")
sys.path.insert(0, os.path.join(REPO, "tools"))

import gen_cuda_nvcc as gen  # noqa: E402
import knowgen  # noqa: E402
from gpudoctor.explain import explain_text  # noqa: E402


def _first(text):
    r = explain_text(text)
    return r, (r["findings"][0] if r["findings"] else None)


def _words(f):
    return "\n".join(c["text"] + " " + " ".join(c["fix"]) for c in f["causes"][:1])


def test_generator_regenerates_the_committed_table_from_the_slice(tmp_path):
    got = knowgen.regenerated(gen.main, SLICE, tmp_path / "cuda_nvcc.json")
    full = knowgen.committed("cuda_nvcc")
    assert got["versions"] == full["versions"]
    assert [{k: v for k, v in s.items()} for s in got["sites"]] == full["sites"]
    assert "nvidia_cuda_nvcc_cu12-12.4.131" in full["header"]["version"]


def test_the_table_holds_each_release_limit_read_from_its_header():
    rows = {r["cuda"]: r for r in knowgen.committed("cuda_nvcc")["versions"]}
    # the #if conditions above each #error: '__GNUC__ > 11' (11.8), '> 13' (12.4), '> 14' (12.8), clang '>= 18' (12.4)
    assert rows["11.8"]["gcc_max"] == 11 and rows["12.4"]["gcc_max"] == 13 and rows["12.8"]["gcc_max"] == 14
    assert rows["12.4"]["clang_max"] == 17 and rows["12.4"]["msvc_below"] == 1950
    assert all(r.get("gcc_max") for r in rows.values())
    # ptxas --help's --gpu-name values: 3.5 until 11.8, 5.0 to 7.2 until 12.9, 9.0 from 11.8, 10.0 from 12.8
    assert "3.5" in rows["11.8"]["archs"] and "3.5" not in rows["12.0"]["archs"]
    assert "7.0" in rows["12.9"]["archs"] and "7.0" not in rows["13.0"]["archs"]
    assert "9.0" not in rows["11.7"]["archs"] and "10.0" in rows["12.8"]["archs"]
    assert "c++23" in rows["13.3"]["std"] and "c++23" not in rows["13.2"]["std"]


def test_a_real_host_compiler_refusal_gets_the_limit_and_a_newer_cuda():
    text = open(os.path.join(FIX, "gcc12_cuda118_host_config.log")).read()
    r, f = _first(text)
    assert f["id"] == "build.host_compiler" and r["verdict"] == "root_cause"
    words = _words(f)
    assert "CUDA 11.7-11.8 accepts gcc up to version 11" in words
    assert "CC=gcc-11 CXX=g++-11" in words and "CUDA 12.0 accepts gcc up to 12" in words
    # the override is named only with NVIDIA's own caveat
    assert "-allow-unsupported-compiler" in words and "incorrect run time" in words


@pytest.mark.parametrize("n,cuda", [("13", "12.4-12.6"), ("14", "12.8-12.9"), ("15", "13.0-13.3")])
def test_each_release_limit_of_the_generated_sites(n, cuda):
    line = ("/usr/local/cuda/include/crt/host_config.h:143:2: error: #error -- unsupported GNU version! gcc versions "
            "later than %s are not supported! The nvcc flag '-allow-unsupported-compiler' can be used to override this "
            "version check; however, using an unsupported host compiler may cause compilation failure or incorrect run "
            "time execution. Use at your own risk.\n" % n)
    _, f = _first(line)
    assert f["id"] == "build.host_compiler" and "CUDA %s accepts gcc up to version %s" % (cuda, n) in _words(f)


def test_a_cuda_older_than_the_wheels_still_gets_the_family():
    # CUDA 11.0-11.4 printed 'later than 9/10' (same #error wording; no wheel on PyPI to read it from)
    _, f = _first("host_config.h:138:2: error: #error -- unsupported GNU version! gcc versions later than 10 are not "
                  "supported! The nvcc flag '-allow-unsupported-compiler' can be used to override this version check\n")
    assert f["id"] == "build.host_compiler" and "gcc-N" in _words(f)


@pytest.mark.parametrize("text", [
    # https://github.com/qwopqwop200/GPTQ-for-LLaMa/issues/33 (torch 1.13's wording; fixed with CC=gcc-11 CXX=g++-11)
    "RuntimeError: The current installed version of g++ (12.2.1) is greater than the maximum required version by CUDA "
    "11.7 (11.5.0). Please make sure to use an adequate version of g++ (>=6.0.0, <=11.5.0).\n",
    # https://github.com/mit-han-lab/torchsparse/issues/189 (inside pip's build output)
    "      RuntimeError: The current installed version of x86_64-linux-gnu-g++ (11.3.0) is greater than the maximum "
    "required version by CUDA 11.3 (10.0.0). Please make sure to use an adequate version of x86_64-linux-gnu-g++ "
    "(>=5.0.0, <=10.0.0).\n",
])
def test_torch_cpp_extension_compiler_check_is_the_host_compiler(text):
    _, f = _first(text)
    assert f["id"] == "build.host_compiler"
    words = _words(f)
    assert "CC=gcc-<N> CXX=g++-<N>" in words and "<=" in words  # the range the message names, filled in


def test_an_old_cuda_host_config_line_gets_the_family_and_the_number():
    # https://github.com/adujardin/zed-openpose/issues/6 (CUDA 9.0: 'later than 6'; settled: gcc 6 or CUDA 10)
    _, f = _first("> /usr/local/cuda-9.0/include/crt/host_config.h:119:2: error: #error -- unsupported GNU version! gcc "
                  "versions later than 6 are not supported!\n")
    assert f["id"] == "build.host_compiler" and "CC=gcc-N CXX=g++-N" in _words(f)


def test_python_h_missing_is_the_dev_headers():
    r, f = _first(open(os.path.join(FIX, "gcc12_python_h_missing.log")).read())
    assert f["id"] == "build.python_headers" and "python3-dev" in _words(f)


def test_pip_wrapper_lines_are_a_family_whose_cause_is_the_compiler_error_above():
    r, f = _first(open(os.path.join(FIX, "pip23_wheel_missing_header.log")).read())
    assert f["id"] == "build.wheel_failed" and f["confidence"] == "family"
    assert "header the package includes is not installed" in f["causes"][0]["text"]


@pytest.mark.parametrize("text", [
    # https://github.com/Mebus/restatic/issues/2 (psutil; settled: python3-dev / python3.x-dev)
    "  psutil/_psutil_common.c:9:10: fatal error: Python.h: No such file or directory\n   #include <Python.h>\n"
    "            ^~~~~~~~~~\n  compilation terminated.\n  error: command 'x86_64-linux-gnu-gcc' failed with exit "
    "status 1\n  \n  ----------------------------------------\n  Failed building wheel for psutil\n",
    # https://github.com/jdidion/atropos/issues/142 (pip >= 22 around a module's gcc; RHEL 8)
    "      atropos/align/_align.c:29:10: fatal error: Python.h: No such file or directory\n"
    "         29 | #include \"Python.h\"\n            |          ^~~~~~~~~~\n      compilation terminated.\n"
    "      error: command '/nas/longleaf/rhel8/apps/gcc/11.2.0/bin/gcc' failed with exit code 1\n"
    "      [end of output]\n\n  note: This error originates from a subprocess, and is likely not a problem with pip.\n",
])
def test_the_wrapper_lines_do_not_hide_the_real_compiler_error(text):
    _, f = _first(text)
    assert f["id"] == "build.python_headers" and "python3-dev" in _words(f)


def test_numpy_distutils_command_line_is_the_build_family():
    # https://github.com/gkrsv/split_audio/issues/4 (numba's build: numpy.distutils' double-quoted Command)
    _, f = _first('      error: Command "x86_64-linux-gnu-gcc -Wno-unused-result -Wsign-compare -DNDEBUG -g -fwrapv -O2 '
                  '-fPIC -I/usr/include/python3.10 -c numba/_dynfuncmod.c -o build/temp.linux-x86_64-cpython-310/numba/'
                  '_dynfuncmod.o -g" failed with exit status 1\n      [end of output]\n')
    assert f["id"] == "build.wheel_failed"


def test_build_isolation_without_torch_is_no_build_isolation():
    r, f = _first(open(os.path.join(FIX, "pip23_build_isolation_no_torch.log")).read())
    assert f["id"] == "build.isolation" and "--no-build-isolation" in _words(f)


UV_NO_TORCH = (
    # https://github.com/ai-bond/flash-attention-v100/pull/23 (uv pip install . of a setup.py that imports torch)
    "(flash-attention-v100) flash-attention-v100 git:main  \u276f uv pip install . \u23ce\n"
    "Resolved 31 packages in 9ms\n"
    "  \u00d7 Failed to build `flash-attn-v100 @ file:///[...]/git/flash-attention-v100`\n"
    "  \u251c\u2500\u25b6 The build backend returned an error\n"
    "  \u2570\u2500\u25b6 Call to `setuptools.build_meta.build_wheel` failed (exit status: 1)\n\n"
    "      [stderr]\n      Traceback (most recent call last):\n"
    "        File \"<string>\", line 15, in get_ext_modules\n"
    "      ModuleNotFoundError: No module named 'torch'\n")


def test_uv_build_without_torch_is_no_build_isolation():
    _, f = _first(UV_NO_TORCH)
    assert f["id"] == "build.isolation" and "--no-build-isolation" in _words(f)


def test_uv_wrapper_lines_alone_are_the_build_family():
    _, f = _first(UV_NO_TORCH.split("\n\n")[0] + "\n")
    assert f["id"] == "build.wheel_failed" and f["confidence"] == "family"


def test_nvcc_std_value_not_defined():
    # https://github.com/loki-47-6F-64/sunshine/issues/361 (Ubuntu 20.04's nvcc, CUDA 10.1, under -std=c++17)
    _, f = _first("nvcc fatal   : Value 'c++17' is not defined for option 'std'\nmake[2]: *** [CMakeFiles/sunshine.dir/"
                  "build.make:328: CMakeFiles/sunshine.dir/sunshine/platform/linux/cuda.cu.o] Error 1\n")
    assert f["id"] == "build.nvcc_std" and "CUDA_HOME" in _words(f)
    # https://github.com/openPMD/openPMD-api/pull/1102 (CMake's gnu++17 with nvcc 11.0 as the C++ compiler)
    _, f = _first("nvcc fatal   : Value 'gnu++17' is not defined for option 'std'\n")
    assert f["id"] == "build.nvcc_std"


def test_nvcc_13_refuses_c23_before_13_3():
    _, f = _first(open(os.path.join(FIX, "nvcc13__std_c__23.log")).read())
    assert f["id"] == "build.nvcc_std" and "from CUDA 13.3 on" in _words(f)


@pytest.mark.parametrize("name,words", [
    ("nvcc13__arch_sm_35.log", "compute_35 (compute capability 3.5) was dropped by CUDA 12.0"),
    ("nvcc13__gencode_arch_compute_50_code_sm_50.log", "dropped by CUDA 13.0 (the last release that compiles for it: "
                                                       "12.9)"),
    ("nvcc13__arch_compute_61.log", "build with CUDA 12.9 or older"),
])
def test_a_real_nvcc_arch_refusal_names_the_release_that_dropped_it(name, words):
    _, f = _first(open(os.path.join(FIX, name)).read())
    assert f["id"] == "build.nvcc_arch" and words in _words(f) and "TORCH_CUDA_ARCH_LIST" in _words(f)


def test_an_arch_newer_than_the_toolkit_needs_the_release_that_added_it():
    # nvcc's line (as in the nvcc13 fixtures) from a toolkit older than 11.8 asked for Hopper's compute_90
    _, f = _first("nvcc fatal   : Unsupported gpu architecture 'compute_90'\n")
    assert f["id"] == "build.nvcc_arch" and "needs CUDA 11.8 or newer" in _words(f)


def test_no_module_named_torch_outside_a_build_is_not_build_isolation():
    _, f = _first("Traceback (most recent call last):\n  File \"train.py\", line 1, in <module>\n    import torch\n"
                  "ModuleNotFoundError: No module named 'torch'\n")
    assert f is None or f["id"] != "build.isolation"


def test_a_verbose_build_that_succeeds_is_healthy():
    r, f = _first(open(os.path.join(FIX, "pip23_wheel_built_verbose_healthy.log")).read())
    assert r["verdict"] == "no_error" and f is None


@pytest.mark.parametrize("name,entry,words", [
    ("torch213_cuda_extension_cuda_home_unset.log", "build.cuda_home", "CUDA_HOME"),
    ("torch213_load_inline_no_ninja.log", "build.ninja", "pip install ninja"),
])
def test_torch_cpp_extension_toolchain_checks_made_here(name, entry, words):
    _, f = _first(open(os.path.join(FIX, name)).read())
    assert f["id"] == entry and words in _words(f)

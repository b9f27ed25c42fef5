#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/cuda_errors.json: every cudaError_t (CUDA runtime)
and CUresult (CUDA driver API) code: its name, number, NVIDIA's description (the doc comment of
the enum in driver_types.h / cuda.h) and the text cudaGetErrorString prints for it, each with a
matcher and the knowledge family that says what a training user should do (FAMILIES below).

Usage:
    pip download --no-deps nvidia-cuda-runtime-cu12 -d /tmp/w && unzip -q /tmp/w/*.whl -d /tmp/w/rt
    python tools/gen_cuda_errors.py --root /tmp/w/rt/nvidia/cuda_runtime [--version 12.9.79] [-o OUT]
    python tools/gen_cuda_errors.py --slice tools/data/cuda_errors_slice.txt -o OUT   (the test)

Source: the nvidia-cuda-runtime-cu12 wheel (https://pypi.org/project/nvidia-cuda-runtime-cu12/):
include/driver_types.h (enum cudaError), include/cuda.h (enum cudaError_enum), and
lib/libcudart.so.12's cudaGetErrorString (a table lookup: it needs no GPU or driver). The wheel is
never committed. A slice file holds a part of each header after `=== driver_types.h` /
`=== cuda.h` and the recorded strings as `#! string CODE TEXT` lines.
"""

import argparse
import ctypes
import glob
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_cuda_errors.py"

# code -> knowledge entry (hand-written; what the code means for a training job). Codes not
# listed go to the generic cuda.api_error family (a CUDA call failed: find the first one).
FAMILIES = {
    710: "cuda.device_assert",
    700: "cuda.illegal_access", 716: "cuda.illegal_access", 717: "cuda.illegal_access",
    718: "cuda.illegal_access", 719: "cuda.illegal_access", 715: "cuda.illegal_access",
    714: "cuda.gpu_hardware", 214: "cuda.gpu_hardware", 220: "cuda.gpu_hardware", 221: "cuda.gpu_hardware",
    2: "cuda.oom",
    35: "cuda.driver_insufficient", 36: "cuda.driver_insufficient", 804: "cuda.driver_insufficient",
    222: "cuda.ptx_toolchain", 218: "cuda.ptx_toolchain",
    209: "cuda.no_kernel_image", 98: "cuda.no_kernel_image", 200: "cuda.no_kernel_image",
    100: "cuda.not_available",
    101: "cuda.invalid_device_ordinal",
    46: "cuda.busy_unavailable", 216: "cuda.busy_unavailable",
    802: "cuda.system_not_ready", 803: "cuda.system_not_ready",
    3: "cuda.init_failed", 999: "cuda.init_failed",
    704: "gpu.p2p", 705: "gpu.p2p", 217: "gpu.p2p",
}
NOT_ERRORS = {0, 600}  # cudaSuccess, cudaErrorNotReady ("not actually an error")
# texts too common outside CUDA to match without a CUDA context ("CUDA error: ", "Cuda failure ")
_DISTINCT_MIN = 24
_CONTEXT = r"(?:CUDA error|Cuda failure|CUDA failure|cuda runtime error|CUDA Error|cudaError)[^\n]{0,24}?"

_ENUM_ITEM = re.compile(r"(/\*\*(?:(?!\*/).)*\*/)?\s*(\w+)\s*=\s*(\d+)\s*,?", re.S)


def parse_enum(text, start_re):
    """[(name, number, doc)] of the enum whose opening matches start_re."""
    m = re.search(start_re, text)
    if not m:
        return []
    body = text[m.end():text.index("}", m.end())]
    out = []
    for it in _ENUM_ITEM.finditer(body):
        doc = it.group(1) or ""
        doc = re.sub(r"^\s*/?\*+/?", "", doc, flags=re.M)
        doc = " ".join(doc.split()).replace("::", "")
        doc = re.sub(r"\\deprecated\s*", "Deprecated: ", doc)
        out.append((it.group(2), int(it.group(3)), doc.strip()))
    return out


def matcher(names, text):
    alts = [r"\b%s\b" % re.escape(n) for n in names]
    if text and text != "unrecognized error code":
        if len(text) >= _DISTINCT_MIN:
            alts.append(re.escape(text))
        else:
            alts.append(_CONTEXT + re.escape(text) + r"\b")
    return "(?:%s)" % "|".join(alts)


def build(runtime, driver, strings, version):
    sites = []
    driver_by_code = {}
    for name, code, doc in driver:
        driver_by_code.setdefault(code, []).append((name, doc))
    for name, code, doc in runtime:
        if code in NOT_ERRORS:
            continue
        text = strings.get(code, "")
        dnames = [n for n, _ in driver_by_code.get(code, [])]
        sites.append({"id": "cuda.%s" % name, "api": "runtime", "name": name, "code": code, "text": text,
                      "doc": doc[:600], "driver_names": dnames, "re": matcher([name] + dnames, text),
                      "family": FAMILIES.get(code, "cuda.api_error"),
                      "rule": "FAMILIES[%d]" % code if code in FAMILIES else "default"})
    runtime_codes = {s["code"] for s in sites} | NOT_ERRORS
    for name, code, doc in driver:  # driver-only codes
        if code in runtime_codes or code in NOT_ERRORS:
            continue
        sites.append({"id": "cuda.%s" % name, "api": "driver", "name": name, "code": code, "text": "",
                      "doc": doc[:600], "driver_names": [], "re": matcher([name], ""),
                      "family": FAMILIES.get(code, "cuda.api_error"),
                      "rule": "FAMILIES[%d]" % code if code in FAMILIES else "default"})
    return {"header": knowgen.header("nvidia-cuda-runtime-cu12 wheel (https://pypi.org/project/nvidia-cuda-runtime-cu12/)"
                                     ": include/driver_types.h, include/cuda.h, cudaGetErrorString of libcudart",
                                     version, GENERATOR),
            "sites": sites}


def from_root(root):
    with open(os.path.join(root, "include", "driver_types.h"), errors="replace") as f:
        dt = f.read()
    with open(os.path.join(root, "include", "cuda.h"), errors="replace") as f:
        ch = f.read()
    runtime = parse_enum(dt, r"enum __device_builtin__ cudaError\s*\{")
    driver = parse_enum(ch, r"typedef enum cudaError_enum\s*\{")
    lib = ctypes.CDLL(sorted(glob.glob(os.path.join(root, "lib", "libcudart.so*")))[0])
    lib.cudaGetErrorString.restype = ctypes.c_char_p
    strings = {code: lib.cudaGetErrorString(code).decode() for _, code, _ in runtime}
    return runtime, driver, strings


def from_slice(path):
    parts, strings, cur, version = {}, {}, None, "slice"
    with open(path) as f:
        for line in f:
            if line.startswith("#! string "):
                code, _, text = line[len("#! string "):].rstrip("\n").partition(" ")
                strings[int(code)] = text
            elif line.startswith("#! version "):
                version = line[len("#! version "):].strip()
            elif line.startswith("=== "):
                cur = line[4:].strip()
                parts[cur] = []
            elif cur:
                parts[cur].append(line)
    runtime = parse_enum("".join(parts.get("driver_types.h", [])), r"enum __device_builtin__ cudaError\s*\{")
    driver = parse_enum("".join(parts.get("cuda.h", [])), r"typedef enum cudaError_enum\s*\{")
    return runtime, driver, strings, version


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", help="the wheel's nvidia/cuda_runtime folder")
    ap.add_argument("--version", default="", help="the wheel's version")
    ap.add_argument("--slice")
    ap.add_argument("-o", "--out")
    a = ap.parse_args(argv)
    if bool(a.root) == bool(a.slice):
        ap.error("give --root or --slice")
    if a.root:
        runtime, driver, strings = from_root(a.root)
        version = "nvidia-cuda-runtime-cu12 %s" % a.version
    else:
        runtime, driver, strings, version = from_slice(a.slice)
    doc = build(runtime, driver, strings, version)
    path = knowgen.write("cuda_errors", doc, a.out)
    print("%s: %d codes" % (path, len(doc["sites"])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

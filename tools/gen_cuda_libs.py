#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/cuda_libs.json: the status codes of the CUDA math and
deep-learning libraries torch ships with (cublasStatus_t, cudnnStatus_t, cusolverStatus_t,
cusparseStatus_t, curandStatus_t, cufftResult, ncclResult_t): each code's name, number and the
comment its header gives it, with a matcher on the name and the knowledge family (RULES below)
that says what a training user does about it. Codes no rule assigns are listed, never guessed.

Usage:
    pip download --no-deps nvidia-cublas-cu12 nvidia-cudnn-cu12 nvidia-cusolver-cu12 \
        nvidia-cusparse-cu12 nvidia-curand-cu12 nvidia-cufft-cu12 nvidia-nccl-cu12 -d /tmp/w
    python tools/gen_cuda_libs.py --wheel /tmp/w/*.whl [-o OUT]
        (reads each wheel's header without unpacking it; writes tools/data/cuda_libs_slice.txt too)
    python tools/gen_cuda_libs.py --slice tools/data/cuda_libs_slice.txt -o OUT   (the test)

Sources (the wheels are never committed; the slice keeps each status enum verbatim, with the
wheel's name and version): nvidia-cublas-cu12 include/cublas_api.h, nvidia-cudnn-cu12
include/cudnn_graph.h, nvidia-cusolver-cu12 include/cusolver_common.h, nvidia-cusparse-cu12
include/cusparse.h, nvidia-curand-cu12 include/curand.h, nvidia-cufft-cu12 include/cufft.h,
nvidia-nccl-cu12 include/nccl.h (https://pypi.org/project/<name>/).

How the codes reach a log: torch prints the name. cuBLAS: "CUDA error: CUBLAS_STATUS_... when
calling `cublasGemmEx(...)`" (aten/src/ATen/cuda/CUDABlas.cpp, _cublasGetErrorEnum); cuDNN:
"cuDNN error: CUDNN_STATUS_..." (cudnnGetErrorString returns the name; aten/src/ATen/cudnn/Exceptions.h);
cuSOLVER: "cusolver error: CUSOLVER_STATUS_..., when calling `...`"; cuFFT: "cuFFT error: CUFFT_...";
NCCL: "ncclUnhandledCudaError: Call to CUDA function failed." (torch/csrc/distributed/c10d/NCCLUtils.cpp).
"""

import os
import re
import sys
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_cuda_libs.py"
SLICE = os.path.join(knowgen.DATA, "cuda_libs_slice.txt")

# library -> (wheel, header inside the wheel, the first (success) name of its status enum)
LIBS = [
    ("cublas", "nvidia-cublas-cu12", "nvidia/cublas/include/cublas_api.h", "CUBLAS_STATUS_SUCCESS"),
    ("cudnn", "nvidia-cudnn-cu12", "nvidia/cudnn/include/cudnn_graph.h", "CUDNN_STATUS_SUCCESS"),
    ("cusolver", "nvidia-cusolver-cu12", "nvidia/cusolver/include/cusolver_common.h", "CUSOLVER_STATUS_SUCCESS"),
    ("cusparse", "nvidia-cusparse-cu12", "nvidia/cusparse/include/cusparse.h", "CUSPARSE_STATUS_SUCCESS"),
    ("curand", "nvidia-curand-cu12", "nvidia/curand/include/curand.h", "CURAND_STATUS_SUCCESS"),
    ("cufft", "nvidia-cufft-cu12", "nvidia/cufft/include/cufft.h", "CUFFT_SUCCESS"),
    ("nccl", "nvidia-nccl-cu12", "nvidia/nccl/include/nccl.h", "ncclSuccess"),
]

# Not errors: success, "in progress" (a non-blocking call not finished yet), the enum's count.
NOT_ERRORS = re.compile(r"_SUCCESS$|^ncclSuccess$|^ncclInProgress$|^ncclNumResults$|^CUDNN_STATUS_RUNTIME_IN_PROGRESS$")

# (rule, knowledge entry or None, regex on the code's name): the first that matches assigns the
# family (hand-written; what the code means for a training job, from each library's status-code
# documentation: cuBLAS "cublasStatus_t", cuDNN "cudnnStatus_t", cuSOLVER/cuSPARSE/cuRAND/cuFFT
# return values, NCCL "ncclResult_t").
RULES = [
    # license codes are for licensed builds that pip wheels are not: never seen in a training log
    ("license", None, r"LICENSE"),
    # "Deprecated feature was used": cuDNN's warning status, not a failure
    ("deprecated", None, r"^CUDNN_STATUS_DEPRECATED$"),
    # GPU memory: the library could not allocate its workspace or handle (cuBLAS: "Resource allocation
    # failed inside the cuBLAS library. This is usually caused by a cudaMalloc() failure")
    # (CUDNN_STATUS_ALLOC_FAILED is 9.x's alias of HOST_ALLOCATION_FAILED, but cuDNN 8, whose logs print
    # it most, documented it as "usually caused by an internal cudaMalloc() failure")
    ("gpu-oom", "cuda.oom", r"^(?:CUBLAS_STATUS_ALLOC_FAILED|CUSOLVER_STATUS_ALLOC_FAILED|CUSPARSE_STATUS_ALLOC_FAILED|"
                            r"CURAND_STATUS_ALLOCATION_FAILED|CUFFT_ALLOC_FAILED|CUDNN_STATUS_ALLOC_FAILED|"
                            r"CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED)$"),
    ("host-oom", "errno.enomem", r"^CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED$"),
    # cuBLAS could not create its handle: out of memory on the device at handle creation, or every
    # rank on GPU 0 (no torch.cuda.set_device), or a mixed-up libcublas
    ("cublas-init", "cuda.cublas_not_initialized", r"^CUBLAS_STATUS_NOT_INITIALIZED$"),
    ("cublas", "cuda.cublas_failed", r"^CUBLAS_STATUS_"),
    # cuDNN: the libraries (sub-libraries of another version, a driver or runtime too old)
    ("cudnn-libs", "cudnn.version", r"^CUDNN_STATUS_(?:SUBLIBRARY_VERSION_MISMATCH|VERSION_MISMATCH|SUBLIBRARY_LOADING_FAILED|"
                                    r"NOT_SUPPORTED_SUBLIBRARY_UNAVAILABLE|SERIALIZATION_VERSION_MISMATCH|"
                                    r"NOT_SUPPORTED_INCOMPATIBLE_CUDA_DRIVER|NOT_SUPPORTED_INCOMPATIBLE_CUDART|"
                                    r"(?:NOT_SUPPORTED_)?RUNTIME_PREREQUISITE_MISSING)$"),
    ("fp-overflow", "usercode.nan_inf", r"^CUDNN_STATUS_RUNTIME_FP_OVERFLOW$"),
    # shapes, dtypes, layouts, the chosen algorithm: the inputs or torch.backends.cudnn settings
    ("cudnn-unsupported", "cudnn.not_supported", r"^CUDNN_STATUS_(?:NOT_SUPPORTED|BAD_PARAM|INVALID_VALUE|ARCH_MISMATCH)"),
    # internal / execution failures: usually memory or an earlier asynchronous CUDA error
    ("cudnn-internal", "cudnn.internal_error", r"^CUDNN_STATUS_(?:INTERNAL_ERROR|EXECUTION_FAILED|MAPPING_ERROR|"
                                               r"NOT_INITIALIZED)"),
    # NCCL's result codes: the existing NCCL families (src/nccl.h.in, torch's getNcclErrorDetailStr)
    ("nccl-cuda", "nccl.unhandled_cuda_error", r"^ncclUnhandledCudaError$"),
    ("nccl-system", "nccl.system_error", r"^ncclSystemError$"),
    ("nccl-internal", "nccl.internal_error", r"^ncclInternalError$"),
    ("nccl-usage", "nccl.invalid_usage", r"^nccl(?:InvalidArgument|InvalidUsage)$"),
    ("nccl-remote", "nccl.remote_error", r"^ncclRemoteError$"),
    ("nccl-timeout", "nccl.timeout", r"^ncclTimeout$"),
    # cuRAND's own library checks
    ("curand-version", "cuda.libs", r"^CURAND_STATUS_VERSION_MISMATCH$"),
    ("curand-init", "cuda.init_failed", r"^CURAND_STATUS_INITIALIZATION_FAILED$"),
    # the rest of the math libraries: a generic family whose causes tell apart
    ("mathlib", "cudalib.error", r"^(?:CUSOLVER|CUSPARSE|CURAND|CUFFT)_"),
]

# name -> (what it means, [fixes]): only where the code itself names the cause (shown first,
# confidence "cause"); every other code keeps its family's causes, which tell the cases apart.
MEANS = {
    "CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDA_DRIVER": (
        "the NVIDIA driver is older than the CUDA this cuDNN was built for (cuDNN 9 for CUDA 12 needs a "
        "driver >= 525.60.13 on Linux)",
        ["upgrade the NVIDIA driver (nvidia-smi shows its version and the highest CUDA it supports), or install the "
         "torch build for an older CUDA (https://pytorch.org/get-started/locally/)"]),
    "CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH": (
        "two cuDNN versions are loaded together: a system cuDNN (LD_LIBRARY_PATH, /usr/local/cuda/lib64) beside the "
        "pip nvidia-cudnn wheel torch depends on, so libcudnn.so and its sub-libraries (libcudnn_graph, _ops, ...) "
        "differ",
        ["unset LD_LIBRARY_PATH (or drop the system cuDNN from it) and rerun; python -c 'import torch; "
         "print(torch.backends.cudnn.version())' must print the pip wheel's version (pip show nvidia-cudnn-cu12)"]),
    "CUSOLVER_STATUS_ZERO_PIVOT": (
        "the factorization met a zero pivot: the matrix is singular (or not positive definite for Cholesky), often "
        "from NaN/inf or a rank-deficient batch",
        ["check the input for NaN/inf and rank deficiency; add a small diagonal (A + eps * I) or use "
         "torch.linalg.lstsq / torch.linalg.pinv instead of solve / inv; torch.linalg.*_ex returns info instead of "
         "raising"]),
    "CUSPARSE_STATUS_ZERO_PIVOT": (
        "the sparse factorization met a zero pivot: the matrix is singular",
        ["check the sparse matrix for empty rows and NaN/inf; regularize it (add eps to the diagonal)"]),
    "CUSOLVER_STATUS_IRS_MATRIX_SINGULAR": (
        "the iterative-refinement solver found the matrix singular",
        ["check the input for NaN/inf and rank deficiency; regularize (A + eps * I) or use a least-squares solver"]),
}

# an item starts its line (or the enum body); cuDNN puts a deprecation macro between name and '='
_ITEM = re.compile(r"^\s*([A-Za-z_]\w*)(?:[ \t]+[A-Z_]*DEPRECATED[A-Z_]*)?\s*=\s*(0[xX][0-9A-Fa-f]+|-?\d+|[A-Za-z_]\w*)",
                   re.M)
_COMMENT = re.compile(r"/\*+<?\s*((?:(?!\*/).)*)\*/|//+<?\s*([^\n]*)", re.S)


def enum_text(header, first):
    """The status enum of a header: from its `enum`/`typedef enum` to the end of its `} name;`."""
    m = re.search(r"\b%s\s*=" % re.escape(first), header)
    if not m:
        raise SystemExit("%s not found in the header" % first)
    start = header.rfind("enum", 0, m.start())
    start = header.rfind("typedef", 0, start) if header[max(0, start - 8):start].strip().endswith("typedef") else start
    end = header.index(";", header.index("}", m.end())) + 1
    return header[start:end]


def parse_enum(text):
    """[(name, number, comment)]: each `NAME = value` of the enum (a value naming an earlier item is
    resolved to its number), with the comments on its own line after the value (cuDNN `/**< */`,
    cuRAND `///<`) or a doc comment (`/** */`) on the lines before it."""
    body = text[text.index("{") + 1:text.rindex("}")]
    items, values, pending_doc, pos = [], {}, "", 0
    for m in _ITEM.finditer(body):
        between = body[pos:m.start()]
        docs = [c.group(1) for c in _COMMENT.finditer(between) if c.group(0).startswith("/**") and
                not c.group(0).startswith("/**<")]
        pending_doc = docs[-1] if docs else ""
        name, val = m.group(1), m.group(2)
        num = int(val, 0) if re.match(r"-?\d|0[xX]", val) else values.get(val)
        if num is None:
            continue
        values[name] = num
        eol = body.find("\n", m.end())
        eol = len(body) if eol < 0 else eol
        # the value's own line; a comment continuing past the line end is taken whole
        rest = body[m.end():eol]
        if "/*" in rest and "*/" not in rest[rest.index("/*"):]:
            eol = body.index("*/", m.end()) + 2
            rest = body[m.end():eol]
        trailing = [(c.group(1) or c.group(2) or "") for c in _COMMENT.finditer(rest)]
        comment = " ".join(" ".join(t.replace("*", " ").split()) for t in ([pending_doc] if pending_doc else []) + trailing)
        items.append((name, num, comment.strip()))
        pos = eol
    return items


def matcher(name):
    # the name as torch prints it; \b keeps CUDNN_STATUS_NOT_SUPPORTED from matching _NOT_SUPPORTED_SHAPE
    return r"\b%s\b" % re.escape(name)


def build(libs, version):
    sites = []
    for lib, wheel, header, enum in libs:
        for name, code, comment in parse_enum(enum):
            if NOT_ERRORS.search(name):
                continue
            rule, family = knowgen.assign([(r, f, {"name": rx}) for r, f, rx in RULES], None, {"name": name})
            site = {"id": "%s.%s" % (lib, name), "library": lib, "wheel": wheel, "where": header, "name": name,
                    "code": code, "text": comment, "re": matcher(name), "family": family,
                    "rule": rule or "no rule"}
            if family is None and rule:
                site["rule"] = "%s: not an error of a training job" % rule
            if name in MEANS and family:
                site["means"], site["fix"] = MEANS[name][0], list(MEANS[name][1])
            sites.append(site)
    missing = sorted(set(MEANS) - {s["name"] for s in sites})
    if missing:
        raise SystemExit("MEANS names codes the headers do not have: %s" % ", ".join(missing))
    return {"header": knowgen.header("the CUDA library wheels on PyPI (https://pypi.org/project/<wheel>/): "
                                     "cublas_api.h, cudnn_graph.h, cusolver_common.h, cusparse.h, curand.h, cufft.h, "
                                     "nccl.h", version, GENERATOR,
                                     "families from the RULES table of the generator; success and in-progress codes "
                                     "are not sites"),
            "sites": sites}


def slice_from_wheels(paths):
    """The slice text: each library's status enum, verbatim, after `=== <lib> <wheel> <version> <header>`."""
    found, out = {}, []
    for p in paths:
        base = os.path.basename(p)
        dist, ver = base.split("-")[:2]
        with zipfile.ZipFile(p) as z:
            names = set(z.namelist())
            for lib, wheel, header, first in LIBS:
                if wheel.replace("-", "_") == dist and header in names:
                    found[lib] = (wheel, ver, header, enum_text(z.read(header).decode("utf-8", "replace"), first))
    absent = [lib for lib, *_ in LIBS if lib not in found]
    if absent:
        raise SystemExit("no wheel given for: %s" % ", ".join(absent))
    out.append("#! version %s\n" % ", ".join("%s %s" % (found[lib][0], found[lib][1]) for lib, *_ in LIBS))
    out.append("# The status enums of the CUDA library wheels on PyPI, verbatim (NVIDIA's headers; written by "
               "tools/gen_cuda_libs.py --wheel)\n")
    for lib, *_ in LIBS:
        wheel, ver, header, text = found[lib]
        out.append("=== %s %s %s %s\n%s\n" % (lib, wheel, ver, header.split("/", 2)[2], text))
    return "".join(out)


def read_slice(path):
    libs, version, cur = [], "slice", None
    with open(path) as f:
        for line in f:
            if line.startswith("#! version "):
                version = line[len("#! version "):].strip()
            elif line.startswith("=== "):
                lib, wheel, ver, header = line[4:].split()
                cur = [lib, "%s %s" % (wheel, ver), header, ""]
                libs.append(cur)
            elif cur is not None and not line.startswith("#"):
                cur[3] += line
    return [tuple(x) for x in libs], version


def main(argv):
    a = knowgen.arguments(__doc__, argv, "wheel", source_opts={"nargs": "+", "help": "the downloaded wheels (.whl)"})
    path = a.slice
    if a.wheel:
        with open(SLICE, "w") as f:
            f.write(slice_from_wheels(a.wheel))
        path = SLICE
    libs, version = read_slice(path)
    return knowgen.emit("cuda_libs", build(libs, version), a.out, "codes")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

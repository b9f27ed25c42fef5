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

# Every other status's own meaning and fix, written from each library's documentation of its status type
# (cuBLAS "cublasStatus_t": https://docs.nvidia.com/cuda/cublas/#cublasstatus-t; cuDNN "cudnnStatus_t":
# https://docs.nvidia.com/deeplearning/cudnn/backend/latest/api/cudnn-graph-library.html#cudnnstatus-t;
# cuSOLVER: https://docs.nvidia.com/cuda/cusolver/#cusolverstatus-t; cuSPARSE:
# https://docs.nvidia.com/cuda/cusparse/#cusparsestatus-t; cuRAND's curandStatus (the header comments kept as
# each site's text); cuFFT "cufftResult": https://docs.nvidia.com/cuda/cufft/#cufftresult; NCCL "ncclResult_t":
# https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/types.html#ncclresult-t), turned into what a
# training job changes. The rows above keep theirs. Codes that do not single out a cause keep only their family,
# whose causes the log's other lines tell apart (explain's 'How sure: the family'): the generic execution and
# internal failures (CUBLAS/CUDNN/CUSOLVER/CUSPARSE _EXECUTION_FAILED and _INTERNAL_ERROR, CURAND_STATUS_LAUNCH_FAILURE
# and _INTERNAL_ERROR, CUFFT_EXEC_FAILED: an earlier asynchronous error, memory or a fault), cuDNN's plain
# CUDNN_STATUS_NOT_SUPPORTED / BAD_PARAM / INVALID_VALUE (shape, dtype, layout or algorithm: its sub-codes below
# name which), and NCCL's result codes (nccl.*: NCCL's WARN line before them names the cause). Likewise a code
# whose family is its own and picks the cause from the log's other lines keeps it (a row would be shown first):
# the allocation failures (cuda.oom, errno.enomem), cuBLAS's codes (cuda.cublas_not_initialized,
# cuda.cublas_failed: the dtype, the GPU and the cuBLAS version in the log decide), cuDNN's version and library
# codes (cudnn.version), CUDNN_STATUS_RUNTIME_FP_OVERFLOW (usercode.nan_inf), cuRAND's version and init codes.
_BLOCKING = "rerun with CUDA_LAUNCH_BLOCKING=1 so the failing call is the one reported"
MEANS.update({
    # cuDNN
    "CUDNN_STATUS_NOT_INITIALIZED": (
        "cuDNN could not initialise (cudnnCreate failed): no GPU memory for its handle, a CUDA context broken by an "
        "earlier error, or a cuDNN that does not match the CUDA runtime",
        ["reduce memory use and check nvidia-smi; read the first CUDA error above; python -c 'import torch; "
         "print(torch.backends.cudnn.version())' must work on that node"]),
    "CUDNN_STATUS_BAD_PARAM_NULL_POINTER": (
        "cuDNN was passed a null pointer (an empty tensor's data, a missing workspace)",
        ["check for empty tensors (numel() == 0) going into the op; " + _BLOCKING]),
    "CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER": (
        "cuDNN was passed a pointer not aligned as it requires: a tensor view with an odd offset (a slice) fed to a "
        "cuDNN kernel",
        ["make the input contiguous and freshly allocated (.contiguous() / .clone()) before the op"]),
    "CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED": (
        "a cuDNN backend descriptor was used before it was finalised: a bug in the calling framework or cudnn-frontend",
        ["update torch (or the library building cuDNN graphs) to a release for this cuDNN"]),
    "CUDNN_STATUS_BAD_PARAM_OUT_OF_BOUND": (
        "a cuDNN parameter is out of bounds (e.g. a dimension, stride or padding beyond what the op allows)",
        ["check the op's sizes (very large batch, sequence or channels); split the batch"]),
    "CUDNN_STATUS_BAD_PARAM_SIZE_INSUFFICIENT": (
        "a buffer given to cuDNN (workspace, output) is smaller than it needs",
        ["update the framework; raise its cuDNN workspace limit if it has one"]),
    "CUDNN_STATUS_BAD_PARAM_STREAM_MISMATCH": (
        "cuDNN was used on another CUDA stream than its handle expects",
        ["a framework bug: update it; avoid custom streams around the op to confirm"]),
    "CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH": (
        "the tensor shapes given to a cuDNN operation do not agree with each other",
        ["print the op's input shapes (query/key/value, input/weight) and fix the mismatch in the model code"]),
    "CUDNN_STATUS_BAD_PARAM_DUPLICATED_ENTRIES": (
        "a cuDNN graph has duplicated entries (the same tensor id twice)",
        ["update the framework or cudnn-frontend that builds the graph"]),
    "CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE": (
        "a cuDNN backend attribute was set with the wrong type: framework and cuDNN versions disagree",
        ["use the cuDNN version the framework was built for (pip show nvidia-cudnn-cu12 vs the torch requirement)"]),
    "CUDNN_STATUS_BAD_PARAM_CUDA_GRAPH_MISMATCH": (
        "a cuDNN plan captured into a CUDA graph does not match the graph it is used with",
        ["turn CUDA graphs off for the op (torch.compile without reduce-overhead) or update the framework"]),
    "CUDNN_STATUS_BAD_PARAM_DESCRIPTOR_TYPE": (
        "a cuDNN descriptor of the wrong type was passed: framework and cuDNN versions disagree",
        ["use the cuDNN version the framework was built for"]),
    "CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN": (
        "cuDNN has no engine for this fused graph pattern (e.g. a fused attention with this mask, bias or dropout)",
        ["use the unfused path (torch.backends.cuda.enable_cudnn_sdp(False), or another attention backend)"]),
    "CUDNN_STATUS_NOT_SUPPORTED_SHAPE": (
        "cuDNN does not support this shape for the op (a head dimension, sequence length or kernel size outside "
        "its limits)",
        ["change the shape (pad the head dim to a multiple of 8, split long sequences) or disable cuDNN for the op"]),
    "CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE": (
        "cuDNN does not support this dtype for the op on this GPU (fp8/bf16 on an older architecture, mixed dtypes)",
        ["use a supported dtype (fp16/fp32; bf16 needs Ampere or newer) or disable cuDNN for the op"]),
    "CUDNN_STATUS_NOT_SUPPORTED_LAYOUT": (
        "cuDNN does not support this memory layout (strides, channels-last) for the op",
        ["make the input contiguous (or drop channels_last for that op)"]),
    "CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH": (
        "this cuDNN has no support for this GPU's architecture (a GPU too new or too old for the cuDNN release)",
        ["install the torch/cuDNN release that supports this GPU (cuDNN support matrix); nvidia-smi for the GPU"]),
    "CUDNN_STATUS_NOT_SUPPORTED_SHARED_MEMORY_INSUFFICIENT": (
        "the cuDNN kernel needs more shared memory than this GPU has (a head dimension or tile too large for it)",
        ["use a smaller head dim / tile, or disable the cuDNN path for this op (another attention backend)"]),
    "CUDNN_STATUS_NOT_SUPPORTED_PADDING": (
        "cuDNN does not support this padding mode for the op",
        ["use another padding mode or pad the input explicitly (torch.nn.functional.pad) before the op"]),
    "CUDNN_STATUS_NOT_SUPPORTED_BAD_LAUNCH_PARAM": (
        "cuDNN's launch parameters for this problem are out of range (a grid too large: a huge batch or spatial size)",
        ["split the batch or the spatial size; disable cuDNN for the op to confirm"]),
    "CUDNN_STATUS_NOT_SUPPORTED_CUDA_GRAPH_NATIVE_API": (
        "cuDNN's native CUDA-graph API is not supported for this plan",
        ["turn CUDA graphs off for the op, or update torch/cuDNN"]),
    "CUDNN_STATUS_NOT_SUPPORTED_INVALID_DYNAMIC_SHAPE": (
        "the dynamic shape given to a cuDNN plan is not valid for it",
        ["mark the shape static (torch.compile(dynamic=False)) or update torch/cuDNN"]),
    "CUDNN_STATUS_INTERNAL_ERROR_COMPILATION_FAILED": (
        "cuDNN's runtime kernel compilation (NVRTC) failed: NVRTC missing or of another version, or no room in the "
        "cache directory",
        ["check the nvidia-cuda-nvrtc-cu12 wheel matches torch's CUDA; free space in ~/.cache and /tmp"]),
    "CUDNN_STATUS_INTERNAL_ERROR_UNEXPECTED_VALUE": (
        "cuDNN met an unexpected internal value: a cuDNN bug or memory corrupted by an earlier error",
        [_BLOCKING + "; read the first CUDA error above; update torch/cuDNN"]),
    "CUDNN_STATUS_INTERNAL_ERROR_BAD_LAUNCH_PARAM": (
        "cuDNN computed invalid launch parameters internally (a cuDNN bug for this shape)",
        ["change the shape slightly or disable cuDNN for the op; update torch/cuDNN"]),
    "CUDNN_STATUS_INTERNAL_ERROR_TEXTURE_CREATION_FAILED": (
        "cuDNN could not create a texture for its kernel (GPU memory or resource exhaustion)",
        ["reduce memory use; " + _BLOCKING]),
    "CUDNN_STATUS_EXECUTION_FAILED_CUDA_DRIVER": (
        "a CUDA driver call inside cuDNN failed: a driver too old for this cuDNN, or a GPU fault",
        ["nvidia-smi's driver vs the cuDNN release's minimum; dmesg for Xid errors"]),
    "CUDNN_STATUS_EXECUTION_FAILED_CUBLAS": (
        "a cuBLAS call inside cuDNN failed (memory, or a cuBLAS of another version than cuDNN expects)",
        ["check pip list | grep -E 'nvidia-(cublas|cudnn)' are the versions torch requires; reduce memory use"]),
    "CUDNN_STATUS_EXECUTION_FAILED_CUDART": (
        "a CUDA runtime call inside cuDNN failed: usually an earlier CUDA error or out of memory",
        [_BLOCKING + "; read the first CUDA error of the log"]),
    "CUDNN_STATUS_EXECUTION_FAILED_CURAND": (
        "a cuRAND call inside cuDNN failed (dropout's random numbers)",
        [_BLOCKING + "; update torch/cuDNN"]),
    "CUDNN_STATUS_ARCH_MISMATCH": (
        "this cuDNN does not support the GPU's architecture (cuDNN 8's name: e.g. a cuDNN without support for a "
        "new GPU)",
        ["install a torch/cuDNN release that supports this GPU (cuDNN support matrix)"]),
    "CUDNN_STATUS_MAPPING_ERROR": (
        "cuDNN could not map GPU memory for a texture (cuDNN 8's name)",
        ["reduce memory use; " + _BLOCKING]),
    # cuSOLVER (torch.linalg on CUDA)
    "CUSOLVER_STATUS_NOT_INITIALIZED": (
        "cuSOLVER could not create its handle: no GPU memory left or a broken CUDA context (torch.linalg on CUDA)",
        ["reduce memory use; torch.cuda.set_device(LOCAL_RANK) in each rank; read the first CUDA error above"]),
    "CUSOLVER_STATUS_INVALID_VALUE": (
        "cuSOLVER got an unsupported value (a negative or too large size, a bad leading dimension): a torch.linalg "
        "call on a matrix shape the routine does not take",
        ["print the matrix shapes; make them contiguous; try torch.backends.cuda.preferred_linalg_library('magma')"]),
    "CUSOLVER_STATUS_ARCH_MISMATCH": (
        "the cuSOLVER routine needs a GPU feature this GPU lacks (e.g. double precision performance features)",
        ["run the linear algebra on CPU or another dtype"]),
    "CUSOLVER_STATUS_MAPPING_ERROR": (
        "cuSOLVER could not access GPU memory",
        [_BLOCKING + "; read the first CUDA error above"]),
    "CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED": (
        "cuSOLVER does not support this matrix type for the routine",
        ["use another dtype or routine (torch.linalg alternative), or CPU for it"]),
    "CUSOLVER_STATUS_NOT_SUPPORTED": (
        "the cuSOLVER operation or parameter combination is not supported",
        ["torch.backends.cuda.preferred_linalg_library('magma'), another routine, or CPU for it"]),
    "CUSOLVER_STATUS_IRS_PARAMS_NOT_INITIALIZED": (
        "cuSOLVER's iterative-refinement solver was used without its parameters initialised: a caller bug",
        ["update the library making the call"]),
    "CUSOLVER_STATUS_IRS_PARAMS_INVALID": (
        "cuSOLVER's iterative-refinement parameters are invalid",
        ["check the solver settings of the calling code"]),
    "CUSOLVER_STATUS_IRS_PARAMS_INVALID_PREC": (
        "the precisions asked of cuSOLVER's iterative-refinement solver are not a valid combination",
        ["choose a supported main/lowest precision pair (cuSOLVER docs, cusolverDnIRSParamsSetSolverPrecisions)"]),
    "CUSOLVER_STATUS_IRS_PARAMS_INVALID_REFINE": (
        "the refinement solver asked of cuSOLVER's IRS is invalid",
        ["choose a supported refinement solver in the calling code"]),
    "CUSOLVER_STATUS_IRS_PARAMS_INVALID_MAXITER": (
        "the maximum iteration count given to cuSOLVER's IRS is invalid",
        ["set a positive maximum iteration count in the calling code"]),
    "CUSOLVER_STATUS_IRS_INTERNAL_ERROR": (
        "cuSOLVER's iterative-refinement solver failed internally",
        ["fall back to a direct solver (torch.linalg.solve without IRS) or CPU"]),
    "CUSOLVER_STATUS_IRS_NOT_SUPPORTED": (
        "cuSOLVER's iterative refinement is not supported for this case",
        ["use a direct solver"]),
    "CUSOLVER_STATUS_IRS_OUT_OF_RANGE": (
        "a value given to cuSOLVER's iterative refinement is out of range",
        ["check the sizes and settings passed to the solver"]),
    "CUSOLVER_STATUS_IRS_NRHS_NOT_SUPPORTED_FOR_REFINE_GMRES": (
        "GMRES refinement in cuSOLVER supports one right-hand side only",
        ["solve one right-hand side at a time, or use another refinement solver"]),
    "CUSOLVER_STATUS_IRS_INFOS_NOT_INITIALIZED": (
        "cuSOLVER's IRS info structure was used without being created: a caller bug",
        ["update the library making the call"]),
    "CUSOLVER_STATUS_IRS_INFOS_NOT_DESTROYED": (
        "cuSOLVER's IRS info structure was not destroyed: a caller bug (a leak)",
        ["update the library making the call"]),
    "CUSOLVER_STATUS_INVALID_WORKSPACE": (
        "the workspace given to cuSOLVER is invalid or too small",
        ["update torch (a caller bug), or run the op on CPU"]),
    # cuSPARSE
    "CUSPARSE_STATUS_NOT_INITIALIZED": (
        "cuSPARSE could not create its handle: no GPU memory left or a broken CUDA context",
        ["reduce memory use; read the first CUDA error above"]),
    "CUSPARSE_STATUS_INVALID_VALUE": (
        "cuSPARSE got an invalid value: a sparse tensor's indices, sizes or nnz out of range (unsorted or "
        "out-of-bounds indices, an empty matrix)",
        ["coalesce the sparse tensor (t.coalesce()) and check its indices < its size; " + _BLOCKING]),
    "CUSPARSE_STATUS_ARCH_MISMATCH": (
        "the cuSPARSE routine needs a GPU feature this GPU lacks",
        ["use another dtype or run the sparse op on CPU"]),
    "CUSPARSE_STATUS_MAPPING_ERROR": (
        "cuSPARSE could not access GPU memory",
        [_BLOCKING + "; read the first CUDA error above"]),
    "CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED": (
        "cuSPARSE does not support this matrix type or descriptor",
        ["convert the sparse tensor to a supported layout (CSR/COO) and dtype"]),
    "CUSPARSE_STATUS_NOT_SUPPORTED": (
        "the cuSPARSE operation is not supported for this layout, dtype or index type (e.g. int64 indices, "
        "half precision)",
        ["convert indices to int32 or the values to float32, or use another sparse layout"]),
    "CUSPARSE_STATUS_INSUFFICIENT_RESOURCES": (
        "cuSPARSE ran out of resources other than memory for the operation (a problem too large for one kernel)",
        ["split the sparse operation into smaller parts"]),
    # cuRAND
    "CURAND_STATUS_NOT_INITIALIZED": (
        "a cuRAND generator was used before it was created: a caller bug, or creation failed earlier",
        ["read the first error above (creation failing for lack of memory); update the calling library"]),
    "CURAND_STATUS_TYPE_ERROR": (
        "the cuRAND generator is of the wrong type for the call",
        ["a bug of the calling library: update it"]),
    "CURAND_STATUS_OUT_OF_RANGE": (
        "an argument to cuRAND is out of range",
        ["check the sizes passed to the random op"]),
    "CURAND_STATUS_LENGTH_NOT_MULTIPLE": (
        "the number of random values asked for is not a multiple of the generator's dimension (quasi-random "
        "generators, or normal values in pairs)",
        ["ask for an even count (normal distributions) or a multiple of the dimension"]),
    "CURAND_STATUS_DOUBLE_PRECISION_REQUIRED": (
        "the GPU lacks the double precision the MRG32k3a generator needs",
        ["use another generator (the default XORWOW/Philox) on this GPU"]),
    "CURAND_STATUS_PREEXISTING_FAILURE": (
        "a CUDA error from before the cuRAND call was still pending: the earlier error is the cause",
        ["read the first CUDA error of the log; " + _BLOCKING]),
    "CURAND_STATUS_ARCH_MISMATCH": (
        "this GPU does not support the cuRAND feature asked for",
        ["use another generator or run the step on CPU"]),
    # cuFFT (torch.fft and STFT on CUDA)
    "CUFFT_INVALID_PLAN": (
        "cuFFT was given an invalid plan handle: a plan from the cache used on another GPU or after it was freed",
        ["torch.backends.cuda.cufft_plan_cache[<device>].clear(), or set its max_size to 0 to confirm"]),
    "CUFFT_INVALID_TYPE": (
        "the FFT type is not valid for cuFFT (an unsupported dtype: e.g. half precision with a non-power-of-two size)",
        ["use float32 input, or sizes that are powers of two for half precision"]),
    "CUFFT_INVALID_VALUE": (
        "cuFFT got an invalid value (a pointer or parameter)",
        ["check the FFT input is contiguous and on the current device"]),
    # pytorch/pytorch#88038: torch cu117's cuFFT fails on RTX 4090 with CUFFT_INTERNAL_ERROR; cu118 builds work
    "CUFFT_INTERNAL_ERROR": (
        "cuFFT failed internally: most often a cuFFT too old for this GPU (CUDA 11.7's cuFFT on an RTX 40xx / H100 "
        "fails on every FFT) or no memory for the plan",
        ["upgrade torch to a build with a newer CUDA (cu118 or later for Ada/Hopper); reduce memory use"]),
    "CUFFT_SETUP_FAILED": (
        "the cuFFT library failed to initialise: no usable GPU or a broken CUDA context",
        ["read the first CUDA error above; nvidia-smi -L in the job's environment"]),
    "CUFFT_INVALID_SIZE": (
        "the FFT size is not valid for cuFFT (zero, negative, or too large)",
        ["check the signal length and n_fft (torch.stft / torch.fft) are positive and within limits"]),
    "CUFFT_UNALIGNED_DATA": (
        "the data given to cuFFT is not aligned as required",
        ["make the input contiguous and freshly allocated (.contiguous())"]),
    "CUFFT_INCOMPLETE_PARAMETER_LIST": (
        "a cuFFT call lacks required parameters: a caller bug",
        ["update the calling library"]),
    "CUFFT_INVALID_DEVICE": (
        "the cuFFT plan was made on another GPU than the one executing it",
        ["keep the FFT input on the device set for the process (torch.cuda.set_device); clear the plan cache"]),
    "CUFFT_PARSE_ERROR": (
        "cuFFT could not parse a plan description",
        ["update the calling library"]),
    "CUFFT_NO_WORKSPACE": (
        "a cuFFT plan was executed without its work area",
        ["a caller bug: update the calling library"]),
    "CUFFT_NOT_IMPLEMENTED": (
        "this FFT configuration is not implemented in cuFFT",
        ["change the FFT size or dtype, or run it on CPU"]),
    "CUFFT_NOT_SUPPORTED": (
        "this FFT operation is not supported by cuFFT for these parameters (e.g. half precision with a size that is "
        "not a power of two)",
        ["use float32, or a power-of-two size for half precision"]),
})

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

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
    53: "cuda.illegal_access",  # "unspecified launch failure in prior launch": 719 of an earlier launch
    714: "cuda.gpu_hardware", 214: "cuda.gpu_hardware", 220: "cuda.gpu_hardware",
    226: "cuda.gpu_hardware",  # cudaErrorContained: a contained hardware error (Xid 94/95 family)
    2: "cuda.oom",
    35: "cuda.driver_insufficient", 36: "cuda.driver_insufficient", 804: "cuda.driver_insufficient",
    # 803: libcuda (user space) and the kernel module are not a supported pair: a version
    # combination, not the NVSwitch fabric (cuda_runtime_api doc: "mismatch between the versions
    # of the display driver and the CUDA driver")
    803: "cuda.driver_insufficient",
    222: "cuda.ptx_toolchain", 218: "cuda.ptx_toolchain",
    221: "cuda.ptx_toolchain",  # the PTX JIT library (libnvidia-ptxjitcompiler) is missing: not the GPU
    34: "cuda.libs",  # the toolkit's stub libcuda.so was loaded instead of the driver's
    209: "cuda.no_kernel_image", 98: "cuda.no_kernel_image", 200: "cuda.no_kernel_image",
    500: "cuda.no_kernel_image",  # "named symbol not found": the kernel is not in the binary loaded
    100: "cuda.not_available",
    101: "cuda.invalid_device_ordinal",
    46: "cuda.busy_unavailable", 216: "cuda.busy_unavailable",
    802: "cuda.system_not_ready",
    3: "cuda.init_failed", 999: "cuda.init_failed",
    704: "gpu.p2p", 705: "gpu.p2p", 217: "gpu.p2p",
}

# code -> (what it means in a training job, [fixes]): the code's own meaning, shown as the first
# cause when the code is in the log (hand-written; the description NVIDIA gives each code in
# driver_types.h is the "doc" of its site). Every code a training job can meet has its own row
# (MEANS.update below); main() stops when a row names a code the headers no longer have.
MEANS = {
    719: ("a kernel faulted (an out-of-bounds access in a kernel, an illegal instruction) or the GPU reset under it "
          "(an Xid in the kernel log at the same time); the context is lost and every later call fails",
          ["rerun with CUDA_LAUNCH_BLOCKING=1 (the traceback then names the op) and under compute-sanitizer; "
           "sudo dmesg -T | grep -i xid on the node: Xid 13/31/43 point at the kernel, 48/63/64/79/94/95 at the GPU"]),
    53: ("an earlier kernel launch faulted (unspecified launch failure); this call only reports it",
         ["read the first CUDA error of the log; rerun with CUDA_LAUNCH_BLOCKING=1 to see the launch that faulted"]),
    999: ("CUDA gave no reason: at start-up the driver state is wrong (nvidia-uvm not loaded, a driver upgraded "
          "without a reboot, a laptop resumed from suspend); in the middle of a run the GPU usually faulted (an "
          "Xid in the kernel log)",
          ["at start-up: nvidia-smi; sudo modprobe nvidia-uvm; reboot after a driver upgrade. "
           "In a running job: sudo dmesg -T | grep -i xid, and drain the node if the GPU faulted"]),
    803: ("the user-space CUDA driver (libcuda.so) and the loaded kernel module are not a supported pair: the driver "
          "packages were upgraded without a reboot, or a forward-compatibility libcuda (cuda-compat, an image's "
          "/usr/local/cuda/compat) is older than, or not for, the host's driver",
          ["compare cat /proc/driver/nvidia/version with the libcuda.so.<version> the process loads (ldconfig -p | "
           "grep libcuda); reboot after a driver upgrade, or reinstall one driver version (module and libraries "
           "together); in containers drop /usr/local/cuda*/compat from LD_LIBRARY_PATH when the host driver is "
           "new enough for the image's CUDA"]),
    34: ("the process loaded the CUDA toolkit's stub libcuda.so (lib64/stubs, for linking only) instead of the "
         "driver's: a stubs directory on LD_LIBRARY_PATH, or a container started without the GPU runtime",
         ["remove /usr/local/cuda*/lib64/stubs (and any .../stubs) from LD_LIBRARY_PATH; containers: docker run "
          "--gpus all (the NVIDIA runtime mounts the host's libcuda.so.1)"]),
    221: ("the driver's PTX JIT library (libnvidia-ptxjitcompiler.so.1) is missing: a container started without "
          "the compute driver capability, or an incomplete driver install",
          ["docker run --gpus all -e NVIDIA_DRIVER_CAPABILITIES=compute,utility ...; on a host reinstall the "
           "driver's user-space libraries"]),
    500: ("a kernel the code launches is not in the binary that was loaded: a compiled extension (or torch) "
          "built without this GPU's architecture, or built against another CUDA or torch than the one running",
          ["rebuild the extension on this GPU's node (TORCH_CUDA_ARCH_LIST=\"<its capability, e.g. 9.0>\" pip install "
           "--no-build-isolation --force-reinstall <package>), or install the wheel built for this torch and CUDA"]),
    702: ("a kernel ran longer than the display watchdog allows: the GPU also drives a display (X, a desktop) or "
          "Windows/WSL reset it (TDR)",
          ["run on a GPU with no display attached (or stop X on it); on Windows/WSL raise TdrDelay or use a GPU in "
           "TCC mode; shorter kernels (smaller batches) only hide it"]),
    304: ("an operating-system call under CUDA failed: CUDA IPC or pinned-memory features that WSL does not "
          "support, or a container without the IPC namespace sharing that CUDA IPC between processes needs",
          ["on WSL avoid CUDA IPC (DataLoader workers pass CPU tensors; torch.multiprocessing with 'spawn'); "
           "in containers: docker run --ipc=host"]),
}
for _code in range(805, 811):  # the MPS client/server codes
    MEANS[_code] = ("the CUDA MPS (Multi-Process Service) control daemon or server is not running, not reachable "
                    "(CUDA_MPS_PIPE_DIRECTORY) or out of clients",
                    ["start it (nvidia-cuda-mps-control -d) with the same CUDA_MPS_PIPE_DIRECTORY as the job, or "
                     "unset the MPS variables to run without MPS; check nvidia-smi -q | grep -i 'compute mode'"])
# code -> (what it means in a training job, [fixes]), per code or per group of codes; written from the
# description NVIDIA gives each code (CUDA Runtime API, "Data types used by CUDA Runtime", enum cudaError:
# https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html; the same text is the
# site's "doc", from driver_types.h), turned into what a training user or admin changes. Other sources
# are cited on their rows. A code whose family is its own and picks the cause from the log's other lines or
# computes the fix from the node's facts keeps that family's causes (a row of its own would be shown first and
# outrank them): 2 cuda.oom, 3 cuda.init_failed, 35/36/804 cuda.driver_insufficient, 46/216
# cuda.busy_unavailable, 98/200/209 cuda.no_kernel_image, 100 cuda.not_available, 101
# cuda.invalid_device_ordinal, 217/704/705 gpu.p2p, 218/222 cuda.ptx_toolchain, 700/715-718 cuda.illegal_access
# (the job's own kernel told from an extension's), 710 cuda.device_assert, 802 cuda.system_not_ready.
_LAUNCH_BLOCKING = "rerun with CUDA_LAUNCH_BLOCKING=1 (the traceback then names the op that failed)"
MEANS.update({
    1: ("a CUDA call got an argument outside its valid range: in a training job usually an op or extension given an "
        "unusual size (an empty or very large tensor, more than 2**31-1 elements for a kernel indexed with int32), a "
        "device or stream handle of another GPU, or a call made after an earlier error",
        [_LAUNCH_BLOCKING + "; check that op's input shapes (numel, an empty dimension) and split a huge batch; "
         "update the extension that makes the call (flash-attn, xformers, apex) to a release built for this torch"]),
    4: ("a CUDA call ran while the process was exiting, after the CUDA runtime had been unloaded: a destructor, an "
        "atexit handler or a daemon thread (DataLoader, a watchdog) freeing GPU memory at shutdown; the run itself "
        "usually ended (or failed) earlier",
        ["read the log above for the real error or the normal end of training; call "
         "torch.distributed.destroy_process_group() and let DataLoader workers finish before the script exits"]),
    9: ("a kernel launch asked for a configuration the GPU can never run: more than 1024 threads per block, more "
        "shared memory per block than the GPU has, or a grid dimension out of range (a tensor dimension beyond "
        "65535 mapped onto grid y/z, an empty tensor)",
        [_LAUNCH_BLOCKING + "; check its input shapes (batch*heads or a sequence length beyond the kernel's limit, a "
         "zero-size dimension); update the extension or Triton kernel, or reduce that dimension"]),
    12: ("a 2-D copy's pitch (row stride) is out of range: a strided, non-contiguous tensor handed to code that copies "
         "it row by row",
         ["make the tensor contiguous (.contiguous()) before the op; " + _LAUNCH_BLOCKING]),
    13: ("a symbol looked up by name (cudaMemcpyToSymbol, cudaGetSymbolAddress) is not in the loaded device code: an "
         "extension built for another architecture or with mismatched relocatable device code",
         ["rebuild the extension on this node for its GPU (TORCH_CUDA_ARCH_LIST=\"<capability>\" pip install "
          "--no-build-isolation --force-reinstall <package>)"]),
    49: ("the current context was made through the driver API by another CUDA runtime version in the same process: "
         "two CUDA runtimes loaded together (torch and an extension or library linked against another CUDA)",
         ["use extensions built for torch.version.cuda; ldd <extension>.so | grep cudart shows the runtime each "
          "loads; drop another CUDA's lib64 from LD_LIBRARY_PATH"]),
    65: ("a device-side kernel launch (CUDA Dynamic Parallelism) would nest deeper than the device runtime allows",
         ["reduce the nesting of device-side launches in the kernel's code (the CUDA Programming Guide's CDP limits)"]),
    68: ("cudaDeviceSynchronize was called from device code deeper than cudaLimitDevRuntimeSyncDepth",
         ["raise the limit with cudaDeviceSetLimit(cudaLimitDevRuntimeSyncDepth, n) before the launch, or remove "
          "the device-side synchronisation"]),
    69: ("device-side launches exceeded cudaLimitDevRuntimePendingLaunchCount (too many child grids pending)",
         ["raise it with cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, n) before the first launch, or "
          "launch fewer child grids"]),
    102: ("a virtual GPU (NVIDIA vGPU) has no valid licence: the VM's licensing client got none from the licence "
          "server",
          ["nvidia-smi -q | grep -i -A2 licen; the admin fixes the client configuration (/etc/nvidia/gridd.conf, "
           "the client token) and restarts nvidia-gridd (NVIDIA License System user guide)"]),
    103: ("the CUDA runtime's start-up self-tests of itself and the driver failed: a damaged or mixed installation",
          ["reinstall the driver and the CUDA runtime of matching versions (pip install --force-reinstall "
           "nvidia-cuda-runtime-cu12 for pip wheels)"]),
    127: ("the CUDA runtime failed inside its own start-up: it could not load or talk to the driver (a libcuda.so of "
          "another driver version, a broken install)",
          ["ldconfig -p | grep libcuda and cat /proc/driver/nvidia/version must name the same driver version; "
           "reinstall the driver (module and libraries together) or reboot after an upgrade"]),
    201: ("no CUDA context is current on the calling thread, or it was destroyed: a CUDA call from a thread or a "
          "forked child that never set up its device, or after CUDA was torn down",
          ["call torch.cuda.set_device(<gpu>) in that thread or process before its first CUDA op; start workers with "
           "'spawn' instead of fork; look for an earlier error that reset the device"]),
    214: ("the GPU's memory reported an uncorrectable (double-bit) ECC error during the job: a hardware fault on that "
          "GPU; its results are lost",
          ["on the node: nvidia-smi -q -d ECC,ROW_REMAPPER (PAGE_RETIREMENT on older GPUs) and sudo dmesg -T | grep -i "
           "xid (48, 63, 64, 94, 95); drain it (scontrol update nodename={$node|<node>} state=drain reason=ECC), have the "
           "admin reset the GPU (nvidia-smi -r) or replace it; resume from the last checkpoint"]),
    215: ("cudaDeviceSetLimit asked for a limit this GPU's architecture does not support",
          ["remove or guard that limit for this GPU in the code or extension that sets it"]),
    220: ("an NVLink between the GPUs reported an uncorrectable error: a link fault",
          ["on the node: nvidia-smi nvlink -s and -e, sudo dmesg -T | grep -i xid (74); drain the node and have "
           "the link checked; NCCL_P2P_DISABLE=1 only tells the job to avoid NVLink"]),
    223: ("PTX JIT compilation is disabled (CUDA_DISABLE_PTX_JIT=1) and the binary has no native code for this GPU",
          ["unset CUDA_DISABLE_PTX_JIT, or install a build with native code for this GPU"]),
    224: ("an execution-affinity context (a limit on the SMs it uses) was requested that this GPU does not support",
          ["drop the SM-count affinity setting (or the MPS/green-context option that asks for it) on this GPU"]),
    225: ("the JIT-compiled device code calls cudaDeviceSynchronize, which CUDA 12 removed from device code "
          "(CUDA Dynamic Parallelism 2)",
          ["rebuild the code without device-side cudaDeviceSynchronize (the CUDA Programming Guide's CDP2 "
           "migration), or with an older CDP for architectures below sm_90"]),
    226: ("the GPU contained a hardware-detected exception (error containment): an invalid access of a peer GPU's "
          "memory over NVLink, or an uncorrected memory error; the process's CUDA context is lost",
          ["on the node: sudo dmesg -T | grep -i xid (Xid 94: contained, the job only restarts; 95: uncontained, "
           "the GPU needs a reset); drain the node when it repeats"]),
    300: ("the device kernel source (PTX) given to the JIT is invalid",
          ["reinstall or rebuild the package whose kernel failed; clear its JIT cache (~/.triton/cache, "
           "~/.cache/torch_extensions)"]),
    301: ("a file CUDA was asked to load (a cubin/fatbin/PTX module of Triton, CuPy or a JIT extension) does not "
          "exist",
          ["clear the JIT caches (rm -rf ~/.triton/cache ~/.cache/torch_extensions) and rerun; put them on node-local, "
           "writable storage (TRITON_CACHE_DIR, TORCH_EXTENSIONS_DIR)"]),
    302: ("linking a CUDA module against a shared object could not resolve a symbol: libraries of two CUDA versions "
          "mixed",
          ["one CUDA for torch and its extensions (torch.version.cuda); drop other CUDA installs from "
           "LD_LIBRARY_PATH"]),
    303: ("a shared object that a CUDA module needs failed to initialise",
          ["reinstall the package whose module failed and its CUDA libraries; drop other CUDA installs from "
           "LD_LIBRARY_PATH"]),
    400: ("a stream, event or graph handle is not valid here: created on another GPU or in another process (before a "
          "fork), already destroyed, or the context was lost to an earlier error",
          ["create streams and events after torch.cuda.set_device in the process that uses them; look for a first "
           "CUDA error above; " + _LAUNCH_BLOCKING]),
    401: ("a resource the call needs is not in a state that allows it (a stream being captured, a graph or memory "
          "pool in use)",
          ["read the first CUDA error above; when CUDA graphs are on (torch.compile mode='reduce-overhead', "
           "torch.cuda.graph, vLLM, Megatron --enable-cuda-graph), turn them off to confirm"]),
    701: ("the kernel needs more registers or shared memory per block than this GPU has at that block size: a "
          "kernel tuned for a larger GPU, too many threads per block, or a debug (-G) build",
          ["reduce threads per block (Triton num_warps, the extension's block size), rebuild the extension for this "
           "GPU (TORCH_CUDA_ARCH_LIST) without -G"]),
    708: ("device flags or the set of valid devices were changed after this process had already created its CUDA "
          "context: CUDA_VISIBLE_DEVICES or a device flag set after the first CUDA call",
          ["set CUDA_VISIBLE_DEVICES and device flags before the first CUDA call (before torch.cuda is used), i.e. in "
           "the launcher's environment rather than in the middle of the script"]),
    709: ("the CUDA context of this thread was destroyed (cudaDeviceReset, or the process tearing down)",
          ["look for an earlier error or a cudaDeviceReset; at exit call destroy_process_group() before the process "
           "ends"]),
    711: ("peer access was enabled among more GPUs than the hardware's peer-mapping resources allow",
          ["enable peer access among fewer GPUs at once (the code that calls cudaDeviceEnablePeerAccess)"]),
    712: ("host memory that is already pinned (cudaHostRegister) was registered again: a buffer pinned twice",
          ["pin each buffer once (pin_memory() on an already pinned tensor, two libraries pinning the same buffer)"]),
    713: ("host memory was unregistered (cudaHostUnregister) that was never pinned",
          ["unregister only what was registered; update the library that does it"]),
    714: ("a kernel overflowed or corrupted its call stack (deep recursion, large local arrays in device code), "
          "or the GPU faulted",
          ["raise the stack (cudaDeviceSetLimit(cudaLimitStackSize, ...)) or shrink the kernel's locals; run "
           "compute-sanitizer; with stock kernels: sudo dmesg -T | grep -i xid on the node"]),
    720: ("a cooperative kernel launched more blocks than can be resident on the GPU at once: a kernel sized for "
          "more SMs than this GPU (or its MIG slice, or MPS's CUDA_MPS_ACTIVE_THREAD_PERCENTAGE) has",
          ["run on the whole GPU or a larger MIG instance, or let the kernel size its grid from the occupancy "
           "API; update the package"]),
    721: ("a kernel exited without freeing its tensor memory (Blackwell): a bug in a custom, CUTLASS or Triton kernel",
          ["update the kernel's package (CUTLASS, Triton, flash-attn); report it with " + _LAUNCH_BLOCKING]),
    800: ("the operation is not permitted here: e.g. CUDA IPC (a GPU tensor passed to another process) across "
          "containers, users or IPC namespaces, or a call forbidden in this context",
          ["run the processes in one container or IPC namespace (docker run --ipc=host) or pass CPU tensors between "
           "them; see which call the line names"]),
    # pytorch/pytorch#36037: 'cuda runtime error (801) : operation not supported at ...StorageSharing.cpp' on
    # Windows, where CUDA tensors cannot be shared between processes (PyTorch's Windows FAQ, "CUDA IPC operations")
    801: ("the operation is not supported on this system or GPU: sharing a CUDA tensor with another process (CUDA "
          "IPC: DataLoader workers or torch.multiprocessing) on Windows or WSL, cudaMallocAsync pools or managed "
          "memory under WSL or a vGPU, or a feature this GPU lacks",
          ["on Windows/WSL keep CUDA tensors in one process: DataLoader(num_workers=0) or return CPU tensors from "
           "workers and move them to the GPU in the main process; PYTORCH_CUDA_ALLOC_CONF=backend:native instead of "
           "cudaMallocAsync; compare the feature's requirements with the GPU (nvidia-smi -q)"]),
    811: ("the program uses CUDA Dynamic Parallelism, which this configuration (MPS) does not support",
          ["run it without MPS, or use a build of the code without dynamic parallelism"]),
    812: ("device code mixes two versions of CUDA Dynamic Parallelism (CDP1 and CDP2)",
          ["rebuild all device code of the program with one CUDA toolkit"]),
    900: ("an operation that is not allowed while a CUDA graph is being captured ran inside the captured region (a "
          "synchronisation, .item(), a host copy, an allocation outside the graph pool): CUDA graphs of "
          "torch.compile(mode='reduce-overhead'), torch.cuda.graph, vLLM, Megatron",
          ["move syncs, .item(), prints and host copies out of the captured region; turn CUDA graphs off to "
           "confirm (torch.compile without reduce-overhead, vLLM --enforce-eager)"]),
    901: ("an earlier error during the CUDA graph capture invalidated it: that error is the cause",
          ["read the first error of the capture above; turn CUDA graphs off to see it directly"]),
    902: ("the operation would merge two separate CUDA graph captures: streams of two captures joined by an event",
          ["keep each captured region's streams separate (the code or library that records events across them)"]),
    903: ("a CUDA graph capture was ended on another stream than it began on",
          ["end the capture on the stream that began it (torch.cuda.graph's stream argument)"]),
    904: ("a CUDA graph capture ended with work forked to another stream that was not joined back",
          ["make side streams wait back on the capture stream before the capture ends (stream.wait_stream)"]),
    905: ("captured work depends on work in another stream that is not part of the capture",
          ["synchronise the other stream before the capture starts, or capture its work too"]),
    906: ("the legacy default stream would wait on a stream being captured: an op on the default stream during a "
          "capture",
          ["run captured work on a non-default stream (torch.cuda.graph does this); avoid default-stream ops while "
           "capturing"]),
    907: ("an event last recorded in a capturing stream was queried or synchronised outside the capture",
          ["do not query or synchronise events of a stream while it is captured"]),
    908: ("a thread-local CUDA graph capture was ended from another thread",
          ["begin and end each capture on one thread, or capture with cudaStreamCaptureModeRelaxed"]),
    909: ("a CUDA wait with a time limit expired: the awaited work did not finish (a hung kernel, a collective waiting "
          "for another rank)",
          ["look at the other ranks' logs for the first failure; py-spy dump --pid <pid> on a hung rank"]),
    910: ("an instantiated CUDA graph could not be updated in place: the newly captured graph differs in topology",
          ["usually handled by re-instantiating; if it fails the run, turn CUDA graphs off or keep shapes static"]),
    911: ("an asynchronous error in a device outside CUDA that the GPU was waiting on (an external semaphore, a NIC)",
          ["check that device's own logs (sudo dmesg -T, ibv_devinfo for a NIC)"]),
    912: ("a kernel was launched with a thread-block cluster size this GPU does not support (clusters need sm_90 or "
          "newer; more than 8 blocks needs opt-in)",
          ["run the kernel on a Hopper-or-newer GPU or install the build of the package for this GPU"]),
    202: ("a driver-API code CUDA deprecated (the context given was already current): harmless in a current driver",
          ["nothing to change unless an error follows; update the library that reports it"]),
    916: ("the GPU's key rotation (confidential computing: encrypted CPU-GPU transfers) failed",
          ["the admin checks the confidential-computing mode and the driver's logs (nvidia-smi conf-compute -q, "
           "sudo dmesg -T)"]),
    402: ("an introspection call (cudaGraph/cudaStream queries) would lose information: the program asked a graph "
          "or stream for data its query cannot represent",
          ["update the library that queries CUDA graphs (a profiler, torch.compile) to a release for this CUDA"]),
    914: ("the resources passed to a green-context / device-resource call are of the wrong type for it",
          ["check the code or library that partitions the GPU's SMs (green contexts) for this CUDA version"]),
    915: ("the resources passed to a green-context / device-resource call are insufficient for it (too few SMs for "
          "the partition asked)",
          ["ask for a partition the GPU (or its MIG slice) can give: nvidia-smi -q shows its SM count"]),
    913: ("a kernel was used before its module was loaded: CUDA lazy loading (CUDA_MODULE_LOADING=LAZY, the "
          "default since CUDA 12.2) meeting a library that expects eager loading",
          ["export CUDA_MODULE_LOADING=EAGER to confirm; update the library"]),
})
# Groups: codes a training job meets only through custom CUDA code (textures, surfaces, graphics interop), and
# codes CUDA deprecated long ago (the reference marks them "Deprecated": a current runtime never returns them).
for _code in (18, 19, 20, 21, 26, 27, 37, 43, 44, 45, 66, 67, 703):
    MEANS.setdefault(_code, (
        "custom CUDA code used a texture or surface wrongly (an invalid object, binding, format or filter "
        "mode, a name defined twice, file-scoped ones in device-side launches)",
        ["rebuild or update the extension that uses textures/surfaces (" + _LAUNCH_BLOCKING + ")"]))
for _code in (205, 206, 207, 208, 210, 211, 212, 213, 219):
    MEANS.setdefault(_code, (
        "graphics interoperability (OpenGL/Direct3D/EGL resources mapped into CUDA) failed: a rendering or "
        "visualisation step, not the training itself",
        ["run the rendering step without CUDA interop (headless EGL on the GPU, or on CPU), or check the display "
         "driver setup of that node"]))
for _code in (5, 6, 7, 8):
    MEANS.setdefault(_code, (
        "a CUDA profiler start/stop call met an external profiler (Nsight Systems) or was made twice: harmless "
        "to training",
        ["remove torch.cuda.profiler.start/stop (cudaProfilerStart/Stop) or run under nsys with "
         "--capture-range=cudaProfilerApi; not a cause of a failed job"]))
for _code in (16, 17, 22, 23, 24, 25, 28, 31, 32, 52):
    MEANS.setdefault(_code, (
        "a code the CUDA reference marks deprecated (CUDA 3.1-5.0): a current runtime does not return it, so the "
        "binary (an old extension) or the code printing it is very old or misreads the number",
        ["rebuild the extension with the installed CUDA toolkit; read the first CUDA error of the log"]))
NOT_ERRORS = {0, 600}  # cudaSuccess, cudaErrorNotReady ("not actually an error")
# texts too common outside CUDA to match without a CUDA context ("CUDA error: ", "Cuda failure "); and glog's CHECK_EQ
# against cudaSuccess with cudaGetErrorString streamed after it (google/glog src/glog/logging.h MakeCheckOpString:
# "Check failed: " expr " (" v1 " vs. " v2 ") "; CHECK_EQ(err, cudaSuccess) << cudaGetErrorString(err) prints
# 'Check failed: err == cudaSuccess (3 vs. 0)  initialization error'), noans22
_DISTINCT_MIN = 24
_CONTEXT = (r"(?:CUDA error|Cuda failure|CUDA failure|cuda runtime error|CUDA Error|cudaError|"
            r"cudaSuccess(?: == [\w.>()-]{1,60})? \(-?\d{1,4} vs\. -?\d{1,4}\))[^\n]{0,24}?")

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


def matcher(names, text, longer=()):
    """``longer``: the rest of every other code's text that begins with this one ("operation not permitted" begins
    "operation not permitted when stream is capturing", cudaErrorStreamCaptureUnsupported): the short text does not
    match where the longer one does, so the line gets the code it prints, not the one whose words it starts with."""
    alts = [r"\b%s\b" % re.escape(n) for n in names]
    if text and text != "unrecognized error code":
        not_longer = "(?!%s)" % "|".join(re.escape(r) for r in sorted(longer)) if longer else ""
        if len(text) >= _DISTINCT_MIN:
            alts.append(re.escape(text) + not_longer)
        else:
            alts.append(_CONTEXT + re.escape(text) + r"\b" + not_longer)
    return "(?:%s)" % "|".join(alts)


def _longer(text, texts):
    return [t[len(text):] for t in texts if t != text and text and t.startswith(text)]


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
        site = {"id": "cuda.%s" % name, "api": "runtime", "name": name, "code": code, "text": text,
                "doc": doc[:600], "driver_names": dnames,
                "re": matcher([name] + dnames, text, _longer(text, strings.values())),
                "family": FAMILIES.get(code, "cuda.api_error"),
                "rule": "FAMILIES[%d]" % code if code in FAMILIES else "default"}
        if code in MEANS:
            site["means"], site["fix"] = MEANS[code][0], list(MEANS[code][1])
        sites.append(site)
    runtime_codes = {s["code"] for s in sites} | NOT_ERRORS
    for name, code, doc in driver:  # driver-only codes
        if code in runtime_codes or code in NOT_ERRORS:
            continue
        site = {"id": "cuda.%s" % name, "api": "driver", "name": name, "code": code, "text": "",
                "doc": doc[:600], "driver_names": [], "re": matcher([name], ""),
                "family": FAMILIES.get(code, "cuda.api_error"),
                "rule": "FAMILIES[%d]" % code if code in FAMILIES else "default"}
        if code in MEANS:
            site["means"], site["fix"] = MEANS[code][0], list(MEANS[code][1])
        sites.append(site)
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
    a = knowgen.arguments(__doc__, argv, "root", source_opts={"help": "the wheel's nvidia/cuda_runtime folder"},
                          extra=[("--version", {"default": "", "help": "the wheel's version"})])
    if a.root:
        runtime, driver, strings = from_root(a.root)
        version = "nvidia-cuda-runtime-cu12 %s" % a.version
        stale = sorted(set(MEANS) - {code for _, code, _ in runtime + driver})
        if stale:  # a row whose code the headers no longer have: move its text by hand, never lose it
            a.error("MEANS names codes the headers do not have: %s" % ", ".join(map(str, stale)))
    else:
        runtime, driver, strings, version = from_slice(a.slice)
    return knowgen.emit("cuda_errors", build(runtime, driver, strings, version), a.out, "codes")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

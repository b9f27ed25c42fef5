"""explain on the CUDA runtime/driver, NVML and errno side (issue 18): real texts from public
threads (the URL above each is its source; the expected answer is the thread's settled fix),
run through the CLI (`gpudoctor explain --json`, in this process), asserting the entry, its
family and the specific fix, including the fixes computed from the log itself (the minimum
driver for the CUDA in the log, the torch wheel for the GPU's compute capability)."""


import pytest
from explainhelp import assert_root, explain_cli, fixes


def answer(cli, text, *args):
    return explain_cli(cli, *args, text, rcs=(0, 1), quiet=True)[1]


def root_of(doc, entry=None, **kw):
    return assert_root(doc, entry, verdict="root_cause", **kw)


def computed(f):
    got = [c["computed_fix"] for c in f["causes"] if c.get("computed_fix")]
    assert got, [c["fix"] for c in f["causes"]]
    return got[0]


# ------------------------------------------------------------------ driver too old

# https://github.com/IEIT-Yuan/Yuan-2.0/issues/65 (an NGC torch container, CUDA 12.1: settled by a
# driver >= 535)
DRIVER_11000 = (
    "/usr/local/lib/python3.10/dist-packages/torch/cuda/__init__.py:124: UserWarning: CUDA initialization: The "
    "NVIDIA driver on your system is too old (found version 11000). Please update your GPU driver by downloading "
    "and installing a new version from the URL: http://www.nvidia.com/Download/index.aspx Alternatively, go to: "
    "https://pytorch.org to install a PyTorch version that has been compiled with your version of the CUDA driver. "
    "(Triggered internally at /opt/pytorch/pytorch/c10/cuda/CUDAFunctions.cpp:108.)\n")

# https://github.com/lllyasviel/Fooocus/issues/1313 (the error and the user's nvidia-smi header)
DRIVER_11040_SMI = (
    "RuntimeError: The NVIDIA driver on your system is too old (found version 11040). Please update your GPU "
    "driver by downloading and installing a new version from the URL: http://www.nvidia.com/Download/index.aspx "
    "Alternatively, go to: https://pytorch.org to install a PyTorch version that has been compiled with your "
    "version of the CUDA driver.\n"
    "| NVIDIA-SMI 470.86       Driver Version: 470.86       CUDA Version: 11.4\n")


def test_driver_too_old_names_the_minimum_driver_for_cuda_12(cli):
    f = root_of(answer(cli, DRIVER_11000), "cuda.driver_insufficient")
    assert f["family"] == "cuda.driver_insufficient"
    fix = computed(f)
    # found version 11000 = the driver's CUDA 11.0 (cudaDriverGetVersion); a CUDA 12 torch needs
    # >= 525.60.13 (Table 2, minor-version compatibility): the thread's 535 is above it
    assert "CUDA 12.x builds (torch cu12*) need >= 525.60.13" in fix and "CUDA <= 11.0" in fix


def test_driver_too_old_with_nvidia_smi_names_a_build_this_driver_runs(cli):
    fix = computed(root_of(answer(cli, DRIVER_11040_SMI), "cuda.driver_insufficient"))
    assert "driver 470.86" in fix and "CUDA <= 11.4" in fix and ">= 525.60.13" in fix
    # a 470 driver runs CUDA 11.x builds (minor-version compatibility, >= 450.80.02): the newest line with one
    assert "--index-url https://download.pytorch.org/whl/cu118" in fix


def test_driver_minimum_is_the_rows_of_the_cuda_the_log_names(cli):
    # the same real error with the torch build the user had installed (pip's line: torch 2.4.0+cu121)
    f = root_of(answer(cli, "Successfully installed torch-2.4.0+cu121\n" + DRIVER_11040_SMI))
    fix = computed(f)
    assert fix.startswith("upgrade the NVIDIA driver to >= 530.30.02 (CUDA 12.1's own minimum")
    assert ">= 525.60.13 runs it through minor-version compatibility" in fix


# ------------------------------------------------------------------ no kernel image / compute capability

# https://github.com/lmoe/wyoming-xtts/issues/1 (RTX 5060 Ti, sm_120: settled by a cu128 build)
SM120 = (
    "/opt/venv/lib/python3.11/site-packages/torch/cuda/__init__.py:287: UserWarning:\n"
    "NVIDIA GeForce RTX 5060 Ti with CUDA capability sm_120 is not compatible with the current PyTorch "
    "installation.\n"
    "The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90.\n"
    "If you want to use the NVIDIA GeForce RTX 5060 Ti GPU with PyTorch, please check the instructions at "
    "https://pytorch.org/get-started/locally/\n")


def test_sm_120_from_the_log_names_a_wheel_that_carries_it(cli):
    fix = computed(root_of(answer(cli, SM120), "cuda.no_kernel_image"))
    assert "'NVIDIA GeForce RTX 5060 Ti' sm_120" in fix
    # no driver in the log: the newest line's build and, for drivers before 580, the cu128 build
    assert "--index-url https://download.pytorch.org/whl/cu128" in fix and "driver >= 570.26" in fix


def test_sm_120_with_the_driver_in_the_log_names_the_build_it_runs(cli):
    text = SM120 + "| NVIDIA-SMI 570.124.06   Driver Version: 570.124.06   CUDA Version: 12.8 |\n"
    fix = computed(root_of(answer(cli, text)))
    assert fix.startswith("pip install 'torch==2.11.*' --index-url https://download.pytorch.org/whl/cu128")
    assert "driver 570.124.06" in fix


def test_a_gpu_name_from_the_log_is_quoted_in_the_fix(cli):
    # the name is the log's (untrusted): one quoted word, never a command
    text = SM120.replace("NVIDIA GeForce RTX 5060 Ti", "X; touch /tmp/pwned")
    fix = computed(root_of(answer(cli, text)))
    assert "'X; touch /tmp/pwned' sm_120" in fix


# ------------------------------------------------------------------ NVML mismatch from any NVML user

@pytest.mark.parametrize("text", [
    # https://github.com/NVIDIA/k8s-device-plugin/issues/1431 (nvidia-container-cli; a reboot fixed it)
    "failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: "
    "unable to start container process: error during container init: error running prestart hook #0: exit status "
    "1, stdout: , stderr: Auto-detected mode as 'legacy'\n"
    "nvidia-container-cli: initialization error: nvml error: driver/library version mismatch: unknown\n",
    # https://github.com/rapidsai/dask-cuda/issues/949 (pynvml)
    "pynvml.nvml.NVMLError_LibRmVersionMismatch: RM has detected an NVML/RM version mismatch.\n",
    # https://github.com/tensorpack/tensorpack/issues/1244 (tensorpack's own NVML binding)
    "tensorpack.utils.nvml.NvmlException: NVML_ERROR_LIB_RM_VERSION_MISMATCH\n",
])
def test_nvml_mismatch_from_other_tools_is_the_driver_upgrade(cli, text):
    f = root_of(answer(cli, text), "nvml.mismatch")
    assert f["causes"][0]["fix"][0].startswith("reboot the node")
    assert "rmmod nvidia_uvm" in fixes(f)


# ------------------------------------------------------------------ RDMA notes

# https://github.com/sgl-project/sglang/pull/1427 (TCP instead of RDMA: fixed by libibverbs in the image)
VERBS = ("node1:5020:5091 [1] NCCL INFO Failed to open libibverbs.so[.1]\n"
         "node1:5020:5091 [1] NCCL INFO NET/Socket : Using [0]ib0:10.0.0.1<0>\n"
         "node1:5020:5091 [1] NCCL INFO Using network Socket\n")
# https://github.com/huggingface/accelerate/issues/2183 (GDR "disabled" on a socket interface: meaningless)
SOCKET_GDR = "axon:5022:5089 [3] NCCL INFO NET/Socket : GPU Direct RDMA Disabled for HCA 0 'enp1s0f0'\n"
# https://github.com/NVIDIA/nccl/issues/1537 (GDR disabled over RoCE)
IB_GDR = ("hostname1:25668:27396 [0] NCCL INFO Using network IB\n"
          "hostname1:25668:27396 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'\n")


def test_missing_libibverbs_is_a_note_naming_the_package(cli):
    doc = answer(cli, VERBS)
    assert doc["verdict"] == "no_error"
    note = {n["id"]: n for n in doc["context"]}["rdma.libibverbs_missing"]
    assert "apt-get install -y libibverbs1 ibverbs-providers" in note["fix"]


def test_newer_nccls_wording_of_the_missing_library_too(cli):
    # NCCL src/misc/ibvsymbols.cc: INFO(NCCL_INIT, "Count not open %s", ...) since the dlopen loop
    doc = answer(cli, "n1:1:1 [0] NCCL INFO Count not open libibverbs.so\n")
    assert "rdma.libibverbs_missing" in [n["id"] for n in doc["context"]]


def test_gdr_disabled_is_a_peermem_note_only_on_the_verbs_transport(cli):
    doc = answer(cli, IB_GDR)
    notes = {n["id"]: n for n in doc["context"]}
    assert doc["verdict"] == "no_error" and "modprobe nvidia-peermem" in notes["rdma.peermem"]["fix"]
    doc = answer(cli, SOCKET_GDR)
    assert "rdma.peermem" not in [n["id"] for n in doc["context"]]


# ------------------------------------------------------------------ bf16

# https://github.com/vllm-project/vllm/issues/946 (V100: settled with dtype=half / float16)
BF16 = ("ValueError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0. Your Tesla "
        "V100-SXM2-32GB GPU has compute capability 7.0.\n")


def test_bf16_on_a_v100_names_float16(cli):
    f = root_of(answer(cli, BF16), "cuda.bf16_unsupported", fix=("--dtype half", "fp16=True"))
    assert f["causes"][0]["evidence"]  # the capability in the line points at the old-GPU cause


# ------------------------------------------------------------------ CUDA codes: the code's own meaning first

def test_error_803_is_a_driver_version_combination_not_the_fabric(cli):
    # https://github.com/easydiffusion/easydiffusion/issues/134 (GTX 1080 Ti: fixed by installing the driver)
    text = ("Error: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling "
            "NumCudaDevices() that might have already set an error? Error 803: system has unsupported display "
            "driver / cuda driver combination\n")
    f = root_of(answer(cli, text), fix="reinstall one driver version")
    assert f["family"] == "cuda.driver_insufficient" and "fabric" not in f["causes"][0]["text"]
    assert "libcuda.so" in f["causes"][0]["text"]


def test_a_stub_libcuda_names_the_stubs_directory(cli):
    # https://github.com/xmake-io/xmake/issues/4686 (LD_LIBRARY_PATH held /usr/local/cuda/lib64/stubs)
    root_of(answer(cli, "CUDA API Error at line 28: CUDA driver is a stub library\n"), "cuda.libs", fix="lib64/stubs")


# ------------------------------------------------------------------ errno: where it comes from in a job

def test_no_route_to_host_names_the_route_and_the_firewall(cli):
    # https://github.com/huggingface/accelerate/issues/2468 (a worker could not reach the master's store)
    text = ("trainer-2: torch.distributed.DistNetworkError: The client socket has failed to connect to any network "
            "address of (192.168.121.122, 1040). The client socket has failed to connect to 192.168.121.122:1040 "
            "(errno: 113 - No route to host).\n")
    f = root_of(answer(cli, text), fix=("ip route get", "firewall-cmd"))
    assert f["family"] == "rendezvous.connect" and "no route" in f["causes"][0]["text"]


# ------------------------------------------------------------------ cuBLAS, memlock, DeepSpeed builds

def test_cublas_execution_failed_is_the_family_with_its_causes_told_apart(cli):
    # https://github.com/pytorch/pytorch/issues/24018 (fp16 GEMM; a cuBLAS bug, fixed by a newer CUDA/cuBLAS)
    text = ("RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasGemmEx( handle, opa, opb, "
            "m, n, k, &falpha, a, CUDA_R_16F, lda, b, CUDA_R_16F, ldb, &fbeta, c, CUDA_R_16F, ldc, CUDA_R_32F, "
            "CUBLAS_GEMM_DFALT_TENSOR_OP)`\n")
    f = root_of(answer(cli, text), "cuda.cublas_failed", confidence="family")
    texts = " ".join(c["text"] for c in f["causes"])
    assert "earlier kernel failed" in texts and "cuBLAS library bug" in texts and "older than this GPU" in texts
    assert "CUDA_LAUNCH_BLOCKING=1" in fixes(f)


@pytest.mark.parametrize("text", [
    # https://github.com/open-mpi/ompi/issues/4499 (Open MPI's verbs help text; open-mpi/ompi#6468: settled in
    # a container with docker run --ulimit memlock=-1)
    "--------------------------------------------------------------------------\n"
    "Failed to create a completion queue (CQ):\n\nHostname: afispb07\nRequested CQE: 16384\n"
    "Error:    Cannot allocate memory\n\nCheck the CQE attribute.\n"
    "--------------------------------------------------------------------------\n",
    # https://github.com/openucx/ucx/issues/8684 (UCX names the 64 KiB limit)
    "[1668693503.473099] [ampere:1188443:0]          ib_log.c:246  UCX  ERROR mlx5_0: ibv_create_cq() failed: "
    "Cannot allocate memory. Please set max locked memory (ulimit -l) to 'unlimited' (current: 64 kbytes)\n",
])
def test_verbs_queues_under_a_small_memlock_name_the_container_flag(cli, text):
    f = root_of(answer(cli, text), "rdma.memlock")
    assert f["causes"][0]["fix"][0].startswith("docker run --ulimit memlock=-1")
    assert "--cap-add=IPC_LOCK" in fixes(f)


def test_deepspeed_op_build_with_another_cuda_names_the_toolkit(cli):
    # https://github.com/JIA-Lab-research/MGM/issues/91 (settled by aligning the toolkit with torch's CUDA)
    text = ("deepspeed.ops.op_builder.builder.CUDAMismatchException: >- DeepSpeed Op Builder: Installed CUDA "
            "version 12.2 does not match the version torch was compiled with 11.7, unable to compile cuda/cpp "
            "extensions without a matching cuda version.\n")
    f = root_of(answer(cli, text))
    assert f["family"] == "deepspeed.ops"
    assert computed(f).startswith("export CUDA_HOME=/usr/local/cuda-11.7   (install it: apt-get install cuda-toolkit-11-7")


def test_cpp_extension_cuda_mismatch_names_both_ways_out(cli):
    # https://github.com/icip-cas/AutoAlign/issues/25 (torch's message, wrapped as pip prints it)
    text = ("RuntimeError:\n"
            "      The detected CUDA version (11.8) mismatches the version that was used to compile\n"
            "      PyTorch (12.4). Please make sure to use the same CUDA versions.\n")
    fix = computed(root_of(answer(cli, text)))
    assert fix.startswith("export CUDA_HOME=/usr/local/cuda-12.4") and "cuda-toolkit-12-4" in fix
    assert "--index-url https://download.pytorch.org/whl/cu118" in fix  # or torch for the toolkit found

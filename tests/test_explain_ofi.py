"""Infrastructure told across components (issue 18, infra17): aws-ofi-nccl's own messages and its static topology
files (tools/gen_ofi_messages.py -> generated/ofi_messages.json), enroot's NVIDIA hook without the image's NVIDIA_*
environment, CUDA fabric memory without an IMEX channel, Mellanox HCOLL under Open MPI, a GPU build of MPICH on a CPU
node, GCP TCPXO's RxDM (gpudoctor/data/knowledge/fabric_context.toml and causes in nccl.toml, nvidia_smi.toml,
fabric.toml). Public threads, cited per text; in process (one knowledge load)."""

import json
import os
import re

import pytest

from gpudoctor import explain
from gpudoctor.explain.knowledge import open_generated

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

TEXTS = {
    # https://github.com/aws/aws-ofi-nccl/issues/785 (p5.48xlarge, a subset of the GPUs; maintainer: upgrade the plugin)
    "static_topology": ("2a8874e7d1e6:2196:2275 [1] graph/xml.h:101 NCCL WARN Attribute arch of node cpu not found\n"
                        "2a8874e7d1e6:2196:2275 [1] NCCL INFO graph/topo.cc:493 -> 3\n"
                        "2a8874e7d1e6:2196:2275 [1] NCCL INFO graph/topo.cc:623 -> 3\n"
                        "2a8874e7d1e6:2196:2275 [1] NCCL INFO graph/topo.cc:773 -> 3\n",
                        "nccl.topo_file", "nccl.topo_file", "v1.11.0-aws"),
    # https://github.com/aws-samples/aws-do-eks/pull/63 (EFA in an EKS pod with /dev/infiniband as a hostPath)
    "efa_no_provider": ("NET/OFI Using transport protocol RDMA (platform set)\nNET/OFI No eligible providers were found\n"
                        "NET/OFI aws-ofi-nccl initialization failed\nNET/IB : No device found\n"
                        "Failed to initialize NET plugin IB\nInitialized NET plugin Socket\n",
                        "nccl.net_plugin", "nccl.net_plugin", "hostPath"),
    # https://github.com/aws/aws-ofi-nccl/issues/889 (a NET/OFI WARN the table reads: src/nccl_ofi_net.cpp)
    "ofi_endpoint": ("ip-10-0-0-1:123:456 [0] nccl_net_ofi_domain_get_ep:969 NCCL WARN NET/OFI Creating new endpoint for "
                     "domain 0x7f9befa99380 failed: Invalid argument\n", "nccl.net_plugin", "nccl.net_plugin", "FI_LOG_LEVEL=warn"),
    # https://github.com/aws/aws-ofi-nccl/issues/663 (the security group had no outbound rule to itself)
    "ofi_av_insert": ("[rank1]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/"
                      "ProcessGroupNCCL.cpp:1970, internal error - please report this issue to the NCCL developers, NCCL "
                      "version 2.20.5\n[rank1]: ncclInternalError: Internal check failed.\n[rank1]: Last error:\n"
                      "[rank1]: NET/OFI Unable to insert remote address into address vector for device 1. RC: 0\n",
                      "nccl.net_plugin", "nccl.net_plugin", "outbound all traffic to the security group itself"),
    # https://github.com/awslabs/awsome-distributed-ai/pull/1241 (GIN in EKS pods without /dev/gdrdrv)
    "ofi_gdrcopy": ("NCCL INFO  NET/OFI gin: Initializing\nNCCL INFO  NET/OFI Failed to open gdr handle\n"
                    "NCCL WARN  NET/OFI Failed to initialize GDRCopy: Failed to open gdr handle   (nccl_ofi_gin_init:71)\n",
                    "nccl.net_plugin", "nccl.net_plugin", "NVIDIA_GDRCOPY=enabled"),
    # https://github.com/NVIDIA/enroot/issues/105 (enroot's hook with nvidia_uvm not loaded on the host)
    "enroot_uvm": (" [WARN] Kernel module nvidia_uvm is not loaded. Make sure the NVIDIA device driver is installed and "
                   "loaded\n nvidia-container-cli: initialization error: driver error: failed to process request\n"
                   " [ERROR] /usr/local/etc/enroot/hooks.d/98-nvidia.sh exited with return code 1\n",
                   "container.nvml_driver", "container.nvml_driver", "modprobe nvidia_uvm"),
    # https://github.com/aws/aws-ofi-nccl/issues/889 (its later log: the GDR check of platform-aws on p4d.24xlarge)
    "ofi_gdr_required": ("ip-10-36-29-253:84:2553 [0] platform_config_endpoint:626 NCCL WARN NET/OFI GDR disabled on "
                         "GDR-supported instance type p4d.24xlarge\nip-10-36-29-253:84:2553 [0] nccl_net_ofi_create_plugin:"
                         "335 NCCL WARN NET/OFI aws-ofi-nccl initialization failed\n",
                         "nccl.net_plugin", "nccl.net_plugin", "OFI_NCCL_DISABLE_GDR_REQUIRED_CHECK=1"),
    # GPUDirect-TCPX without its RxDM daemon: google/nccl-plugin-gpudirecttcpx src/net_tcpx.cc's WARN format, its
    # value as gRPC's status prints it (composed here: no public thread quotes it)
    "tcpx_rxdm": ("node-1:1234:1300 [0] NCCL WARN NET/GPUDirectTCPX register failed against receive_datapath_manager, "
                  "UNAVAILABLE: failed to connect to all addresses\n", "nccl.net_plugin", "nccl.net_plugin",
                  "NCCL_GPUDIRECTTCPX_UNIX_CLIENT_PREFIX"),
    # https://github.com/microsoft/mscclpp/issues/467 (8xH200 in docker; fixed by mknod channel0)
    "imex": (">>> mem = GpuBuffer(128, dtype=cp.float32)\nTraceback (most recent call last):\n"
             "  File \"<stdin>\", line 1, in <module>\n"
             "mscclpp._mscclpp.CuError: (800, 'Call to cuMemCreate(&memHandle, nbytes, &prop, 0 ) failed./root/mscclpp/"
             "src/gpu_utils.cc:113 (Cu failure: operation not permitted)')\n",
             "cuda.imex_channel", "cuda.api_error", "mknod /dev/nvidia-caps-imex-channels/channel0"),
    # https://github.com/open-mpi/ompi/issues/11469 (HCOLL's ucx_p2p level with UCX_TLS=xpmem)
    "hcoll": ("$ UCX_TLS=xpmem mpiexec -n 2 ./a.out\n[LOG_CAT_ML] component ucx_p2p is not available but requested in "
              "hierarchy: ucx_p2p:p2p\n[LOG_CAT_ML] ml_discover_hierarchy exited with error\n",
              "mpi.hcoll", "mpi.warning", "--mca coll ^hcoll"),
    # https://github.com/pmodels/mpich/issues/6686 (a CUDA-enabled MPICH on a CPU-only node)
    "mpich_gpu": ("CUDA Error (yaksuri_cuda_init_hook:src/backend/cuda/hooks/yaksuri_cuda_init_hooks.c,173): no "
                  "CUDA-capable device is detected\n", "mpi.mpich_gpu", "mpi.mpich_error", "MPIR_CVAR_ENABLE_GPU=0"),
    # https://github.com/NVIDIA/aicr/pull/1662 (GKE a3-megagpu-8g: a gVNIC network displaced a GPU NIC)
    "tcpxo": ("Number of GPUs detected in the PCI tree 7 is not equal to the actual number of GPUs reported by CUDA 8\n"
              "connect() error: 111: Connection refused\nORTE was unable to reliably start one or more daemons\n",
              "nccl.tcpxo_rxdm", "nccl.net_plugin", "gvnicCidr"),
    # https://github.com/NVIDIA/pyxis/issues/96 (a squashfs made from 'docker export')
    "pyxis_env": ("srun --ntasks=1 --container-image=./out.squashfs --container-name=language_model nvidia-smi\n"
                  "NVIDIA-SMI couldn't find libnvidia-ml.so library in your system. Please make sure that the NVIDIA "
                  "Display Driver is properly installed and present in your system.\n",
                  "enroot.nvidia_hook", "enroot.nvidia_hook", "NVIDIA_VISIBLE_DEVICES=all"),
    # bash's message for the utility binary the hook did not mount, in a pyxis step (composed)
    "pyxis_no_smi": ("$ srun --container-image=ubuntu:22.04 nvidia-smi\nbash: nvidia-smi: command not found\n",
                     "enroot.nvidia_hook", "enroot.nvidia_hook", "NVIDIA_VISIBLE_DEVICES=all"),
}


@pytest.mark.parametrize("name", sorted(TEXTS))
def test_the_cause_in_another_component_is_named(kb, name):
    text, root, family, fix = TEXTS[name]
    res = explain.explain_text(text, kb)
    f = res["findings"][0]
    assert res["verdict"] == "root_cause" and f["role"] == "root" and f["id"] == root, \
        [(x["id"], x["role"]) for x in res["findings"]]
    assert f["family"] == family
    assert fix in "\n".join(x for c in f["causes"] for x in c.get("fix") or []), f["causes"]


@pytest.mark.parametrize("text", [
    # a healthy start of the plugin: INFO lines only (src/nccl_ofi_net.cpp, nccl_ofi_rdma.cpp formats)
    "ip-1:1:2 [0] NCCL INFO NET/OFI Initializing aws-ofi-nccl 1.14.2\n"
    "ip-1:1:2 [0] NCCL INFO NET/OFI Using transport protocol RDMA (platform set)\n"
    "ip-1:1:2 [0] NCCL INFO NET/OFI Selected provider is efa, fabric is efa-direct (found 4 nics)\n"
    "#  Avg bus bandwidth    : 180.5\n",
    # the same CUDA call that worked, and an HCOLL log line that is no failure
    "cuMemCreate(&handle, size, &prop, 0) returned CUDA_SUCCESS\n[LOG_CAT_ML] hierarchy ucx_p2p:p2p ready\n",
    # enroot's hook in a healthy pyxis job: the variables set, nvidia-smi's table
    "srun --container-image=nvcr.io#nvidia/pytorch:24.05-py3 --container-env=NVIDIA_VISIBLE_DEVICES nvidia-smi -L\n"
    "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-00000000-0000-0000-0000-000000000000)\n",
])
def test_healthy_texts_of_the_same_components_have_no_root(kb, text):
    res = explain.explain_text(text, kb)
    assert not any(f["role"] == "root" for f in res["findings"]), [(f["id"], f["role"]) for f in res["findings"]]


def test_nccls_socket_words_copied_into_the_tcpx_plugin_stay_nccls(kb):
    # src/misc/socket_utils.cc of the TCPX plugin is NCCL's socket code: 'Net : Connection closed by remote peer'
    res = explain.explain_text("host:1:2 [0] misc/socket.cc:47 NCCL WARN Net : Connection closed by remote peer "
                               "10.0.0.2<45678>\n", kb)
    assert res["findings"] and all(f["id"] != "nccl.net_plugin" for f in res["findings"]), res["findings"][:1]
    with open_generated("tcpx_messages") as f:
        doc = json.load(f)
    assert not [s["text"] for s in doc["sites"] if s.get("family") and s["text"].startswith("Net : ")]


def test_nvidia_smi_missing_outside_pyxis_is_not_enroots(kb):
    res = explain.explain_text("$ nvidia-smi\nbash: nvidia-smi: command not found\n", kb)
    assert not any(f["id"] == "enroot.nvidia_hook" for f in res["findings"])


def test_the_topology_cause_says_what_the_plugins_own_tables_say():
    # nccl.toml's cause names the releases; generated/ofi_messages.json (read from every release's
    # platform-aws platform_data_map) is the authority: a regenerated table that moves them fails here
    with open_generated("ofi_messages") as f:
        doc = json.load(f)
    hist = doc["topology_history"]
    p5 = hist["p5.48xlarge"]
    with open(os.path.join(REPO, "gpudoctor", "data", "knowledge", "nccl.toml")) as f:
        toml = f.read()
    cause = re.search(r'text = "(A static topology file of the whole machine[^"]+)"', toml).group(1)
    assert "from %s to %s (%s)" % (p5["first"], p5["last"], p5["static_topology"]) in cause
    assert "%s generates the topology" % p5["stopped_in"] in cause
    still = sorted(name for name, h in hist.items() if h["stopped_in"] is None)
    assert still == ["g5.48xlarge", "p4d.24xlarge", "p4de.24xlarge"] and all(n in cause for n in still)
    # the platforms that export a static file at the pinned release are those the history keeps
    assert sorted(p["name"] for p in doc["platforms"] if p["topology"]) == still
    # the plugin's variables: OFI_NCCL_ + the name nccl_ofi_param.h gives (src/nccl_ofi_param.cpp)
    envs = {p["env"] for p in doc["params"] if "env" in p}
    assert {"OFI_NCCL_PROTOCOL", "OFI_NCCL_EXCLUDE_TCP_IF"} <= envs


# enroot's hooks (tools/gen_enroot_hooks.py -> generated/enroot_hooks.json): what they need from the image's
# environment; the hand-written causes that cite them must say what the hooks do
def _hooks():
    with open_generated("enroot_hooks") as f:
        return json.load(f)


def test_enroot_hooks_regenerate_from_their_slice(tmp_path):
    import sys

    sys.path.insert(0, os.path.join(REPO, "tools"))
    import gen_enroot_hooks
    import knowgen

    got = knowgen.regenerated(gen_enroot_hooks.main, os.path.join(REPO, "tools", "data", "enroot_hooks_slice.txt"),
                              tmp_path / "h.json")
    full = _hooks()
    assert got["header"]["version"] == full["header"]["version"] and got["sites"] == full["sites"] == []
    by_hook = {h["hook"]: h for h in full["hooks"]}
    assert len(got["hooks"]) == 3 and all(h == by_hook[h["hook"]] for h in got["hooks"])


def test_the_enroot_causes_say_what_the_hooks_do():
    doc = _hooks()
    needs = doc["needs"]
    nvidia = {n["hook"]: n["when"] for n in needs["NVIDIA_VISIBLE_DEVICES"]}
    mellanox = {n["hook"]: n["when"] for n in needs["MELLANOX_VISIBLE_DEVICES"]}
    assert nvidia["conf/hooks/98-nvidia.sh"] == ["unset", "void"]
    assert mellanox["conf/hooks/99-mellanox.sh"] == ["unset", "void", "none"]
    assert needs["ENROOT_RESTRICT_DEV"] == [{"hook": "conf/hooks/10-devices.sh", "when": ["unset"]}]
    hook98 = next(h for h in doc["hooks"] if h["hook"] == "conf/hooks/98-nvidia.sh")
    assert hook98["defaults"] == {"NVIDIA_DRIVER_CAPABILITIES": "utility"}
    assert {"compute", "utility", "graphics", "video"} <= set(hook98["values"]["NVIDIA_DRIVER_CAPABILITIES"])
    kdir = os.path.join(REPO, "gpudoctor", "data", "knowledge")
    with open(os.path.join(kdir, "rdma_state.toml")) as f:
        rdma = f.read()
    with open(os.path.join(kdir, "cuda.toml")) as f:
        cuda = f.read()
    assert "does nothing when it is unset, 'void' or 'none'" in rdma and "ENROOT_RESTRICT_DEV" in rdma
    assert "defaults to utility" in cuda and "NVIDIA_VISIBLE_DEVICES is unset or 'void'" in cuda


@pytest.mark.parametrize("text,root,fix,shown", [
    # ibv_devinfo's message (rdma-core libibverbs/examples/devinfo.c) in a pyxis step: the RDMA devices were not mounted
    ("srun --container-image=nvcr.io#nvidia/pytorch:24.05-py3 ibv_devinfo\nNo IB devices found\n",
     "rdma.no_device", "MELLANOX_VISIBLE_DEVICES=all", True),
    # the loader's message for libcuda in a pyxis step: the compute capability was not asked for
    ("srun --container-image=./img.sqsh ./app\n./app: error while loading shared libraries: libcuda.so.1: cannot open "
     "shared object file: No such file or directory\n", "cuda.libs", "NVIDIA_DRIVER_CAPABILITIES=compute,utility", True),
    # the same in a docker container: enroot's cause is not offered
    ("$ docker run img ./app\n./app: error while loading shared libraries: libcuda.so.1: cannot open shared object file: "
     "No such file or directory\n", "cuda.libs", "NVIDIA_DRIVER_CAPABILITIES=compute,utility", False),
])
def test_enroot_hooks_that_left_a_device_out_are_named_only_under_pyxis(kb, text, root, fix, shown):
    res = explain.explain_text(text, kb)
    f = res["findings"][0]
    assert f["id"] == root and f["role"] == "root", [(x["id"], x["role"]) for x in res["findings"]]
    assert (fix in "\n".join(x for c in f["causes"] for x in c.get("fix") or [])) is shown


# libnvidia-container's capabilities (tools/gen_nvc_capabilities.py -> generated/nvc_capabilities.json)
def test_each_library_is_mounted_by_the_capabilities_the_source_says():
    with open_generated("nvc_capabilities") as f:
        doc = json.load(f)
    caps = {r["library"]: r["capabilities"] for r in doc["libraries"]}
    # options.h container_opts: video selects the compute libraries too; display the graphics ones
    assert caps["libnvcuvid.so"] == ["video"] and caps["libnvidia-encode.so"] == ["video"]
    assert caps["libcuda.so"] == ["compute", "video"] and caps["libnvidia-ml.so"] == ["utility"]
    assert caps["libnvoptix.so"] == ["graphics", "display"] and caps["libnvidia-ngx.so"] == ["ngx"]
    sites = {s["text"].split(":")[0] for s in doc["sites"]}
    # no site for what compute,utility mount (cuda.libs / container.no_driver_libs have them), nor for GLVND's loaders
    assert "libnvcuvid.so" in sites and not sites & {"libcuda.so", "libnvidia-ml.so", "libGL.so", "libEGL.so"}


@pytest.mark.parametrize("text,cap", [
    # https://github.com/NVIDIA/DALI/issues/2362 (DALI's VideoReader in docker; maintainer: the video capability)
    ("Error when constructing operator: VideoReader encountered:\n[/opt/dali/dali/operators/reader/loader/"
     "video_loader.h:182] Assert on \"lib_handle_\" failed: Failed to load libnvcuvid.so, needed by the VideoReader "
     "operator. If you are running in a Docker container, please refer to https://github.com/NVIDIA/nvidia-docker/wiki/"
     "Usage\n", "video"),
    # the loader's refusal of the encoder (glibc dlerror's format, as ctypes raises it)
    ("OSError: libnvidia-encode.so.1: cannot open shared object file: No such file or directory\n", "video"),
    ("OSError: libnvoptix.so.1: cannot open shared object file: No such file or directory\n", "graphics"),
])
def test_a_library_of_another_capability_names_it(kb, text, cap):
    res = explain.explain_text(text, kb)
    f = res["findings"][0]
    assert f["id"] == "container.driver_capability" and f["role"] == "root", [x["id"] for x in res["findings"]]
    fixes = "\n".join(x for c in f["causes"] for x in c.get("fix") or [])
    assert "NVIDIA_DRIVER_CAPABILITIES" in fixes and cap in fixes


def test_opencvs_libgl_is_not_a_driver_capability(kb):
    # libGL.so.1 is GLVND's loader (libgl1), which a slim image lacks: not the container runtime's capability
    res = explain.explain_text("ImportError: libGL.so.1: cannot open shared object file: No such file or directory\n", kb)
    assert not any(f["id"] == "container.driver_capability" for f in res["findings"])

# gpu29: the GPUs' links as NVML reports them (nvidia-ml-py, https://docs.nvidia.com/deploy/nvml-api/), one JSON
# document: per GPU its PCI bus id, per NVLink its state, version and remote PCI bus id, per GPU pair the common
# ancestor (nvmlDeviceGetTopologyCommonAncestor) and the P2P status for read / write / NVLink / atomics
# (nvmlDeviceGetP2PStatus). Read-only: nothing is set.
import json, pynvml as N
N.nvmlInit()
n = N.nvmlDeviceGetCount()
hs = [N.nvmlDeviceGetHandleByIndex(i) for i in range(n)]
def tryit(f, *a):
    try:
        v = f(*a)
        return v.decode() if isinstance(v, bytes) else v
    except Exception as e:  # NVMLError, and ctypes' refusals
        return "error: %s" % e
doc = {"driver": tryit(N.nvmlSystemGetDriverVersion), "gpus": [], "pairs": []}
for i, h in enumerate(hs):
    pci = tryit(N.nvmlDeviceGetPciInfo, h)
    g = {"index": i, "name": tryit(N.nvmlDeviceGetName, h), "bus_id": pci.busId.decode() if hasattr(pci, "busId") and isinstance(pci.busId, bytes) else getattr(pci, "busId", pci),
         "fabric": None, "links": []}
    try:
        fi = N.nvmlDeviceGetGpuFabricInfo(h)
        g["fabric"] = {"state": fi.state, "status": fi.status, "clique": fi.cliqueId}
    except Exception as e:
        g["fabric"] = "error: %s" % e
    for l in range(18):
        st = tryit(N.nvmlDeviceGetNvLinkState, h, l)
        if isinstance(st, str):
            g["links"].append({"link": l, "state": st}); continue
        rp = tryit(N.nvmlDeviceGetNvLinkRemotePciInfo, h, l)
        g["links"].append({"link": l, "state": st, "version": tryit(N.nvmlDeviceGetNvLinkVersion, h, l),
                           "remote": rp.busId.decode() if hasattr(rp, "busId") and isinstance(rp.busId, bytes) else getattr(rp, "busId", rp),
                           "remote_type": tryit(N.nvmlDeviceGetNvLinkRemoteDeviceType, h, l)})
    doc["gpus"].append(g)
# nvml.h's nvmlGpuP2PCapsIndex_t, as literals: this nvidia-ml-py defines NVML_P2P_CAPS_INDEX_READ as the tuple (0,)
# (a trailing comma), which ctypes refuses (call 1's nvml-topo.err)
caps = {"read": 0, "write": 1, "nvlink": 2, "atomics": 3, "pci": 4}
for i in range(n):
    for j in range(i + 1, n):
        doc["pairs"].append({"a": i, "b": j, "ancestor": tryit(N.nvmlDeviceGetTopologyCommonAncestor, hs[i], hs[j]),
                             "p2p": {k: tryit(N.nvmlDeviceGetP2PStatus, hs[i], hs[j], c) for k, c in caps.items()}})
print(json.dumps(doc, indent=1, default=str))

"""The operators' own configuration (issue 18, k8s14): Kueue's admission (ResourceFlavor, ClusterQueue, LocalQueue),
the RDMA shared device plugin's selectors and netns mode, the GPU operator's container toolkit on RKE2 / k3s
(CONTAINERD_CONFIG / CONTAINERD_SOCKET), Volcano's gang scheduling, read from their sources by
tools/gen_k8s_messages.py (OPERATORS; the slice tools/data/k8s_messages_slice.txt keeps the statements used here with
their line numbers). The texts are real outputs quoted in the public threads cited beside each.
"""

import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SLICE = os.path.join(REPO, "tools", "data", "k8s_messages_slice.txt")
sys.path.insert(0, os.path.join(REPO, "tools"))

import gen_k8s_messages as gen  # noqa: E402
import knowgen  # noqa: E402
from explainhelp import explain_paste, ids, root_of  # noqa: E402

# (text, the root's family, words its first cause's fix must hold)
REAL = {
    # https://github.com/NVIDIA/gpu-operator/issues/522 (the container toolkit's log on RKE2; the maintainer's answer in
    # #406: CONTAINERD_CONFIG / CONTAINERD_SOCKET at RKE2's paths)
    "gpuop522": (
        'time="2023-05-04T04:43:08Z" level=warning msg="Error signaling containerd, attempt 5/6: unable to dial: dial '
        'unix /runtime/sock-dir/containerd.sock: connect: no such file or directory"\n'
        'time="2023-05-04T04:43:13Z" level=warning msg="Max retries reached 6/6, aborting"\n'
        'time="2023-05-04T04:43:13Z" level=fatal msg="Error: unable to restart containerd: unable to signal containerd: '
        'unable to dial: dial unix /runtime/sock-dir/containerd.sock: connect: no such file or directory"\n'
        'time="2023-05-04T04:43:13Z" level=info msg="Shutting Down"\n'
        'time="2023-05-04T04:43:13Z" level=error msg="error running nvidia-toolkit: unable to setup runtime: error '
        'running containerd command: exit status 1"\n',
        "k8s.gpu_operator", ("CONTAINERD_SOCKET=/run/k3s/containerd/containerd.sock", "CONTAINERD_CONFIG=")),
    # https://github.com/Mellanox/k8s-rdma-shared-dev-plugin/issues/84 (the maintainer: the OS has the RDMA netns
    # mode exclusive instead of shared)
    "rdma84": (
        "2023/09/08 17:43:19 Starting K8s RDMA Shared Device Plugin version= master\n"
        "2023/09/08 17:43:19 resource manager reading configs\n"
        "2023/09/08 17:43:19 Reading /k8s-rdma-shared-dev-plugin/config.json\n"
        "Using Kubelet Plugin Registry Mode\n"
        "2023/09/08 17:43:19 loaded config: [{ResourceName:rdma_share RdmaHcaMax:1000 Devices:[] Selectors:{Vendors:[] "
        "DeviceIDs:[] Drivers:[mlx5_core] IfNames:[] LinkTypes:[]}}] \n"
        "2023/09/08 17:43:19 periodic update interval: +300 \n"
        "2023/09/08 17:43:19 Exiting.. can not change : incorrect RDMA subsystem network namespace\n",
        "k8s.rdma_device_plugin", ("rdma system set netns shared",)),
    # https://github.com/Mellanox/k8s-rdma-shared-dev-plugin/issues/159 (ConnectX-6 ports in ETH mode: functions
    # without an RDMA device)
    "rdma159": (
        ' 2025/03/21 09:17:03 error creating new device: "missing RDMA device spec for device 0000:c4:00.0, RDMA device '
        '\\"issm\\" not found"\n'
        ' 2025/03/21 09:17:03 error creating new device: "error getting driver info for device 0000:c4:00.1 readlink '
        '/sys/bus/pci/devices/0000:c4:00.1/driver: no such file or directory"\n',
        "k8s.rdma_device_plugin", ("selectors", '"vendors": ["15b3"]', "deviceIDs")),
    # https://github.com/kubernetes-sigs/kueue/issues/4134 (quoting #3909: a Workload's QuotaReserved message)
    "kueue4134": (
        "couldn't assign flavors to pod set master\n...\ninsufficient quota for nvidia.com/gpu in flavor "
        "single-node-h100, request > maximum capacity (24 > 16)\n",
        "k8s.kueue", ("nominalQuota",)),
    # https://github.com/kubernetes-sigs/kueue/issues/7929 (the controller's log: a Workload with no queue)
    "kueue7929": (
        '"msg":"ignored an error for now","workload":{"name":"pod-debug-bf2ca","namespace":"test"},"queue":"",'
        '"status": "pending","error":"localQueue doesn\'t exist or inactive"}\n',
        "k8s.kueue", ("kueue.x-k8s.io/queue-name", "LocalQueue")),
    # https://github.com/headlamp-k8s/plugins/issues/1191 (kubectl describe clusterqueue; fixed by renaming the
    # ClusterQueue's flavors to the ResourceFlavors' names)
    "headlamp1191": (
        "Type: Active\nStatus: False\nReason: FlavorNotFound\n"
        "Message: Can't admit new workloads: references missing ResourceFlavor(s): default,spot.\n",
        "k8s.kueue", ("metadata.name",)),
    # https://github.com/volcano-sh/volcano/pull/520 (a pod's events under Volcano's gang scheduling)
    "volcano520": (
        "Events:\n  Type     Reason            Age   From     Message\n  ----     ------            ----  ----     -------\n"
        "  Warning  FailedScheduling  45m   volcano  10/6 tasks in gang unschedulable: pod group is not ready, 10 "
        "minAvailable, 6 Pending.\n",
        "k8s.volcano", ("minAvailable",)),
    # https://github.com/kubeflow/mpi-operator/issues/481 (an MPIJob launcher's log; the fix became #484, 'Run workers
    # first and wait for them': spec.launcherCreationPolicy WaitForWorkersReady). Open MPI's orted family answers
    "mpiop481": (
        "ssh: Could not resolve hostname tensorflow-benchmarks-worker-0.tensorflow-benchmarks-worker: Name or service "
        "not known\nssh: Could not resolve hostname tensorflow-benchmarks-worker-1.tensorflow-benchmarks-worker: Name "
        "or service not known\n"
        "--------------------------------------------------------------------------\n"
        "ORTE was unable to reliably start one or more daemons.\nThis usually is caused by:\n",
        "mpi.orted", ("launcherCreationPolicy: WaitForWorkersReady",)),
    # https://github.com/NVIDIA/k8s-device-plugin/issues/16 (kubectl get pods, then the plugin run by hand: NVML does
    # not load without the NVIDIA runtime; the plugin exits on it, --fail-on-init-error being on by default)
    "dp16": ("NAME                                   READY     STATUS             RESTARTS   AGE\n"
             "nvidia-device-plugin-daemonset-2h9rh   0/1       CrashLoopBackOff   11          33m\n"
             "14:25:40 Loading NVML\n14:25:40 Failed to start nvml with error: could not load NVML library.\n",
             "k8s.crashloop", ('"default-runtime": "nvidia"', "default_runtime_name")),
}

# https://github.com/kubernetes-sigs/kueue/issues/9048 (an active ClusterQueue) and the RDMA plugin's start-up lines
# of https://github.com/Mellanox/k8s-rdma-shared-dev-plugin/issues/98: no failure in either
HEALTHY = ("    - lastTransitionTime: \"2026-05-03T19:15:21Z\"\n      message: Can admit new workloads\n"
           "      observedGeneration: 68\n      reason: Ready\n      status: \"True\"\n      type: Active\n"
           "2024/01/29 02:36:25 Starting K8s RDMA Shared Device Plugin version= master\n"
           "2024/01/29 02:36:25 resource manager reading configs\n"
           "2024/01/29 02:36:25 periodic update interval: +300 \n"
           "2024/01/29 02:36:25 Discovering host devices\n"
           "2024/01/29 02:36:25 discovering host network devices\n")


def test_operator_sites_regenerate_with_their_families(tmp_path):
    got = knowgen.regenerated(gen.main, SLICE, tmp_path / "k8s_messages.json")
    sites = {s["text"]: s for s in got["sites"]}
    for text, family in (("couldn't assign flavors to pod set ", "k8s.kueue"),
                         ("insufficient unused quota for %s in flavor %s, %s more needed", "k8s.kueue"),
                         ("LocalQueue %s doesn't exist", "k8s.kueue"),
                         ("Reason: FlavorNotFound", "k8s.kueue"),
                         ("incorrect RDMA subsystem network namespace", "k8s.rdma_device_plugin"),
                         ("Warning: no devices in device pool, creating empty resource server for %s",
                          "k8s.rdma_device_plugin"),
                         ("Error signaling containerd, attempt %s/%s: %s", "k8s.gpu_operator"),
                         ("%s/%s tasks in gang unschedulable: %s", "k8s.volcano"),
                         ("launcher pod created failed: %s", "k8s.mpi_operator"),
                         ("jobset failed due to reaching max number of restarts", "k8s.jobset"),
                         ("node does not have topology label: %s", "k8s.lws")):
        assert sites[text]["family"] == family, (text, sites[text].get("rule"))
    # a reason of a ClusterQueue that is fine is no site; a message too short to anchor stays unassigned
    assert "Reason: Ready" not in sites and sites["LocalQueue %s is stopped"]["family"] is None
    # the RDMA plugin's Go log.Printf lines have no level: its 'Warning:' prefix gives it, an info line is no failure
    assert sites["Warning: no devices in device pool, creating empty resource server for %s"]["level"] == "warning"
    full = knowgen.committed("k8s_messages")
    assert "kubernetes-sigs/kueue" in full["header"]["version"] and "volcano-sh/volcano" in full["header"]["version"]


def test_real_operator_texts_name_the_setting(cli, tmp_path):
    for name, (text, family, words) in REAL.items():
        rc, doc = explain_paste(cli, tmp_path, text, "--file", name=name + ".txt", rcs=(0, 1))
        root = root_of(doc)
        assert root and (root.get("family") or root["id"]) == family, (name, ids(doc))
        fix = " ".join(root["causes"][0]["fix"])
        assert all(w in fix for w in words), (name, root["causes"][0]["text"], fix)
    rc, doc = explain_paste(cli, tmp_path, HEALTHY, "--file", name="healthy.txt", rcs=(0,))
    assert doc["findings"] == [], ids(doc)

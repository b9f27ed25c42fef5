"""Kubernetes as a training job meets it (issue 18, k8s-src): the scheduler's '0/N nodes are available' and its
reasons, the kubelet's evictions, image pulls, mounts and restarts, the NVIDIA device plugin's log, and the
Warning rows of `kubectl describe pod` / `kubectl get events`, the GPU operator's validator. Read from kubernetes v1.31.0-alpha.2 (as
kubernetes/autoscaler vendored it), NVIDIA/k8s-device-plugin v0.20.0, kubeflow/training-operator v1.9.0 and NVIDIA/gpu-operator v26.7.0 by
tools/gen_k8s_messages.py (its slice tools/data/k8s_messages_slice.txt keeps the statements used here with their
line numbers). The texts are real outputs quoted in the public threads cited beside each.
"""

import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SLICE = os.path.join(REPO, "tools", "data", "k8s_messages_slice.txt")
sys.path.insert(0, os.path.join(REPO, "tools"))

import gen_k8s_messages as gen  # noqa: E402
import knowgen  # noqa: E402
from explainhelp import explain_paste, ids, root_id, root_of  # noqa: E402

from gpudoctor.explain import k8s  # noqa: E402

REAL = {
    # https://github.com/NVIDIA/k8s-device-plugin/issues/119 (kubectl describe pod's Events, as pasted)
    "dp119": ("Events:\n Warning FailedScheduling  40s (x2 over 40s)  default-scheduler  0/2 nodes are available: "
              "1 Insufficient nvidia.com/gpu, 1 node(s) were unschedulable.\n", "k8s.unschedulable"),
    # https://github.com/NVIDIA/k8s-device-plugin/issues/430 (the title: with the PostFilter's preemption part)
    "dp430": ("0/1 nodes are available: 1 Insufficient nvidia.com/gpu. preemption: 0/1 nodes are available: 1 No "
              "preemption victims found for incoming pod..\n", "k8s.unschedulable"),
    # https://github.com/inveniosoftware/helm-invenio/issues/95 (kubectl get events: a PreFilter reason, no count)
    "invenio95": ("LAST SEEN   TYPE      REASON                   OBJECT                             MESSAGE\n"
                  "46m         Warning   FailedScheduling         pod/worker-beat-7898d974fc-sb9xz   0/6 nodes are "
                  "available: pod has unbound immediate PersistentVolumeClaims. preemption: 0/6 nodes are available: 6 "
                  "No preemption victims found for incoming pod..\n", "k8s.unschedulable"),
    # https://github.com/NVIDIA/k8s-device-plugin/issues/303 (kubectl logs of the plugin's pod)
    "dp303": ("2022/05/13 23:09:23 Loading NVML\n"
              "2022/05/13 23:09:23 Failed to initialize NVML: could not load NVML library.\n"
              "2022/05/13 23:09:23 If this is a GPU node, did you set the docker default runtime to 'nvidia'?\n"
              "2022/05/13 23:09:23 You can check the prerequisites at: https://github.com/NVIDIA/k8s-device-plugin"
              "#prerequisites\n"
              "2022/05/13 23:09:23 You can learn how to set the runtime at: https://github.com/NVIDIA/k8s-device-plugin"
              "#quick-start\n", "k8s.device_plugin"),
    # https://github.com/kubernetes/kubernetes/issues/91600 (describe of an evicted pod; the older message form)
    "k91600": ("Status:         Failed\nReason:         Evicted\nMessage:        The node was low on resource: "
               "ephemeral-storage. Container ebaogi-bff-app was using 34260Ki, which exceeds its request of 0. \n",
               "k8s.evicted"),
    # https://github.com/cloud-ark/kubeplus/issues/1382 (the same, as kubelet >= 1.19 words it)
    "kubeplus1382": ("Status:       Failed\nReason:       Evicted\nMessage:      The node was low on resource: "
                     "ephemeral-storage. Threshold quantity: 2146223340, available: 1883424Ki. Container helmer was "
                     "using 10304Ki, request is 10Mi, has larger consumption of ephemeral-storage.\n", "k8s.evicted"),
    # https://github.com/goharbor/harbor-helm/issues/1347 (describe's Events table)
    "harbor1347": ("Events:\n  Type     Reason       Age                   From     Message\n"
                   "  ----     ------       ----                  ----     -------\n"
                   "  Warning  FailedMount  31m (x58 over 10h)    kubelet  Unable to attach or mount volumes: unmounted "
                   "volumes=[job-logs], unattached volumes=[job-logs job-scandata-exports jobservice-config]: timed out "
                   "waiting for the condition\n", "k8s.mount"),
    # https://github.com/NVIDIA/gpu-operator/issues/1687 (the driver-validation init container's log, logrus)
    "gpuop1687": ("INFO[0000] Attempting to validate a pre-installed driver on the host\n"
                  "INFO[0000] Attempting to validate a driver container installation\n"
                  "WARN[0000] failed to validate the driver, retrying after 5 seconds\n", "k8s.gpu_operator"),
    # https://github.com/k8snetworkplumbingwg/ib-sriov-cni/issues/66 (an RDMA secondary network that did not set up)
    "ibsriov66": ("  Warning  FailedCreatePodSandBox  12s                kubelet            Failed to create pod sandbox: "
                  "rpc error: code = Unknown desc = [failed to set up sandbox container \"777d1178ca6d\" network for "
                  "pod \"my-test-pod-fnjk7\": networkPlugin cni failed to set up pod \"my-test-pod-fnjk7_default\" "
                  "network: [default/my-test-pod-fnjk7/:sriov-network]: error adding container to network "
                  "\"sriov-network\": infiniBand SRI-OV CNI failed to configure VF \"VF ib4 GUID is not valid\"]\n",
                  "k8s.pod_sandbox"),
    # https://github.com/NVIDIA/gpu-operator/issues/730 (the sandbox of a RuntimeClass nvidia containerd lacks: the
    # container runtime's own family answers, k8s.pod_sandbox beside it)
    "gpuop730": ("  Warning  FailedCreatePodSandBox  12s (x10 over 2m11s)  kubelet            Failed to create pod sandbox: "
                 "rpc error: code = Unknown desc = failed to get sandbox runtime: no runtime for \"nvidia\" is "
                 "configured\n", "container.runtime_unknown"),
    # https://github.com/ZhongAnTech/kubecloud/issues/1 (describe's Events of an image that is not public)
    "kubecloud1": (
        "Events:\n  Type     Reason     Age                  From                  Message\n"
        "  ----     ------     ----                 ----                  -------\n"
        "  Normal   Scheduled  3m11s                default-scheduler     Successfully assigned "
        "kubecloud/kubecloud-7789fd444f-6cscw to ks-allinone\n"
        "  Normal   Pulling    81s (x3 over 3m10s)  kubelet, ks-allinone  Pulling image \"kubecloud\"\n"
        "  Warning  Failed     47s (x3 over 2m32s)  kubelet, ks-allinone  Failed to pull image \"kubecloud\": rpc error: "
        "code = Unknown desc = Error response from daemon: pull access denied for kubecloud, repository does not exist "
        "or may require 'docker login'\n"
        "  Warning  Failed     47s (x3 over 2m32s)  kubelet, ks-allinone  Error: ErrImagePull\n"
        "  Normal   BackOff    11s (x5 over 2m31s)  kubelet, ks-allinone  Back-off pulling image \"kubecloud\"\n"
        "  Warning  Failed     11s (x5 over 2m31s)  kubelet, ks-allinone  Error: ImagePullBackOff\n", "k8s.image_pull"),
    # https://github.com/kubeflow/katib/issues/1112 (kubectl get pods of a PyTorchJob)
    "katib1112": ("NAME                                         READY   STATUS             RESTARTS   AGE\n"
                  "pytorchjob-example-82cjcqdz-master-0         0/2     CrashLoopBackOff   8          2m32s\n"
                  "pytorchjob-example-82cjcqdz-worker-0         0/1     Init:1/2           0          2m31s\n",
                  "k8s.crashloop"),
}

# https://github.com/kubeflow/pytorch-operator/issues/125 (a PyTorchJob worker that started before its master)
WORKER_FIRST = (" kubectl logs optimizer-worker-0\n"
                "  File \"/root/.local/lib/python3.7/site-packages/torch/distributed/rendezvous.py\", line 143, in "
                "_env_rendezvous_handler\n    store = TCPStore(master_addr, master_port, start_daemon)\n"
                "ValueError: host not found: Name or service not known\n")
# https://github.com/kubeflow/trainer/issues/2034 (a worker's init container waiting for a master that never started)
INIT_PYTORCH = ("Events:\n  Type     Reason          Age                    From               Message\n"
                "  ----     ------          ----                   ----               -------\n"
                "  Normal   Pulled          9m32s                  kubelet            Successfully pulled image "
                "\"quay.io/bharathappali/alpine:3.10\" in 1.065165424s (1.065174057s including waiting)\n"
                "  Warning  BackOff         2m49s                  kubelet            Back-off restarting failed "
                "container init-pytorch in pod random-exp-jw6qxmrm-worker-0_sampler(8d6860a7-204d-45c8-bb57-8d84a6cf8e66)\n"
                "  Normal   Created         2m34s (x3 over 9m31s)  kubelet            Created container init-pytorch\n")

# https://github.com/kubernetes/kubernetes/issues/110158 (a comment: the pod 'does spin up successfully post few sec')
MOUNT_THEN_PULLING = (
    "  Warning  FailedMount  34s    kubelet            Unable to attach or mount volumes: unmounted volumes=[dags], "
    "unattached volumes=[config dags kube-api-access-t8b2v logs]: timed out waiting for the condition\n"
    "  Normal   Pulling      20s    kubelet            Pulling image \"xxxxx/1f64fdf8-afd3-4e48-892b-82c6ab17398e:v1\"\n")
# https://github.com/falcosecurity/test-infra/issues/333 (the events as a table pasted from a dashboard)
PIPES = ("Type | Reason | Age | Source | Message\n-- | -- | -- | -- | --\n"
         "Warning | FailedScheduling | 21h13m | default-scheduler | 0/4 nodes are available: 4 Insufficient cpu.\n"
         "Normal | TriggeredScaleUp | 21h14m | cluster-autoscaler | pod triggered scale-up: "
         "[{eks-acbbb95d-8f23-5104-2f0b-00defe6f32a8 3->6 (max: 10)}]\n")

# https://dille.name/slides/2021-11-18/120_kubernetes/controller/events/ (kubectl get events --watch of a healthy
# Deployment: every row Normal)
HEALTHY_EVENTS = (
    "0s Normal ScalingReplicaSet deployment/nginx Scaled up replica set nginx-5ff58d798d to 1\n"
    "0s Normal SuccessfulCreate replicaset/nginx-5ff58d798d Created pod: nginx-5ff58d798d-jn88b\n"
    "0s Normal Scheduled pod/nginx-5ff58d798d-jn88b Successfully assigned default/nginx-5ff58d798d-jn88b to "
    "kind-control-plane\n"
    "0s Normal Pulling pod/nginx-5ff58d798d-jn88b Pulling image \"nginx:stable\"\n"
    "0s Normal Pulled pod/nginx-5ff58d798d-jn88b Successfully pulled image \"nginx:stable\" in 6.443385154s\n"
    "0s Normal Created pod/nginx-5ff58d798d-jn88b Created container nginx\n"
    "0s Normal Started pod/nginx-5ff58d798d-jn88b Started container nginx\n")

# https://github.com/elyra-ai/elyra/issues/2681 (a GPU pod on OpenShift; Kubernetes <= 1.24's per-taint reasons)
ELYRA = ("0/13 nodes are available: 3 Insufficient nvidia.com/gpu, 3 node(s) had taint {node-role.kubernetes.io/infra: "
         "}, that the pod didn't tolerate, 3 node(s) had taint {node-role.kubernetes.io/master: }, that the pod didn't "
         "tolerate, 4 node(s) had taint {odh/notebook: true}, that the pod didn't tolerate.")


def test_generator_regenerates_the_committed_sites_from_the_slice(tmp_path):
    got = knowgen.regenerated(gen.main, SLICE, tmp_path / "k8s_messages.json")
    full = knowgen.committed("k8s_messages")
    assert got["header"]["version"] == full["header"]["version"]
    assert "v1.31.0-alpha.2" in full["header"]["version"] and "v1.9.0" in full["header"]["version"]
    assert "NVIDIA/gpu-operator v26.7.0" in full["header"]["version"]
    by_text = {(s["text"], s["level"]): s for s in full["sites"]}
    assert len(got["sites"]) >= 30
    for s in got["sites"]:
        assert {k: v for k, v in s.items() if k != "id"} == \
            {k: v for k, v in by_text[(s["text"], s["level"])].items() if k != "id"}, s["id"]
    sites = {s["text"]: s for s in got["sites"]}
    assert sites["0/%s nodes are available"]["family"] == "k8s.unschedulable"
    assert sites["node(s) had untolerated taint {%s: %s}"]["fix"]
    # NVML's own line is nvml's family: the plugin's next line names the plugin
    assert sites["Failed to initialize NVML: %s."]["family"] is None
    # a Warning event's reason is a site; a Normal event's reason (Pulled, Killing) is only listed
    assert sites["Warning FailedMount"]["family"] == "k8s.mount"
    assert sites["error validating toolkit installation: %s"]["family"] == "k8s.gpu_operator"
    assert not any(s["text"] in ("Warning Pulled", "Warning Killing") for s in full["sites"])
    reasons = {r["reason"]: r["family"] for r in full["reasons"]}
    assert reasons["CrashLoopBackOff"] == "k8s.crashloop" and reasons["Pulled"] is None
    env = [e["name"] for e in full["env"]]
    assert {"WORLD_SIZE", "RANK", "MASTER_ADDR", "MASTER_PORT", "PET_NNODES", "PET_NPROC_PER_NODE"} <= set(env)
    assert full["unassigned"] == sorted(s["id"] for s in full["sites"] if not s.get("family"))
    # the prefilter's needle of every matcher is no word of every log ('warning': a reason as short as 'Evicted'
    # made 'Warning Evicted' a candidate on each of a training log's warning lines, +20% scan time)
    assert min(len(n) for s in full["sites"] if s.get("family") for n in s["needles"]) >= 8


def test_real_texts_get_their_entry(cli, tmp_path):
    for name, (text, want) in REAL.items():
        rc, doc = explain_paste(cli, tmp_path, text, "--file", name=name + ".txt", rcs=(0, 1))
        assert root_id(doc) == want, (name, ids(doc))
    rc, doc = explain_paste(cli, tmp_path, REAL["dp303"][0], "--file", rcs=(0, 1))
    assert "nvidia-ctk runtime configure" in root_of(doc)["causes"][0]["fix"][0]
    rc, doc = explain_paste(cli, tmp_path, REAL["k91600"][0], "--file", rcs=(0, 1))
    assert "ephemeral-storage" in root_of(doc)["causes"][0]["text"]
    # a later 'Normal Pulling' is the next try, not a success: still the root, the name first
    rc, doc = explain_paste(cli, tmp_path, REAL["kubecloud1"][0], "--file", rcs=(0, 1))
    assert "name or tag" in root_of(doc)["causes"][0]["text"]
    rc, doc = explain_paste(cli, tmp_path, REAL["ibsriov66"][0], "--file", rcs=(0, 1))
    assert "CNI plugin" in root_of(doc)["causes"][0]["text"]
    rc, doc = explain_paste(cli, tmp_path, REAL["gpuop1687"][0], "--file", rcs=(0, 1))
    assert "driver.enabled=false" in root_of(doc)["causes"][0]["fix"][0]
    # the eviction's resource picks the cause (helpers.go signalToResource: pid.available -> pids)
    rc, doc = explain_paste(cli, tmp_path, REAL["k91600"][0].replace("ephemeral-storage", "pids"), "--file",
                            rcs=(0, 1))
    assert "process IDs" in root_of(doc)["causes"][0]["text"]
    # https://github.com/intel/pmem-csi/issues/261 (kubectl get pods: the STATUS column)
    rc, doc = explain_paste(cli, tmp_path, "pmem-csi-node-testing-dml4m               0/1     Evicted   0          2m4s    "
                            "<none>        host-1   <none>           <none>\n", "--file", rcs=(0, 1))
    assert root_id(doc) == "k8s.evicted"
    # https://github.com/kubernetes/kubernetes/issues/28272 (a comment: the memory-backed /dev/shm over its limit)
    rc, doc = explain_paste(cli, tmp_path, "  Warning  Evicted  9m38s  kubelet, x_machine_x  Usage of EmptyDir volume "
                            "\"dshm\" exceeds the limit \"1Gi\".\n", "--file", rcs=(0, 1))
    assert root_id(doc) == "k8s.evicted" and "sizeLimit" in root_of(doc)["causes"][0]["fix"][0]


def test_normal_events_are_not_failures(cli, tmp_path):
    rc, doc = explain_paste(cli, tmp_path, HEALTHY_EVENTS, "--file", rcs=(0,))
    assert doc["findings"] == [], ids(doc)


def test_the_reason_with_most_nodes_leads(cli, tmp_path):
    # 3 nodes lack GPUs; 7 carry a taint the pod does not tolerate (the masters' 3 count for nothing: no job
    # belongs there), so the taint cause leads; dp119's GPU node and cordoned node count 1 each
    assert k8s.reasons(ELYRA)[:2] == [(3, "Insufficient nvidia.com/gpu"),
                                      (3, "node(s) had taint {node-role.kubernetes.io/infra: }, that the pod didn't "
                                          "tolerate")]
    assert k8s.reasons(ELYRA)[2][0] == 0  # node-role.kubernetes.io/master
    rc, doc = explain_paste(cli, tmp_path, ELYRA + "\n", "--file", rcs=(0, 1))
    causes = root_of(doc)["causes"]
    assert root_id(doc) == "k8s.unschedulable" and "taint" in causes[0]["text"], [c["text"] for c in causes]
    assert "GPUs" in causes[1]["text"]
    # the control plane's taint (1 node) does not outweigh 3 nodes without a free GPU
    text = REAL["dp430"][0].replace("1 Insufficient nvidia.com/gpu.", "1 node(s) had untolerated taint "
                                    "{node-role.kubernetes.io/control-plane: }, 3 Insufficient nvidia.com/gpu.")
    rc, doc = explain_paste(cli, tmp_path, text, "--file", rcs=(0, 1))
    assert "GPUs" in root_of(doc)["causes"][0]["text"]


def test_reading_the_reasons_is_linear_and_bounded():
    long = "0/9 nodes are available: " + "1 x, " * 20000 + ("9" * 7 + " y" + ", ") * 5000
    got = k8s.reasons(long)  # its CPU time, and the two readers' below (bound 0.5 s each): bench/cpu_bounds.py
    assert got and all(n <= 999999 for n, _ in got)
    assert k8s.reasons("no scheduler message here " * 1000) == []
    # the event-row reader and the Normal rows' pattern on long adversarial lines
    import re
    assert k8s._row("Warning |" * 50000)[0] == "Warning" and k8s._row("x pod/" + "a" * 100000) is None
    assert re.search(k8s.PATTERNS["_struct_k8s_normal"][0], "Normal  | " * 50000) is None
    assert k8s._row("  Warning | FailedMount | 3m | kubelet | x") == ("Warning", "FailedMount", None)
    assert k8s.reasons("0/4 nodes are available: 4 Insufficient cpu.") == [(4, "Insufficient cpu")]


def test_a_job_pod_name_that_does_not_resolve_is_the_headless_service(cli, tmp_path):
    rc, doc = explain_paste(cli, tmp_path, WORKER_FIRST, "--file", rcs=(0, 1))
    first = root_of(doc)["causes"][0]
    assert root_id(doc) == "rendezvous.hostname" and "headless Service" in first["text"], ids(doc)
    assert "init-pytorch" in first["fix"][0] and "svc.cluster.local" in first["fix"][0]
    # a name of no Kubernetes shape keeps the generic cause first (pytorch/pytorch#64990's line)
    rc, doc = explain_paste(cli, tmp_path, "ValueError: host not found: Temporary failure in name resolution\n",
                            "--file", rcs=(0, 1))
    assert root_id(doc) == "rendezvous.hostname" and "Kubernetes" not in root_of(doc)["causes"][0]["text"]
    rc, doc = explain_paste(cli, tmp_path, INIT_PYTORCH, "--file", rcs=(0, 1))
    assert root_id(doc) == "k8s.crashloop" and "init-pytorch" in root_of(doc)["causes"][0]["text"]




def test_a_warning_a_later_normal_event_undid_is_a_note(cli, tmp_path):
    # the kubelet pulls a pod's images only once its volumes are mounted: the mount was retried and succeeded
    rc, doc = explain_paste(cli, tmp_path, MOUNT_THEN_PULLING, "--file", rcs=(0,))
    assert doc["findings"] == [] and doc["verdict"] == "no_error", ids(doc)
    assert any(n["id"] == "k8s.mount" and "later event resolved it (line 2" in n["note"] for n in doc["context"])
    # without the later event it is the root
    rc, doc = explain_paste(cli, tmp_path, MOUNT_THEN_PULLING.split("\n")[0] + "\n", "--file", rcs=(0, 1))
    assert root_id(doc) == "k8s.mount"
    # a pasted table's '|' columns: a Warning row is still a failure line, a Normal one (TriggeredScaleUp) is not
    # a resolution of it
    rc, doc = explain_paste(cli, tmp_path, PIPES, "--file", rcs=(0, 1))
    assert root_id(doc) == "k8s.unschedulable" and "Warning | FailedScheduling" in root_of(doc)["matches"][0]["text"]
    assert "CPU" in root_of(doc)["causes"][0]["text"]


#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/k8s_messages.json: what Kubernetes and the GPU operators around
a training job print when a pod cannot be scheduled, is evicted, cannot pull its image, mount its volumes or
keep its container running, and what the NVIDIA device plugin logs when it finds no GPU; read from three
Go sources, never executed:

- kubernetes/kubernetes: the scheduler's message (pkg/scheduler/framework/types.go NoNodeAvailableMsg
  '0/%v nodes are available', which FitError.Error() follows with each plugin's reason and its node count) and
  each filter plugin's reasons (pkg/scheduler/framework/plugins/*: noderesources 'Insufficient %v',
  tainttoleration, nodeaffinity, nodeports, nodeunschedulable, volumebinding ...); the kubelet's event texts and
  reasons (pkg/kubelet/events/event.go, kubelet.go, images/, kuberuntime/, eviction/helpers.go,
  active_deadline.go, container/sync_result.go) and the volume operations' events
  (pkg/volume/util/operationexecutor/);
- NVIDIA/k8s-device-plugin: its klog.Error*/Warning*/Info and fmt.Errorf / errors.New texts (cmd/, internal/);
- kubeflow/training-operator (v1, PyTorchJob): the environment variables it sets in each pod
  (pkg/controller.v1/pytorch/envvar.go, master.go, elastic.go), kept as the table "env" (not matchers);
- NVIDIA/gpu-operator: its validator's messages (cmd/nvidia-validator/: the init containers of
  nvidia-operator-validator that check the driver, the container toolkit, CUDA and the device plugin on each node;
  logrus log.* and fmt.Errorf).

- the operators whose own configuration decides whether a GPU job runs (OPERATORS, k8s14): kubernetes-sigs/kueue,
  Mellanox/k8s-rdma-shared-dev-plugin, NVIDIA/nvidia-container-toolkit's cmd/nvidia-ctk-installer (the GPU operator's
  toolkit DaemonSet), kubeflow/mpi-operator, volcano-sh/volcano, kubernetes-sigs/jobset and kubernetes-sigs/lws; each
  with --<name> GITDIR [--<name>-rev REV].

Each string in a message context (fmt.Sprintf / fmt.Errorf / errors.New / klog.* / recorder.Eventf /
framework.NewStatus / Status.AppendReason arguments, a const or var `Name = "..."`, a struct field `Reason: "..."`) is a site; Go's
verbs %v %+v %q %w %T %t read as %s. A site becomes a bounded matcher assigned to a knowledge family
(k8s.toml) by RULES; the rest is listed (unassigned). Short words (an event reason such as 'BackOff', a
container state reason such as 'ErrImagePull') are too vague to match alone: they are kept as the table
"reasons" ({reason, where, family}) that gpudoctor/explain/k8s.py reads beside a Warning event's message.

Usage:
    python tools/gen_k8s_messages.py --k8s GITDIR [--k8s-rev REV] [--k8s-prefix PATH/] \\
        --device-plugin GITDIR [--device-plugin-rev REV] --operator GITDIR [--operator-rev v1.9.0] \\
        --gpu-operator GITDIR [--gpu-operator-rev REV] --kueue GITDIR --rdma-shared-dp GITDIR \\
        --ctk-installer GITDIR --mpi-operator GITDIR --volcano GITDIR --jobset GITDIR --lws GITDIR [-o OUT]
    python tools/gen_k8s_messages.py --slice tools/data/k8s_messages_slice.txt -o OUT   (the test)

--k8s-prefix reads kubernetes' pkg/ where a repository keeps it: kubernetes/autoscaler vendored
k8s.io/kubernetes v1.31.0-alpha.2 at commit 2244a049128c (cluster-autoscaler/vendor/k8s.io/kubernetes/), which is
how the committed file was made (the kubernetes repository itself is the same files at v1.31.0-alpha.2).

Sources: https://github.com/kubernetes/kubernetes (Apache-2.0), https://github.com/NVIDIA/k8s-device-plugin
(Apache-2.0), https://github.com/kubeflow/training-operator (Apache-2.0), https://github.com/NVIDIA/gpu-operator
(Apache-2.0), https://github.com/kubernetes-sigs/kueue, https://github.com/Mellanox/k8s-rdma-shared-dev-plugin,
https://github.com/NVIDIA/nvidia-container-toolkit, https://github.com/kubeflow/mpi-operator,
https://github.com/volcano-sh/volcano, https://github.com/kubernetes-sigs/jobset, https://github.com/kubernetes-sigs/lws
(Apache-2.0), each read with `git show REV:path`.
Docs: https://kubernetes.io/docs/tasks/debug/debug-application/debug-pods/,
https://kubernetes.io/docs/concepts/scheduling-eviction/node-pressure-eviction/,
https://www.kubeflow.org/docs/components/trainer/legacy-v1/user-guides/pytorch/.
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_k8s_messages.py"
K8S_FILES = re.compile(r"^pkg/(?:scheduler/schedule_one\.go|scheduler/framework/(?:types\.go|runtime/framework\.go|plugins/[a-z]+/[a-z_]+\.go)|"
                       r"kubelet/(?:kubelet\.go|active_deadline\.go|events/event\.go|eviction/helpers\.go|"
                       r"images/(?:types|image_manager)\.go|container/sync_result\.go|"
                       r"kuberuntime/kuberuntime_(?:manager|container)\.go)|"
                       r"volume/util/operationexecutor/operation_generator\.go)$")
PLUGIN_FILES = re.compile(r"^(?:cmd/nvidia-device-plugin|internal/(?:plugin|rm))/[a-z_-]+\.go$")
OPERATOR_FILES = re.compile(r"^pkg/controller\.v1/pytorch/(?:envvar|master|elastic)\.go$")
GPU_OPERATOR_FILES = re.compile(r"^cmd/nvidia-validator/(?:main|driver)\.go$")
# where a site's path says which source it is from
SOURCES = {"k8s": "kubernetes/kubernetes", "device-plugin": "NVIDIA/k8s-device-plugin",
           "operator": "kubeflow/training-operator", "gpu-operator": "NVIDIA/gpu-operator"}
# The operators a GPU job meets whose own configuration decides whether it runs (k8s14, issue 18): (source, repository,
# the files read). Kueue: its flavor assigner's reasons (why a Workload got no quota), the ClusterQueue's inactive
# reasons and the Workload's queue checks, the reason constants of its v1beta2 API; the RDMA shared device plugin: its
# config validation and device discovery; nvidia-ctk-installer: the container toolkit's installer, which is the GPU
# operator's nvidia-container-toolkit DaemonSet (it edits and signals the node's containerd/CRI-O/docker); mpi-operator:
# the MPIJob controller's events and errors; Volcano: the scheduler's PodGroup and queue reasons; JobSet: its
# conditions' reasons and messages.
OPERATORS = (
    ("kueue", "kubernetes-sigs/kueue",
     r"^(?:pkg/(?:scheduler/flavorassigner/flavorassigner|cache/scheduler/clusterqueue|cache/queue/manager|"
     r"controller/core/workload_controller)\.go|apis/kueue/v1beta2/(?:clusterqueue|localqueue|workload)_types\.go)$"),
    ("rdma-shared-dp", "Mellanox/k8s-rdma-shared-dev-plugin",
     r"^(?:cmd/k8s-rdma-shared-dp/main|pkg/resources/(?:resources_manager|pci_net_device|rdma_device_spec|server))\.go$"),
    ("ctk-installer", "NVIDIA/nvidia-container-toolkit",
     r"^cmd/nvidia-ctk-installer/(?:main|container/container|container/runtime/runtime|"
     r"container/runtime/(?:containerd|crio|docker)/[a-z_]+)\.go$"),
    ("mpi-operator", "kubeflow/mpi-operator", r"^pkg/controller/mpi_job_controller\.go$"),
    ("volcano", "volcano-sh/volcano",
     r"^pkg/scheduler/(?:cache/cache|api/unschedule_info|plugins/(?:gang/gang|capacity/capacity|"
     r"proportion/proportion))\.go$"),
    ("jobset", "kubernetes-sigs/jobset", r"^pkg/constants/constants\.go$"),
    ("lws", "kubernetes-sigs/lws", r"^pkg/controllers/(?:leaderworkerset|pod)_controller\.go$"),
)
SOURCES.update({name: repo for name, repo, _ in OPERATORS})
OPERATOR_KEYS = tuple(name for name, _, _ in OPERATORS)
# the calls that report a message in these operators beside _CALL's: Go's log package (log.Printf / Println /
# Fatalf / Fatalln: the RDMA plugin), logr's log.Error(err, "msg") (controller-runtime: Kueue, JobSet), logrus'
# Warningf (the installer), Kueue's Status.appendf (flavorassigner.go: each reason a flavor did not fit) and its
# strings.Builder message (Assignment.Message: 'couldn't assign flavors to pod set '), Volcano's
# util.FormatResourceNames (the PodGroup event 'queue resource quota insufficient: ...') and recorder.Event
_OP_CALL = re.compile(r"\b(?P<fn>log\.(?:Printf|Println|Fatalf|Fatalln|Fatal)|appendf|builder\.WriteString|"
                      r"FormatResourceNames|recorder\.Event|(?:log|logrus|reqLogger)\.(?:Error|Errorf|Warningf|Warnf))\(")
_OP_LEVEL = {"log.Fatalf": "error", "log.Fatalln": "error", "log.Fatal": "error", "appendf": "status",
             "builder.WriteString": "status", "FormatResourceNames": "status", "recorder.Event": "event",
             "log.Error": "error", "log.Errorf": "error", "logrus.Error": "error", "logrus.Errorf": "error",
             "reqLogger.Error": "error", "reqLogger.Errorf": "error", "log.Warningf": "warning",
             "log.Warnf": "warning", "logrus.Warningf": "warning", "logrus.Warnf": "warning"}

_CALL = re.compile(r"\b(?P<fn>fmt\.Sprintf|fmt\.Errorf|errors\.New|klog\.(?:Errorf|Error|Warningf|Warning|Infof|Info|"
                   r"Fatalf|Fatal)|log\.(?:Errorf|Error|Warningf|Warnf|Warning|Warn|Infof|Info)|Eventf|NewStatus|"
                   r"AppendReason)\(")
_CONST = re.compile(r'^[ \t]*(?P<name>[A-Za-z_]\w{0,80})(?:[ \t]+[A-Za-z_][\w.]{0,80})?[ \t]*=[ \t]*(?=")', re.M)
_REASON = re.compile(r'\bReason:[ \t]*(?=")')
_LEVEL = {"klog.Errorf": "error", "klog.Error": "error", "klog.Fatalf": "error", "klog.Fatal": "error",
          "klog.Warningf": "warning", "klog.Warning": "warning", "klog.Infof": "info", "klog.Info": "info",
          "log.Errorf": "error", "log.Error": "error", "log.Warningf": "warning", "log.Warnf": "warning",
          "log.Warning": "warning", "log.Warn": "warning", "log.Infof": "info", "log.Info": "info",
          "Eventf": "event", "NewStatus": "status", "AppendReason": "status"}
_ENV = re.compile(r'(?:\b(?:Env|PET)\w{0,40}[ \t]*=[ \t]*|\bName:[ \t]*)"(?P<env>[A-Z][A-Z0-9_]{2,40})"')
_WORD = re.compile(r"^[A-Z][A-Za-z]{2,40}$")  # an event or container state reason: one CamelCase word

# (rule, knowledge entry, {field: regex}); fields: where (source:path:line), text, level. The first that matches
# wins. Scheduler reasons are matched only through their message '0/N nodes are available: <reasons>' (the
# nodes-available site): alone, 'Insufficient memory' or 'Too many pods' are other programs' words too.
RULES = [
    # -- the operators' own configuration (k8s14). Rules by the program and the call that reports a site; the text
    # only where one file reports both a configuration error and its own internal ones.
    # Kueue: why a Workload gets no quota (flavorassigner.go: each reason is a Status.appendf of the flavor assigner,
    # joined by Assignment.Message after 'couldn't assign flavors to pod set <name>: '; the Workload's
    # QuotaReserved=False message), why a ClusterQueue is inactive (clusterqueue.go inactiveReason: 'Can't admit new
    # workloads: references missing ResourceFlavor(s): ...'), and the Workload's queue checks
    # (workload_controller.go: 'LocalQueue %s doesn't exist', 'ClusterQueue %s is inactive' ...)
    ("kueue-admission", "k8s.kueue", {"where": r"^kubernetes-sigs/kueue:pkg/scheduler/flavorassigner/",
                                      "call": r"^(?:appendf|builder\.WriteString|fmt\.Sprintf)$",
                                      "text": r"flavor|quota|taint|affinity|resource"}),
    ("kueue-clusterqueue", "k8s.kueue", {"where": r"^kubernetes-sigs/kueue:pkg/cache/scheduler/clusterqueue\.go",
                                         "call": r"^fmt\.Sprintf$", "text": r"^(?:references |Can't admit|there is no)"}),
    ("kueue-queue", "k8s.kueue", {"where": r"^kubernetes-sigs/kueue:pkg/(?:controller/core/workload_controller|"
                                           r"cache/queue/manager)\.go",
                                  "call": r"^(?:fmt\.Sprintf|errors\.New)$",
                                  "text": r"^(?:LocalQueue|ClusterQueue|localQueue|clusterQueue) (?:%s )?"
                                          r"(?:doesn't exist|is inactive|is terminating|is stopped)"}),
    # the reasons of the ClusterQueue's Active=False condition that name a missing object (FlavorNotFound,
    # AdmissionCheckNotFound, TopologyNotFound) and a Workload's QuotaReserved=False reasons of its flavors and quota
    ("kueue-reason", "k8s.kueue", {"where": r"^kubernetes-sigs/kueue:apis/",
                                   "call": r"^const (?:ClusterQueueActiveReason[A-Za-z]{1,40}NotFound|"
                                           r"WorkloadQuotaReservedReason(?:NoMatchingFlavor|ExceedsMaxQuota))$"}),
    # the RDMA shared device plugin: it exits (log.Fatalf) or returns an error on its config (resources_manager.go
    # ValidateConfigs, ValidateRdmaSystemMode) and on the devices its selectors pick (pci_net_device.go,
    # rdma_device_spec.go); a resource whose selectors matched nothing is served empty ('no devices in device pool')
    ("rdma-shared-dp-empty", "k8s.rdma_device_plugin",
     {"where": r"^Mellanox/k8s-rdma-shared-dev-plugin:", "text": r"no devices in device pool"}),
    ("rdma-shared-dp", "k8s.rdma_device_plugin",
     {"where": r"^Mellanox/k8s-rdma-shared-dev-plugin:pkg/resources/(?:resources_manager|pci_net_device|"
               r"rdma_device_spec)\.go", "call": r"^(?:fmt\.Errorf|errors\.New)$"}),
    ("rdma-shared-dp-exit", "k8s.rdma_device_plugin",
     {"where": r"^Mellanox/k8s-rdma-shared-dev-plugin:cmd/", "call": r"^log\.Fatal"}),
    # nvidia-ctk-installer (the GPU operator's container toolkit): it edits the runtime's config file and signals its
    # socket (containerd_linux.go SignalContainerd: 'unable to dial: ...' retried as 'Error signaling containerd,
    # attempt i/n: ...'); k3s / RKE2 / MicroK8s keep both elsewhere
    ("toolkit-signal", "k8s.gpu_operator", {"where": r"^NVIDIA/nvidia-container-toolkit:cmd/nvidia-ctk-installer/",
                                            "text": r"^Error signaling (?:containerd|docker)|^Max retries reached"}),
    ("toolkit", "k8s.gpu_operator", {"where": r"^NVIDIA/nvidia-container-toolkit:cmd/nvidia-ctk-installer/",
                                     "call": r"^(?:fmt\.Errorf|errors\.New)$",
                                     "text": r"^unable to (?:dial|send SIGHUP|restart|load|configure|update config|"
                                             r"flush config)|^error restarting|^failed to update runtime"}),
    # mpi-operator: the MPIJob controller's Warning events (the pods it could not create, the spec's validation)
    ("mpi-operator", "k8s.mpi_operator", {"where": r"^kubeflow/mpi-operator:", "level": r"^(?:event|const|error)$",
                                          "text": r"created failed|validation errors|already exists and is not "
                                                  r"managed"}),
    # Volcano: the PodGroup's Unschedulable reasons (cache.go RecordJobStatusEvent: '%v/%v tasks in gang
    # unschedulable: %v'; capacity / proportion: 'queue resource quota insufficient'), unschedule_info.go's
    # node reasons, and a queue that does not exist
    ("volcano", "k8s.volcano", {"where": r"^volcano-sh/volcano:pkg/scheduler/", "level": r"^(?!warning|info)",
                                "text": r"tasks in gang unschedulable|queue resource quota insufficient|"
                                        r"all nodes are unavailable|node\(s\) resource fit failed|"
                                        r"^\[[a-z]{1,20}\] queue %s not found|is not leaf queue"}),
    # JobSet: the messages of its Failed condition (pkg/constants: ReachedMaxRestartsMessage, FailedJobsMessage)
    ("jobset", "k8s.jobset", {"where": r"^kubernetes-sigs/jobset:pkg/constants/", "call": r"^const \w{1,60}Message$",
                              "text": r"^jobset failed due to|violated JobSet exclusive placement"}),
    # LeaderWorkerSet: its Warning events when it cannot create a group's StatefulSets or headless Service, and
    # exclusive placement (the leaderworkerset.sigs.k8s.io/exclusive-topology annotation) on a node without that label
    ("lws", "k8s.lws", {"where": r"^kubernetes-sigs/lws:pkg/controllers/",
                        "text": r"^node does not have topology label|^Failed to create (?:leader|worker) statefulset|"
                                r"^Failed to create headless service"}),
    ("info", None, {"level": r"^info$", "text": r"^(?!No devices found)"}),
    ("scheduler", "k8s.unschedulable", {"where": r"^kubernetes/kubernetes:pkg/scheduler/framework/types\.go",
                                        "text": r"nodes are available"}),
    ("scheduler-reason", "k8s.unschedulable", {"where": r"^kubernetes/kubernetes:pkg/scheduler/framework/plugins/",
                                               "text": r"^node\(s\) (?:had untolerated taint|had taints that the pod|"
                                                       r"didn't match Pod's node affinity|didn't have free ports|"
                                                       r"were unschedulable|didn't find available persistent|"
                                                       r"had volume node affinity conflict)|"
                                                       r"^pod has unbound immediate PersistentVolumeClaims"}),
    ("eviction", "k8s.evicted", {"where": r"^kubernetes/kubernetes:pkg/kubelet/eviction/",
                                 "text": r"low on resource|exceeds the (?:total )?limit|exceeded its local ephemeral|"
                                         r"was using %s, request is"}),
    ("image-pull", "k8s.image_pull", {"where": r"^kubernetes/kubernetes:pkg/kubelet/(?:images|kuberuntime)/",
                                      "text": r"^Back-off pulling image|^Failed to pull image|ImagePullBackOff|"
                                              r"ErrImagePull|InvalidImageName|"
                                              r"ErrImageNeverPull"}),
    ("crashloop", "k8s.crashloop", {"where": r"^kubernetes/kubernetes:pkg/kubelet/",
                                    "text": r"^Back-off restarting failed container|^CrashLoopBackOff$"}),
    ("config", "k8s.container_config", {"where": r"^kubernetes/kubernetes:pkg/kubelet/kuberuntime/",
                                        "text": r"^CreateContainerConfigError$"}),
    ("mount", "k8s.mount", {"where": r"^kubernetes/kubernetes:pkg/(?:kubelet|volume)/",
                            "text": r"Unable to attach or mount volumes|^MountVolume\.|^FailedMount$"}),
    ("sandbox", "k8s.pod_sandbox", {"where": r"^kubernetes/kubernetes:pkg/kubelet/(?:kuberuntime|events)/",
                                    "text": r"^Failed to create pod sandbox: |^FailedCreatePodSandBox$"}),
    ("deadline", "k8s.deadline", {"where": r"^kubernetes/kubernetes:pkg/kubelet/active_deadline",
                                  "text": r"longer than the specified deadline|^DeadlineExceeded$"}),
    ("evicted-reason", "k8s.evicted", {"where": r"^kubernetes/kubernetes:pkg/kubelet/eviction/", "text": r"^Evicted$"}),
    ("scheduling-reason", "k8s.unschedulable", {"where": r"^kubernetes/kubernetes:pkg/scheduler/schedule_one",
                                                "text": r"^FailedScheduling$"}),
    ("mount-reason", "k8s.mount", {"where": r"^kubernetes/kubernetes:pkg/kubelet/events/",
                                   "text": r"^(?:FailedMount|FailedAttachVolume|FailedMapVolume)$"}),
    ("gpu-operator", "k8s.gpu_operator", {"where": r"^NVIDIA/gpu-operator:",
                                          "text": r"^error validating (?:driver|toolkit|plugin) installation|"
                                                  r"^error validating cuda workload|^driver is not ready|"
                                                  r"^failed to validate the driver|"
                                                  r"^GPU resources are not discovered by the node|"
                                                  r"^unable to find any allocatable GPU resource|"
                                                  r"^failed to find an executable 'nvidia-smi'|"
                                                  r"^failed to locate (?:driver libraries|nvidia-smi)"}),
    ("device-plugin", "k8s.device_plugin", {"where": r"^NVIDIA/k8s-device-plugin:",
                                            "text": r"did you set the docker default runtime|did you configure the "
                                                    r"NVIDIA Container Toolkit|^Incompatible strategy detected|"
                                                    r"^No devices found\. Waiting indefinitely|"
                                                    r"^unknown MIG strategy|more than one MIG device type|"
                                                    r"^nvml init failed|"
                                                    # internal/plugin/factory.go logs these in the same block as
                                                    # the lines above (the same failed NVML init)
                                                    r"^You can check the prerequisites at|"
                                                    r"^You can learn how to set the runtime at|"
                                                    r"^If this is not a GPU node, you should set up a toleration"}),
    # NVML's own error, which the plugin logs ('Failed to initialize NVML: <nvmlErrorString>'): NVML's matcher names it,
    # and the plugin's next lines (above) name the plugin; no family here, not by the context rules below either
    ("nvml-own-line", None, {"where": r"^NVIDIA/k8s-device-plugin:", "text": r"^Failed to initialize NVML: "}),
    # an error value that wraps another ('error starting plugins: %w' ... 'error getting device memory info: %w'):
    # the chain is printed on one line and its last, wrapped error names the cause (NVIDIA/k8s-device-plugin#399:
    # NVML's 'Insufficient Permissions' under MIG), so a wrapper gets no family of its own from the context rules
    ("wrapper: the error it wraps names the cause", None, {"where": r"^NVIDIA/", "wraps": r"^wraps$"}),
    # Assigned by SOURCE CONTEXT (issue 18, assign13; the pattern of gen_slurm_messages' CONTEXT_RULES): the call that
    # reports it and the program it is in, not the words. An error the device plugin returns or logs (fmt.Errorf,
    # errors.New, klog.Error*/Fatal*) stops its start, its resource managers (MIG, CDI, the device map) or its gRPC
    # registration with the kubelet: the node then advertises no or fewer GPUs (k8s.device_plugin_error, generic).
    ("ctx-device-plugin", "k8s.device_plugin_error", {"where": r"^NVIDIA/k8s-device-plugin:(?!.*_test\.go:)",
                                                      "call": r"^(?:fmt\.Errorf|errors\.New|klog\.(?:Errorf|Error|"
                                                              r"Fatalf|Fatal))$"}),
    # an error of nvidia-operator-validator (cmd/nvidia-validator: the init containers that check the driver, the
    # toolkit, CUDA, the plugin, nvidia-peermem, GDS, MOFED on the node) is a validation that did not pass
    ("ctx-validator", "k8s.gpu_operator", {"where": r"^NVIDIA/gpu-operator:cmd/nvidia-validator/",
                                           "call": r"^(?:fmt\.Errorf|errors\.New|log\.(?:Errorf|Error))$"}),
    # their warnings (klog.Warning*, logrus log.Warn*) go on: 'Ignoring error getting device memory'
    ("not a failure: a warning the device plugin or the validator logs and goes on", None,
     {"where": r"^NVIDIA/(?:k8s-device-plugin|gpu-operator):", "level": r"^warning$"}),
]
CTX_WORDS = 3  # a site a ctx- rule assigns needs 3 words of its own (knowgen.specific_enough)
VAGUE = "too few words of its own to assign by its source file"

# What one message means and what to do: [(regex over the text, means, [fix])]
MSG_FIX = [
    (r"^node\(s\) had untolerated taint \{%s: %s\}$",
     "nodes carry the taint {%1|<key>}: {%2|<value>} and the pod has no toleration for it: the scheduler never "
     "places the pod there. GPU node pools are often tainted (nvidia.com/gpu=present:NoSchedule) so that only "
     "pods that ask for GPUs land on them.",
     ["kubectl describe node <node> | grep -A3 Taints", "add to the pod template: tolerations: [{key: "
      "\"{%1|<key>}\", operator: \"Exists\", effect: \"NoSchedule\"}]"]),
    (r"^node\(s\) didn't match Pod's node affinity/selector$",
     "the pod's nodeSelector or required nodeAffinity names labels that these nodes do not have.",
     ["kubectl get nodes --show-labels   (compare with the pod's spec.nodeSelector / spec.affinity.nodeAffinity)",
      "fix the selector, or label the GPU nodes: kubectl label node <node> <key>=<value>"]),
    (r"^No devices found\. Waiting indefinitely\.$",
     "the NVIDIA device plugin started on this node but found no GPU to advertise: the node gets no "
     "nvidia.com/gpu capacity, so GPU pods stay Pending ('Insufficient nvidia.com/gpu').",
     ["kubectl logs -n <namespace> <nvidia-device-plugin pod on that node>   (the lines before this one)",
      "on the node: nvidia-smi; the container runtime must run the plugin with the NVIDIA runtime "
      "(nvidia-ctk runtime configure --runtime=containerd --set-as-default; restart containerd)"]),
]


def sites_of(source, path, src):
    """(where, format, level) of each message string of one Go file."""
    def at(i):
        return "%s:%s:%d" % (SOURCES[source], path, src.count("\n", 0, i) + 1)

    operator = source in OPERATOR_KEYS
    calls = list(_CALL.finditer(src))
    if operator:
        taken = {m.start() for m in calls}
        calls = sorted(calls + [m for m in _OP_CALL.finditer(src) if m.start() not in taken], key=lambda m: m.start())
    for m in calls:
        args = knowgen.call_args(src, m.end())
        if not args:
            continue
        first = next((a for a in args if a.startswith('"')), None)
        if first is None:
            continue
        fmt = knowgen.go_format(first, 0)
        if fmt:
            # an error value that wraps another: fmt.Errorf("...: %w", err) (its last argument an error variable or
            # err.Error(), or NVML's return code ret, and its last verb at the end): it names the step, the error it
            # wraps names the cause
            wraps = m.group("fn") == "fmt.Errorf" and fmt.rstrip().endswith("%s") and \
                re.fullmatch(r"(?:err|e|error|\w*Err|ret|\w*Ret)(?:\.Error\(\))?", args[-1].strip()) is not None
            level = _LEVEL.get(m.group("fn")) or _OP_LEVEL.get(m.group("fn"), "error")
            if operator and m.group("fn") in ("log.Printf", "log.Println"):
                # Go's log package has no levels: the RDMA plugin writes 'Warning: ...' / 'error: ...' in the text
                level = "warning" if fmt.lower().startswith("warning") else \
                    "error" if fmt.lower().startswith("error") else "info"
            if operator and any("EventTypeNormal" in a for a in args):
                level = "info"  # a Normal event (recorder.Event(obj, corev1.EventTypeNormal, reason, msg))
            yield at(m.start()), fmt, level, m.group("fn") + (" wraps" if wraps else "")
    for rx, level in ((_CONST, "const"), (_REASON, "reason")):
        for m in rx.finditer(src):
            fmt = knowgen.go_format(src, m.end())
            if fmt:
                # an operator's constant keeps its name: Kueue's ClusterQueueActiveReasonFlavorNotFound = "FlavorNotFound"
                yield at(m.start()), fmt, level, ("const " + m.group("name")) if operator and level == "const" else ""


def _reason_sites(reason, where, family, ids):
    """The two places a person sees a kubelet's or the scheduler's reason word, as sites: a Warning event's row
    (`kubectl describe pod`'s Events table, columns Type Reason Age From Message: kubectl's
    pkg/describe/describe.go DescribeEvents; `kubectl get events`: LAST SEEN TYPE REASON OBJECT MESSAGE, kubectl's
    printers.go printEvent), Type and Reason side by side; and describe's container state or pod status field
    'Reason:  <word>'. A Normal event's row never matches: only the Warning type is read as a failure. (A table
    pasted from a dashboard puts '|' between the columns.)"""
    if len(reason) <= len("Reason:"):
        # the prefilter's needle is a matcher's longest literal: for a reason as short as 'Evicted' it would be
        # 'warning' / 'reason:', words of every log (a 20 MB training log had 23,650 'warning' lines, each then
        # tried); such a reason is read from its message's own site ('The node was low on resource: %v. ')
        return
    for form, rx in (("Warning %s", r"\bWarning(?:\s{1,40}|\s{0,40}\|\s{0,40})%s\b"),
                     ("Reason: %s", r"\bReason:\s{1,40}%s\b")):
        text = form % reason
        yield {"id": knowgen.unique_id("k8s.reason." + knowgen.slug(text), ids), "where": where, "text": text,
               "level": "reason", "re": rx % re.escape(reason), "family": family, "rule": "reason"}


def build(files, version):
    sites, reasons, env, seen, ids = [], [], [], set(), set()
    for path, src in files:
        source, _, rel = path.partition(":")
        if source == "operator":
            for m in _ENV.finditer(src):
                where = "%s:%s:%d" % (SOURCES[source], rel, src.count("\n", 0, m.start()) + 1)
                if m.group("env") not in {e["name"] for e in env}:
                    env.append({"name": m.group("env"), "where": where})
            continue
        for where, fmt, level, call in sites_of(source, rel, src):
            if _WORD.match(fmt) and level in ("const", "error", "reason", "event"):
                if source in OPERATOR_KEYS and level == "const" and "Reason" in call:
                    # an operator's condition reason (Kueue's ClusterQueueActiveReasonFlavorNotFound = "FlavorNotFound")
                    rule, family = knowgen.assign(RULES, {}, {"where": where, "text": fmt, "level": "reason",
                                                              "call": call})
                    if family and fmt not in {r["reason"] for r in reasons}:
                        reasons.append({"reason": fmt, "where": where, "family": family})
                        sites.extend(_reason_sites(fmt, where, family, ids))
                    continue
                if not re.match(r"[^:]+:pkg/(?:kubelet/|scheduler/schedule_one)", where):
                    continue  # a plugin's or a resource kind's name, not a state or an event
                rule, family = knowgen.assign(RULES, {}, {"where": where, "text": fmt, "level": "reason"})
                if fmt not in {r["reason"] for r in reasons}:
                    reasons.append({"reason": fmt, "where": where, "family": family})
                    if family:
                        sites.extend(_reason_sites(fmt, where, family, ids))
                continue
            if (fmt, level) in seen:
                continue
            seen.add((fmt, level))
            site = {"id": knowgen.unique_id("k8s." + knowgen.slug(where.split(":", 1)[1]), ids), "where": where,
                    "text": fmt, "level": level}
            if (source in ("device-plugin", "gpu-operator") or source in OPERATOR_KEYS) and call:
                # the Go call that reports it (the source context of the ctx- rules); an operator's constant: its name
                site["call"] = call if call.startswith("const ") else call.split()[0]
                if call.endswith(" wraps"):
                    site["wraps"] = True  # it wraps an error value (fmt.Errorf("...: %w", err))
            rx, literal = knowgen.printf_to_regex(fmt)
            need = 16
            if source in OPERATOR_KEYS and rx is not None and \
                    len(re.sub(r"%[-+ #0-9.]*[a-zA-Z]|\s", "", fmt)) >= 20 and len(literal.replace(" ", "")) >= 10:
                # an operator's short message around a name: 'LocalQueue %s doesn't exist' (Kueue),
                # 'RDMA device %q not found': its literals hold 20+ characters, the longest (the needle) 10+
                need = 10
            if not knowgen.unanchored(site, rx, literal, need=need):
                rule, family = knowgen.assign(RULES, site, {"where": where, "text": fmt, "level": level,
                                                            "call": site.get("call", ""),
                                                            "wraps": "wraps" if site.get("wraps") else ""})
                if family and rule.startswith("ctx-") and not knowgen.specific_enough(fmt, CTX_WORDS, names=False):
                    rule, family = VAGUE, None
                site.update({"re": rx, "family": family, "rule": rule or "no rule"})
                knowgen.give_fix(site, MSG_FIX, fmt)
            sites.append(site)
    doc = {"header": knowgen.header("kubernetes/kubernetes, NVIDIA/k8s-device-plugin, kubeflow/training-operator, "
                                    "NVIDIA/gpu-operator, " + ", ".join(repo for _, repo, _ in OPERATORS),
                                    version, GENERATOR,
                                    "scheduler reasons, kubelet events and eviction messages, container state "
                                    "reasons (reasons), the NVIDIA device plugin's log lines, the GPU operator's "
                                    "validator's messages, the operators' own configuration messages (Kueue, "
                                    "the RDMA shared device plugin, the container toolkit's installer, "
                                    "mpi-operator, Volcano, JobSet, LeaderWorkerSet), and the environment "
                                    "variables training-operator sets in a PyTorchJob's pods (env); families from "
                                    "the RULES table of the generator"),
           "sites": sites, "reasons": reasons, "env": env}
    return doc


def from_repos(a):
    files, versions = [], []
    for source, keep in (("k8s", K8S_FILES), ("device-plugin", PLUGIN_FILES), ("operator", OPERATOR_FILES),
                         ("gpu-operator", GPU_OPERATOR_FILES)) + tuple((n, re.compile(rx)) for n, _, rx in OPERATORS):
        git = knowgen.git_reader(getattr(a, source.replace("-", "_")))
        rev = getattr(a, source.replace("-", "_") + "_rev")
        prefix = a.k8s_prefix if source == "k8s" else ""
        got = knowgen.tree_files(git, rev, [prefix + "pkg", prefix + "cmd", prefix + "internal"] if prefix else [],
                                 lambda p: p.startswith(prefix) and keep.match(p[len(prefix):]))
        files += [("%s:%s" % (source, p[len(prefix):]), text) for p, text in got]
        name = SOURCES[source]
        if source == "k8s" and prefix:
            mod = re.search(r"^\s*k8s\.io/kubernetes (\S+)", git("show", "%s:%sgo.mod" % (rev, prefix.split("vendor/")[0])),
                            re.M)
            versions.append("%s %s (vendored at %s, %s)" % (name, mod.group(1) if mod else "?", prefix,
                                                           knowgen.revision(git, rev, untagged=rev)))
        else:
            versions.append("%s %s" % (name, knowgen.revision(git, rev, untagged=rev)))
    return files, "; ".join(versions)


def main(argv):
    src = ("k8s", "device-plugin", "operator", "gpu-operator") + OPERATOR_KEYS
    a = knowgen.arguments(__doc__, argv, source=src, source_opts={s: {} for s in src},
                          extra=(("--k8s-rev", {"default": "HEAD"}), ("--k8s-prefix", {"default": ""}),
                                 ("--device-plugin-rev", {"default": "HEAD"}),
                                 ("--operator-rev", {"default": "v1.9.0"}),
                                 ("--gpu-operator-rev", {"default": "HEAD"}))
                          + tuple(("--%s-rev" % n, {"default": "HEAD"}) for n in OPERATOR_KEYS))
    files, version = from_repos(a) if a.k8s else knowgen.read_slice(a.slice)
    doc = build(files, version)
    if a.k8s:
        knowgen.stale_fixes(a, "MSG_FIX", MSG_FIX, doc["sites"])
    return knowgen.emit("k8s_messages", doc, a.out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

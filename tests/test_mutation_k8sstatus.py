"""k8sstatus.finding / hits / forbidden_hits, word for word (mutation round 17, part 2: the survivors of
gpudoctor/explain/k8sstatus.py under tests/test_explain_noans22.py).

The lines are Kubernetes' own formats (kubernetes pkg/kubelet/cm/admission/errors.go 'Allocate failed due to %v, which
is unexpected' with the device manager's 'requested number of devices unavailable for %s. Requested: %d, Available:
%d'; k8s.io/apiserver responsewriters forbiddenMessage 'User %q cannot %s resource %q in API group %q in the namespace
%q' / 'at the cluster scope'), read through the real scanner and k8sstatus.finding itself."""

import io

import pytest

from gpudoctor.explain import analyze, k8sstatus
from gpudoctor.explain.scan import Scan, scan_stream

ADMIT = ("Warning  UnexpectedAdmissionError  Pod Allocate failed due to requested number of devices unavailable for "
         "nvidia.com/gpu. Requested: 1, Available: 0, which is unexpected\n")
RBAC = ('E1127 leaderelection.go:330] error retrieving resource lock kubeflow/mpi-operator: endpoints "mpi-operator" is '
        'forbidden: User "system:serviceaccount:kubeflow:mpi-operator" cannot get resource "endpoints" in API group "" '
        'in the namespace "kubeflow"\n')
LEASE = ('E1127 leaderelection.go:330] error retrieving resource lock gpu-operator/53822513.nvidia.com: leases.'
         'coordination.k8s.io "53822513.nvidia.com" is forbidden: User "system:serviceaccount:gpu-operator:gpu-operator"'
         ' cannot get resource "leases" in API group "coordination.k8s.io" at the cluster scope\n')
PROGRESS = "".join("step %d loss 0.%d\n" % (i, 9 - i) for i in range(5))


def _scan(text, kb):
    scan = Scan()
    scan_stream(io.BytesIO(text.encode()), kb, scan, "<t>")
    return scan


def _finding(text, kb, known=()):
    return k8sstatus.finding(_scan(text, kb), kb, analyze._structural_finding, known)


def test_the_admission_refusal_word_for_word(kb):
    f = _finding(ADMIT, kb)
    err = ("requested number of devices unavailable for nvidia.com/gpu. Requested: 1, Available: 0, which is "
           "unexpected")
    assert f["id"] == "k8s.device_plugin"
    assert "(the kubelet's admission refusal: the device allocation failed (UnexpectedAdmissionError))" in \
        f["notes"][0]
    c = f["causes"][0]
    assert c["text"] == (
        "The kubelet refused the pod at admission: allocating nvidia.com/gpu failed on the node the scheduler chose "
        "(%s). The scheduler counted the node's advertised devices; the kubelet's device manager found them taken or "
        "unknown: the device plugin re-registered and lost its allocations, the kubelet's checkpoint still holds a "
        "force-deleted pod's devices, or a scheduler extender assigns the devices outside the device manager." % err)
    assert c["fix"] == [
        "compare the node's allocatable and allocated nvidia.com/gpu: kubectl describe node <node> (Allocatable, "
        "Allocated resources) and the pods that hold them: kubectl get pods -A -o wide --field-selector "
        "spec.nodeName=<node>",
        "read the device plugin's log on that node (kubectl logs -n <namespace> <device plugin pod on the node>) and "
        "restart it (delete its pod) if it re-registered; the failed pod is not retried: delete it so its controller "
        "makes a new one"]
    assert f["notes"][-1] == (
        "Kubernetes' kubelet wrote this (pkg/kubelet/cm/admission/errors.go: 'Allocate failed due to %v, which is "
        "unexpected', reason UnexpectedAdmissionError): the pod never started; the allocator's own error is '" +
        err + "'.")
    # the inserted cause has the shape of the knowledge's own causes after it (fixes.py and render read those keys)
    assert set(c) == set(f["causes"][1]) and not c["checks"] and not c["confirm"] and c["exports"] == {}


def test_an_admission_refusal_naming_no_resource_and_a_long_error(kb):
    err = "unable to find GPU device " + "x" * 250
    f = _finding("Pod Allocate failed due to %s\n" % err, kb)
    c = f["causes"][0]
    assert c["text"].startswith("The kubelet refused the pod at admission: allocating the device resource failed on "
                                "the node the scheduler chose (%s). The scheduler" % err[:200])
    assert c["fix"][0].startswith("compare the node's allocatable and allocated the device resource: ")
    assert f["notes"][-1].endswith("the allocator's own error is '%s'." % err[:200])


def test_the_admission_line_the_run_went_on_after(kb):
    assert _finding(ADMIT + PROGRESS, kb) is None
    # a second refusal after the progress is read (the first is passed over, not the end of the reading)
    f = _finding(ADMIT + PROGRESS + ADMIT.replace("nvidia.com/gpu", "amd.com/gpu"), kb)
    assert f and "allocating amd.com/gpu failed" in f["causes"][0]["text"]


def test_a_known_admission_line_is_not_read_again(kb):
    scan = _scan(ADMIT, kb)
    line = scan.matches["_struct_ex_admit"][0].line
    assert k8sstatus.hits(scan) and not k8sstatus.hits(scan, {line})
    assert k8sstatus.finding(scan, kb, analyze._structural_finding, {line}) is None


def test_the_rbac_refusal_word_for_word(kb):
    f = _finding(RBAC, kb)
    assert f["id"] == "k8s.mpi_operator"
    assert "(the API server's RBAC refusal of the service account kubeflow:mpi-operator)" in f["notes"][0]
    c = f["causes"][0]
    assert c["text"] == (
        "mpi-operator's service account system:serviceaccount:kubeflow:mpi-operator may not get endpoints: its Role / "
        "ClusterRole does not grant it. The component's RBAC manifests and its image are from different releases (a "
        "newer release asks for another resource: leader election moved from endpoints / configmaps to leases), or "
        "the install left its role out.")
    assert c["fix"] == [
        "confirm: kubectl auth can-i get endpoints --as=system:serviceaccount:kubeflow:mpi-operator -n kubeflow",
        'apply the RBAC manifests (ClusterRole / Role and their bindings) of the same release as the running image, '
        'or add the rule: apiGroups [""], resources ["endpoints"], verbs ["get"]']
    assert f["notes"][-1] == (
        "The API server wrote this (k8s.io/apiserver responsewriters forbiddenMessage: 'User %q cannot %s resource %q "
        "in API group %q ...'): the request of system:serviceaccount:kubeflow:mpi-operator was refused for want of a "
        "permission; mpi-operator is the component it runs.")
    assert set(c) == set(f["causes"][1])


def test_an_rbac_refusal_in_an_api_group_at_the_cluster_scope(kb):
    f = _finding(LEASE, kb)
    assert f["id"] == "k8s.gpu_operator"
    c = f["causes"][0]
    assert "may not get leases (API group coordination.k8s.io): its Role" in c["text"]
    assert c["fix"][0] == ("confirm: kubectl auth can-i get leases.coordination.k8s.io "
                           "--as=system:serviceaccount:gpu-operator:gpu-operator")
    assert c["fix"][1].endswith('apiGroups ["coordination.k8s.io"], resources ["leases"], verbs ["get"]')


def test_hostile_words_become_placeholders(kb):
    text = ('pods is forbidden: User "system:serviceaccount:gpu-operator:gpu-operator;x" cannot list resource '
            '"--kubeconfig=/tmp/k" in API group "a b" in the namespace "ns$(touch X)"\n')
    c = _finding(text, kb)["causes"][0]
    assert c["fix"][0] == "confirm: kubectl auth can-i list <resource>.<group> --as=<user> -n <namespace>"
    assert "service account <user> may not list <resource> (API group <group>)" in c["text"]


def test_the_namespace_names_the_component_when_the_name_does_not(kb):
    text = ('pods is forbidden: User "system:serviceaccount:gpu-operator:default" cannot list resource "pods" in API '
            'group "" in the namespace "gpu-operator"\n')
    scan = _scan(text, kb)
    got = k8sstatus.forbidden_hits(scan, kb)
    assert [(fam, m.group("name")) for _, m, fam in got] == [("k8s.gpu_operator", "default")]


@pytest.mark.parametrize("user", ["jane@example.com", "system:serviceaccount:ml:trainer"])
def test_a_user_of_no_component_is_no_hit(user, kb):
    text = ('pods is forbidden: User "%s" cannot list resource "pods" in API group "" in the namespace "ml"\n' % user)
    scan = _scan(text, kb)
    assert k8sstatus.forbidden_hits(scan, kb) == []
    # without the knowledge (explicit.seen): any service account is a hit, a person is not
    assert k8sstatus.hits(scan) == user.startswith("system:serviceaccount:")


def test_a_known_rbac_line_is_not_read_again(kb):
    scan = _scan(RBAC, kb)
    line = scan.matches["_struct_ex_forbidden"][0].line
    assert k8sstatus.hits(scan) and not k8sstatus.hits(scan, {line})
    assert k8sstatus.finding(scan, kb, analyze._structural_finding, {line}) is None


def test_the_rbac_line_the_run_went_on_after(kb):
    assert _finding(RBAC + PROGRESS, kb) is None
    f = _finding(RBAC + PROGRESS + LEASE, kb)
    assert f and f["id"] == "k8s.gpu_operator"

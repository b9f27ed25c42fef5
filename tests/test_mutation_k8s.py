"""Cases for the mutants of gpudoctor/explain/k8s.py's reader of the scheduler's message (docs/mutation.md, seventh
round): kube-scheduler's FitError.Error() (pkg/scheduler/framework/types.go: '0/%v nodes are available: ' then
'<count> <reason>' items joined by ', ', then '.'), the PostFilter's ' preemption: ...' after it, which is not read
as reasons, the control plane's taint counted as no node, each compared whole."""

from gpudoctor.explain import k8s as K

MSG = ("0/4 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, "
       "3 Insufficient nvidia.com/gpu. preemption: 0/4 nodes are available: 1 Preemption is not helpful for "
       "scheduling, 3 No preemption victims found for incoming pod.")


def test_reasons_of_the_scheduler_message():
    assert K.reasons("Warning  FailedScheduling  12s  default-scheduler  " + MSG) == [
        (0, "node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }"),
        (3, "Insufficient nvidia.com/gpu")]
    assert K.reasons("0/2 nodes are available: 2 Insufficient memory.\nnext line 3 x") == [(2, "Insufficient memory")]
    assert K.reasons("0/3 nodes are available: 1 node(s) had taint {node-role.kubernetes.io/master: }, "
                     "2 node(s) didn't match Pod's node affinity/selector.") == [
        (0, "node(s) had taint {node-role.kubernetes.io/master: }"), (2, "node(s) didn't match Pod's node affinity/selector")]
    assert K.reasons("no scheduler message here") == []
    assert K.reasons(" " * 4096 + "0/1 nodes are available: 1 Insufficient cpu.") == []  # read to 4,096 characters

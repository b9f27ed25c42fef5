"""review20: regressions found while reviewing session 20's commits (issue 18), each a text that was answered wrong.

Every test runs in process (explain.explain_text); no sleeps, no subprocess.
"""

import re

import pytest

from gpudoctor import explain
from gpudoctor.explain import runend


@pytest.mark.parametrize("text", [
    # a C / POSIX failure return printed as a 'return code' is no signal (1fa598a read it as SIGHUP)
    "ERROR: command 'nvcc' failed with return code -1\n",
    "cudaGetDeviceCount returned -1 (return code: -1)\n",
])
def test_a_minus_one_return_code_is_no_signal(text):
    assert runend.signal_of("-1") is None
    res = explain.explain_text(text)
    assert res["root"] != "cascade.signal", res["root"]
    assert "SIGHUP" not in " ".join(n for f in res["findings"] for n in f.get("notes") or [])


def test_a_pasted_path_stays_one_shell_word_in_the_eexist_fix():
    # e22f07f wrote "ls -ld '%s'" around the path the message prints: a path holding a quote ended the quoting and
    # the rest ran ($(...)) when the line was pasted into a shell (CPython prints such a path in double quotes)
    text = ('Traceback (most recent call last):\n'
            '  File "/home/u/train.py", line 12, in <module>\n'
            '    os.makedirs(out_dir, exist_ok=True)\n'
            '  File "<frozen os>", line 225, in makedirs\n'
            'FileExistsError: [Errno 17] File exists: "/scratch/it\'s $(touch x)/out"\n')
    res = explain.explain_text(text)
    assert res["root"] == "errno.eexist"
    line = next(x for x in res["findings"][0]["causes"][0]["fix"] if x.startswith("ls -ld "))
    word = line[len("ls -ld "):].split(" (a regular file?)")[0]
    # one ANSI-C quoted word (bash(1) QUOTING): every quote inside it escaped, no blank
    assert re.fullmatch(r"\$'(?:[^'\\\s]|\\.)*'", word), word


def test_a_kind_of_a_crd_group_is_a_crd_not_installed_not_a_removed_api():
    # https://github.com/rancher/opni/issues/186 (the GPU operator's ClusterPolicy controller, controller-runtime
    # v0.11): ServiceMonitor is prometheus-operator's CRD (monitoring.coreos.com), absent from that cluster. 584e335 read
    # every NoKindMatchError as an API a Kubernetes release removed and said 'upgrade the NVIDIA GPU Operator'.
    text = ('[21:25:16] ERROR controller.clusterpolicy-controller Reconciler error {"name": "gpu", "namespace": "", '
            '"error": "no matches for kind \\"ServiceMonitor\\" in version \\"monitoring.coreos.com/v1\\""}\n')
    res = explain.explain_text(text)
    assert res["root"] == "k8s.gpu_operator"
    first = res["findings"][0]["causes"][0]
    assert "CustomResourceDefinition" in first["text"] and "monitoring.coreos.com" in first["text"]
    assert "upgrade" not in first["fix"][0] and "install the CustomResourceDefinition of ServiceMonitor" in first["fix"][0]
    # a group Kubernetes serves itself (node.k8s.io) keeps the removed-API reading (canonical/microk8s.io#559)
    text = text.replace("ServiceMonitor", "RuntimeClass").replace("monitoring.coreos.com/v1", "node.k8s.io/v1beta1")
    first = explain.explain_text(text)["findings"][0]["causes"][0]
    assert "upgrade the NVIDIA GPU Operator" in first["fix"][0]

"""review20: regressions found while reviewing session 20's commits (issue 18), each a text that was answered wrong.

Every test runs in process (explain.explain_text); no sleeps, no subprocess.
"""

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

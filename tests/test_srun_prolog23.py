"""After another node's Prolog failed and Slurm ended gpudoctor's job, the nodes that failed with it run again:
those where srun started no task (`slurm`), and those whose collector had started and was killed by the job's end
(exit 143 / 137: slurmstepd's SIGTERM, then SIGKILL after KillWait). The second kind was reported as a collector
error under load in a clean-clone CI run (tests/test_slurm22.py's prolog-at-first-step case: sn4 'collector exited
143'); the bed test covers the path end to end, these the judgement of each node."""

import pytest

from gpudoctor.node import Node
from gpudoctor.transport.srun import _ended_with_the_job


@pytest.mark.parametrize("node, again", [
    (Node(host="sn1", error="srun ran no task there: Prolog failure", error_kind="slurm"), True),
    (Node(host="sn4", error="collector exited 143: (no message on stderr)", error_kind="collector"), True),
    (Node(host="sn4", error="collector exited 137: (no message on stderr)", error_kind="collector"), True),
    # a collector that failed on its own is the node's answer, not the job's end
    (Node(host="sn2", error="collector exited 1: Traceback ...", error_kind="collector"), False),
    (Node(host="sn2", error="collector exited 1437: x", error_kind="collector"), False),
    (Node(host="sn2", error="python3 not found on the node", error_kind="python-missing"), False),
    (Node(host="sn2", error="Node sn2 is drained", error_kind="node-drained"), False),
    (Node(host="sn1", facts={"node": "sn1"}), False),
])
def test_which_nodes_run_again_after_the_prolog_ended_the_job(node, again):
    assert _ended_with_the_job(node) is again

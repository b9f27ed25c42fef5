"""plan: launch29's Left, closed by the lead in session 30.

- `clush -x NODES` / `-X GROUP` take nodes away from -w / -g / -a (clush(1), ClusterShell 1.9:
  https://clustershell.readthedocs.io/en/latest/tools/clush.html "-x NODES  exclude nodes from the node list");
  the plan's note named the -w set whole. The reduced set is computed by ClusterShell's own NodeSet and checked here
  against the real clush's exec worker (`-R exec`), which runs the command once for each node it keeps.
- SkyPilot's `accelerators: A100:x` is no count SkyPilot accepts
  (https://docs.skypilot.co/en/latest/reference/yaml-spec.html: `<name>:<count>`); it was read as one GPU.
"""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_launch29 import _plan


@pytest.mark.parametrize("line, where", [
    ("clush -w node[1-4] -x node3 torchrun --nproc_per_node 8 t.py", "every host of -w node[1-2,4] by clush"),
    ("clush -w node[1-2] -x node[1-2] torchrun t.py", "no node (-x took every one)"),
    ("clush -g gpu -x node3 torchrun t.py", "every host of -w @gpu except node3 by clush"),
    ("clush -a -X login torchrun t.py", "all nodes (-a) except @login"),
    ("clush -w node[1-3] torchrun t.py", "every host of -w node[1-3] by clush"),
])
def test_clush_exclusions_reduce_the_node_set(tmp_path, line, where):
    _script, rs = _plan(tmp_path, line + "\n", (), "c.sh")
    (la,) = rs.launches
    assert la.argv[0] == "torchrun"
    assert any(where in n for n in rs.notes), rs.notes


def test_clush_x_keeps_the_nodes_the_real_clush_keeps(tmp_path):
    clush = shutil.which("clush") or str(Path(sys.executable).parent / "clush")
    if not os.path.exists(clush):
        pytest.skip("no clush here")
    _script, rs = _plan(tmp_path, "clush -w node[1-5] -x node[2,4] torchrun t.py\n", (), "c.sh")
    (note,) = [n for n in rs.notes if "by clush" in n]
    # the real clush, its exec worker: %h is each node it keeps (clush(1) -R exec)
    real = subprocess.run([clush, "-R", "exec", "-w", "node[1-5]", "-x", "node[2,4]", "-N", "echo", "%h"],
                          capture_output=True, text=True, timeout=60)
    kept = sorted(real.stdout.split())
    assert kept == ["node1", "node3", "node5"], real
    assert "-w node[1,3,5] by clush" in note, note


@pytest.mark.parametrize("acc, gpus", [("A100:x", None), ("A100", 1), ("A100:8", 8)])
def test_skypilot_accelerator_without_a_count_is_not_one_gpu(tmp_path, acc, gpus):
    _script, rs = _plan(tmp_path, "resources:\n  accelerators: %s\nrun: |\n  torchrun --nnodes=1 "
                        "--nproc_per_node=$SKYPILOT_NUM_GPUS_PER_NODE --rdzv_backend=c10d --rdzv_endpoint=h:1 t.py\n"
                        % acc, (), "t.yaml")
    assert rs.launches[0].plan.nproc_per_node == gpus

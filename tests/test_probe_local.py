"""The local transport: a worker and everything it started end together (process group and run
token), and the NCCL worker reports a node without torch instead of hanging."""

import os
import stat
import time
import uuid

from gpudoctor.probe import launch, node, run


def wait_for(fn, timeout=10):
    deadline = time.time() + timeout
    while True:
        v = fn()
        if v or time.time() > deadline:
            return v
        time.sleep(0.05)


def test_a_hung_worker_and_its_children_are_ended_by_the_run_token(tmp_path):
    py = tmp_path / "python3"
    py.write_text("#!/bin/sh\nsleep 300 &\nsleep 300 &\nexec sleep 300\n")  # never reads its script
    py.chmod(py.stat().st_mode | stat.S_IEXEC)
    tr = launch.LocalTransport(python=str(py))
    token = uuid.uuid4().hex
    w = launch.start_worker(tr, "x", {"role": "hello"}, token)
    assert wait_for(lambda: len(node.find_run(token)) == 3)
    assert w.next_event(time.time() + 0.5) is None  # it hangs: no event
    res = launch.cleanup_run(tr, ["x"], token, timeout=5)
    assert res == {"x": {"found": 3, "left": 0}}
    assert wait_for(lambda: node.find_run(token) == [], 5) is True


def test_the_probe_classifies_a_hang_and_leaves_nothing(tmp_path):
    py = tmp_path / "python3"
    py.write_text("#!/bin/sh\nexec sleep 300\n")
    py.chmod(py.stat().st_mode | stat.S_IEXEC)
    t0 = time.time()
    doc = run.probe(["a", "b"], launch.LocalTransport(python=str(py)), mode="tcp", budget=4)
    assert time.time() - t0 < 4 + 1
    assert [n["error_kind"] for n in doc["nodes"]] == ["hang", "hang"]
    assert all(c["left"] == 0 for c in doc["cleanup"].values())
    assert wait_for(lambda: node.find_run(doc["run_id"]) == [], 5) is True


def test_nccl_worker_without_torch_is_classified(tmp_path):
    # this interpreter has no torch: every rank says so and the node is reported, promptly
    doc = run.probe(["g0", "g1"], launch.LocalTransport(), mode="nccl", budget=30, gpus=1)
    job = doc["jobs"][0]
    assert job["scope"] == "all" and not job["ok"] and job["error_kind"] == "no-torch"
    assert doc["elapsed_s"] < 20 and all(c["left"] == 0 for c in doc["cleanup"].values())

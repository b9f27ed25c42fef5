"""Drift checks never drop a node and never pass over nothing: recorded facts of the real
H100 node, copied per node and changed where a scenario needs it."""

from conftest import node_facts, run_check

H100 = "h100-ubuntu2404-torch211"


def _nodes(n, driverless=()):
    out = {}
    for i in range(1, n + 1):
        doc = node_facts(H100)
        host = "gpu%02d" % i
        doc["node"] = host
        if host in driverless:
            doc["gpu"] = {"status": "unsupported", "reason": "no NVIDIA driver loaded"}
        out[host] = doc
    return out


def test_one_driverless_node_fails_gpu_parity_and_is_named():
    res = run_check("gpu.parity", _nodes(3, driverless=("gpu03",)))
    assert res.status == "fail" and res.by_status == {"fail": "gpu03", "pass": "gpu[01-02]"}
    assert "0 GPUs (no NVIDIA driver loaded)" in res.findings[0].message


def test_no_driver_anywhere_is_not_applicable_never_a_pass():
    res = run_check("gpu.parity", _nodes(2, driverless=("gpu01", "gpu02")))
    assert res.status == "na" and "no node has an NVIDIA driver" in res.summary


def test_the_same_gpus_everywhere_pass_with_the_model_as_evidence():
    res = run_check("gpu.parity", _nodes(3))
    assert res.status == "pass" and res.evidence == "1 x NVIDIA H100 80GB HBM3 on every node"


def test_files_parity_baseline_nodes_say_what_they_matched():
    nodes = _nodes(3)
    for i, (h, doc) in enumerate(nodes.items()):
        digest = "b" * 64 if h == "gpu02" else "a" * 64
        doc["files"] = {"status": "ok", "files": {"~/train.py": {"sha256": digest, "size": 10 + i % 2}}}
    res = run_check("files.parity", nodes)
    assert res.status == "fail" and res.by_status == {"fail": "gpu02", "pass": "gpu[01,03]"}
    assert dict((st, t) for st, t in res.outcomes.values())["pass"] == "all 1 file as on the majority of nodes"


def test_files_parity_a_path_one_node_never_collected_is_missing_not_a_crash():
    nodes = _nodes(2)
    nodes["gpu01"]["files"] = {"status": "ok", "files": {"~/train.py": {"sha256": "a" * 64, "size": 10}}}
    nodes["gpu02"]["files"] = {"status": "ok", "files": {}}
    res = run_check("files.parity", nodes)
    assert res.status == "fail" and "missing (not collected on this node)" in res.findings[0].message


def test_ssh_mesh_a_node_that_tried_nothing_does_not_pass():
    nodes = _nodes(2)
    nodes["gpu01"]["mesh"] = {"status": "ok", "peers": {"gpu02": {"ok": True}}}
    nodes["gpu02"]["mesh"] = {"status": "ok", "peers": {}}
    res = run_check("ssh.mesh", nodes)
    assert res.by_status == {"skipped": "gpu02", "pass": "gpu01"} and res.status == "skipped"


def test_a_check_registered_into_an_empty_private_registry_stays_there():
    from gpudoctor.registry import REGISTRY, Registry, check

    mine = Registry()

    @check("zz.private", title="a private check", registry=mine)
    def f(facts, config):
        return ()

    assert mine.ids() == ["zz.private"] and REGISTRY.get("zz.private") is None


def test_ssh_config_a_hash_inside_a_value_is_not_a_comment_but_the_one_after_is():
    from gpudoctor.checks.ssh_config import trailing_comments

    assert trailing_comments("Host a#b # c\n") == [(1, "Host a#b # c")]
    assert trailing_comments("Host a#b\n# own line\n") == []

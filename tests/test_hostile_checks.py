"""Checks on well-formed but unexpected facts (issue 12's fuzzed facts, minimised by
tests/test_fuzz.py / bench/fuzz_bench.py): a node's odd values end in a verdict (skipped,
with the reason), never in a crashed check (exit 3). Each case is the smallest change to a
real fixture that crashed the check before its fix."""

import pytest

from conftest import node_facts, run_check


def _h100(**sections):
    doc = node_facts("h100-ubuntu2404-torch211")
    for name, values in sections.items():
        doc[name].update(values)
    return doc


@pytest.mark.parametrize("check_id,facts", [
    ("limits.memlock", _h100(limits={"memlock": {"hard": 8388608}})),           # KeyError 'soft'
    ("limits.memlock", _h100(limits={"memlock": "unlimited"})),                 # string indices
    ("limits.memlock", _h100(limits={"memlock": {"soft": [], "hard": 1}})),     # float() of a list
    ("limits.memlock", _h100(rdma={"devices": ["mlx5_0"]})),                     # d["name"] of a string
    ("shm.size", _h100(shm={"total_bytes": None})),                             # None < int
    ("shm.size", _h100(shm={"free_bytes": "lots"})),
    ("host.name", _h100(network={"interfaces": [{"state": "up"}]})),            # KeyError 'name'
    ("host.name", _h100(network={"interfaces": [{"name": {"x": 1}}]})),          # unhashable name
    ("host.name", _h100(network={"default_route": 1.5})),
    ("host.name", _h100(host={"hostname": {"a": 1}})),                           # .replace of a dict
    ("ssh.permissions", _h100(ssh={"entries": [{"kind": "home", "mode": "0700", "uid": 0}]})),  # KeyError 'path'
    ("ssh.permissions", _h100(ssh={"entries": [{"kind": ["x"], "path": "/root", "mode": "0700", "uid": 0}]})),
    ("ssh.permissions", _h100(ssh={"entries": [{"kind": "home", "path": "/root", "mode": 700, "uid": 0}]})),
    ("ssh.permissions", _h100(ssh={"uid": None})),
    # host.container a list (test_fuzz on a clean-clone CI run, 2026-11-26): FIX_RUNTIME.get(list)
    ("shm.size", _h100(host={"container": [None]}, shm={"total_bytes": 1 << 20})),
    ("limits.memlock", _h100(host={"container": {"a": 1}})),
    ("rdma.ports", _h100(host={"container": ["docker"]})),
])
def test_node_check_on_odd_facts_is_a_verdict_not_a_crash(check_id, facts):
    res = run_check(check_id, facts)  # run_check asserts the check did not crash
    assert res.outcomes, res


def test_env_parity_on_odd_values_is_a_verdict_not_a_crash():
    a, b = node_facts("h100-ubuntu2404-torch211"), node_facts("h100-ubuntu2404-torch211")
    b["env"]["values"]["CUDA_HOME"] = ["/usr/local/cuda"]   # .split of a list
    b["env"]["hashed"] = ["x"]                                # .get of a list
    res = run_check("env.parity", {"gpu1": a, "gpu2": b})
    assert any("CUDA_HOME" in f.message for f in res.findings)


def test_checks_still_judge_well_formed_facts():
    """The guards skip only malformed facts: the real fixtures are judged as before."""
    guards = ("not a number of bytes", "not byte counts", "not text", "malformed")
    for name in ("h100-ubuntu2404-torch211", "devbox-debian12-nogpu"):
        facts = node_facts(name)
        for check_id in ("limits.memlock", "shm.size", "host.name", "ssh.permissions"):
            res = run_check(check_id, facts)
            assert not [why for _, why in res.outcomes.values() if any(g in why for g in guards)], (check_id, res)


@pytest.mark.parametrize("check_id,section,values", [
    ("versions.parity", "python", {"packages": ["torch"]}),          # .get of a list
    ("versions.parity", "python", {"torch": "2.1"}),                  # .get of a str
    ("versions.parity", "python", {"nccl": [2, 18]}),                 # unhashable version
    ("gpu.parity", "gpu", {"gpus": "8 x H100"}),                      # .get of a str
    ("gpu.parity", "gpu", {"gpus": [{"name": ["H100"]}]}),             # unhashable name
    ("env.parity", "python", {"executable": {"x": 1}}),              # unhashable executable
])
def test_cluster_check_on_odd_facts_is_a_verdict_not_a_crash(check_id, section, values):
    a, b = node_facts("h100-ubuntu2404-torch211"), node_facts("h100-ubuntu2404-torch211")
    b[section].update(values)
    res = run_check(check_id, {"gpu1": a, "gpu2": b})
    assert set(res.outcomes) == {"gpu1", "gpu2"}


def test_gpu_parity_when_every_node_failed_its_gpu_facts():
    a, b = node_facts("h100-ubuntu2404-torch211"), node_facts("h100-ubuntu2404-torch211")
    a["gpu"]["gpus"] = b["gpu"]["gpus"] = "x"  # IndexError on groups[0] before
    res = run_check("gpu.parity", {"gpu1": a, "gpu2": b})
    assert {st for st, _ in res.outcomes.values()} == {"skipped"}


@pytest.mark.parametrize("check_id,section,values", [
    ("driver.cuda", "gpu", {"gpus": ["H100", {"name": "H100", "compute_capability": "9.0"}]}),  # g.get of a str
    ("driver.cuda", "python", {"torch": 1.5}),                                                  # .get of a float
    ("driver.cuda", "cuda", {"compat": [{"on_ld_library_path": True, "version": "550.1"}]}),    # KeyError 'dir'
    ("driver.cuda", "cuda", {"compat": [{"on_ld_library_path": True, "dir": "/c", "version": "x"}]}),  # None < tuple
    ("driver.mismatch", "gpu", {"nvml_libs": {"x": 1}, "driver_version": {"v": 1}}),            # dict < dict
    ("driver.mismatch", "gpu", {"nvml": "broken"}),
    ("gpu.inventory", "gpu", {"gpus": "8 x H100"}),
])
def test_gpu_checks_on_odd_facts_are_a_verdict_not_a_crash(check_id, section, values):
    facts = node_facts("h100-ubuntu2404-torch211")
    facts[section].update(values)
    assert run_check(check_id, facts).outcomes


def test_malformed_facts_from_a_transport_are_garbage_not_a_crash():
    """Every transport's result passes commands.common._run: the rule facts files pass."""
    from gpudoctor.commands.common import _checked
    from gpudoctor.runner import Node

    good = node_facts("h100-ubuntu2404-torch211")
    assert _checked(Node(host="gpu1", facts=good)).reachable
    for bad in (dict(good, python="x"), dict(good, node="-oProxyCommand=x"),
                dict(good, network={"status": "ok", "x": "\ud800"}), dict(good, x={"status": "ok", "d": [[[[]]]] * 10})):
        n = _checked(Node(host="gpu1", facts=bad))
        if "x" in bad and "d" in bad["x"]:
            assert n.reachable  # 6 levels deep: still facts (the rule allows 32)
            continue
        assert not n.reachable and n.error_kind == "garbage" and "malformed" in n.error, bad


@pytest.mark.parametrize("check_id,section,values", [
    ("cuda.libs", "python", {"torch": {"version": "2.1", "cuda": "12.1", "libs": ["x"]}}),   # .get of a list
    ("cuda.libs", "python", {"torch": {"version": "2.1", "cuda": "12.1", "libs": {"libs": [{"path": "/x"}]}}}),
    ("gpu.inventory", "gpu", {"xids": [{"bus_id": "0000:00:06", "xid": "79"}, "x"]}),       # x["bus_id"] of a str
    ("gpu.inventory", "gpu", {"kernel_log": ["x"]}),                                        # .get of a list
    ("gpu.inventory", "gpu", {"gpus": [{"name": "H100", "bus_id": ["x"], "processes": 5,
                                        "ecc_uncorrected_volatile": "2"}]}),
    ("gpu.inventory", "python", {"torch": {"version": "2.1", "cuda": "12.1", "arch_list": [["sm_90"]]}}),
    ("kernel.ofed", "ofed", {"status": "ok", "kernels": ["6.1"], "modules_loaded": [["mlx5_core"]],
                             "ofed_info": "MLNX_OFED 24.10", "module_versions": ["x"]}),
    ("nccl.env", "nccl", {"effective": {"NCCL_DEBUG": "INFO"}, "paths": {"NCCL_TOPO_FILE": None}}),
    ("nccl.env", "network", {"interfaces": [None, {"state": "up"}], "default_route": ["eth0"]}),
    ("python.env", "python", {"torch": {"cuda": "12.1"}}),                                   # KeyError 'version'
    ("python.env", "python", {"packages": ["torch"]}),
    ("rdma.ports", "rdma", {"devices": ["mlx5_0"]}),                                         # .get of a str
    ("ssh.config", "ssh", {"entries": ["config"]}),
])
def test_more_checks_on_odd_facts_are_a_verdict_not_a_crash(check_id, section, values):
    facts = node_facts("h100-ubuntu2404-torch211")
    facts.setdefault(section, {"status": "ok"}).update(values)
    assert run_check(check_id, facts).outcomes


def test_a_container_name_that_is_not_a_word_counts_as_none():
    from gpudoctor.util import container_of
    assert [container_of({"host": {"container": v}}) for v in ("podman", "kubepods", [None], {"a": 1}, "Docker",
                                                               "docker; rm -rf /", "", 7)] == \
        ["podman", "kubepods", None, None, None, None, None, None]
    assert container_of({"host": None}) is None and container_of([]) is None
    # the shm fix on such a node is the host's (mount -o remount), not a runtime's flag
    res = run_check("shm.size", _h100(host={"container": [None]}, shm={"total_bytes": 1 << 20, "free_bytes": 1 << 20}))
    assert [f.severity for f in res.findings] == ["error"], res.findings
    assert "remount" in res.findings[0].fix and "--shm-size" not in res.findings[0].fix, res.findings[0].fix

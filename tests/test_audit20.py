"""Found by the issue-20 audit on the 4-node test Slurm (`salloc -N4 gpudoctor check`): with no
job-shaping variable (NCCL_*, CUDA_*, LD_LIBRARY_PATH, ...) set on the nodes, env.parity's
pass read "34 variables the same on every node (0 job-shaping: )"."""

from conftest import run_check


def _env(values):
    return {"node": "n", "env": {"status": "ok", "values": dict(values), "hashed": {}},
            "python": {"status": "ok", "executable": "/usr/bin/python3"}}


def test_env_parity_pass_without_job_shaping_variables_has_no_empty_list():
    nodes = {h: _env({"LANG": "C.UTF-8", "SLURMD_NODENAME": h}) for h in ("sn1", "sn2")}
    res = run_check("env.parity", nodes)
    assert res.status == "pass", res
    assert res.evidence.startswith("1 variables the same on every node (none of them job-shaping)"), res.evidence
    assert "job-shaping: )" not in res.evidence


def test_env_parity_pass_still_lists_the_job_shaping_ones():
    nodes = {h: _env({"LANG": "C.UTF-8", "NCCL_SOCKET_IFNAME": "eth0"}) for h in ("sn1", "sn2")}
    res = run_check("env.parity", nodes)
    assert res.status == "pass" and "(1 job-shaping: NCCL_SOCKET_IFNAME)" in res.evidence, res.evidence

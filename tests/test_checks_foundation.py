"""The foundation checks over real captured facts (fixtures/nodes) and named variants."""

import pytest

from conftest import node_facts, patched, run_check

GiB = 1 << 30


@pytest.fixture
def dev():
    return node_facts("devbox-debian12-nogpu")


def statuses(res):
    return sorted(f.severity for f in res.findings)


# -- shm.size ---------------------------------------------------------------------------
@pytest.mark.parametrize("name,total,free,container,want", [
    ("docker-default-64m", 64 << 20, 64 << 20, "docker", ["error"]),
    ("host-512m", 512 << 20, 512 << 20, None, ["error"]),
    ("exactly-1g", GiB, GiB, None, []),
    ("big-but-full", 16 * GiB, 100 << 20, None, ["warning"]),
    ("big", 64 * GiB, 60 * GiB, None, []),
])
def test_shm_size(dev, name, total, free, container, want):
    facts = patched(dev, shm={"total_bytes": total, "free_bytes": free}, host={"container": container})
    res = run_check("shm.size", facts)
    assert statuses(res) == want, name
    if want == ["error"]:
        fix = res.findings[0].fix
        assert ("--shm-size" in fix) == bool(container) and ("remount" in fix) != bool(container)
        assert ("docker run --shm-size" in fix) == (container == "docker")


@pytest.mark.parametrize("runtime,flag", [("docker", "docker run --shm-size=16g"),
                                          ("podman", "podman run --shm-size=16g"),
                                          ("kubernetes", "emptyDir"), ("lxc", "--shm-size=16g")])
def test_shm_fix_names_the_runtimes_own_flag(dev, runtime, flag):
    res = run_check("shm.size", patched(dev, shm={"total_bytes": 64 << 20, "free_bytes": 64 << 20},
                                        host={"container": runtime}))
    fix = res.findings[0].fix
    assert flag in fix and "remount" not in fix
    assert ("docker" in fix) == (runtime == "docker") and ("podman" in fix) == (runtime == "podman")


def test_shm_threshold_comes_from_config(dev):
    facts = patched(dev, shm={"total_bytes": 2 * GiB, "free_bytes": 2 * GiB})
    assert statuses(run_check("shm.size", facts)) == []
    assert statuses(run_check("shm.size", facts, min_shm_bytes=8 * GiB)) == ["error"]


def test_shm_missing_fails_and_a_failed_read_skips(dev):
    facts = patched(dev)
    facts["shm"] = {"status": "unsupported", "reason": "/dev/shm does not exist"}
    res = run_check("shm.size", facts)  # no /dev/shm at all: NCCL cannot use its SHM transport
    assert res.status == "fail" and "/dev/shm does not exist" in res.summary
    facts["shm"] = {"status": "error", "reason": "statvfs failed: EIO"}
    res = run_check("shm.size", facts)  # the collector failed: could not judge
    assert res.status == "skipped" and "statvfs failed" in res.summary


# -- limits.memlock -----------------------------------------------------------------------
def test_memlock_without_rdma(dev):
    # the captured machine (a docker container, /.dockerenv): 8 MiB, no RDMA device visible; the
    # host's RDMA devices may simply not be passed in, so it stays a warning
    res = run_check("limits.memlock", dev)
    assert statuses(res) == ["warning"] and "8.0 MiB" in res.findings[0].message
    # the same on a host with no RDMA device and no RDMA driver: nothing pins memory, n/a
    host = patched(dev, host={"container": None})
    res = run_check("limits.memlock", host)
    assert res.status == "na" and "8.0 MiB" in res.summary and not res.findings
    # RDMA drivers loaded but no device visible: it may matter
    res = run_check("limits.memlock", patched(host, rdma={"modules_loaded": ["ib_core", "mlx5_ib"]}))
    assert statuses(res) == ["warning"]


def test_memlock_is_an_error_with_rdma_devices(dev):
    facts = patched(dev, rdma={"devices": [{"name": "mlx5_0", "ports": []}]})
    res = run_check("limits.memlock", facts)
    assert statuses(res) == ["error"] and "mlx5_0" in res.findings[0].message
    # the captured machine is a docker container: its runtime's flag, and none of the host's variants
    assert "docker run --ulimit memlock=-1:-1" in res.findings[0].fix and "LimitMEMLOCK" not in res.findings[0].fix
    for runtime, flag in (("podman", "podman run --ulimit memlock=-1:-1"), ("kubepods", "Kubernetes")):
        res = run_check("limits.memlock", patched(facts, host={"container": runtime}))
        assert flag in res.findings[0].fix and "docker" not in res.findings[0].fix, runtime
        assert "limits.conf" not in res.findings[0].fix and "LimitMEMLOCK=infinity;" not in res.findings[0].fix
    res = run_check("limits.memlock", patched(facts, host={"container": None}))  # a host: its own limits
    assert "LimitMEMLOCK=infinity" in res.findings[0].fix and "limits.conf" in res.findings[0].fix
    assert "docker" not in res.findings[0].fix


def test_memlock_unlimited_passes(dev):
    facts = patched(dev, limits={"memlock": {"soft": "unlimited", "hard": "unlimited", "unit": "bytes"}},
                    rdma={"devices": [{"name": "mlx5_0", "ports": []}]})
    assert run_check("limits.memlock", facts).status == "pass"


# -- ssh.permissions ----------------------------------------------------------------------
def _ssh(entries, uid=1000):
    return {"ssh": {"status": "ok", "home": "/home/u", "uid": uid, "user": "u", "entries": entries}}


def _e(path, mode, kind, uid=1000):
    return {"path": path, "mode": mode, "kind": kind, "uid": uid, "is_dir": kind in ("home", "ssh_dir")}


GOOD = [_e("/home/u", "0755", "home"), _e("/home/u/.ssh", "0700", "ssh_dir"),
        _e("/home/u/.ssh/authorized_keys", "0600", "authorized_keys"), _e("/home/u/.ssh/id_rsa", "0600", "private_key"),
        _e("/home/u/.ssh/id_rsa.pub", "0644", "public"), _e("/home/u/.ssh/config", "0644", "config")]


def test_ssh_permissions_good():
    assert run_check("ssh.permissions", _ssh(GOOD)).status == "pass"


@pytest.mark.parametrize("path,mode,kind,severity,fix", [
    ("/home/u", "0775", "home", "error", "chmod go-w -- /home/u"),
    ("/home/u/.ssh", "0777", "ssh_dir", "error", "chmod 700 -- /home/u/.ssh"),
    ("/home/u/.ssh", "0755", "ssh_dir", "warning", "chmod 700 -- /home/u/.ssh"),
    ("/home/u/.ssh/authorized_keys", "0664", "authorized_keys", "error", "chmod 600 -- /home/u/.ssh/authorized_keys"),
    ("/home/u/.ssh/authorized_keys", "0644", "authorized_keys", "warning", "chmod 600 -- /home/u/.ssh/authorized_keys"),
    ("/home/u/.ssh/id_rsa", "0644", "private_key", "error", "chmod 600 -- /home/u/.ssh/id_rsa"),
    ("/home/u/.ssh/config", "0666", "config", "error", "chmod 600 -- /home/u/.ssh/config"),
])
def test_ssh_permissions_bad_modes(path, mode, kind, severity, fix):
    entries = [e if e["path"] != path else _e(path, mode, kind) for e in GOOD]
    res = run_check("ssh.permissions", _ssh(entries))
    assert [(f.severity, f.fix) for f in res.findings] == [(severity, fix)]


def test_ssh_permissions_wrong_owner():
    entries = [e if e["kind"] != "authorized_keys" else _e(e["path"], "0600", "authorized_keys", uid=0) for e in GOOD]
    res = run_check("ssh.permissions", _ssh(entries))
    assert [f.fix for f in res.findings] == ["chown -- u: /home/u/.ssh/authorized_keys"]


def test_ssh_permissions_collected_from_a_real_home(tmp_path):
    """Real files, real modes: the collector + check find what sshd would refuse."""
    from gpudoctor.collector import Context, collect

    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    key = home / ".ssh" / "id_ed25519"
    key.write_text("-----BEGIN OPENSSH PRIVATE KEY-----\n")
    key.chmod(0o644)
    (home / ".ssh").chmod(0o700)
    home.chmod(0o755)
    facts = collect(Context(env={"HOME": str(home), "USER": "u", "PATH": "/usr/bin"}), only={"ssh"})
    res = run_check("ssh.permissions", facts)
    assert [f.fix for f in res.findings] == ["chmod 600 -- %s" % key]
    key.chmod(0o600)
    facts = collect(Context(env={"HOME": str(home), "USER": "u", "PATH": "/usr/bin"}), only={"ssh"})
    assert run_check("ssh.permissions", facts).status == "pass"


# -- driver.cuda / driver.mismatch -----------------------------------------------------------
def _gpu(driver, libs=None, init_error=None):
    return {"status": "ok", "driver_version": driver, "nvml_libs": {v: ["/usr/lib/x86_64-linux-gnu/libnvidia-ml.so." + v]
                                                                      for v in (libs or [driver])},
            "nvml": {"init_error": init_error} if init_error else {}}


def _torch(cuda, version="2.5.1"):
    return {"status": "ok", "torch": {"version": "%s+cu%s" % (version, cuda.replace(".", "")), "cuda": cuda}}


@pytest.mark.parametrize("driver,cuda,want", [
    ("470.82.01", "12.1", ["error"]),  # below the 12.x floor 525.60.13: "driver version is insufficient"
    ("525.85.12", "12.4", ["warning"]),  # 12.x minor-version compatibility, below 12.4's own 550.54.14
    ("550.54.15", "12.4", []),
    ("580.159.04", "13.0", []),  # a real H200 node (open kernel module 580.159.04, CUDA 13.0)
    ("575.57.08", "13.0", ["error"]),  # CUDA 13 needs the R580 driver
    ("450.51.05", "11.0", []),  # 11.0 GA predates the 450.80.02 floor of 11.x compatibility
])
def test_driver_cuda_table(dev, driver, cuda, want):
    facts = patched(dev, gpu=_gpu(driver), python=_torch(cuda), cuda={"nvcc_version": None})
    assert statuses(run_check("driver.cuda", facts)) == want


def test_driver_cuda_fix_names_a_torch_build_the_driver_runs(dev):
    facts = patched(dev, gpu=_gpu("535.104.05"), python=_torch("13.0"), cuda={"nvcc_version": None})
    f = run_check("driver.cuda", facts).findings[0]
    assert "cu122" in f.fix and ">= 580.65.06" in f.fix


def test_driver_cuda_judges_the_toolkit_too(dev):
    facts = patched(dev, gpu=_gpu("535.104.05"), python={"torch": None}, cuda={"nvcc_version": "13.0.88"})
    f = run_check("driver.cuda", facts).findings[0]
    assert f.severity == "error" and "toolkit 13.0.88" in f.message


def test_driver_cuda_is_skipped_without_a_driver(dev):
    res = run_check("driver.cuda", dev)  # the dev machine has no NVIDIA driver
    assert res.status == "na" and "no NVIDIA driver loaded" in res.summary


def test_driver_mismatch(dev):
    ok = patched(dev, gpu=_gpu("580.159.04"))
    assert run_check("driver.mismatch", ok).status == "pass"
    upgraded = patched(dev, gpu=_gpu("570.124.06", libs=["580.95.05"]))
    f = run_check("driver.mismatch", upgraded).findings[0]
    assert f.severity == "error" and "570.124.06" in f.message and "reboot" in f.fix
    wedged = patched(dev, gpu=_gpu("570.124.06", init_error="Driver/library version mismatch"))
    assert statuses(run_check("driver.mismatch", wedged)) == ["error"]


def test_severity_override_from_config(dev):
    from gpudoctor.config import Config

    facts = patched(dev, shm={"total_bytes": 64 << 20, "free_bytes": 64 << 20})
    res = run_check("shm.size", facts, config=Config(severity={"shm.size": "warning"}))
    assert statuses(res) == ["warning"]

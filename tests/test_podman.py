"""gpudoctor inside a real container: rootful podman with runc (Debian's podman 4.3; crun
fails on this kernel's hybrid cgroups). No registry is reachable, so the image is imported
from a tar of a near-empty root (the /bin, /lib symlinks and /etc/passwd), built once per
session in about 0.5 s, and the interpreter, the venv and the repository are bind-mounted
read-only. /dev/shm, the rlimits, /proc and /run/.containerenv are the container's own:
what gpudoctor reports is what a job in that container sees.

Seen here: podman's default /dev/shm is 64 MB (62.5 MiB), `--shm-size=8g` gives 8 GiB,
`--ulimit memlock=65536:65536` a 64 KiB memlock (podman-run(1), --shm-size and --ulimit:
https://docs.podman.io/en/latest/markdown/podman-run.1.html).
"""

import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _reason():
    if os.geteuid() != 0:
        return "rootful podman needs root"
    for exe in ("podman", "runc"):
        if not shutil.which(exe) and not os.access("/usr/sbin/" + exe, os.X_OK):
            return "%s is not installed (tests/run.sh installs Debian's podman and runc)" % exe
    return None


class Podman(object):
    def __init__(self, base):
        self.base = base
        self.image = "localhost/gpudoctor-test:%d" % os.getpid()
        # podman refuses a --runroot longer than 50 characters; under two pytest-xdist workers the base
        # temporary folder gains a level (.../pytest-N/popen-gw0/podman0/run: 54), so the runroot is a short
        # folder of its own, removed by close()
        self.runroot = tempfile.mkdtemp(prefix="gdpm-", dir="/tmp")
        # private storage: never the machine's /var/lib/containers
        self.cmd = ["podman", "--root", os.path.join(base, "storage"), "--runroot", self.runroot,
                    "--cgroup-manager=cgroupfs", "--runtime", "runc"]

    def build(self):
        tar = os.path.join(self.base, "root.tar")
        with tarfile.open(tar, "w") as t:
            for name, target in (("bin", "usr/bin"), ("sbin", "usr/sbin"), ("lib", "usr/lib"), ("lib64", "usr/lib64")):
                info = tarfile.TarInfo(name)
                info.type, info.linkname = tarfile.SYMTYPE, target
                t.addfile(info)
            for d in ("usr", "etc", "tmp", "root", "run"):
                info = tarfile.TarInfo(d)
                info.type, info.mode = tarfile.DIRTYPE, 0o1777 if d == "tmp" else 0o755
                t.addfile(info)
            data = b"root:x:0:0:root:/root:/bin/sh\n"
            info = tarfile.TarInfo("etc/passwd")
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
        with open(tar, "rb") as f:
            p = subprocess.run(self.cmd + ["import", "-", self.image], stdin=f, capture_output=True, text=True,
                               timeout=120)
        assert p.returncode == 0, p.stderr

    def mounts(self):
        """The interpreter, the venv and the repository, read-only at the same paths."""
        paths = {"/usr", ROOT, os.path.realpath(sys.prefix), os.path.realpath(sys.base_prefix),
                 os.path.dirname(os.path.dirname(os.path.realpath(sys.executable)))}
        out = []
        for p in sorted(paths):
            if any(p != q and p.startswith(q.rstrip("/") + "/") for q in paths):
                continue  # inside another mount
            out += ["-v", "%s:%s:ro" % (p, p)]
        return out

    def gpudoctor(self, *run_flags, args=("check", "--fast", "--select", "shm.size,limits.memlock", "--json")):
        cmd = self.cmd + ["run", "--rm", "--network", "none", "--ulimit", "nofile=1024:1024",
                          "--ulimit", "nproc=1024:1024"] + list(run_flags) + self.mounts() + [
            "--env", "PYTHONDONTWRITEBYTECODE=1", self.image, sys.executable, "-m", "gpudoctor"] + list(args)
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
        return p.returncode, p.stdout, p.stderr

    def close(self):
        subprocess.run(self.cmd + ["rmi", "-f", self.image], capture_output=True, timeout=60)
        subprocess.run(self.cmd + ["system", "reset", "-f"], capture_output=True, timeout=60)
        shutil.rmtree(self.base, ignore_errors=True)
        shutil.rmtree(self.runroot, ignore_errors=True)


@pytest.fixture(scope="module")
def podman(tmp_path_factory):
    reason = _reason()
    if reason:
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    pm = Podman(str(tmp_path_factory.mktemp("podman")))
    try:
        pm.build()
        yield pm
    finally:
        pm.close()


def _findings(out):
    rep = json.loads(out)
    checks = dict((c["id"], c) for c in rep["checks"])
    found = dict((f["check"], f) for f in rep["findings"])
    return checks, found


def test_default_container_shm_fails_with_podmans_own_fix(podman):
    rc, out, err = podman.gpudoctor()
    checks, found = _findings(out)
    shm = found["shm.size"]
    assert shm["severity"] == "error" and "(container: podman)" in shm["message"], shm
    assert shm["observed"] == "62.5 MiB"  # podman's default: 64 MB
    assert "podman run --shm-size=16g" in shm["fix"] and "docker" not in shm["fix"]
    mem = found["limits.memlock"]
    assert "podman run --ulimit memlock=-1:-1" in mem["fix"], mem
    assert "docker" not in mem["fix"] and "limits.conf" not in mem["fix"] and "slurmd" not in mem["fix"]
    assert rc == 1, err


def test_shm_size_8g_passes_and_a_lowered_memlock_is_reported(podman):
    rc, out, err = podman.gpudoctor("--shm-size=8g", "--ulimit", "memlock=65536:65536")
    checks, found = _findings(out)
    assert checks["shm.size"]["status"] == "pass" and "/dev/shm 8.0 GiB" in checks["shm.size"]["evidence"], (
        checks["shm.size"], err)
    mem = found["limits.memlock"]
    assert mem["observed"] == "soft 64.0 KiB, hard 64.0 KiB", mem
    assert "podman run --ulimit memlock=-1:-1" in mem["fix"]


def test_kubernetes_init_container_recipe_passes_shm_with_the_emptydir(podman):
    """docs/kubernetes.md's init container: the emptyDir {medium: Memory} at /dev/shm is a
    tmpfs of its sizeLimit (https://kubernetes.io/docs/concepts/storage/volumes/#emptydir),
    a read-only root filesystem, the documented command. podman's --tmpfs stands in for
    the kubelet's mount; what gpudoctor reads is the same: a tmpfs at /dev/shm."""
    rc, out, err = podman.gpudoctor("--read-only", "--tmpfs", "/dev/shm:rw,size=2g",
                                    args=("check", "--timeout", "60", "--ignore", "ssh", "--json"))
    checks, found = _findings(out)
    assert checks["shm.size"]["status"] == "pass" and "/dev/shm 2.0 GiB" in checks["shm.size"]["evidence"], (
        checks["shm.size"], err)
    assert rc in (0, 1) and not [c for c in checks.values() if c.get("crashed")], err
    assert not any(c.startswith("ssh.") for c in checks)

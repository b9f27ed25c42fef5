"""/dev/shm must hold NCCL's and DataLoader's shared segments (Docker's default is 64 MB:
NCCL fails with "failed to extend /dev/shm", DataLoader workers with "Bus error")."""

from gpudoctor.registry import Finding, Pass, Skip, check
from gpudoctor.util import container_of, human_bytes

FIX_CONTAINER = ("in a container: restart it with --shm-size=16g (or --ipc=host); "
                 "Kubernetes: mount an emptyDir {medium: Memory, sizeLimit: 16Gi} at /dev/shm")
FIX_HOST = "on a host: mount -o remount,size=16G /dev/shm (persist it in /etc/fstab)"
# The runtime's own flag, where the facts name the runtime (host.container comes from evidence
# of one: /.dockerenv, /run/.containerenv, the cgroup of PID 1; never from /dev/shm's size).
# docker run --shm-size: https://docs.docker.com/reference/cli/docker/container/run/#shm-size;
# podman run --shm-size: https://docs.podman.io/en/latest/markdown/podman-run.1.html#shm-size-number-unit
FIX_RUNTIME = {
    "docker": "in a docker container: restart it with docker run --shm-size=16g ... (or --ipc=host)",
    "podman": "in a podman container: restart it with podman run --shm-size=16g ... (or --ipc=host)",
    "kubernetes": "Kubernetes: mount an emptyDir {medium: Memory, sizeLimit: 16Gi} at /dev/shm",
    "kubepods": "Kubernetes: mount an emptyDir {medium: Memory, sizeLimit: 16Gi} at /dev/shm",
}


# Full: less free than Docker's whole default /dev/shm (64 MB), where NCCL fails "failed to extend /dev/shm", or than
# a quarter of the site's shm_min where that is smaller
SHM_FULL_BYTES = 64 << 20


def container_fix(container):
    return FIX_RUNTIME.get(container, FIX_CONTAINER) if container else FIX_HOST


@check("shm.size", title="/dev/shm is large enough for NCCL and DataLoader workers", needs=("host",),
       also_reads=("shm",))
def shm_size(facts, config):
    shm = facts.get("shm") or {}
    if shm.get("status") == "unsupported":  # no /dev/shm at all: NCCL's SHM transport cannot start
        yield Finding.error("/dev/shm does not exist: NCCL (SHM transport) and DataLoader workers need it",
                            observed=shm.get("reason") or "no /dev/shm", expected="a tmpfs at /dev/shm",
                            fix=container_fix(container_of(facts)) if container_of(facts)
                            else "mount -t tmpfs -o size=16G tmpfs /dev/shm (persist it in /etc/fstab)")
        return
    if shm.get("status") != "ok":
        yield Skip("shm: %s" % (shm.get("reason") or shm.get("status") or "not collected"))
        return
    want = config.min_shm_bytes
    if not all(isinstance(shm.get(k), int) and not isinstance(shm.get(k), bool) for k in ("total_bytes", "free_bytes")):
        yield Skip("shm: total_bytes/free_bytes in the facts are not byte counts")  # untrusted node output
        return
    container = container_of(facts)
    fix = container_fix(container)
    if shm["total_bytes"] < want:
        yield Finding.error(
            "/dev/shm is %s%s, below the %s minimum" % (
                human_bytes(shm["total_bytes"]), " (container: %s)" % container if container else "", human_bytes(want)),
            observed=human_bytes(shm["total_bytes"]), expected=">= %s" % human_bytes(want), fix=fix)
    elif shm["free_bytes"] < min(SHM_FULL_BYTES, want // 4):
        # as little room as Docker's default gives in all, which NCCL's SHM transport and DataLoader workers already
        # fail in; a node's prolog passed (a warning) with 5 MiB free of 1.1 GiB, left by a job's segments (slurm27)
        yield Finding.error(
            "/dev/shm is full: %s free of %s (segments that earlier jobs left?)" % (
                human_bytes(shm["free_bytes"]), human_bytes(shm["total_bytes"])),
            observed="%s free" % human_bytes(shm["free_bytes"]), expected=">= %s free" % human_bytes(want),
            fix="ls -la /dev/shm  # remove the leftovers of finished jobs (nccl-*, torch_*, psm_*), then check again")
    elif shm["free_bytes"] < want:
        yield Finding.warning(
            "/dev/shm has only %s free of %s: stale segments of earlier jobs?" % (
                human_bytes(shm["free_bytes"]), human_bytes(shm["total_bytes"])),
            observed="%s free" % human_bytes(shm["free_bytes"]), expected=">= %s free" % human_bytes(want),
            fix="ls -la /dev/shm  # remove the leftovers of finished jobs (nccl-*, torch_*), or " + fix)
    else:
        yield Pass("/dev/shm %s (%s free) >= %s" % (
            human_bytes(shm["total_bytes"]), human_bytes(shm["free_bytes"]), human_bytes(want)))

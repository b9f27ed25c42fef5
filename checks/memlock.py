"""RDMA registers (pins) memory: a low RLIMIT_MEMLOCK makes NCCL's ibv_reg_mr fail
(NCCL troubleshooting: "Runtime and MPI issues"; docker needs --ulimit memlock=-1)."""

from gpudoctor.registry import NA, Finding, Pass, Skip, check
from gpudoctor.util import container_of, human_bytes

FIX = "\n".join([
    "container:  docker run --ulimit memlock=-1:-1 ...   (Kubernetes: set it in the container runtime's default ulimits)",
    "login/ssh:  echo '* soft memlock unlimited' >> /etc/security/limits.conf; "
    "echo '* hard memlock unlimited' >> /etc/security/limits.conf   (then log in again)",
    "slurmd:     systemctl edit slurmd  ->  [Service] LimitMEMLOCK=infinity; systemctl restart slurmd "
    "(and PropagateResourceLimitsExcept=MEMLOCK in slurm.conf)",
])


# In a container the limit is the runtime's: only its own flag raises it (the login and
# slurmd variants are the host's, not this container's). docker run --ulimit:
# https://docs.docker.com/reference/cli/docker/container/run/#ulimit; podman run --ulimit:
# https://docs.podman.io/en/latest/markdown/podman-run.1.html#ulimit-option
FIX_RUNTIME = {
    "docker": "container:  docker run --ulimit memlock=-1:-1 ...   (or \"default-ulimits\" in /etc/docker/daemon.json)",
    "podman": "container:  podman run --ulimit memlock=-1:-1 ...   (or default_ulimits in containers.conf)",
    "kubernetes": "Kubernetes: set memlock in the container runtime's default ulimits (containerd: "
                  "LimitMEMLOCK=infinity in its systemd unit), then restart the pod",
}
FIX_RUNTIME["kubepods"] = FIX_RUNTIME["containerd"] = FIX_RUNTIME["kubernetes"]


FIX_HOST = "\n".join(FIX.splitlines()[1:])  # login/ssh and slurmd: a host's own limits


def fix_for(container, slurm=False):
    """The fix lines for where the limit comes from. In a Slurm job or hook the limit is also
    slurmd's: a job's tasks and its prolog get slurmd's hard limit, under which srun sets the
    caller's soft one (slurm.conf(5), PropagateResourceLimits). Seen on a real 4-node Slurm in a
    docker container: the node whose slurmd ran under 64 KiB was given only `docker run
    --ulimit`, which the container already had at 8 MiB."""
    if not container:
        return FIX_HOST
    runtime = FIX_RUNTIME.get(container, FIX.splitlines()[0])
    return runtime + "\n" + FIX.splitlines()[2] if slurm else runtime


def in_slurm(facts):
    """Whether the facts were read in a Slurm job step or hook: SLURM_JOB_ID (a step, srun(1)) or
    SLURMD_NODENAME (a step, a prolog or a HealthCheckProgram) among the names of the node's
    environment (its env section lists names; read only to pick the fix, never for the verdict)."""
    env = facts.get("env") if isinstance(facts, dict) else None
    if not isinstance(env, dict):
        return False
    names = set()
    for part in ("values", "hashed"):
        if isinstance(env.get(part), dict):
            names.update(env[part])
    return bool(names & {"SLURM_JOB_ID", "SLURMD_NODENAME"})


def _limit(v):
    return v == "unlimited" or (isinstance(v, int) and not isinstance(v, bool) and v >= 0)


def _list(v):
    return v if isinstance(v, list) else []


def _show(v):
    return "unlimited" if v == "unlimited" else human_bytes(v)


@check("limits.memlock", title="locked-memory limit is unlimited (RDMA pins memory)", needs=("limits",),
       also_reads=("host", "rdma"))
def memlock(facts, config):
    lim = facts["limits"].get("memlock")
    if not lim:
        yield NA("this platform reports no RLIMIT_MEMLOCK")
        return
    if not isinstance(lim, dict) or not all(_limit(lim.get(k)) for k in ("soft", "hard")):
        # node output is untrusted: a malformed limit is not judged (and must not crash the check)
        yield Skip("memlock limit in the facts is not a number of bytes or 'unlimited'")
        return
    if lim["soft"] == "unlimited" and lim["hard"] == "unlimited":
        yield Pass("memlock soft unlimited, hard unlimited (limit read from %s)" % facts["limits"].get("source", "getrlimit"))
        return
    rdma = facts.get("rdma") or {}
    devices = [d["name"] for d in _list(rdma.get("devices")) if isinstance(d, dict) and isinstance(d.get("name"), str)
               ] if rdma.get("status") == "ok" else []
    observed = "soft %s, hard %s" % (_show(lim["soft"]), _show(lim["hard"]))
    container = container_of(facts)
    if rdma.get("status") == "ok" and not devices and not rdma.get("modules_loaded") and not container:
        # only RDMA pins memory under RLIMIT_MEMLOCK; NCCL over sockets and CUDA's pinned host
        # memory (cudaHostAlloc) do not count against it: a warning here would be noise. In a
        # container the host's RDMA devices may simply not be passed in: keep the warning there.
        yield NA("memlock is %s, but this node has no RDMA device or RDMA driver loaded (NCCL uses sockets)"
                 % observed)
        return
    fix = fix_for(container, in_slurm(facts))
    if lim["hard"] == "unlimited":  # only the soft limit is low: the job raises it itself (setrlimit(2))
        fix = "job script:  ulimit -l unlimited   (the hard limit allows it: no root needed)\n" + fix
    if devices:
        yield Finding.error("memlock is %s while RDMA devices exist (%s): ibv_reg_mr will fail"
                            % (observed, ", ".join(devices)), observed=observed, expected="unlimited", fix=fix)
    else:
        yield Finding.warning("memlock is %s; NCCL over RDMA needs it unlimited" % observed,
                              observed=observed, expected="unlimited", fix=fix)

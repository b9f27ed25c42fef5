"""The process limits that end or starve a training job, besides memlock (checks/memlock.py).

setrlimit(2) (https://man7.org/linux/man-pages/man2/setrlimit.2.html), per limit:
- RLIMIT_FSIZE (ulimit -f): a write past it raises SIGXFSZ (signal(7): default action Core), or fails with EFBIG
  where the signal is ignored (CPython ignores it): the first large checkpoint ends the job;
- RLIMIT_AS (ulimit -v): mmap/malloc fail with ENOMEM once the address space is used; the CUDA driver reserves
  far more virtual address space than GPU memory at its first call, so CUDA fails to start although the GPU is free;
- RLIMIT_DATA (ulimit -d): since Linux 4.7 it counts private anonymous mappings too: the same failures;
- RLIMIT_CPU (ulimit -t): SIGXCPU at the soft limit, SIGKILL at the hard one: a long run is killed;
- RLIMIT_NOFILE (ulimit -n): EMFILE; DataLoader workers pass tensors as file descriptors (torch's
  'file_descriptor' sharing strategy), NCCL and Gloo open sockets per peer;
- RLIMIT_NPROC (ulimit -u): counts the user's threads: fork/pthread_create fail with EAGAIN (OpenMP, DataLoader);
- RLIMIT_STACK and RLIMIT_CORE are shown, not judged (the stack size is the threads' default size; core 0 is
  core dumps off).
Where each is set: /etc/security/limits.conf (limits.conf(5) items), a systemd unit's Limit*= (systemd.exec(5)),
docker/podman run --ulimit (names of go-units' ulimit table: no 'as'), Slurm's PropagateResourceLimits
(slurm.conf(5): the submitting shell's limits follow the job, by default all of them). Kubernetes has no setting
of its own: a pod gets the container runtime's (containerd's systemd unit's) limits.
"""

from gpudoctor.drift import describe, group
from gpudoctor.registry import NA, Finding, Pass, Skip, check
from gpudoctor.util import container_of, human_bytes

# key: (RLIMIT name, ulimit option, limits.conf item, systemd directive, docker/podman --ulimit name or None,
#       Slurm PropagateResourceLimits name)
PLACES = {
    "fsize": ("RLIMIT_FSIZE", "-f", "fsize", "LimitFSIZE", "fsize", "FSIZE"),
    "as": ("RLIMIT_AS", "-v", "as", "LimitAS", None, "AS"),
    "data": ("RLIMIT_DATA", "-d", "data", "LimitDATA", "data", "DATA"),
    "cpu": ("RLIMIT_CPU", "-t", "cpu", "LimitCPU", "cpu", "CPU"),
    "nofile": ("RLIMIT_NOFILE", "-n", "nofile", "LimitNOFILE", "nofile", "NOFILE"),
    "nproc": ("RLIMIT_NPROC", "-u", "nproc", "LimitNPROC", "nproc", "NPROC"),
    "stack": ("RLIMIT_STACK", "-s", "stack", "LimitSTACK", "stack", "STACK"),
    "core": ("RLIMIT_CORE", "-c", "core", "LimitCORE", "core", "CORE"),
}
# key -> (severity when not unlimited / below the floor, floor or None for 'must be unlimited', what breaks)
RULES = {
    "fsize": ("error", None, "a checkpoint larger than it fails (SIGXFSZ 'File size limit exceeded', or EFBIG "
                             "'File too large' in Python)"),
    "as": ("error", None, "allocations fail with ENOMEM / std::bad_alloc, and CUDA cannot reserve its address space "
                          "at start ('out of memory' with the GPU free)"),
    "data": ("warning", None, "private allocations past it fail with ENOMEM (Linux 4.7+ counts anonymous mmaps)"),
    "cpu": ("error", None, "the process is sent SIGXCPU ('CPU time limit exceeded') after that much CPU time"),
    "nofile": ("warning", 4096, "DataLoader workers and NCCL/Gloo sockets run out of descriptors ('Too many open "
                                "files', 'received 0 items of ancdata')"),
    "nproc": ("warning", 4096, "it counts the user's threads: OpenMP/BLAS thread pools and DataLoader workers fail to "
                               "start (EAGAIN, 'Resource temporarily unavailable')"),
}
JUDGED = ("fsize", "as", "data", "cpu", "nofile", "nproc")
SHOWN = ("stack", "core")
BYTES = ("fsize", "as", "data", "stack", "core")


def _limit(v):
    return v == "unlimited" or (isinstance(v, int) and not isinstance(v, bool) and v >= 0)


def show(key, v):
    if v == "unlimited":
        return "unlimited"
    if key in BYTES:
        return human_bytes(v)
    return "%d s" % v if key == "cpu" else str(v)


def soft_up_to_hard(floor, hard, want):
    """The value a soft limit can be raised to that the hard limit already allows (soft 1024, hard 524288: a
    login's default nofile under systemd; soft 1024, hard 20000 in a container), else None. Any process may raise
    its soft limit up to its hard one (setrlimit(2): "an unprivileged process may set only its soft limit to a
    value in the range from 0 up to the hard limit"), in the job's shell or launch script: no root, no new
    container, no log-in again."""
    if floor is None:  # the limit must go: only an unlimited hard limit lets it
        return "unlimited" if hard == "unlimited" else None
    if hard == "unlimited" or hard >= int(want):
        return want
    return str(hard) if hard >= floor else None  # past the floor but below the usual value: as high as it goes


# the fix's line for a soft limit the hard one lets the job raise itself
RAISE = "job script:  ulimit %s %s   (the hard limit allows it: no root needed)"


def fix_for(key, container, floor, hard=None):
    opt = PLACES[key][1]
    want = "unlimited" if floor is None else "65536"
    value = soft_up_to_hard(floor, hard, want) if hard is not None else None
    lines = _fix_for(key, container, floor).splitlines()
    if value:  # first, in place of the host's own job-script line (a container's runtime line follows)
        lines = [RAISE % (opt, value)] + [x for x in lines if not x.startswith("job script:")]
    return "\n".join(lines)


def _fix_for(key, container, floor):
    rl, opt, item, unit, ulim, slurm = PLACES[key]
    want = "unlimited" if floor is None else "65536"
    if container in ("kubernetes", "kubepods", "containerd"):
        return ("Kubernetes has no per-pod setting: raise %s=%s in the container runtime's systemd unit "
                "(containerd), then restart the pod" % (unit, "infinity" if floor is None else want))
    if container in ("docker", "podman"):
        if ulim is None:
            return ("%s run has no --ulimit for %s: the container inherits the engine's; raise %s in the engine's "
                    "unit (docker.service) or the user's limits (rootless podman)" % (container, rl, unit))
        return "%s run --ulimit %s=%s ..." % (container, ulim, "-1" if floor is None else "%s:%s" % (want, want))
    return "\n".join([
        "job script:  ulimit %s %s   (up to the hard limit: ulimit -H%s)" % (opt, want, opt[1:]),
        "login/ssh:   /etc/security/limits.conf  '* - %s %s'   (then log in again)" % (item, want),
        "systemd:     [Service] %s=%s in the unit that starts the job (slurmd, a service)"
        % (unit, "infinity" if floor is None else want),
        "Slurm:       the job gets the submitting shell's limit (PropagateResourceLimits): submit from a shell "
        "without it, or PropagateResourceLimitsExcept=%s in slurm.conf" % slurm,
    ])


@check("limits.process", title="no file-size, address-space or CPU limit; open files/processes high", needs=("limits",), also_reads=("host",))
def process_limits(facts, config):
    lims = facts["limits"]
    shown, problems, bad, absent = [], [], [], []
    for key in JUDGED + SHOWN:
        lim = lims.get(key)
        if lim is None:
            absent.append(key)
            continue
        if not isinstance(lim, dict) or not all(_limit(lim.get(k)) for k in ("soft", "hard")):
            bad.append(key)  # node output is untrusted: a malformed limit is not judged
            continue
        soft = lim["soft"]
        shown.append("%s %s" % (key, show(key, soft)))
        if key in RULES:
            sev, floor, breaks = RULES[key]
            low = soft != "unlimited" and (floor is None or soft < floor)
            if low:
                problems.append((key, sev, floor, breaks, soft, lim["hard"]))
    if not shown:
        yield Skip("the facts name none of the limits %s%s" % (", ".join(JUDGED + SHOWN),
                   " (malformed: %s)" % ", ".join(bad) if bad else " (collected by an older gpudoctor?)"))
        return
    container = container_of(facts)
    for key, sev, floor, breaks, soft, hard in problems:
        rl, opt = PLACES[key][:2]
        observed = "soft %s, hard %s" % (show(key, soft), show(key, hard))
        expected = "unlimited" if floor is None else ">= %d" % floor
        yield Finding(severity=sev, message="%s (ulimit %s) is %s: %s" % (rl, opt, observed, breaks),
                      observed=observed, expected=expected, fix=fix_for(key, container, floor, hard))
    if bad:
        yield Finding.info("not judged: the facts' %s limit is not a number or 'unlimited'" % ", ".join(bad))
    missing = [k for k in JUDGED if k in absent]
    if not problems and missing:
        # the title's claim is not earned for a limit the facts do not hold (facts of an older collector)
        yield Skip("not judged: %s not in the facts (collected by an older gpudoctor?); read: %s" % (
            ", ".join(missing), ", ".join(shown)))
    elif not problems:
        yield Pass("%s (read from %s%s)" % (", ".join(shown), lims.get("source", "getrlimit"),
                                            "; not in the facts: %s" % ", ".join(absent) if absent else ""))


def _soft(facts, key):
    lims = facts.get("limits") if isinstance(facts, dict) else None
    if not isinstance(lims, dict) or lims.get("status") not in (None, "ok"):
        return None
    lim = lims.get(key)
    if not isinstance(lim, dict) or not _limit(lim.get("soft")):
        return None
    return show(key, lim["soft"])


@check("limits.parity", title="process limits (ulimit) are the same on every node", needs=("limits",),
       scope="cluster")
def limits_parity(nodes, config):
    same, compared = [], 0
    for key in ("memlock",) + JUDGED + SHOWN:
        values = {h: _soft(f, key) for h, f in nodes.items()}
        unknown = [h for h, v in values.items() if v is None]
        values = {h: v for h, v in values.items() if v is not None}
        if len(values) < 2:
            continue
        compared += 1
        if unknown:
            yield Skip("%s not compared: no readable limit in the facts" % key, hosts=unknown)
        groups = group(values)
        if len(groups) == 1:
            same.append("%s %s" % (key, groups[0].value))
            continue
        odd = [h for g in groups[1:] for h in g.hosts]
        label = "%s soft limit" % key
        # a warning: limits.process (and limits.memlock) judge each node's value itself
        yield Finding(severity="warning", message=describe(label, groups),
                      observed="; ".join(g.show() for g in groups[1:]), expected=str(groups[0].value),
                      # a constant (tests/test_fix_paste.py: no fix is formatted from node values); the
                      # message names the nodes and their values
                      fix="make this limit match on the nodes named above where the job's processes get it: "
                          "limits.conf, the slurmd/containerd unit's Limit*=, --ulimit, the submitting shell",
                      hosts=odd)
    if not compared:
        yield NA("no limit known on two nodes or more")
    elif same:
        yield Pass("the same on every node: " + ", ".join(same))

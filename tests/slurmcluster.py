"""A real multi-node Slurm on one machine: one slurmctld, and one slurmd per "node", each
in its own network namespace (a veth pair on a private bridge, its own address) and its
own UTS namespace (its own hostname). Debian's stock slurmctld/slurmd 22.05, auth/none.

How (the recipe tried on these machines, kept beside the code):
- the controller runs in the host's namespaces and listens on the bridge's address;
- each slurmd: ``nsenter --net=/var/run/netns/NS unshare --uts [--mount] sh -c
  'hostname N; [mount -t tmpfs -o size=64m tmpfs /dev/shm;] exec slurmd -D ...'``.
  nsenter, not ``ip netns exec``: the latter remounts /sys and slurmd then dies with
  "No filesystem mounted on /sys/fs/cgroup"; a node mounts its own sysfs (so that
  /sys/class/net is its own) with this machine's /sys/fs/cgroup moved back beneath it;
- a node's faults come from the namespaces it starts in: ``shm`` is a private mount
  namespace with a 64 MiB tmpfs on /dev/shm (what docker gives a container by default),
  ``memlock`` a slurmd started under a 64 KiB RLIMIT_MEMLOCK, which every job and prolog
  inherits from slurmd; ``uverbs`` a node whose /sys/class and /dev are overlays with upper
  layers of its own, so that a test gives it an HCA in /sys (mlx5_0, port 1 ACTIVE) without
  /dev/infiniband (ib_uverbs/rdma_ucm not loaded, a container started without --device), or
  with it, on that node alone (``uverbs``).

Prolog= and HealthCheckProgram= are wrappers that do nothing until a test writes the
file they name (``prolog.enabled``, ``hc.enabled``): the periodic health check cannot
race tests that do not want it. PrologFlags=Alloc is set only while the prolog is enabled
(every salloc waits 3 s for a prolog at allocation: ``_prolog_at_allocation``).

Besides the default partition ``debug`` (OverSubscribe=NO), every node is in ``shared``
(OverSubscribe=FORCE:4: jobs share cores) and ``whole`` (OverSubscribe=EXCLUSIVE: a job gets
whole nodes), and sn1 and sn2 in ``front`` (hidden: Hidden=YES); a job goes there only when a
test asks (``-p``, ``SLURM_PARTITION``).

``munge``: the cluster authenticates with real MUNGE (Debian's munged) instead of auth/none: one
munged for the controller and one per node, each on its own socket; a node's mount namespace
has its own socket at the path slurm.conf's AuthInfo names and at /run/munge (munge(1)'s
default), and its key at /etc/munge/munge.key. ``munge={i: "key"}`` gives node i a key of its
own (every credential between it and the others: "Invalid credential"); ``{i: "+600s"}`` runs
its munged under libfaketime (FAKETIME, Debian's libfaketime, or the path in GD_LIBFAKETIME), a
clock 600 s ahead: its credentials are "Rewound" for the others, theirs "Expired" for it
(munge's default TTL is 300 s: munge(1) --ttl, https://github.com/dun/munge/wiki/Man-1-munge).

Every wait is on a state with a deadline (no fixed sleeps).
"""

import os
import random
import re
import resource
import shutil
import signal
import socket
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONTRIB = os.path.join(ROOT, "contrib", "slurm")
SHM_SMALL = "64m"
MEMLOCK_LOW = 64 * 1024


def _exe(name):
    return shutil.which(name) or ("/usr/sbin/" + name if os.access("/usr/sbin/" + name, os.X_OK) else None)


def unavailable():
    """Why this machine cannot run the cluster, or None."""
    if os.geteuid() != 0:
        return "needs root (network namespaces, slurmd as root)"
    for exe in ("slurmctld", "slurmd", "srun", "sinfo", "scontrol", "salloc"):
        if not _exe(exe):
            return "%s is not installed (tests/run.sh installs Debian's slurmctld/slurmd/slurm-client)" % exe
    for exe in ("ip", "nsenter", "unshare"):
        if not _exe(exe):
            return "%s is not installed (iproute2, util-linux)" % exe
    return None


def libfaketime():
    """libfaketime's preload library (Debian's libfaketime package, or GD_LIBFAKETIME), or None."""
    for p in (os.environ.get("GD_LIBFAKETIME") or "", "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1",
              "/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1"):
        if p and os.path.exists(p):
            return p
    return None


def munge_unavailable(faults=()):
    """Why the cluster cannot run with MUNGE here, or None."""
    if not (_exe("munged") and _exe("munge") and _exe("unmunge")):
        return "munge is not installed (Debian's munge package)"
    if any(v.startswith(("+", "-")) for v in faults) and not libfaketime():
        return "libfaketime is not installed (Debian's libfaketime package)"
    return None


def _ip(*args):
    subprocess.run(["ip"] + list(args), check=True, capture_output=True, timeout=10)


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_requeued_now(run, job, pending_seen_at, timeout=3):
    """``scontrol update jobid=JOB StartTime=now`` for a batch job that a requeue left PENDING
    (seen so at ``pending_seen_at``, this machine's clock, which is slurmctld's), once the
    clock is in a later second than that.

    Why: the requeue's kill revoked the job's credential on its nodes at the kill's time, in
    whole seconds (src/slurmd/slurmd/req.c _rpc_terminate_job -> slurm_cred_revoke). A new
    credential counts as revoked while its ctime <= that time, and slurmd forgets the
    revocation only for a newer one (src/common/slurm_cred.c slurm_cred_revoked,
    slurm_cred_handle_reissue). Slurm itself makes a requeued job eligible 121 s later for
    that reason (src/slurmctld/job_mgr.c batch_requeue_fini: "The time stamp on the new batch
    launch credential must be larger than the time stamp on the revoke request"). A begin
    time moved to now skips that: when slurmctld started the rerun in the same second as the
    requeue, slurmd refused its launch ("Job N already killed, do not launch batch job") and
    slurmctld ended the job FAILED, ExitCode 1:0 ("Killing non-startable batch JobId=N: Job
    credential revoked", src/slurmctld/agent.c) - CI's failure of the multi-node requeue
    test, reproduced 8 times in 8 by a requeue at a second's start then StartTime=now. The
    kill came before the PENDING that was seen, so a rerun allocated in a later second holds a
    newer credential. StartTime=now+1 would do too, but slurmctld then started the job only
    at its next periodic pass (23-26 s here)."""
    t0 = time.time()
    while int(time.time()) <= int(pending_seen_at):  # at most one second
        assert time.time() - t0 < timeout, "the clock did not move on (%s)" % time.time()
        time.sleep(0.01)
    run("scontrol", "update", "jobid=%s" % job, "StartTime=now", check=True)


class MultiSlurm(object):
    """faults: {node index (1-based): "shm" | "memlock" | "uverbs"}."""

    def __init__(self, base, n=4, faults=None, hooks=True, munge=None):
        self.hooks = hooks
        self.munge = None if munge is None else dict(munge)  # {node index: "key" | "+600s"}: see the module's doc
        self.munged = {}  # Prolog= and HealthCheckProgram= (benchmarks leave them out)
        # GPUs and features on sn[1-4] (_node_extra), where the device files stand-ins exist
        self.gres = n <= 16 and all(os.path.exists("/dev/tty%d" % k) for k in (1, 2))
        self.dir = base
        self.n = n
        self.faults = dict(faults or {})
        self.tag = "%04x" % random.randrange(1 << 16)  # interface names stay under IFNAMSIZ (15)
        # a /24 for the suite's few nodes; a /16 (172.16-31, unlike the probe tests' 10.x) for benchmarks
        self.wide = n > 200
        self.net = ("172.%d" % random.randint(16, 31) if self.wide else
                    "10.%d.%d" % (random.randint(64, 250), random.randint(1, 250)))
        self.gateway = self.net + (".0.1" if self.wide else ".1")
        self.bridge = "gds%sb" % self.tag
        self.names = ["sn%d" % i for i in range(1, n + 1)]
        self.host = socket.gethostname().split(".")[0]
        self.conf = os.path.join(base, "slurm.conf")
        self.env = dict(os.environ, SLURM_CONF=self.conf)
        for k in list(self.env):  # this process may itself run inside a job: never leak it into ours
            if k.startswith(("SLURM_", "SLURMD_")) and k != "SLURM_CONF":
                del self.env[k]
        self.gd_config = os.path.join(base, "gpudoctor.toml")
        self.defaults = os.path.join(base, "gpudoctor.defaults")
        self.ctld = None
        self.slurmd = {}
        self._log_mark = {}  # {node: bytes of its slurmd log already looked at} (end_prolog_retries)
        self._started_at = {}  # {node: when its slurmd was last started} (wait_registered)
        self.sshd = {}  # start_sshd
        self.ssh_dir = None
        self.spaces = []

    # -- names
    def ns(self, i):
        return "gds%s%d" % (self.tag, i)

    def addr(self, i):
        if self.wide:
            return "%s.%d.%d" % (self.net, i // 200, 10 + i % 200)
        return "%s.%d" % (self.net, 10 + i)

    def node(self, kind):
        """The node name of the fault kind ("shm", "memlock")."""
        return "sn%d" % next(i for i, k in self.faults.items() if k == kind)

    def healthy(self):
        return ["sn%d" % i for i in range(1, self.n + 1) if i not in self.faults]

    # -- commands
    def run(self, *argv, timeout=30, check=False, env=None, **kw):
        e = dict(self.env)
        e.update(env or {})
        p = subprocess.run(list(argv), env=e, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                           timeout=timeout, **dict({"cwd": self.dir}, **kw))
        if check:
            assert p.returncode == 0, (argv, p.stdout, p.stderr)
        return p

    def states(self):
        """{node: (state, reason)} from one scontrol call."""
        out = {}
        r = self.run("scontrol", "show", "node", "-o", timeout=10)
        for line in r.stdout.splitlines():
            m = re.match(r"NodeName=(\S+)", line)
            if not m:
                continue
            st = re.search(r"\bState=(\S+)", line)
            rs = re.search(r"\bReason=(.*?)(?: \[[^\]]*\])?\s*$", line)
            out[m.group(1)] = (st.group(1) if st else "?", rs.group(1) if rs else None)
        return out

    # A state wait returns as soon as the state is there; its deadline only bounds a failure. On a loaded CI machine
    # slurmctld's periodic passes (health check, ping) came later than a 20-30 s deadline allowed (2026-11-29), so no
    # state wait gives up before this many seconds.
    DEADLINE_FLOOR = 60

    def wait(self, pred, timeout=30, what="cluster state"):
        timeout = max(timeout, self.DEADLINE_FLOOR)
        t0 = time.time()
        while True:
            st = self.states()
            if pred(st):
                return st
            for name, p in self.slurmd.items():
                if p is not None and p.poll() is not None and self._expected_up.get(name, True):
                    raise AssertionError("slurmd of %s exited (rc %s); see %s" % (
                        name, p.returncode, os.path.join(self.dir, "slurmd-%s.log" % name)))
            if time.time() - t0 > timeout:
                raise AssertionError("%s not reached within %ss: %s%s" % (what, timeout, st, self.hook_logs()))
            time.sleep(0.05)

    def hook_logs(self, n=8):
        """The health check's last passes on each node and slurmctld's last lines (for a deadline's message: a
        resume the test waited for and never saw, in CI)."""
        out = []
        for name in self.names:
            try:
                with open(os.path.join(self.dir, "hc-%s.log" % name), errors="replace") as f:
                    lines = [l.rstrip() for l in f][-n:]
            except OSError:
                continue
            out.append("\nhc-%s.log:\n  %s" % (name, "\n  ".join(lines)))
        return "".join(out) + "\nslurmctld.log:\n  " + "\n  ".join(self.log_tail(12))

    def log_lines(self, job):
        """slurmctld's log lines about one job (for an assertion's message)."""
        try:
            with open(os.path.join(self.dir, "slurmctld.log"), errors="replace") as f:
                return [l.rstrip() for l in f if re.search(r"JobId=%s\b|job %s\b" % (job, job), l)][-40:]
        except OSError:
            return []

    def log_tail(self, n=25):
        """slurmctld's last lines (for an assertion's message)."""
        try:
            with open(os.path.join(self.dir, "slurmctld.log"), errors="replace") as f:
                return [l.rstrip() for l in f][-n:]
        except OSError:
            return []

    def wait_idle(self, names=None, timeout=30):
        names = names or self.names
        return self.wait(lambda st: all(st.get(n, ("",))[0] == "IDLE" for n in names), timeout,
                         "%s idle" % ",".join(names))

    def set_config(self, text, checks=("shm.size", "limits.memlock")):
        with open(self.gd_config, "w") as f:
            f.write("select = [%s]\n" % ", ".join('"%s"' % c for c in checks) + text)

    def enable(self, what, on=True):
        """what: "prolog" or "hc" (the wrappers run gpudoctor only while enabled). Enabling
        the prolog also sets PrologFlags=Alloc, as docs/slurm.md recommends; reset() clears it."""
        path = os.path.join(self.dir, what + ".enabled")
        if on:
            open(path, "w").close()
            if what == "prolog" and self._prolog_at_allocation(True):
                self.run("scontrol", "reconfigure", check=True)
        elif os.path.exists(path):
            os.unlink(path)

    ALLOC = "PrologFlags=Alloc\n"

    def _prolog_at_allocation(self, on):
        """PrologFlags=Alloc in slurm.conf or not; True when that changed (a reconfigure applies
        it: 22.05 here). With it, salloc waits until the prolog has ended on every node, and
        salloc polls for that every 3 s after its first two looks, 0.5 ms apart (POLL_SLEEP in
        src/salloc/salloc.c _wait_nodes_ready, SchedMD/slurm 22.05.8). Every salloc then took
        3.0 s, even with the prolog wrapper disabled. Without the flag, the prolog runs when a
        node starts the job's first step, and salloc returns at once. Only the tests of the
        prolog itself need the flag."""
        if not self.hooks:
            return False
        with open(self.conf) as f:
            text = f.read()
        if (self.ALLOC in text) == on:
            return False
        prolog = "Prolog=%s/prolog\n" % self.dir
        text = text.replace(prolog, prolog + self.ALLOC) if on else text.replace(self.ALLOC, "")
        with open(self.conf + ".tmp", "w") as f:
            f.write(text)
        os.replace(self.conf + ".tmp", self.conf)
        return True

    def reset(self):
        """Every node IDLE and undrained, wrappers off, a healthy config."""
        self.enable("prolog", False)
        self.enable("hc", False)
        for name in self.names:
            self.slow(name, None)
        self.set_config("")
        self.end_prolog_retries()  # a slurmd still retrying an earlier job's failed prolog would drain its node
        started = []
        for i in range(1, self.n + 1):
            if self.slurmd.get("sn%d" % i) is None or self.slurmd["sn%d" % i].poll() is not None:
                self.start_slurmd(i)
                started.append("sn%d" % i)
            elif self.faults.get(i) == "uverbs":
                self.uverbs("sn%d" % i)  # no HCA, no devices: healthy unless a test says otherwise
        resumed = False
        for name, (state, _) in self.states().items():
            if "DRAIN" in state or state.startswith("DOWN") or "FAIL" in state:
                self.run("scontrol", "update", "nodename=" + name, "state=resume")
                resumed = True
        if self._prolog_at_allocation(False) or resumed:
            # A resumed node is IDLE+NOT_RESPONDING until slurmd answers slurmctld; 22.05 here
            # did not ping it within a minute. A reconfigure makes every slurmd register now.
            self.run("scontrol", "reconfigure")
        if started:
            self.wait_registered(started)
        self.cancel_leftover_jobs()
        self.wait_idle(timeout=30)

    def cancel_leftover_jobs(self, timeout=30):
        """No job of an earlier test left in the queue. A job still pending or running there (a
        salloc killed at its test's timeout, a batch job not waited for) kept the next test's
        heterogeneous `salloc -N1 : -N2` "queued and waiting for resources" past its 90 s in a
        clean-clone CI while every node read IDLE: the backfill scheduler, the only one that
        starts a heterogeneous job (https://slurm.schedmd.com/heterogeneous_jobs.html,
        "Limitations"), does not start a lower-priority job where it would delay a
        higher-priority pending one (https://slurm.schedmd.com/sched_config.html). Cancel them
        and wait until squeue lists none."""
        t0 = time.time()
        while True:
            jobs = self.run("squeue", "-h", "-o", "%A", timeout=10).stdout.split()
            if not jobs:
                return
            self.run("scancel", *jobs, timeout=10)
            assert time.time() - t0 < timeout, "jobs %s still queued %ss after scancel" % (jobs, timeout)
            time.sleep(0.05)

    def wait_registered(self, names, timeout=30):
        """Until slurmctld has heard from the new slurmd of each node: its SlurmdStartTime
        (scontrol show node) is no earlier than the second it was started, and the node is
        not NOT_RESPONDING. IDLE alone is not enough: slurmctld still showed IDLE a node whose
        slurmd had died a moment before (test_a_dead_slurmd_...); the next test then began
        before the new slurmd had registered, and slurmctld's failed ping of the dead one made
        the node NOT_RESPONDING in the middle of that test (3 runs in a row at load 30-50)."""
        t0 = time.time()
        while True:
            seen = {}
            for line in self.run("scontrol", "show", "node", "-o", timeout=10).stdout.splitlines():
                m = re.match(r"NodeName=(\S+)", line)
                st = re.search(r"\bSlurmdStartTime=(\d\S*)", line)
                state = re.search(r"\bState=(\S+)", line)
                if m:
                    seen[m.group(1)] = (st.group(1) if st else "", state.group(1) if state else "")
            left = [n for n in names if not (seen.get(n, ("", ""))[0] >= time.strftime(
                "%Y-%m-%dT%H:%M:%S", time.localtime(int(self._started_at[n])))
                and "NOT_RESPONDING" not in seen[n][1])]
            if not left:
                return
            for n in left:
                p = self.slurmd.get(n)
                assert p is not None and p.poll() is None, "slurmd of %s exited (rc %s)" % (n, p and p.returncode)
            assert time.time() - t0 < timeout, "slurmd of %s not registered within %ss: %s" % (left, timeout, seen)
            time.sleep(0.05)

    # -- life cycle
    NEIGH = "/proc/sys/net/ipv4/neigh/default/gc_thresh%d"

    def _neigh_room(self):
        """Room in the kernel's ARP table for hundreds of namespaces. Its entries are counted
        across every network namespace, against the limits of the first one (gc_thresh3, 1024
        by default: Documentation/networking/ip-sysctl.rst). At 256 nodes the step's tree
        (each slurmd to its children, every slurmstepd back to srun) passed it: "neighbour:
        arp_cache: neighbor table overflow!" in dmesg, and slurmd's "forward_thread to sn82
        ...: Connection timed out" made the launch fail on those nodes. Raised only for a
        wide cluster, and put back by stop()."""
        self._neigh_saved = {}
        for i, want in ((1, 4096), (2, 8192), (3, 16384)):
            try:
                with open(self.NEIGH % i) as f:
                    old = int(f.read())
                if old < want:
                    with open(self.NEIGH % i, "w") as f:
                        f.write(str(want))
                    self._neigh_saved[i] = old
            except (OSError, ValueError):
                pass

    def start(self):
        os.chmod(self.dir, 0o755)
        if self.wide:
            self._neigh_room()
        for sub in ("state",):
            os.makedirs(os.path.join(self.dir, sub), exist_ok=True)
        _ip("link", "add", self.bridge, "type", "bridge")
        _ip("addr", "add", self.gateway + ("/16" if self.wide else "/24"), "dev", self.bridge)
        _ip("link", "set", self.bridge, "up")
        for i in range(1, self.n + 1):
            ns, host_if = self.ns(i), "gds%s%dh" % (self.tag, i)
            _ip("netns", "add", ns)
            self.spaces.append(ns)
            _ip("link", "add", host_if, "type", "veth", "peer", "name", "eth0", "netns", ns)
            _ip("link", "set", host_if, "master", self.bridge, "up")
            _ip("-n", ns, "addr", "add", self.addr(i) + ("/16" if self.wide else "/24"), "dev", "eth0")
            _ip("-n", ns, "link", "set", "eth0", "up")
            _ip("-n", ns, "link", "set", "lo", "up")
        self._write()
        self._expected_up = {}
        if self.munge is not None:
            self._start_munge()
        self.ctld = subprocess.Popen([_exe("slurmctld"), "-D", "-f", self.conf], env=self.env,
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT,
                                     cwd=self.dir)
        for i in range(1, self.n + 1):
            self.start_slurmd(i)
        # a node whose credentials the controller refuses never registers: the others do
        self.wait_idle([m for m in self.names if not self.munge_fault(m)], timeout=60)
        return self

    def munge_fault(self, name):
        """The node's MUNGE fault ("key", "+600s") or None."""
        return (self.munge or {}).get(int(name[2:]))

    def _faketime_env(self, skew):
        return dict(LD_PRELOAD=libfaketime(), FAKETIME=skew, FAKETIME_DONT_RESET="1")

    def start_slurmd(self, i):
        name = "sn%d" % i
        kind = self.faults.get(i)
        inner = "hostname %s && " % name
        skew = self.munge_fault(name) or ""
        if skew.startswith(("+", "-")):
            # the whole node's clock off (slurmd, its jobs, its hooks): libfaketime preloaded through an
            # /etc/ld.so.preload and /etc/faketimerc of its own, on an overlay of /etc in its mount namespace
            up, work = (os.path.join(self.dir, "etc-%s-%s" % (name, w)) for w in ("up", "work"))
            for x in (up, work):
                os.makedirs(x, exist_ok=True)
            with open(os.path.join(up, "ld.so.preload"), "w") as f:
                f.write(libfaketime() + "\n")
            with open(os.path.join(up, "faketimerc"), "w") as f:
                f.write(skew + "\n")
            inner += "mount -t overlay overlay -o lowerdir=/etc,upperdir=%s,workdir=%s /etc && " % (up, work)
        # an /etc/hosts that names every node (as a cluster's DNS would)
        inner += "mount --bind %s /etc/hosts && " % os.path.join(self.dir, "hosts")
        # its own sysfs, mounted from inside its network namespace: /sys/class/net lists its
        # own eth0 and lo, as on a real node, not this machine's interfaces (a veth per node:
        # 257 of them at 256 nodes cost every node's network section 31 ms of CPU). slurmd
        # needs the cgroup mounts beneath: moved back on top of the new /sys.
        keep = os.path.join(self.dir, "keep-cgroup-" + name)
        os.makedirs(keep, exist_ok=True)
        inner += ("mount --rbind /sys/fs/cgroup {k} && mount -t sysfs sysfs /sys && "
                  "mount --move {k} /sys/fs/cgroup && ").format(k=keep)
        if self.munge is not None:
            m = os.path.join(self.dir, "munge")
            # the node's own munged where slurm.conf's AuthInfo and munge(1) look, and its own key
            inner += ("mount --bind {m}/{n} {m}/ctl && mount -t tmpfs -o size=1m tmpfs /run && mkdir /run/munge && "
                      "mount --bind {m}/{n} /run/munge && mount --bind {m}/{n}.key /etc/munge/munge.key && ").format(
                          m=m, n=name)
        if kind == "shm":
            inner += "mount -t tmpfs -o size=%s tmpfs /dev/shm && " % SHM_SMALL
        elif kind == "uverbs":
            inner += self._uverbs_mounts(name)
        inner += 'exec "$0" -D -f "$1" -N %s' % name
        cmd = [_exe("nsenter"), "--net=/var/run/netns/" + self.ns(i), _exe("unshare"), "--uts", "--mount",
               "--propagation", "private", "sh", "-c", inner, _exe("slurmd"), self.conf]

        def limits():
            if kind == "memlock":
                resource.setrlimit(resource.RLIMIT_MEMLOCK, (MEMLOCK_LOW, MEMLOCK_LOW))

        self._mark_log(name)  # a new slurmd: what the log says from here on is its own
        self._started_at[name] = time.time()
        self.slurmd[name] = subprocess.Popen(cmd, env=self.env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                             stderr=subprocess.STDOUT, cwd=self.dir, preexec_fn=limits,
                                             start_new_session=True)
        self._expected_up[name] = True

    def _start_munge(self):
        m = os.path.join(self.dir, "munge")
        os.makedirs(m, exist_ok=True)
        os.chmod(m, 0o755)
        good = os.urandom(1024)
        for who in ["ctl"] + self.names:
            d = os.path.join(m, who)
            os.makedirs(d, exist_ok=True)
            os.chmod(d, 0o755)
            i = None if who == "ctl" else int(who[2:])
            key = os.path.join(m, who + ".key")
            with open(key, "wb") as f:
                f.write(os.urandom(1024) if self.munge.get(i) == "key" else good)
            os.chmod(key, 0o400)
            env = dict(self.env)
            skew = self.munge.get(i) or ""
            if skew.startswith(("+", "-")):
                env.update(self._faketime_env(skew))
            self.munged[who] = subprocess.Popen(
                [_exe("munged"), "-F", "-f", "--socket=%s/munge.socket.2" % d, "--key-file=" + key,
                 "--pid-file=%s/munged.pid" % d, "--log-file=%s/munged.log" % d, "--seed-file=%s/munged.seed" % d,
                 "--num-threads=2"], env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=subprocess.STDOUT, cwd=self.dir, start_new_session=True)
        deadline = time.time() + 20
        for who, p in self.munged.items():
            while not os.path.exists(os.path.join(m, who, "munge.socket.2")):
                assert p.poll() is None and time.time() < deadline, "munged for %s did not start (rc %s)" % (
                    who, p.poll())
                time.sleep(0.02)

    def _uverbs_mounts(self, name):
        """Shell for the ``uverbs`` node: /sys/class and /dev as overlays whose upper layers are
        this node's (``uverbs`` writes there, through the node's own mount namespace), with
        /dev/shm and /dev/pts moved back on top of the /dev overlay."""
        d = os.path.join(self.dir, "uverbs-" + name)
        for sub in ("sysup", "syswork", "devup", "devwork", "keep-shm", "keep-pts"):
            shutil.rmtree(os.path.join(d, sub), ignore_errors=True)  # a slurmd started again starts clean
            os.makedirs(os.path.join(d, sub))
        return ("mount -t overlay overlay -o lowerdir=/sys/class,upperdir={d}/sysup,workdir={d}/syswork /sys/class && "
                "mount --bind /dev/shm {d}/keep-shm && mount --bind /dev/pts {d}/keep-pts && "
                "mount -t overlay overlay -o lowerdir=/dev,upperdir={d}/devup,workdir={d}/devwork /dev && "
                "mount --move {d}/keep-shm /dev/shm && mount --move {d}/keep-pts /dev/pts && ").format(d=d)

    # the files the rdma collector reads of an HCA (Linux drivers/infiniband/core/sysfs.c)
    HCA = {"infiniband/mlx5_0/node_type": "1: CA", "infiniband/mlx5_0/fw_ver": "28.39.1002",
           "infiniband/mlx5_0/ports/1/state": "4: ACTIVE", "infiniband/mlx5_0/ports/1/phys_state": "5: LinkUp",
           "infiniband/mlx5_0/ports/1/rate": "400 Gb/sec (4X NDR)", "infiniband/mlx5_0/ports/1/link_layer": "InfiniBand",
           "infiniband/mlx5_0/ports/1/lid": "0x12", "infiniband_verbs/uverbs0/ibdev": "mlx5_0"}

    def uverbs(self, name, hca=False, devices=False):
        """The ``uverbs`` node's RDMA as its own processes see it: an HCA in /sys/class (mlx5_0,
        port 1 ACTIVE, uverbs0) or none, and /dev/infiniband/{uverbs0,rdma_cm} or no
        /dev/infiniband (ib_uverbs/rdma_ucm not loaded, a container started without --device)."""
        script = ["rm -rf /sys/class/infiniband /sys/class/infiniband_verbs /dev/infiniband"]
        if hca:
            for rel, text in sorted(self.HCA.items()):
                path = "/sys/class/" + rel
                script.append("mkdir -p %s && echo '%s' > %s" % (os.path.dirname(path), text, path))
        if devices:
            script.append("mkdir -p /dev/infiniband && touch /dev/infiniband/uverbs0 /dev/infiniband/rdma_cm")
        r = subprocess.run([_exe("nsenter"), "-t", str(self.slurmd[name].pid), "-m", "sh", "-ec", " && ".join(script)],
                           capture_output=True, text=True, timeout=10)
        assert r.returncode == 0, r.stderr

    def slow(self, name, rate=None):
        """Rate-limit a node's link both ways with a real tc token bucket (rate None: remove it):
        the host side of its veth shapes what the node receives, its eth0 what it sends."""
        i = int(name[2:])
        for where, dev in ((None, "gds%s%dh" % (self.tag, i)), (self.ns(i), "eth0")):
            tc = ["tc"] + (["-n", where] if where else [])
            if rate:
                subprocess.run(tc + ["qdisc", "replace", "dev", dev, "root", "tbf", "rate", rate, "burst", "32kbit",
                                     "latency", "50ms"], check=True, capture_output=True, timeout=10)
            else:
                subprocess.run(tc + ["qdisc", "del", "dev", dev, "root"], capture_output=True, timeout=10)

    def _clock_overlay(self, name, what):
        """The shell words that put a node's libfaketime /etc (ld.so.preload, faketimerc) over /etc in a mount
        namespace started for ``what`` (an overlay's upper and work folders are its own), or "" for a right clock."""
        skew = self.munge_fault(name) or ""
        if not skew.startswith(("+", "-")):
            return ""
        up, work = (os.path.join(self.dir, "etc-%s-%s-%s" % (name, what, w)) for w in ("up", "work"))
        for x in (up, work):
            os.makedirs(x, exist_ok=True)
        with open(os.path.join(up, "ld.so.preload"), "w") as f:
            f.write(libfaketime() + "\n")
        with open(os.path.join(up, "faketimerc"), "w") as f:
            f.write(skew + "\n")
        return "mount -t overlay overlay -o lowerdir=/etc,upperdir=%s,workdir=%s /etc && " % (up, work)

    def start_sshd(self, name):
        """An sshd on the node's own address (port 22 of its network namespace) with the node's
        hostname and /etc/hosts, as a cluster's nodes run one beside slurmd. Logins as the
        test user of tests/sshcluster.py with a key of this cluster; ``ssh_config`` names the
        node for this machine (whose /etc/hosts does not). Returns that ssh config's path."""
        import sshcluster
        import tempfile

        if name in self.sshd and self.sshd[name].poll() is None:
            return os.path.join(self.ssh_dir, "ssh_config")
        sshcluster.ensure_user()
        i = int(name[2:])
        if self.ssh_dir is None:
            # sshd reads authorized_keys as the node user: a folder it can traverse (not pytest's 0700)
            self.ssh_dir = tempfile.mkdtemp(prefix="gd-mslurm-ssh-", dir="/tmp")
            os.chmod(self.ssh_dir, 0o755)
            for key in ("id_ed25519", "host_ed25519"):
                subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", os.path.join(self.ssh_dir, key)],
                               check=True, timeout=30)
            shutil.copy(os.path.join(self.ssh_dir, "id_ed25519.pub"), os.path.join(self.ssh_dir, "authorized_keys"))
            os.chmod(os.path.join(self.ssh_dir, "authorized_keys"), 0o644)
            os.makedirs("/run/sshd", mode=0o755, exist_ok=True)
        d = self.ssh_dir
        conf = os.path.join(d, "sshd-%s.conf" % name)
        with open(conf, "w") as f:
            f.write("ListenAddress %s:22\nHostKey %s/host_ed25519\nPidFile %s/sshd-%s.pid\nAuthorizedKeysFile "
                    "%s/authorized_keys\nPasswordAuthentication no\nKbdInteractiveAuthentication no\nUsePAM no\n"
                    "StrictModes no\nLogLevel ERROR\n" % (self.addr(i), d, d, name, d))
        # a node whose clock is off (munge={i: "+120s"}) is off for its sshd and what it runs too, as for its slurmd
        inner = 'hostname %s && %smount --bind %s /etc/hosts && exec "$0" -D -e -f "$1"' % (
            name, self._clock_overlay(name, "ssh"), os.path.join(self.dir, "hosts"))
        cmd = [_exe("nsenter"), "--net=/var/run/netns/" + self.ns(i), _exe("unshare"), "--uts", "--mount",
               "--propagation", "private", "sh", "-c", inner, sshcluster.SSHD, conf]
        log = open(os.path.join(d, "sshd-%s.log" % name), "w")
        self.sshd[name] = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                           start_new_session=True)
        log.close()
        with open(os.path.join(d, "ssh_config"), "a") as f:
            f.write("Host %s\n  HostName %s\n  User %s\n  IdentityFile %s/id_ed25519\n  UserKnownHostsFile "
                    "%s/known_hosts\n\n" % (name, self.addr(i), sshcluster.USER, d, d))
        t0 = time.time()
        while True:  # listening
            try:
                socket.create_connection((self.addr(i), 22), timeout=0.5).close()
                break
            except OSError:
                if self.sshd[name].poll() is not None or time.time() - t0 > 10:
                    raise AssertionError("sshd of %s did not start: %s" % (
                        name, open(os.path.join(d, "sshd-%s.log" % name)).read()))
                time.sleep(0.05)
        return os.path.join(d, "ssh_config")

    # slurmd's log line when its prolog-failure thread goes round again (src/slurmd/slurmd/req.c)
    PROLOG_RETRY = "_rpc_prolog: Retrying prolog complete RPC for JobId="
    PROLOG_CANCEL = "not able to requeue it, cancelling job"

    def _log_since_mark(self, name):
        path = os.path.join(self.dir, "slurmd-%s.log" % name)
        try:
            with open(path, "rb") as f:
                f.seek(self._log_mark.get(name, 0))
                return f.read().decode("utf-8", "replace")
        except OSError:
            return ""

    def _mark_log(self, name):
        try:
            self._log_mark[name] = os.path.getsize(os.path.join(self.dir, "slurmd-%s.log" % name))
        except OSError:
            self._log_mark[name] = 0

    def end_prolog_retries(self, names=None, timeout=20):
        """Stop the retry loops that Slurm 22.05's slurmd leaves after an interactive job's
        prolog failed on it: restart each such slurmd (the node keeps its state and reason in
        slurmctld). Returns the nodes restarted.

        Why (Slurm 22.05.8, src/slurmd/slurmd/req.c _rpc_prolog and _launch_job_fail): after a
        failed prolog slurmd asks slurmctld to requeue the job; an srun/salloc job cannot be
        requeued (ESLURM_BATCH_ONLY), so it kills the job instead. On the second node whose
        prolog failed in the same job the kill fails (the job is already completing:
        ESLURM_ALREADY_DONE), and the thread retries every 15 s (RETRY_DELAY) for as long as
        slurmd lives, each round sending a registration with ESLURMD_PROLOG_FAILED, which
        makes slurmctld drain the node with "Prolog error" whenever it is not drained
        (src/slurmctld/node_mgr.c validate_node_specs). Left running, it drained a node in the
        middle of later tests (the requeue test saw "Prolog error" instead of gpudoctor's own
        reason in about half of the whole-file runs).

        names: nodes whose prolog just failed in an interactive job: wait (deadline) until
        each has given up on the requeue, then restart it whether or not its thread loops
        (the kill that ends the thread is silent when it works). Without names: restart only
        the nodes whose log shows the loop since the last look (reset's safety net)."""
        restarted = []
        t0 = time.time()
        for name in names or self.names:
            if self.slurmd.get(name) is None:
                continue
            if names:
                while self.PROLOG_CANCEL not in self._log_since_mark(name):
                    assert time.time() - t0 < timeout, "%s: slurmd never gave up on the job (%s)" % (
                        name, self._log_since_mark(name)[-2000:])
                    time.sleep(0.05)
            elif self.PROLOG_RETRY not in self._log_since_mark(name):
                self._mark_log(name)
                continue
            self.restart_slurmd(name)
            restarted.append(name)
        return restarted

    def restart_slurmd(self, name, timeout=20):
        """A new slurmd for the node (what slurmctld holds of the node, its state and reason,
        stays); returns once it runs in its namespaces (its "slurmd started on" line)."""
        self.kill_slurmd(name)
        self.start_slurmd(int(name[2:]))
        t0 = time.time()
        while "slurmd started on" not in self._log_since_mark(name):
            p = self.slurmd[name]
            assert p.poll() is None and time.time() - t0 < timeout, "%s: slurmd did not start again (rc %s): %s" % (
                name, p.poll(), self._log_since_mark(name)[-2000:])
            time.sleep(0.05)
        self.wait_registered([name])

    def kill_slurmd(self, name):
        """A slurmd gone (crashed, OOM-killed): slurmctld still lists the node as it was."""
        p = self.slurmd[name]
        self._expected_up[name] = False
        os.killpg(p.pid, signal.SIGKILL)
        p.wait(timeout=10)
        self.slurmd[name] = None

    def stop(self):
        for p in self.sshd.values():
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGTERM)
        for p in self.sshd.values():
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
        if self.ssh_dir:
            shutil.rmtree(self.ssh_dir, ignore_errors=True)
        for name, p in list(self.slurmd.items()):
            if p is not None and p.poll() is None:  # nothing of a slurmd is kept: SIGTERM took up to 2 s
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except OSError:
                    pass
        for p in self.munged.values():
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait(timeout=5)
        if self.ctld is not None and self.ctld.poll() is None:
            self.ctld.kill()  # its saved state is never read again (SIGTERM took 2-3 s to save it)
        end = time.time() + 2  # all of them together; nothing of their state is needed afterwards
        for p in list(self.slurmd.values()) + [self.ctld]:
            if p is None:
                continue
            try:
                p.wait(timeout=max(0.01, end - time.time()))
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(p.pid, signal.SIGKILL) if p is not self.ctld else p.kill()
                except OSError:
                    pass
                p.wait()
        self._sweep()
        for i, ns in enumerate(self.spaces, 1):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)
            # a namespace still held (a process left in it) keeps its veth: drop the host side
            subprocess.run(["ip", "link", "del", "gds%s%dh" % (self.tag, i)], capture_output=True)
        subprocess.run(["ip", "link", "del", self.bridge], capture_output=True)
        for i, old in sorted(getattr(self, "_neigh_saved", {}).items(), reverse=True):
            try:
                with open(self.NEIGH % i, "w") as f:
                    f.write(str(old))
            except OSError:
                pass

    def _sweep(self):
        """End what outlived the daemons: a slurmstepd (daemonised, its parent is init) or a task
        of a step still running when its slurmd stopped. Found by this cluster's SLURM_CONF in
        their environment, which they inherit from slurmd."""
        mark = ("SLURM_CONF=" + self.conf).encode()
        me = os.getpid()
        for pid in os.listdir("/proc"):
            if not pid.isdigit() or int(pid) == me:
                continue
            try:
                with open("/proc/%s/environ" % pid, "rb") as f:
                    if mark not in f.read().split(b"\0"):
                        continue
                with open("/proc/%s/cmdline" % pid, "rb") as f:
                    if b"pytest" in f.read():  # the test run itself
                        continue
                os.kill(int(pid), signal.SIGKILL)
            except OSError:
                pass

    def _write(self):
        d = self.dir
        exe = os.path.join(os.path.dirname(sys.executable), "gpudoctor")
        if not os.access(exe, os.X_OK):
            exe = os.path.join(d, "gpudoctor")
            with open(exe, "w") as f:
                f.write('#!/bin/sh\nPYTHONPATH=%s exec %s -m gpudoctor "$@"\n' % (ROOT, sys.executable))
            os.chmod(exe, 0o755)
        self.gpudoctor = exe
        with open(os.path.join(d, "hosts"), "w") as f:
            f.write("127.0.0.1 localhost\n%s %s\n" % (self.gateway, self.host)
                    + "".join("%s %s\n" % (self.addr(i), "sn%d" % i) for i in range(1, self.n + 1)))
        self.state_dir = os.path.join(d, "gdstate")  # the hooks' history; emptied before each test (conftest)
        with open(self.defaults, "w") as f:
            f.write("GPUDOCTOR=%s\nGPUDOCTOR_CONFIG=%s\nSLURM_CONF=%s\nGPUDOCTOR_TIMEOUT=20\n"
                    "GPUDOCTOR_STATE_DIR=%s\n" % (exe, self.gd_config, self.conf, self.state_dir))
        self.set_config("")
        for name, script in (("prolog", "prolog.sh"), ("hc", "healthcheck.sh")):
            with open(os.path.join(d, name), "w") as f:
                if name == "hc":  # each pass also in hc-<node>.log: what a deadline's message shows (hook_logs)
                    f.write("#!/bin/sh\n[ -e %s/hc.enabled ] || exit 0\nlog=%s/hc-$SLURMD_NODENAME.log\n"
                            "echo \"pass $(date +%%T.%%N)\" >> \"$log\"\nGPUDOCTOR_DEFAULTS=%s %s/%s >> \"$log\" 2>&1\n"
                            "rc=$?\necho \"rc=$rc $(date +%%T.%%N)\" >> \"$log\"\nexit $rc\n" % (
                                d, d, self.defaults, CONTRIB, script))
                else:
                    f.write("#!/bin/sh\n[ -e %s/%s.enabled ] || exit 0\nGPUDOCTOR_DEFAULTS=%s exec %s/%s\n" % (
                        d, name, self.defaults, CONTRIB, script))
            os.chmod(os.path.join(d, name), 0o755)
        with open(self.conf, "w") as f:
            f.write("""ClusterName=gdm%(tag)s
SlurmctldHost=%(host)s(%(gw)s)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=%(port)d
SlurmdPort=%(dport)d
%(auth)sCredType=cred/none
StateSaveLocation=%(d)s/state
SlurmdSpoolDir=%(d)s/spool-%%n
SlurmctldPidFile=%(d)s/slurmctld.pid
SlurmdPidFile=%(d)s/slurmd-%%n.pid
SlurmctldLogFile=%(d)s/slurmctld.log
SlurmdLogFile=%(d)s/slurmd-%%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SwitchType=switch/none
MpiDefault=none
%(gres_types)sSelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=1
SlurmdTimeout=%(slurmd_timeout)d
MessageTimeout=%(message_timeout)d
TCPTimeout=%(tcp_timeout)d
%(sched)s%(hooks)s%(nodes)sPartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
PartitionName=shared Nodes=ALL OverSubscribe=FORCE:4 MaxTime=INFINITE State=UP
PartitionName=whole Nodes=ALL OverSubscribe=EXCLUSIVE MaxTime=INFINITE State=UP
PartitionName=front Nodes=sn[1-2] MaxTime=INFINITE State=UP Hidden=YES
""" % {"tag": self.tag, "host": self.host,
       "auth": "AuthType=auth/munge\nAuthInfo=socket=%s/munge/ctl/munge.socket.2\n" % d if self.munge is not None
               else "AuthType=auth/none\n", "gw": self.gateway, "port": _free_port(), "dport": _free_port(), "d": d,
       # PrologFlags=Alloc only while a test enables the prolog (_prolog_at_allocation)
       "hooks": ("Prolog=%(d)s/prolog\nHealthCheckProgram=%(d)s/hc\nHealthCheckInterval=1\n" % {"d": d})
                if self.hooks else "",
       # bf_interval=1 on the suite's small cluster: a heterogeneous job is started by the backfill
       # scheduler only ("Heterogeneous jobs are only scheduled by the backfill scheduler plugin",
       # https://slurm.schedmd.com/heterogeneous_jobs.html, "Limitations"), which runs every bf_interval
       # seconds, 30 by default (slurm.conf(5), SchedulerParameters); its nodes also stayed
       # IDLE+PLANNED until the next pass after the job. Measured here: `salloc -N1 : -N2` 30.0 s ->
       # 0.9 s, its nodes IDLE again 30 s -> 0.9 s after (test_slurm23's heterogeneous tests).
       # nohold_on_prolog_fail where the hooks are on (the prolog tests).
       "sched": "SchedulerParameters=%s\n" % ",".join(
           w for w, on in (("bf_interval=1", self.n <= 16), ("nohold_on_prolog_fail", self.hooks)) if on)
                if self.n <= 16 or self.hooks else "",
       # the suite's four nodes answer at once; hundreds of slurmd on two shared cores need
       # Slurm's defaults (slurm.conf(5): SlurmdTimeout 300, MessageTimeout 10)
       "slurmd_timeout": 10 if self.n <= 16 else 300, "message_timeout": 5 if self.n <= 16 else 10 if self.n <= 200 else 60,
       # 256 nodes at a load average of 85: "Task launch ... failed on node sn96: Communication
       # connection failure" within TCPTimeout's default 2 s (slurm.conf(5)); the controller and
       # the slurmd tree wait longer for each other there
       "tcp_timeout": 2 if self.n <= 200 else 30,
       "gres_types": "GresTypes=gpu\n" if self.gres else "",
       "nodes": "".join("NodeName=sn%d NodeAddr=%s CPUs=2 RealMemory=500%s State=UNKNOWN\n" % (
           i, self.addr(i), self._node_extra(i)) for i in range(1, self.n + 1))})
        if self.gres:
            with open(os.path.join(d, "gres.conf"), "w") as f:
                f.write("NodeName=sn[1-2] Name=gpu File=/dev/tty[1-2]\n")

    def _node_extra(self, i):
        """slurm.conf words of node i beyond CPUs and memory: on the suite's small cluster sn1 and sn2
        have two GPUs in Slurm (GRES, without a GPU: /dev/tty1 and /dev/tty2 stand for the device
        files, which slurmd only needs to exist) and the feature a100, sn3 and sn4 the feature
        cpuonly: a cluster of GPU and CPU nodes in one partition (tests/test_slurm23.py)."""
        if not self.gres or i > 4:
            return ""
        return " Gres=gpu:2 Features=a100" if i <= 2 else " Features=cpuonly"

"""Cluster mode against real sshd processes on 127.0.0.x (tests/sshcluster.py)."""

import json
import os
import subprocess
import sys

import pytest

import sshcluster

pytestmark = pytest.mark.skipif(not sshcluster.available() and not os.environ.get("CI"),
                                reason="needs root and openssh-server (tests/run.sh installs it)")

GD = [sys.executable, "-m", "gpudoctor"]


def gd(cluster, *args, timeout=120):
    p = subprocess.run(GD + list(args) + ["--ssh-config", cluster.ssh_config], capture_output=True, text=True,
                       timeout=timeout, cwd=cluster.base)
    return p.returncode, p.stdout, p.stderr


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    c = sshcluster.Cluster()
    base = c.base
    import pathlib

    base = pathlib.Path(base)
    homes = {}
    for name in ("n1", "n2", "n3", "n4"):
        h = base / ("home-" + name)
        h.mkdir()
        h.chmod(0o755)
        (h / "train.py").write_text("print('train')\n" if name != "n3" else "print('train v2')\n")
        homes[name] = str(h)
    os.chmod(homes["n4"], 0o777)  # sshd's StrictModes would refuse keys here
    garbage = base / "garbage-bin"
    garbage.mkdir()
    (garbage / "python3").write_text("#!/bin/sh\necho 'Welcome to the cluster! Please read the rules.'\n")
    (garbage / "python3").chmod(0o755)
    path = "/usr/local/bin:/usr/bin:/bin"
    common = {"NCCL_IB_DISABLE": "0", "PATH": path, "API_TOKEN": "tok-s3cret-value"}
    c.add("n1", env=dict(common, NCCL_SOCKET_IFNAME="eth0", HOME=homes["n1"]))
    c.add("n2", env=dict(common, NCCL_SOCKET_IFNAME="eth0", HOME=homes["n2"]))
    c.add("n3", env=dict(common, NCCL_SOCKET_IFNAME="eth0", HOME=homes["n3"]), memlock_kib=64)
    c.add("n4", env=dict(common, NCCL_SOCKET_IFNAME="docker0", HOME=homes["n4"], API_TOKEN="other-secret"))
    c.add("closed", kind="closed")
    c.add("hang", kind="hang")
    c.add("nopython", env={"PATH": "/nonexistent"})
    c.add("garbage", env={"PATH": str(garbage)})
    c.add("noauth", authorized=False)
    c.add("ghost", kind="unresolvable")
    c.start()
    yield c
    c.cleanup()


@pytest.fixture(scope="module")
def report(cluster):
    rc, out, err = gd(cluster, "check", "--hosts", cluster.hostfile(), "--json", "--timeout", "4",
                      "--same", "~/train.py")
    return rc, json.loads(out), err


def test_failing_nodes_are_classified_and_do_not_stop_the_others(report):
    rc, doc, err = report
    kinds = {n["host"]: (n["reachable"], n["error_kind"]) for n in doc["nodes"]}
    assert kinds == {
        "n1": (True, None), "n2": (True, None), "n3": (True, None), "n4": (True, None),
        "closed": (False, "refused"), "hang": (False, "timeout"), "nopython": (False, "python-missing"),
        "garbage": (False, "garbage"), "noauth": (False, "auth"), "ghost": (False, "resolve"),
    }
    assert rc == 1 and doc["summary"]["nodes_unreachable"] == 6
    assert [n["host"] for n in doc["nodes"]] == ["n1", "n2", "n3", "n4", "closed", "hang", "nopython", "garbage",
                                                 "noauth", "ghost"]  # hostfile order


def _findings(doc, check):
    return [f for f in doc["findings"] if f["check"] == check]


def test_env_drift_names_the_odd_node(report):
    _, doc, _ = report
    (f,) = [f for f in _findings(doc, "env.parity") if "NCCL_SOCKET_IFNAME" in f["message"]]
    assert f["hosts"] == ["n4"] and f["severity"] == "error"
    assert "docker0" in f["message"] and "n[1-3] (3): eth0" in f["message"]
    assert f["exports"] == {"NCCL_SOCKET_IFNAME": "eth0"}


def test_secrets_are_compared_by_hash_never_shown(report, cluster):
    _, doc, _ = report
    text = json.dumps(doc)
    assert "tok-s3cret-value" not in text and "other-secret" not in text
    (f,) = [f for f in _findings(doc, "env.parity") if "API_TOKEN" in f["message"]]
    assert f["hosts"] == ["n4"] and "value#" in f["message"]


def test_per_node_limits_and_homes(report):
    _, doc, _ = report
    mem = [f for f in _findings(doc, "limits.memlock") if "64.0 KiB" in f["message"]]
    assert [f["hosts"] for f in mem] == [["n3"]]
    perms = _findings(doc, "ssh.permissions")
    assert [f["hosts"] for f in perms] == [["n4"]] and perms[0]["fix"].startswith("chmod go-w ")


def test_files_parity_names_the_node_with_other_code(report):
    _, doc, _ = report
    (f,) = _findings(doc, "files.parity")
    assert f["hosts"] == ["n3"] and "~/train.py" in f["message"]


def test_host_resolution_reports_unresolvable_names(report):
    _, doc, _ = report
    msgs = [f["message"] for f in _findings(doc, "hosts.resolution")]
    assert any("do not resolve on n[1-4]" in m for m in msgs), msgs


def test_text_report_folds_node_sets(cluster):
    rc, out, _ = gd(cluster, "check", "--hosts", cluster.hostfile(["n1", "n2", "n3", "n4"]), "--select", "env")
    assert rc == 1
    assert "FAIL env.parity" in out and "[n4]" in out
    assert "gpudoctor: 4 nodes (n[1-4])" in out


def test_exports_are_sourceable_and_right(cluster):
    rc, out, err = gd(cluster, "exports", "--hosts", cluster.hostfile(["n1", "n2", "n3", "n4"]))
    assert rc == 0, err
    script = out + '\necho "IFNAME=$NCCL_SOCKET_IFNAME"\n'
    got = subprocess.run(["bash", "-c", 'eval "$(cat)"'], input=script, capture_output=True, text=True)
    assert got.returncode == 0, got.stderr
    ifname = [l for l in got.stdout.splitlines() if l.startswith("IFNAME=")][0].split("=", 1)[1]
    # The nodes share this machine's interfaces: the one up with an IPv4 address that is not lo/docker.
    from gpudoctor.collector import Context, collect
    from gpudoctor.report.exports import usable_interfaces

    mine = usable_interfaces(collect(Context(), only={"network"}))
    assert mine and ifname.lstrip("=") in mine and not ifname.lstrip("=").startswith(("lo", "docker"))


def test_facts_saved_then_checked_offline(cluster, tmp_path):
    out_dir = tmp_path / "facts"
    rc, _, err = gd(cluster, "facts", "--hosts", cluster.hostfile(["n1", "n4", "closed"]), "-o", str(out_dir),
                    "--timeout", "4")
    assert rc == 1 and "1 unreachable" in err
    assert sorted(os.listdir(out_dir)) == ["closed.json", "n1.json", "n4.json"]
    p = subprocess.run(GD + ["check", "--facts", str(out_dir), "--json", "--select", "env"], capture_output=True,
                       text=True)
    doc = json.loads(p.stdout)
    assert {n["host"]: n["error_kind"] for n in doc["nodes"]} == {"closed": "refused", "n1": None, "n4": None}
    assert any(f["check"] == "env.parity" for f in doc["findings"]) and p.returncode == 1


def test_changed_host_key_is_refused():
    c = sshcluster.Cluster()
    c.add("a").add("b")
    c.start()
    try:
        rc, out, _ = gd(c, "check", "--hosts", c.hostfile(), "--json", "--select", "shm")
        assert rc == 0, out
        known = open(c.known_hosts).read()
        assert known.count("ssh-ed25519") == 2  # accept-new recorded both
        c.stop()
        c.nodes["b"]["hostkey"] = c.new_hostkey("b")  # b was "reinstalled"
        c.procs = []
        c.start()
        rc, out, _ = gd(c, "check", "--hosts", c.hostfile(), "--json", "--select", "shm")
        doc = json.loads(out)
        kinds = {n["host"]: n["error_kind"] for n in doc["nodes"]}
        assert kinds == {"a": None, "b": "hostkey"} and rc == 1
        assert open(c.known_hosts).read() == known  # never silently replaced
        rc, out, _ = gd(c, "check", "--hosts", c.hostfile(["a"]), "--json", "--host-key-policy", "strict",
                        "--select", "shm")
        assert rc == 0
    finally:
        c.cleanup()


# Ctrl-C (the partial report lists nodes in flight as interrupted, and ends them): see
# tests/test_transport_ssh.py, which waits on the node's state instead of sleeping.


@pytest.mark.parametrize("content,needle", [
    ("gpu1 slots=eight\n", "hostfile:1: slots='eight' is not a number"),
    ("# nodes\n\ngpu1 slots=8\ngpu2 cores=8\n", "hostfile:4:"),
    ("gpu1:x\n", "the count after ':' must be a number"),
    ("\n# only comments\n", "names no host"),
])
def test_malformed_hostfile_is_exit_2_naming_file_and_line(tmp_path, content, needle):
    hf = tmp_path / "hostfile"
    hf.write_text(content)
    p = subprocess.run(GD + ["check", "--hosts", str(hf)], capture_output=True, text=True, cwd=str(tmp_path))
    assert p.returncode == 2 and needle in p.stderr and len(p.stderr.strip().splitlines()) == 1


def test_hostfile_formats():
    from gpudoctor.inventory import parse_hostfile

    text = "# deepspeed\nhuaweiyun1 slots=8\n\nhost2 slots=8 max_slots=8  # mpi\ngpu3:4\nplain4\ngpu[05-06] slots=2\n"
    got = [(h.name, h.slots) for h in parse_hostfile(text)]
    assert got == [("huaweiyun1", 8), ("host2", 8), ("gpu3", 4), ("plain4", None), ("gpu05", 2), ("gpu06", 2)]


def test_slurm_nodelist_is_the_default_inside_an_allocation_not_in_a_prolog():
    from gpudoctor.inventory import resolve

    assert [h.name for h in resolve(environ={"SLURM_JOB_NODELIST": "gpu[01-03]"})] == ["gpu01", "gpu02", "gpu03"]
    assert resolve(environ={"SLURM_JOB_NODELIST": "gpu[01-03]", "SLURM_SCRIPT_CONTEXT": "prolog_slurmd"}) == []


def test_resolve_spreads_slow_names_over_threads_within_one_deadline(monkeypatch):
    """A few workers answer the fast names (a thread per name cost 2-4x the lookups' CPU on
    every node); names still queued after SPREAD_AFTER get a thread each, so 16 slow names
    (4 at a time would take 2.4 s) finish within one deadline and no fast name is reported late."""
    from gpudoctor.collector import cluster
    from gpudoctor.collector.base import Context

    lookup = _lookup(lambda n: 0.6 if n.startswith("slow") else 0.0)  # the collector passes ASCII names as bytes
    monkeypatch.setattr(cluster.socket, "getaddrinfo", lookup)
    names = ["slow%d" % i for i in range(16)] + ["fast%d" % i for i in range(20)]
    got = cluster.resolve(Context(options={"resolve": names, "resolve_timeout": 2.0}))
    # States, not a clock: every name answered before the deadline's last join gave up (one after the other:
    # 9.6 s); the slow ones in flight together; and the spread came while the worker was still on its first
    # name (slow0: 0.6 s), not at half the deadline (1 s: the worker would have answered slow1 too)
    assert got["timed_out"] == [] and all(got["names"][n] for n in names), got
    assert lookup.peak[0] > 10, lookup.peak
    worker = lookup.thread["slow0"]
    assert [n for n in names if lookup.thread[n] == worker] == ["slow0"], lookup.thread


def _resolve_counting_threads(monkeypatch, lookup, names, timeout):
    """cluster.resolve with getaddrinfo replaced: (its answer, threads it started, seconds)."""
    import _thread
    import time as _time

    from gpudoctor.collector import cluster
    from gpudoctor.collector.base import Context

    started = []
    real = _thread.start_new_thread

    def counting(*args):
        started.append(1)
        return real(*args)

    monkeypatch.setattr(cluster.socket, "getaddrinfo", lookup)
    monkeypatch.setattr(_thread, "start_new_thread", counting)
    t0 = _time.time()
    got = cluster.resolve(Context(options={"resolve": names, "resolve_timeout": timeout}))
    return got, len(started), _time.time() - t0


def _lookup(delays):
    import socket as _socket
    import threading
    import time as _time

    lock, now = threading.Lock(), [0]

    def lookup(name, *args):
        name = name.decode() if isinstance(name, bytes) else name
        lookup.thread[name] = threading.get_ident()
        delay = delays(name)
        if delay:
            with lock:
                now[0] += 1
                lookup.peak[0] = max(lookup.peak[0], now[0])
        try:
            _time.sleep(delay)
        finally:
            if delay:
                with lock:
                    now[0] -= 1
        return [(_socket.AF_INET, _socket.SOCK_STREAM, 6, "", ("10.0.0.%d" % len(name), 0))]

    lookup.peak = [0]  # the most slow lookups in flight at once
    lookup.thread = {}  # name: the thread that looked it up
    return lookup


def test_resolve_keeps_one_worker_while_it_keeps_pace(monkeypatch):
    """A worker that answers every few ms (a busy machine: every node of a test Slurm on two
    cores) is left alone past SPREAD_AFTER: a thread per name cost 6-7 ms of CPU per node."""
    from gpudoctor.collector import cluster

    monkeypatch.setattr(cluster, "SPREAD_AFTER", 0.15)  # a loaded CI machine may hold a thread back 50 ms
    names = ["n%d" % i for i in range(60)]
    got, threads, took = _resolve_counting_threads(monkeypatch, _lookup(lambda n: 0.008), names, 3.0)
    assert got["timed_out"] == [] and all(got["names"][n] for n in names), got
    assert took > 0.3 and threads == 1, (took, threads)  # looked at its progress twice or more


def test_resolve_spreads_when_the_worker_stalls_or_cannot_finish_in_time(monkeypatch):
    """Fast names, then slow ones (the worker stops answering): the rest get a thread each; and
    names that answer at a pace that would pass half the deadline are spread too. Either way
    every name is answered within one deadline."""
    names = ["fast%d" % i for i in range(20)] + ["slow%d" % i for i in range(12)]
    lookup = _lookup(lambda n: 0.3 if n.startswith("slow") else 0.0)
    got, threads, took = _resolve_counting_threads(monkeypatch, lookup, names, 1.0)
    # no name timed out (one after the other: 3.6 s), and the slow ones were in flight together
    assert got["timed_out"] == [] and all(got["names"][n] for n in names), got
    assert threads > 10 and lookup.peak[0] > 5, (threads, lookup.peak, took)
    names = ["n%d" % i for i in range(80)]  # 80 x 25 ms: 2 s alone, past a 1 s deadline
    lookup = _lookup(lambda n: 0.025)
    got, threads, took = _resolve_counting_threads(monkeypatch, lookup, names, 1.0)
    assert got["timed_out"] == [] and all(got["names"][n] for n in names), got
    assert threads > 10 and lookup.peak[0] > 1, (threads, lookup.peak, took)


def _sched_reader(state, grows):
    """A stand-in for cluster._schedstat: a thread that waited on a runqueue all along (grows)
    or never ran nor waited since it started (not grows), in the state letter given."""
    import time as _time

    t0 = _time.time()
    return lambda tid: (0, int((_time.time() - t0) * 1e9) if grows else 0, state)


def test_resolve_leaves_a_starved_worker_alone(monkeypatch):
    """A worker that answers nothing for 0.25 s but ran or waited for a CPU all that time (a
    node starved of CPU: 256 nodes on two cores) keeps every name: threads would add their
    starts' CPU to the queue. Whether it was most of the time, or is waiting right now ("R"):
    Linux adds a wait to schedstat only when the thread gets the CPU, so a worker still waiting
    shows none of it."""
    from gpudoctor.collector import cluster

    names = ["stall"] + ["n%d" % i for i in range(30)]
    for state, grows in (("R", True), ("S", True), ("R", False)):
        monkeypatch.setattr(cluster, "_schedstat", _sched_reader(state, grows))
        got, threads, took = _resolve_counting_threads(
            monkeypatch, _lookup(lambda n: 0.25 if n == "stall" else 0.0), names, 3.0)
        assert got["timed_out"] == [] and all(got["names"][n] for n in names), got
        assert threads == 1 and took >= 0.25, (state, grows, threads, took)


def test_resolve_still_spreads_a_worker_blocked_in_the_resolver(monkeypatch):
    """Neither running nor runnable (stuck on DNS), or no scheduler statistics to tell (not
    Linux), or no native thread id (Python < 3.8): the names still queued get a thread each,
    and 12 names of 0.3 s each cost one deadline, not one per name."""
    import _thread

    from gpudoctor.collector import cluster

    names = ["slow%d" % i for i in range(12)]
    cases = [("blocked", _sched_reader("S", grows=False)), ("no schedstat", lambda tid: None),
             ("no native id", _sched_reader("R", grows=True))]
    for case, reader in cases:
        monkeypatch.setattr(cluster, "_schedstat", reader)
        if case == "no native id" and hasattr(_thread, "get_native_id"):
            monkeypatch.delattr(_thread, "get_native_id")
        lookup = _lookup(lambda n: 0.3)
        got, threads, took = _resolve_counting_threads(monkeypatch, lookup, names, 1.0)
        # none timed out (one after the other: 3.6 s), the 12 in flight together
        assert got["timed_out"] == [] and all(got["names"][n] for n in names), (case, got)
        assert threads > 10 and lookup.peak[0] > 5, (case, threads, lookup.peak, took)


def test_resolve_spreads_a_starved_worker_past_half_the_time(monkeypatch):
    """Starved or not, names still queued at half the deadline get a thread each, so that none is
    reported as not resolving for want of a CPU."""
    from gpudoctor.collector import cluster

    monkeypatch.setattr(cluster, "_schedstat", _sched_reader("R", grows=True))
    names = ["slow%d" % i for i in range(12)]  # 2.4 s in one thread
    got, threads, took = _resolve_counting_threads(monkeypatch, _lookup(lambda n: 0.2), names, 1.2)
    assert got["timed_out"] == [] and all(got["names"][n] for n in names), got
    # none timed out (2.4 s alone, a 1.2 s deadline); spread only past half the time: a lower bound that a busy
    # machine can only make longer (the rule reads the clock; an earlier spread would end in ~0.2 s)
    assert threads > 8 and took >= 0.6, (threads, took)


def test_schedstat_reads_the_kernels_files(monkeypatch, tmp_path):
    """/proc/<pid>/task/<tid>/schedstat ("run_ns wait_ns slices") and .../stat ("tid (comm) S ...",
    a comm may hold ")"); a missing or garbled file is None."""
    import _thread

    from gpudoctor.collector import cluster

    (tmp_path / "7.schedstat").write_bytes(b"1500 2500 3\n")
    (tmp_path / "7.stat").write_bytes(b"7 (py) x) R 1 7 7 0 -1\n")
    (tmp_path / "8.schedstat").write_bytes(b"garbage\n")
    (tmp_path / "8.stat").write_bytes(b"8 (py) S 1\n")
    monkeypatch.setattr(cluster, "SCHEDSTAT", str(tmp_path / "%d.schedstat"))
    monkeypatch.setattr(cluster, "TASKSTAT", str(tmp_path / "%d.stat"))
    assert cluster._schedstat(7) == (1500, 2500, "R")
    assert cluster._schedstat(8) is None and cluster._schedstat(9) is None
    monkeypatch.undo()
    if hasattr(_thread, "get_native_id") and os.path.exists("/proc/self/task"):
        run, wait, state = cluster._schedstat(_thread.get_native_id())
        assert run > 0 and wait >= 0 and state == "R"  # this thread, running while it reads


def _glibc():
    try:
        return os.confstr("CS_GNU_LIBC_VERSION").startswith("glibc ")
    except (AttributeError, ValueError, OSError):
        return False


@pytest.mark.skipif(not _glibc(), reason="the /etc/hosts table is read on glibc only")
def test_hosts_answers_only_names_glibc_answers_from_the_file_alone(tmp_path, monkeypatch):
    from gpudoctor.collector import cluster

    hosts, nss = tmp_path / "hosts", tmp_path / "nsswitch.conf"
    hosts.write_text("127.0.0.1 localhost\n::1 localhost ip6-localhost\n10.0.0.1\tsn1 sn1-alias # c\n"
                     "10.0.0.2 sn2\n10.0.0.3 SN2\n010.0.0.4 sn4\n10.0.0.256 sn5\nfe80::1 sn6\n# 10.0.0.7 sn7\n")
    nss.write_text("passwd: files\nhosts:          files dns\n")
    got = cluster.hosts_answers(str(hosts), str(nss))
    # on two lines (localhost: v4 and v6; sn2/SN2: strcasecmp), not an inet_pton address, or commented out: not here
    assert got == {"sn1": "10.0.0.1", "sn1-alias": "10.0.0.1"}, got
    assert "SN1" not in got  # another spelling: getaddrinfo answers it
    for conf in ("hosts: dns files\n", "hosts: files [SUCCESS=continue] dns\n", "hosts: files\nhosts: dns\n", ""):
        nss.write_text(conf)
        assert cluster.hosts_answers(str(hosts), str(nss)) == {}, conf
    assert cluster.hosts_answers(str(hosts), str(tmp_path / "none")) == {}  # glibc's default: dns first
    nss.write_text("hosts: files\n")
    for odd in ("10.0.0.9 sn\xe9\n", "10.0.0.9\rsn9\n", "10.0.0.9 sn9\x7f\n", "10.0.0.9\x0bsn9\n"):  # bytes the resolver and str.split read differently
        hosts.write_text("10.0.0.1 sn1\n" + odd, encoding="utf-8")
        assert cluster.hosts_answers(str(hosts), str(nss)) == {}, odd
    hosts.write_text("10.0.0.1 sn1\n")
    assert cluster.hosts_answers(str(hosts), str(nss)) == {"sn1": "10.0.0.1"}
    monkeypatch.setattr(cluster.os, "confstr", lambda name: (_ for _ in ()).throw(ValueError(name)))  # musl
    assert cluster.hosts_answers(str(hosts), str(nss)) == {}


def test_resolve_answers_names_of_the_hosts_table_without_the_resolver(monkeypatch):
    from gpudoctor.collector import cluster
    from gpudoctor.collector.base import Context

    asked = []

    def lookup(name, *args):
        asked.append(name)
        raise OSError("no DNS")

    monkeypatch.setattr(cluster, "hosts_answers", lambda: {"sn1": "10.0.0.1"})
    monkeypatch.setattr(cluster.socket, "getaddrinfo", lookup)
    got = cluster.resolve(Context(options={"resolve": ["sn1", "sn2"], "resolve_timeout": 1.0}))
    assert got == {"names": {"sn1": ["10.0.0.1"], "sn2": []}, "timed_out": []}
    assert asked == [b"sn2"]


def test_resolve_starts_no_thread_when_the_hosts_table_and_addresses_answer_every_name(monkeypatch):
    """Every name in the table (the test Slurm's nodes) or an address: answered in the section's
    own thread, in the order given; the worker starts only for a name the resolver must answer."""
    from gpudoctor.collector import cluster

    table = dict(("sn%d" % i, "10.0.%d.%d" % (i // 200, i % 200 + 1)) for i in range(1, 257))
    monkeypatch.setattr(cluster, "hosts_answers", lambda: table)
    names = ["sn%d" % i for i in range(256, 0, -1)] + ["10.9.9.9"]
    got, threads, _ = _resolve_counting_threads(monkeypatch, _lookup(lambda n: 1.0), names, 1.0)
    assert threads == 0 and got["timed_out"] == [], (threads, got["timed_out"])
    assert list(got["names"]) == names and got["names"]["sn7"] == ["10.0.0.8"] and got["names"]["10.9.9.9"] == ["10.9.9.9"]
    got, threads, _ = _resolve_counting_threads(monkeypatch, _lookup(lambda n: 0.0), names + ["other"], 1.0)
    assert threads == 1 and got["names"]["other"] == ["10.0.0.5"] and list(got["names"])[-1] == "other", threads


@pytest.mark.skipif(not _glibc() or os.geteuid() != 0, reason="needs glibc and root (unshare -m)")
def test_resolve_from_the_hosts_table_equals_getaddrinfo(tmp_path):
    """The facts are the resolver's: an /etc/hosts of 300 names and the lines glibc reads its own
    way, mounted over /etc/hosts in a private mount namespace; every name answered from the table
    and by getaddrinfo alone (the table emptied) must be the same."""
    hosts = tmp_path / "hosts"
    lines = ["127.0.0.1 localhost", "::1 localhost ip6-localhost", "10.1.0.1 dup", "10.1.0.2 DUP",
             "010.1.0.3 zero", "10.1.0.4 Mixed", "10.1.0.5 a1 a2\ta3 # a4", "#10.1.0.6 cmt"]
    lines += ["10.2.%d.%d sn%d" % (i // 200, 10 + i % 200, i) for i in range(300)]
    hosts.write_text("\n".join(lines) + "\n")
    # names the file holds (glibc matches them case-insensitively): none of them waits on DNS
    names = ["sn%d" % i for i in range(300)] + ["localhost", "dup", "Dup", "Mixed", "mixed", "MIXED", "a1", "a3",
                                                "10.1.0.4"]
    code = ("import json,sys; from gpudoctor.collector import cluster; from gpudoctor.collector.base import Context\n"
            "n=json.loads(sys.argv[1]); t=len(cluster.hosts_answers())\n"
            "a=cluster.resolve(Context(options={'resolve':n,'resolve_timeout':20}))\n"
            "cluster.hosts_answers=lambda:{}\n"
            "b=cluster.resolve(Context(options={'resolve':n,'resolve_timeout':20}))\n"
            "print(json.dumps([t,a,b]))")
    p = subprocess.run(["unshare", "-m", "sh", "-c", 'mount --bind "$0" /etc/hosts && exec "$@"', str(hosts),
                        sys.executable, "-c", code, json.dumps(names)], capture_output=True, text=True, timeout=60,
                       cwd=os.path.join(os.path.dirname(__file__), ".."))
    if p.returncode and "unshare" in p.stderr:
        pytest.skip(p.stderr.strip())
    assert p.returncode == 0, p.stderr
    table, fast, slow = json.loads(p.stdout)
    if table == 0:
        pytest.skip("this machine's nsswitch.conf does not ask files first: nothing is read from the table")
    assert table >= 300
    assert fast["names"] == slow["names"], [n for n in names if fast["names"][n] != slow["names"][n]]
    assert fast["names"]["sn7"] == ["10.2.0.17"] and fast["names"]["MIXED"] == ["10.1.0.4"]
    assert fast["timed_out"] == slow["timed_out"] == []

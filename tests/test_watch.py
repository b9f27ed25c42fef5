"""`gpudoctor watch`: the node-side sampler's parsers, the diagnoses over recorded H100
samples and composed multi-node fixtures (fixtures/watch/), and a real run here against a
process with NCCL_* variables sending over a veth between network namespaces."""

import io
import json
import os
import subprocess
import sys

import pytest

from conftest import FIXTURES, ROOT

WATCH_FIX = os.path.join(FIXTURES, "watch")


def recorded_section(title):
    """The lines under '## <title>' in the device machine's record (fixtures/watch/h100-machine.txt)."""
    lines, on = [], False
    with open(os.path.join(WATCH_FIX, "h100-machine.txt")) as f:
        for line in f:
            if line.startswith("## "):
                on = line.strip() == "## " + title
                continue
            if on:
                lines.append(line)
    assert lines, title
    return "".join(lines)


def diagnose(path):
    """(report, nodes) for saved samples: a file or a folder of them."""
    from gpudoctor.config import Config
    from gpudoctor.gather import from_facts
    from gpudoctor.runner import run_checks
    from gpudoctor.watch import WATCH

    nodes = from_facts(path)
    return run_checks(nodes, list(WATCH), Config()), nodes


def result(report, check_id):
    (r,) = [r for r in report.results if r.id == check_id]
    return r


# ---------------------------------------------------------------- parsers, on recorded text

def test_proc_net_dev_recorded_on_the_h100_machine():
    from gpudoctor.collector.watch import parse_proc_net_dev

    got = parse_proc_net_dev(recorded_section("/proc/net/dev"))
    assert sorted(got) == ["eth0", "ifb0", "ifb1", "lo"]
    assert got["eth0"] == {"rx_bytes": 625, "rx_packets": 10, "tx_bytes": 1473, "tx_packets": 18}
    # a counter wide enough to touch the colon (net-procfs.c prints "%6s:%8llu")
    assert parse_proc_net_dev("enp1s0f0:1234567890123 5 0 0 0 0 0 0 77 1 0 0 0 0 0 0\n")["enp1s0f0"]["rx_bytes"] \
        == 1234567890123


def test_nvidia_smi_fallback_parses_the_recorded_answers():
    from gpudoctor.collector.watch import parse_smi_sample

    gpus, sample = parse_smi_sample(recorded_section("nvidia-smi --query-gpu during spin"))
    assert gpus == [{"index": 0, "name": "NVIDIA H100 80GB HBM3", "uuid": "GPU-abfd7d84-6fd0-1aca-5988-d64b7983af59",
                     "bus_id": "00000000:00:06.0", "power_limit_w": 700.0,
                     "memory_total_mib": None}]  # recorded before memory.used/total were asked for
    assert sample[0]["util_pct"] == 100 and sample[0]["power_w"] == 87.84 and sample[0]["sm_clock_mhz"] == 1980
    _, na = parse_smi_sample("0, X, GPU-1, 00000000:01:00.0, [N/A], 0, [N/A], 700.00, 1980\n")
    assert na[0]["util_pct"] is None and na[0]["power_w"] is None


def test_proc_stat_environ_and_pid_stat():
    from gpudoctor.collector.watch import parse_environ, parse_pid_stat, parse_proc_stat

    st = parse_proc_stat("cpu  10 0 5 80 5 0 0 0 0 0\ncpu0 5 0 2 40 3 0 0 0 0 0\ncpu1 5 0 3 40 2 0 0 0 0 0\n")
    assert st["iowait"] == 5 and st["idle"] == 80 and st["cpus"] == 2
    env = parse_environ(b"NCCL_NET=Socket\0UCX_NET_DEVICES=mlx5_0:1\0NCCL_IB_TOKEN=hunter2\0PATH=/bin\0HOME=/root",
                        key="k")
    assert env["NCCL_NET"] == "Socket" and env["UCX_NET_DEVICES"] == "mlx5_0:1"
    assert env["NCCL_IB_TOKEN"].startswith("hmac:") and "hunter2" not in json.dumps(env)
    assert "PATH" not in env and "HOME" not in env  # only the job's communication variables
    # comm with spaces and a ')' (proc(5): fields are counted after the last ')')
    assert parse_pid_stat("42 (a) b) S 1 1 1 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 1 0") == 300


@pytest.mark.parametrize("spec,devices,left", [
    ("mlx5", ["mlx5_0", "mlx5_1"], ["mlx5_0", "mlx5_1"]),  # a prefix
    ("=mlx5_0:1", ["mlx5_0", "mlx5_10"], ["mlx5_0"]),  # exact names
    ("^mlx5_0", ["mlx5_0", "mlx5_1"], ["mlx5_1"]),  # exclusion
    ("=mlx4_0:1,mlx4_1:1", ["mlx5_0"], []),  # names from another cluster's script
])
def test_nccl_ib_hca_matching(spec, devices, left):
    from gpudoctor.watch import _hca_matches

    assert _hca_matches(spec, devices) == left


def test_nccl_integers_read_as_nccl_reads_them():
    from gpudoctor.watch import _nccl_int

    assert [_nccl_int(v) for v in ("1", " 0 ", "0x1", "010", "1abc", "true", "", "-2")] == [1, 0, 1, 8, 1, 0, 0, -2]


def test_the_section_is_unsupported_unless_asked():
    from gpudoctor.collector import Context, collect

    doc = collect(Context(root=os.path.join(FIXTURES, "roots", "ib_mlx5_hdr"), live=False), only={"watch"})
    assert doc["watch"]["status"] == "unsupported" and "gpudoctor watch" in doc["watch"]["reason"]


def test_rdma_counters_are_read_in_4_byte_words(tmp_path):
    from gpudoctor.collector.watch import read_rdma, summarize

    port = tmp_path / "sys/class/infiniband/mlx5_0/ports/1"
    (port / "counters").mkdir(parents=True)
    (port / "state").write_text("4: ACTIVE\n")
    (port / "link_layer").write_text("InfiniBand\n")
    (port / "rate").write_text("400 Gb/sec (4X NDR)\n")
    from gpudoctor.collector import Context

    ctx = Context(root=str(tmp_path), live=False)
    (port / "counters/port_xmit_data").write_text("1000\n")
    (port / "counters/port_rcv_data").write_text("10\n")
    a = {"net": {}, "rdma": read_rdma(ctx), "cpu": None, "disks": {}}
    (port / "counters/port_xmit_data").write_text("251000\n")
    (port / "counters/port_rcv_data").write_text("10\n")
    b = {"net": {}, "rdma": read_rdma(ctx), "cpu": None, "disks": {}}
    _, ports, _, _ = summarize(a, b, 2.0)
    assert ports[0]["state"] == "ACTIVE" and ports[0]["xmit_bytes"] == 1000000 and ports[0]["xmit_bytes_s"] == 500000
    assert ports[0]["rcv_bytes"] == 0


# ---------------------------------------------------------------- one H100, recorded live

def test_h100_spin_is_communication_bound():
    report, _ = diagnose(os.path.join(WATCH_FIX, "h100-spin.json"))
    r = result(report, "watch.bound")
    assert r.status == "fail" and r.summary.startswith("communication-bound: GPU 0 at 100% utilization draws 1")
    assert "of its 700 W power limit" in r.summary and report.exit_code == 1


def test_h100_matmul_is_computing():
    report, _ = diagnose(os.path.join(WATCH_FIX, "h100-matmul.json"))
    r = result(report, "watch.bound")
    assert r.status == "pass" and r.summary.startswith("computing: GPU 0 at 99% utilization draws 9")
    assert report.exit_code == 0


def test_h100_input_starved_loop_is_input_bound():
    report, _ = diagnose(os.path.join(WATCH_FIX, "h100-input.json"))
    r = result(report, "watch.bound")
    assert r.status == "fail" and r.summary.startswith("input-bound: GPU utilization low and uneven (mean 34%, 0-100%")
    assert "job processes at 100% CPU" in r.summary


def test_h100_idle_has_nothing_to_watch():
    report, _ = diagnose(os.path.join(WATCH_FIX, "h100-idle.json"))
    assert result(report, "watch.target").status == "na"
    assert "idle" in result(report, "watch.target").summary
    assert report.exit_code == 0


# ---------------------------------------------------------------- composed multi-node

def test_composed_fixtures_are_what_compose_py_writes():
    sys.path.insert(0, WATCH_FIX)
    try:
        import compose
    finally:
        sys.path.remove(WATCH_FIX)
    for rel, text in compose.render().items():
        with open(os.path.join(WATCH_FIX, rel)) as f:
            assert f.read() == text, rel


@pytest.mark.parametrize("scenario,check_id,hosts,words,exports", [
    ("sockets-ib-disabled", "watch.transport", ["gpu01", "gpu02", "gpu03", "gpu04"],
     ["NCCL on sockets", "eth0", "NCCL_IB_DISABLE=1"], {"NCCL_IB_DISABLE": "0", "NCCL_NET": "IB"}),
    ("sockets-ib-disabled", "watch.bound", ["gpu01", "gpu02", "gpu03", "gpu04"],
     ["communication-bound", "NCCL is on sockets", "NCCL_IB_DISABLE=1", "mlx5_0/1, mlx5_1/1, mlx5_2/1, mlx5_3/1 "
      "(ACTIVE) move 0 B/s"], {}),
    ("sockets-wrong-hca", "watch.transport", ["gpu01", "gpu02", "gpu03", "gpu04"],
     ["NCCL_IB_HCA==mlx4_0:1,mlx4_1:1 selects no HCA", "mlx5_0"],
     {"NCCL_IB_HCA": "=mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1", "NCCL_NET": "IB"}),
    ("straggler-gpu03", "watch.straggler", ["gpu03"], ["straggler: gpu03's GPUs compute at 96%", "gpu[01-02,04] wait"],
     {}),
    ("straggler-link-gpu02", "watch.straggler", ["gpu02"], ["straggler link: gpu02 moves 4.8 GB/s", "4X EDR"], {}),
])
def test_composed_cluster_diagnoses(scenario, check_id, hosts, words, exports):
    report, _ = diagnose(os.path.join(WATCH_FIX, scenario))
    r = result(report, check_id)
    assert r.status == "fail"
    (f,) = [f for f in r.findings if f.severity == "error"][:1]
    assert sorted(f.hosts) == hosts
    for w in words:
        assert w in f.message, (w, f.message)
    assert f.exports == exports
    assert report.exit_code == 1


def test_composed_healthy_cluster_passes_everything():
    report, _ = diagnose(os.path.join(WATCH_FIX, "healthy"))
    assert [(r.id, r.status) for r in report.results] == [
        ("watch.bound", "pass"), ("watch.memory", "skipped"), ("watch.straggler", "pass"), ("watch.target", "pass"),
        ("watch.transport", "pass")]
    assert "on the HCAs" in result(report, "watch.transport").summary and report.exit_code == 0
    # recorded before the sampler read GPU memory (f6ba643): could not judge, said so
    assert "no memory reading for GPU 0 (nvml" in result(report, "watch.memory").summary


def test_json_and_prometheus_reports(capsys):
    from gpudoctor.cli import main

    assert main(["watch", "--facts", os.path.join(WATCH_FIX, "straggler-gpu03"), "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["schema"] == "gpudoctor.report/2"
    assert doc["samples"]["gpu03"]["gpus"][0]["state"] == "computing"
    assert doc["samples"]["gpu01"]["gpus"][0]["state"] == "waiting"
    assert doc["samples"]["gpu01"]["rdma_bytes_s"] == 2e10
    assert main(["watch", "--facts", os.path.join(WATCH_FIX, "straggler-gpu03"), "--format", "prometheus"]) == 1
    prom = capsys.readouterr().out
    assert 'gpudoctor_check_status{check="watch.straggler",host="gpu03",severity="error"} 2' in prom
    assert 'gpudoctor_watch_gpu_power_fraction{host="gpu03",gpu="0"} 0.958' in prom
    assert 'gpudoctor_watch_rdma_bytes_per_second{host="gpu01"} 20000000000.0' in prom
    assert 'gpudoctor_watch_interface_bytes_per_second{host="gpu01",interface="eth0"} 2' in prom


# ---------------------------------------------------------------- live, on this machine

def test_watch_local_without_gpus_says_why(capsys):
    if os.path.exists("/proc/driver/nvidia/version"):
        pytest.skip("this machine has an NVIDIA driver")
    from gpudoctor.cli import main

    assert main(["watch", "--local", "--seconds", "0.5"]) == 0
    out = capsys.readouterr().out
    assert "no NVIDIA driver loaded" in out and "no GPU to watch" in out
    assert "N/A " not in out  # n/a diagnoses are counted, not listed, without --verbose


def test_bad_seconds_is_a_usage_error(capsys):
    from gpudoctor.cli import main

    assert main(["watch", "--local", "--seconds", "nan"]) == 2
    assert "--seconds" in capsys.readouterr().err
    # check facts are not samples: one line, exit 2, not a report of "not collected"
    assert main(["watch", "--facts", os.path.join(FIXTURES, "nodes", "devbox-debian12-nogpu.json")]) == 2
    assert "holds no watch samples" in capsys.readouterr().err


def test_a_socket_job_in_a_network_namespace(tmp_path):
    """The "job": a process with NCCL_* variables, in its own network namespace, sending over a
    veth to this one. No GPU here: the GPU diagnosis is n/a with the reason, the traffic and the
    variables are read, and a secret-looking value is shown only as its keyed hash."""
    import watchnet

    why = watchnet.usable()
    if why:
        pytest.skip(why)
    job = watchnet.NetnsJob({"NCCL_NET": "Socket", "NCCL_IB_DISABLE": "1", "UCX_SECRET_TOKEN": "hunter2-watch"})
    job.env["NCCL_SOCKET_IFNAME"] = job.job_if  # the veth end inside the job's namespace
    with job:
        job.wait_flowing()
        p = subprocess.run([sys.executable, "-m", "gpudoctor", "watch", "--local", "--seconds", "1", "--json",
                            "--save", str(tmp_path)], cwd=ROOT, capture_output=True, text=True, timeout=60)
        pid, job_if = job.pid, job.job_if
    assert p.returncode == 0, p.stderr  # a warning: no HCA here, sockets are all there is
    assert "hunter2-watch" not in p.stdout and "hunter2-watch" not in open(next(tmp_path.glob("*.json"))).read()
    doc = json.loads(p.stdout)
    checks = dict((c["id"], c) for c in doc["checks"])
    assert checks["watch.bound"]["status"] == "na" and "no NVIDIA driver" in checks["watch.bound"]["summary"]
    t = checks["watch.transport"]
    assert t["status"] == "warn"
    assert "NCCL_NET=Socket forces" in t["summary"] and "NCCL_IB_DISABLE=1" in t["summary"]
    (node,) = doc["samples"].values()
    (proc,) = [x for x in node["processes"] if x["pid"] == pid]
    assert proc["env"]["NCCL_NET"] == "Socket" and proc["env"]["UCX_SECRET_TOKEN"].startswith("hmac:")
    assert proc["infiniband_fds"] == []
    # the job's own interface, read through /proc/PID/net/dev, whatever else this shared machine sends
    assert node["job_interface"] == job_if and node["job_interface_bytes_s"] > 1e6
    assert "%s (in the job's network namespace, pid %d)" % (job_if, pid) in t["summary"]


# ---------------------------------------------------------------- through the ssh transport

def test_watch_over_ssh_samples_every_node_and_reads_the_users_job(tmp_path):
    """Two sshd nodes on 127.x (tests/sshcluster.py), sessions as an unprivileged user: the
    collector samples each node for --seconds through the ssh transport; the user's own job
    (a process with NCCL_* variables) is found, a root process's environment is not read."""
    import sshcluster

    if not sshcluster.available():
        pytest.skip("needs root and sshd")
    c = sshcluster.Cluster()
    job, mark = None, "watch-test-%d" % os.getpid()
    try:
        c.add("w1").add("w2").start()
        job = subprocess.Popen(["runuser", "-u", sshcluster.USER, "--", "env", "NCCL_NET=Socket",
                                "NCCL_IB_DISABLE=1", "NCCL_DEBUG_SUBSYS=%s" % mark, "sleep", "120"],
                               stdin=subprocess.DEVNULL, start_new_session=True)
        p = subprocess.run([sys.executable, "-m", "gpudoctor", "watch", "--hosts", c.hostfile(), "--seconds", "1",
                            "--ssh-config", c.ssh_config, "--json"], cwd=ROOT, capture_output=True, text=True,
                           timeout=90)
    finally:
        if job is not None:  # runuser forks: end its whole process group, sleep included
            os.killpg(job.pid, 9)
            job.wait()
        c.cleanup()
    doc = json.loads(p.stdout)
    assert p.returncode == 0, (p.stderr, doc["nodes"])  # no GPU: nothing wrong to report
    assert sorted(doc["samples"]) == ["w1", "w2"]
    for host, s in doc["samples"].items():
        assert s["status"] == "ok" and 1.0 <= s["elapsed_s"] < 3, (host, s)
        assert "no NVIDIA driver" in s["gpu_reason"]
        mine = [x for x in s["processes"] if (x["env"] or {}).get("NCCL_DEBUG_SUBSYS") == mark]
        assert mine and mine[0]["env"]["NCCL_IB_DISABLE"] == "1", s["processes"]
    checks = dict((x["id"], x) for x in doc["checks"])
    # no GPU here: n/a with the reason on both nodes (the traffic verdict depends on what else
    # this shared machine sends in the window, so it is not asserted)
    assert checks["watch.bound"]["status"] == "na" and "no NVIDIA driver" in checks["watch.bound"]["summary"]


def test_another_users_process_is_not_read(tmp_path):
    """Without permission the environment and fds are reported unreadable with the reason,
    never guessed (pid 1 is root's; the collector runs as an unprivileged user)."""
    import sshcluster

    if os.geteuid() != 0:
        pytest.skip("needs root to switch users")
    sshcluster.ensure_user()
    code = ("import json; from gpudoctor.collector.base import Context; "
            "from gpudoctor.collector.watch import describe_process; "
            "print(json.dumps(describe_process(Context(), 1, 'k')))")
    p = subprocess.run(["runuser", "-u", sshcluster.USER, "--", "/usr/bin/python3", "-c", code], cwd="/",
                       env=dict(os.environ, PYTHONPATH=ROOT), capture_output=True, text=True, timeout=30)
    assert p.returncode == 0, p.stderr
    got = json.loads(p.stdout)
    assert got["environ_readable"] is False and got["env"] is None and "ermission" in got["environ_error"]
    assert got["fds_readable"] is False and got["infiniband_fds"] is None


def _leaves(x, path=()):
    if isinstance(x, dict):
        for k, v in x.items():
            yield from _leaves(v, path + (k,))
    elif isinstance(x, list):
        for i, v in enumerate(x):
            yield from _leaves(v, path + (i,))
    else:
        yield path


def test_untrusted_sample_values_never_crash_a_diagnosis():
    """Samples come from nodes: every value of a real document replaced by a string, a list
    or a negative number ends in outcomes and a report, never a crash."""
    import copy

    from gpudoctor.config import Config
    from gpudoctor.runner import Node, run_checks
    from gpudoctor.watch import WATCH, table_lines
    from gpudoctor.commands.watch import report_dict

    with open(os.path.join(WATCH_FIX, "sockets-ib-disabled", "gpu01.json")) as f:
        base = json.load(f)
    paths = [p for p in _leaves(base["watch"]) if p[-1] != "status"]
    # one GPU sample stands for all of them (the others share its paths' shape)
    paths = [p for p in paths if not (len(p) > 4 and p[:3] == ("gpu", "gpus", 0) and p[3] == "samples" and p[4] > 0)]
    assert len(paths) > 40
    for bad in ("x", [1], -5):  # a string, a container, an impossible number (null is "absent")
        for p in paths:
            doc = copy.deepcopy(base)
            tgt = doc["watch"]
            for k in p[:-1]:
                tgt = tgt[k]
            tgt[p[-1]] = bad
            other = copy.deepcopy(base)
            other["node"] = "gpu02"
            nodes = [Node(host="gpu01", facts=doc), Node(host="gpu02", facts=other)]
            report = run_checks(nodes, list(WATCH), Config())
            assert not report.crashed, (p, bad, [r.crashed for r in report.results])
            table_lines(nodes)
            json.dumps(report_dict(report, nodes), default=list)


def test_the_text_report_shows_the_samples(monkeypatch, capsys):
    from gpudoctor.cli import main
    import gpudoctor.watch as watch

    assert main(["watch", "--facts", os.path.join(WATCH_FIX, "straggler-gpu03")]) == 1
    out = capsys.readouterr().out
    assert "    GPU 0   util  99% ( 99-100)  power   670/700  W ( 96%)  SM 1376 MHz  computing" in out
    assert "FAIL watch.straggler  straggler: gpu03's GPUs" in out
    monkeypatch.setattr(watch, "DETAILED_NODES", 2)  # a bigger cluster: one line per node
    assert main(["watch", "--facts", os.path.join(WATCH_FIX, "straggler-gpu03")]) == 1
    out = capsys.readouterr().out
    assert ("  gpu03        1 GPU util 99% power 96% of limit (computing 1); eth0 20.0 KB/s; RDMA 20.0 GB/s; "
            "1 job process") in out
    assert "    GPU 0" not in out


def test_gpu_pids_of_another_pid_namespace_are_not_described(tmp_path):
    """NVML names the host's pids: inside a container the number may be absent, or another
    process's here (one without /dev/nvidia* open)."""
    from gpudoctor.collector import Context
    from gpudoctor.collector.watch import in_this_pid_namespace

    for pid, target in ((101, "/dev/nvidia0"), (102, "/dev/null")):
        fd = tmp_path / ("proc/%d/fd" % pid)
        fd.mkdir(parents=True)
        os.symlink(target, str(fd / "3"))
    kept, dropped = in_this_pid_namespace(Context(root=str(tmp_path), live=False), {101: [0], 102: [1], 103: [2]})
    assert kept == {101: [0]} and dropped == 2


def test_idle_gpus_do_not_hide_the_straggler():
    """gpu03 computes on one GPU and leaves another idle: its pace is the busy GPU's."""
    import copy

    from gpudoctor.config import Config
    from gpudoctor.gather import from_facts
    from gpudoctor.runner import run_checks
    from gpudoctor.watch import WATCH

    nodes = from_facts(os.path.join(WATCH_FIX, "straggler-gpu03"))
    with open(os.path.join(WATCH_FIX, "h100-idle.json")) as f:
        idle = json.load(f)["watch"]["gpu"]["gpus"][0]
    (n3,) = [n for n in nodes if n.host == "gpu03"]
    n3.facts["watch"]["gpu"]["gpus"].append(dict(copy.deepcopy(idle), index=1))
    r = result(run_checks(nodes, list(WATCH), Config()), "watch.straggler")
    assert r.status == "fail" and r.findings[0].hosts == ["gpu03"]


def test_a_container_without_uverbs_is_named():
    """HCAs in sysfs, only rdma_cm in /dev/infiniband (the device machine's own container)."""
    import copy

    report, nodes = diagnose(os.path.join(WATCH_FIX, "sockets-ib-disabled", "gpu01.json"))
    doc = copy.deepcopy(nodes[0].facts)
    for p in doc["watch"]["processes"]["list"]:
        p["env"] = {}
    doc["watch"]["rdma"]["dev_infiniband"] = ["rdma_cm"]
    from gpudoctor.config import Config
    from gpudoctor.runner import Node, run_checks
    from gpudoctor.watch import WATCH

    r = result(run_checks([Node(host="gpu01", facts=doc)], list(WATCH), Config()), "watch.transport")
    assert r.status == "fail" and "/dev/infiniband has no uverbs device here" in r.summary


@pytest.mark.parametrize("util,frac,want", [
    (None, 0.5, "unknown"), (9.9, 0.9, "idle"), (10, None, "unknown"), (50, 0.55, "computing"),
    (100, 0.549, "partial"), (80, 0.399, "waiting"), (79.9, 0.1, "partial"), (100, 0.40, "partial"),
    (100, 0.18, "waiting"), (99, 0.96, "computing"),
])
def test_gpu_state_thresholds(util, frac, want):
    from gpudoctor.watch import state

    assert state(util, frac) == want


@pytest.mark.parametrize("iface,rdma,sockets,hcas", [
    (25e6, 0, True, False),  # the socket signature
    (25e6, None, True, False),  # no port counters at all
    (0.9e6, 0, False, False),  # too little to be the job's traffic
    (25e6, 2.4e6, True, False),  # HCAs under a tenth of the interface: sockets
    (25e6, 2.6e6, False, True),  # over a tenth: the HCAs carry the job
    (2e4, 2e10, False, True),
    (0, 0.9e6, False, False),
])
def test_socket_and_hca_thresholds(iface, rdma, sockets, hcas):
    from gpudoctor.watch import on_hcas, on_sockets

    t = {"iface_bytes_s": iface, "rdma_bytes_s": rdma}
    assert (on_sockets(t), on_hcas(t)) == (sockets, hcas)


def test_nvlink_traffic_is_named_when_no_network_moves():
    import copy

    from gpudoctor.config import Config
    from gpudoctor.runner import Node, run_checks
    from gpudoctor.watch import WATCH

    with open(os.path.join(WATCH_FIX, "h100-spin.json")) as f:
        doc = json.load(f)
    g = doc["watch"]["gpu"]["gpus"][0]
    g["nvlink_tx_bytes_s"], g["nvlink_rx_bytes_s"] = 1.5e11, 1.5e11
    r = result(run_checks([Node(host="vm", facts=copy.deepcopy(doc))], list(WATCH), Config()), "watch.bound")
    assert r.status == "fail" and "NVLink carries 300.0 GB/s between this node's GPUs" in r.summary


# ---------------------------------------------------------------- 4x H100, one node, recorded live (fixtures/watch/h100x4)

H100X4 = os.path.join(WATCH_FIX, "h100x4")


def h100x4(phase, edit=None):
    """watch.bound's result over a recorded phase; ``edit(watch)`` changes a copy first."""
    from gpudoctor.config import Config
    from gpudoctor.runner import Node, run_checks
    from gpudoctor.watch import WATCH

    with open(os.path.join(H100X4, phase + ".json")) as f:
        doc = json.load(f)
    if edit:
        edit(doc["watch"])
    report = run_checks([Node(host="vm", facts=doc)], list(WATCH), Config())
    return result(report, "watch.bound"), report


def _procs(w):
    return w["processes"]["list"]


def test_h100x4_nvlink_phase_computes():
    r, report = h100x4("nvlink")
    assert r.status == "pass" and r.summary.startswith("computing: GPU 0,1,2,3 at 97% utilization draw 96%")
    assert report.exit_code == 0


def test_h100x4_sockets_phase_names_the_variables_and_the_loopback():
    """NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 on one host: the four ranks talk through lo."""
    r, report = h100x4("sockets")
    (f,) = r.findings
    assert r.status == "fail" and f.message.startswith("communication-bound: GPU 0,1,2,3 at 100% utilization draw 23%")
    for w in ("the job's GPUs on this node (GPU 0,1,2,3) talk over sockets through the loopback (lo 11.9 GB/s, "
              "PCIe 7.6 GB/s per GPU, NVLink 0 B/s) instead of NVLink/PCIe P2P",
              "NCCL_P2P_DISABLE=1 turns NCCL's P2P transport off and NCCL_SHM_DISABLE=1 its shared-memory transport"):
        assert w in f.message, f.message
    assert "no network traffic here" not in f.message
    assert f.fix.startswith("unset NCCL_P2P_DISABLE NCCL_SHM_DISABLE   #") and f.fix.endswith("docs/env.html")
    # NCCL_P2P_DISABLE=1 is NCCL's own stopgap where PCIe P2P hangs (ACS, IOMMU): unsetting it says so
    assert "fix that first or the hang comes back" in f.fix and "#pci-access-control-services-acs" in f.fix
    assert report.exit_code == 1


def test_h100x4_busy_gpu3_is_the_straggler_and_shared():
    """A second process's matmuls on GPU 3: GPU 3 at 98% of its limit, the job's others at 46-62%.
    The recording has no parent pids: both pids on GPU 3 are named, and that one is not a rank."""
    r, report = h100x4("busygpu3")
    (f,) = r.findings
    assert r.status == "fail" and f.severity == "error"
    assert f.message.startswith("straggler inside the node: GPU 3 computes at 98% of its power limit (100% "
                                "utilization, SM clock 1545 MHz) while the job's GPU 0,1,2 draw 46%-62%")
    assert "GPU 3 is shared: pids 1505 (python3), 1705 (python3) compute on it" in f.message
    assert f.fix.startswith("ps -o pid,ppid,user,etime,args -p 1505,1705")
    assert report.exit_code == 1


def test_h100x4_the_extra_process_is_named_by_its_parent():
    """With parent pids (the sampler reads them now; torchrun's agent was pid 1504, job-busygpu3.txt),
    the process on GPU 3 that is not a rank is named alone."""
    def edit(w):
        for p in _procs(w):
            p["ppid"] = 1504 if p["pid"] in (1702, 1703, 1704, 1705) else 1490

    r, _ = h100x4("busygpu3", edit)
    (f,) = r.findings
    assert ("pid 1505 (python3) on GPU 3 is not one of the job's ranks (parent 1490; the ranks' is 1504), beside "
            "rank pid 1705 (python3)") in f.message
    assert f.fix.startswith("ps -o pid,ppid,user,etime,args -p 1505   #")


def test_h100x4_uneven_without_a_second_process_is_a_warning():
    """The same power pattern with one process a GPU may be ranks given unequal work (pipeline stages)."""
    def edit(w):
        w["processes"]["list"] = [p for p in _procs(w) if p["pid"] != 1505]

    r, report = h100x4("busygpu3", edit)
    (f,) = r.findings
    assert r.status == "warn" and f.severity == "warning" and f.message.startswith("straggler inside the node: GPU 3")
    assert "unless the ranks are meant to do unequal work" in f.message and "shared" not in f.message
    assert f.fix.startswith("nvidia-smi -q -d PERFORMANCE,CLOCK -i 3")


def test_h100x4_a_gap_on_average_only_is_no_straggler(monkeypatch):
    """GPU 3 out-draws the others on average, but in every other sample they compute as hard
    (phases that alternate): no verdict on it; the same averages held sample by sample are one."""
    import gpudoctor.watch as watch

    def edit(w):
        for g in w["gpu"]["gpus"][:3]:
            for i, s in enumerate(g["samples"]):
                s["power_w"] = 665.0 if i % 2 else 140.0

    r, _ = h100x4("busygpu3", edit)
    assert "straggler" not in r.summary
    monkeypatch.setattr(watch, "SAMPLE_SHARE", 0.0)
    r, _ = h100x4("busygpu3", edit)
    assert r.summary.startswith("straggler inside the node: GPU 3")


def _env(w, **kv):
    for p in _procs(w):
        env = dict((k, v) for k, v in p["env"].items() if not k.startswith(("NCCL_P2P", "NCCL_SHM")))
        env.update(kv)
        p["env"] = env


def _quiet_lo(w):
    for n in w["net"]:
        if n["name"] == "lo":
            n["rx_bytes_s"] = n["tx_bytes_s"] = 2800.0


@pytest.mark.parametrize("env,quiet,words,unset", [
    ({"NCCL_P2P_DISABLE": "1"}, True, ["talk through host memory (NCCL's shared-memory transport; PCIe 7.6 GB/s per "
                                       "GPU, NVLink 0 B/s)", "NCCL_P2P_DISABLE=1 turns NCCL's P2P transport off"],
     "unset NCCL_P2P_DISABLE   #"),
    ({"NCCL_P2P_LEVEL": "LOC", "NCCL_SHM_DISABLE": "1"}, False,
     ["talk over sockets through the loopback", "NCCL_P2P_LEVEL=LOC turns"], "unset NCCL_P2P_LEVEL NCCL_SHM_DISABLE"),
    ({"NCCL_P2P_LEVEL": "0"}, True, ["NCCL_P2P_LEVEL=0 turns NCCL's P2P transport off"], "unset NCCL_P2P_LEVEL   #"),
    ({"NCCL_P2P_DISABLE": "0x1", "NCCL_SHM_DISABLE": "1"}, False, ["NCCL_P2P_DISABLE=0x1 turns"], "unset"),
])
def test_intranode_variables_as_ncclS_docs_read_them(env, quiet, words, unset):
    def edit(w):
        _env(w, **env)
        if quiet:
            _quiet_lo(w)

    r, _ = h100x4("sockets", edit)
    (f,) = r.findings
    for w in words:
        assert w in f.message, f.message
    assert f.fix.startswith(unset)


@pytest.mark.parametrize("env", [
    {"NCCL_P2P_DISABLE": "0", "NCCL_SHM_DISABLE": "1"},  # SHM off alone: P2P still carries NVLink
    {"NCCL_P2P_LEVEL": "NVL"}, {"NCCL_P2P_LEVEL": "loc"}, {"NCCL_P2P_DISABLE": "2"},  # NCCL compares with 1
    {},  # nothing readable: the loopback is still named, as a possibility
])
def test_intranode_variables_that_keep_p2p_are_not_blamed(env):
    r, _ = h100x4("sockets", lambda w: _env(w, **env))
    (f,) = r.findings
    assert "instead of NVLink/PCIe P2P" not in f.message
    assert "the loopback carries 11.9 GB/s: the job's GPUs on this node may talk over sockets" in f.message


def test_intranode_variables_with_nvlink_moving_are_not_blamed():
    def edit(w):
        for g in w["gpu"]["gpus"]:
            g["nvlink_tx_bytes_s"] = g["nvlink_rx_bytes_s"] = 2e10

    r, _ = h100x4("sockets", edit)
    assert "instead of NVLink/PCIe P2P" not in r.summary and "NVLink carries 160.0 GB/s" in r.summary


def test_the_sampler_reads_each_job_process_parent(tmp_path):
    from gpudoctor.collector import Context
    from gpudoctor.collector.watch import describe_process, parse_ppid

    assert parse_ppid("Name:\tpython3\nState:\tR (running)\nPPid:\t1504\n") == 1504
    assert parse_ppid("PPid:\t\n") is None and parse_ppid(None) is None
    d = tmp_path / "proc/1705"
    (d / "fd").mkdir(parents=True)
    (d / "status").write_text("Name:\tpython3\nPid:\t1705\nPPid:\t1504\n")
    (d / "environ").write_bytes(b"NCCL_P2P_DISABLE=1\0HOME=/root\0")
    p = describe_process(Context(root=str(tmp_path), live=False), 1705, None)
    assert p["ppid"] == 1504 and p["env"] == {"NCCL_P2P_DISABLE": "1"}


def test_untrusted_values_in_a_four_gpu_document_never_crash():
    """The in-node diagnoses read GPU indexes, pids, parents and per-sample power: each such
    value replaced by a string, a list or a negative number ends in a report, never a crash."""
    import copy

    from gpudoctor.config import Config
    from gpudoctor.runner import Node, run_checks
    from gpudoctor.watch import WATCH

    with open(os.path.join(H100X4, "busygpu3.json")) as f:
        base = json.load(f)
    for p in _procs(base["watch"]):
        p["ppid"] = 1504 if p["pid"] != 1505 else 1490
    paths = [p for p in _leaves(base["watch"]) if p[0] in ("processes", "gpu", "net") and "env" not in p
             and not (len(p) > 4 and p[3] == "samples" and p[4] > 0)]
    assert len(paths) > 90
    for bad in ("x", [1], -5):
        for p in paths:
            doc = copy.deepcopy(base)
            tgt = doc["watch"]
            for k in p[:-1]:
                tgt = tgt[k]
            tgt[p[-1]] = bad
            report = run_checks([Node(host="vm", facts=doc)], list(WATCH), Config())
            assert not report.crashed, (p, bad, [r.crashed for r in report.results])


def test_h100x4_the_table_shows_the_loopback_and_each_pid_gpu(capsys):
    from gpudoctor.cli import main

    assert main(["watch", "--facts", os.path.join(H100X4, "sockets.json")]) == 1
    out = capsys.readouterr().out
    assert "    net   eth0 0 B/s; RDMA no port counters; lo 11.9 GB/s\n" in out
    assert "    pid   1385 python3 GPU 0  NCCL_NVLS_ENABLE=0 NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1" in out
    assert main(["watch", "--facts", os.path.join(H100X4, "busygpu3.json"), "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    rows = doc["samples"]["vm"]
    assert rows["loopback_bytes_s"] == 2803.6
    assert [(p["pid"], p["gpus"]) for p in rows["processes"]] == [
        (1505, [3]), (1702, [0]), (1703, [1]), (1704, [2]), (1705, [3])]
    assert "job processes 1505 python3, 1702 python3, 1703 python3, 1704 python3 +1 more" in [
        c for c in doc["checks"] if c["id"] == "watch.target"][0]["summary"]


@pytest.mark.parametrize("nvlink,parents,straggler", [
    (False, None, False),  # no sign the GPUs are one job: several jobs may share the node
    (False, {1702: 1504, 1703: 1504, 1704: 1504, 1705: 1504, 1505: 1490}, True),  # torchrun's ranks
    (False, {1702: 1701, 1703: 1702, 1704: 1703, 1705: 1704, 1505: 1490}, False),  # no common launcher
    (True, None, True),
])
def test_h100x4_a_straggler_needs_one_job(nvlink, parents, straggler):
    def edit(w):
        for g in w["gpu"]["gpus"]:
            if not nvlink:
                g["nvlink_tx_bytes_s"] = g["nvlink_rx_bytes_s"] = 0.0
        for p in _procs(w):
            if parents:
                p["ppid"] = parents[p["pid"]]

    r, _ = h100x4("busygpu3", edit)
    assert r.summary.startswith("straggler inside the node: GPU 3") == straggler, r.summary


@pytest.mark.parametrize("keep,parents,nvlink_on_3", [
    # job A's three ranks (torchrun's agent 1504) on GPU 0-2 wait; another user's one-GPU job on GPU 3 computes:
    # GPU 3 is not A's, A does not wait for it (A's NVLink traffic is no link to GPU 3)
    ((1505, 1702, 1703, 1704), {1505: 1490}, False),
    ((1505, 1702, 1703, 1704), None, False),  # the same from samples without parent pids
    ((1505, 1702, 1703, 1704), {1505: 1490}, True),  # A's launcher has no rank on GPU 3
    # two two-GPU jobs side by side (launchers 1504 and 1490), each over its own NVLink: no launcher wins
    ((1702, 1703, 1704, 1705), {1702: 1490, 1703: 1490, 1704: 1504, 1705: 1504}, True),
])
def test_h100x4_another_jobs_busy_gpu_is_no_straggler(keep, parents, nvlink_on_3):
    def edit(w):
        w["processes"]["list"] = [p for p in _procs(w) if p["pid"] in keep]
        for p in _procs(w):
            if parents:
                p["ppid"] = parents.get(p["pid"], 1504)
        for g in w["gpu"]["gpus"]:
            if g["index"] == 3 and not nvlink_on_3:
                g["nvlink_tx_bytes_s"] = g["nvlink_rx_bytes_s"] = 0.0
            if 1705 in keep and g["index"] == 2:  # the second job computes on GPU 2 and 3
                for s in g["samples"]:
                    s["power_w"] = 680.0

    r, _ = h100x4("busygpu3", edit)
    assert "straggler" not in r.summary, r.summary


def test_h100x4_a_process_a_rank_started_is_the_jobs():
    def edit(w):
        for p in _procs(w):
            p["ppid"] = 1705 if p["pid"] == 1505 else 1504

    r, _ = h100x4("busygpu3", edit)
    assert r.status == "warn" and "not one of the job's ranks" not in r.summary


def test_h100x4_readme_quotes_what_the_code_says_today():
    """fixtures/watch/h100x4/README.md's re-judged column quotes watch.bound on <phase>.json, and its re-run
    table what watch printed live on that host (rerun-<phase>.json, quotes shortened with '...'): the quotes
    stay true of today's code."""
    import re

    with open(os.path.join(H100X4, "README.md")) as f:
        rows = [l.split(" | ") for l in f if l.startswith(("| nvlink |", "| sockets |", "| busygpu3 |"))]
    assert sorted(len(row) for row in rows) == [3, 3, 3, 4, 4, 4]
    for row in rows:
        phase = row[0].strip("| ")
        if len(row) == 4:  # the first recording, re-judged
            judged = row[3]
            r, report = h100x4(phase)
            assert judged.rstrip(" |\n").endswith("exit %d" % report.exit_code)
        else:  # the re-run: printed live, exit
            judged = row[1]
            r, report = h100x4("rerun-" + phase)
            assert row[2].strip(" |\n") == str(report.exit_code)
        quotes = re.findall(r'"([^"]+)"', judged)
        for q in quotes:
            for part in q.split("..."):
                assert part.strip() in r.summary, (phase, part)
        assert quotes or phase == "nvlink"


def test_h100x4_parents_without_a_common_launcher_still_show_the_shared_gpu():
    def edit(w):
        for p in _procs(w):
            p["ppid"] = p["pid"] - 1  # each process its own parent: no launcher to tell ranks by

    r, _ = h100x4("busygpu3", edit)
    assert "GPU 3 is shared: pids 1505 (python3), 1705 (python3)" in r.summary
    assert "their parent pids do not tell which" in r.summary


def test_h100x4_p2p_off_on_a_node_that_also_sends_over_eth0():
    """A multi-node job on sockets whose node-local GPUs are kept off P2P too: both are said, both fixes given."""
    def edit(w):
        for n in w["net"]:
            if n["name"] == "eth0":
                n["rx_bytes_s"] = n["tx_bytes_s"] = 12.5e6

    r, _ = h100x4("sockets", edit)
    (f,) = r.findings
    assert "NCCL is on sockets" in f.message and "; and the job's GPUs on this node (GPU 0,1,2,3) talk over " \
        "sockets through the loopback" in f.message
    assert f.fix.startswith("# why, and the exports that move it to IB: watch.transport\nunset NCCL_P2P_DISABLE")


def test_intranode_settings_from_ncclS_config_files(tmp_path):
    """The sampler reads /etc/nccl.conf and the file a job's NCCL_CONF_FILE names (regular files
    only); a setting there counts where the job's environment does not set the name."""
    from gpudoctor.collector import Context
    from gpudoctor.collector.watch import read_nccl_conf

    (tmp_path / "etc").mkdir()
    (tmp_path / "etc/nccl.conf").write_text("# site\nNCCL_P2P_DISABLE=1\nNCCL_SHM_DISABLE=1\nOTHER=x\n")
    (tmp_path / "job.conf").write_text("NCCL_SHM_DISABLE=0\n")
    os.mkfifo(str(tmp_path / "fifo"))
    (tmp_path / "private").write_text("NCCL_IB_PKEY=1\n")
    os.chmod(str(tmp_path / "private"), 0o600)
    procs = [{"env": {"NCCL_CONF_FILE": "/job.conf"}}, {"env": {"NCCL_CONF_FILE": "/fifo"}}, {"env": None},
             {"env": {"NCCL_CONF_FILE": "/private"}}]
    conf = read_nccl_conf(Context(root=str(tmp_path), live=False), procs)
    root = os.geteuid() == 0  # as root, a private file a job names is not read
    assert conf[2] == {"path": "/private", "readable": not root, "values": {} if root else {"NCCL_IB_PKEY": "1"}}
    del conf[2]
    assert conf == [{"path": "/job.conf", "readable": True, "values": {"NCCL_SHM_DISABLE": "0"}},
                    {"path": "/fifo", "readable": False, "values": {}},
                    {"path": "/etc/nccl.conf", "readable": True,
                     "values": {"NCCL_P2P_DISABLE": "1", "NCCL_SHM_DISABLE": "1"}}]

    def edit(w):
        _env(w)
        w["nccl_conf"] = conf[2:]

    r, _ = h100x4("sockets", edit)
    (f,) = r.findings
    assert "NCCL_P2P_DISABLE=1 (in /etc/nccl.conf) turns NCCL's P2P transport off and NCCL_SHM_DISABLE=1 (in " \
        "/etc/nccl.conf) its shared-memory transport" in f.message
    assert f.fix.startswith("# delete NCCL_P2P_DISABLE NCCL_SHM_DISABLE from /etc/nccl.conf\nexport "
                            "NCCL_P2P_DISABLE=0 NCCL_SHM_DISABLE=0   # meanwhile")

    def edit2(w):
        _env(w, NCCL_P2P_DISABLE="0")  # the environment wins over the file
        w["nccl_conf"] = conf[2:]

    r, _ = h100x4("sockets", edit2)
    assert "instead of NVLink/PCIe P2P" not in r.summary
    assert "set where watch did not read it: ~/.nccl.conf)" in r.summary


@pytest.mark.parametrize("conf", ["x", [1], [{"path": [1], "values": {"NCCL_P2P_DISABLE": "1"}}],
                                  [{"path": "/etc/nccl.conf", "values": "x"}],
                                  [{"path": "/etc/nccl.conf", "values": {"NCCL_P2P_DISABLE": [1], "NCCL_SHM_DISABLE": -5}}]])
def test_untrusted_config_file_samples_never_crash(conf):
    def edit(w):
        _env(w)
        w["nccl_conf"] = conf

    r, report = h100x4("sockets", edit)
    assert not report.crashed and r.status == "fail" and "instead of NVLink/PCIe P2P" not in r.summary


def test_intranode_a_setting_of_one_single_gpu_process_is_no_cause():
    """review21: two single-GPU jobs waiting on one node (memory-bound decoding looks the same), one of them run
    with NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1: NCCL never talks between their GPUs, so the setting is no cause;
    held by the processes of two GPUs it is one."""
    def edit(w, holders):
        for p in _procs(w):
            env = dict((k, v) for k, v in p["env"].items() if not k.startswith(("NCCL_P2P", "NCCL_SHM")))
            if p["pid"] in holders:
                env.update({"NCCL_P2P_DISABLE": "1", "NCCL_SHM_DISABLE": "1"})
            p["env"] = env

    r, _ = h100x4("sockets", lambda w: edit(w, (1385,)))
    assert "instead of NVLink/PCIe P2P" not in r.summary, r.summary
    r, _ = h100x4("sockets", lambda w: edit(w, (1385, 1386)))
    assert "instead of NVLink/PCIe P2P" in r.summary, r.summary

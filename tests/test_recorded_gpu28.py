"""A real 2x H200 host, 2026-11-28 (session 28, gpu28's harness bench/capture_h200x2_1128f.sh; the outputs in
fixtures/recorded/h200x2-2026-11-28f, README there): probe --local across both GPUs beside an nccl-tests-style
all_reduce in torch (as it comes, and with NCCL_P2P_DISABLE=1); watch over a real 2-rank DDP job as it comes, with one
rank slowed on its CPU or in a sleep, with P2P off (SHM) and with sockets; a job with no GPU process yet; JAX's
preallocation. The saves are judged again here: what watch says now is asserted, beside what the host printed."""

import copy
import json
import os
import re

import pytest

HERE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures", "recorded",
                    "h200x2-2026-11-28f")


def _p(*name):
    return os.path.join(HERE, *name)


def _json(name):
    with open(_p(name)) as f:
        return json.load(f)


def _text(name):
    with open(_p(name)) as f:
        return f.read()


def _flat(text):
    return " ".join(text.split())


def test_the_host_is_what_the_readme_says():
    m = _text("machine.txt")
    assert m.count("NVIDIA H200 (UUID: GPU-") == 2 and "580.159.04" in m and "NV18" in m
    assert "torch 2.11.0+cu130 nccl (2, 28, 9) jax 0.11.2" in m
    assert "tree vs HEAD: 403 files, 0 differ or missing, 0 extra" in _text("steps.txt")


# ------------------------------------------------------------------ probe beside nccl-tests' arithmetic

def _ar_table(name):
    """{bytes: busbw GB/s} from the torch all_reduce sweep's nccl-tests-style table."""
    rows = {}
    for line in _text(name).splitlines():
        m = re.match(r"\s+(\d+)\s+(\d+)\s+float\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)$", line)
        if m:
            rows[int(m.group(1))] = float(m.group(5))
    return rows


def _probe_ar(doc):
    return {c["bytes"]: c for c in doc["collectives"] if c["op"] == "all_reduce"}


@pytest.mark.parametrize("probe,ar,transport", [("probe-json.out", "ar-nvlink.log", "in-node P2P/CUMEM"),
                                                ("probe-p2poff-json.out", "ar-p2poff.log", "in-node SHM")])
def test_probe_busbw_matches_nccl_tests_arithmetic_in_torch(probe, ar, transport):
    doc, torch_rows = _json(probe), _ar_table(ar)
    rows = _probe_ar(doc)
    assert sorted(torch_rows) == sorted(rows) == [1 << k for k in range(20, 31)]
    for size in (1 << 26, 1 << 28, 1 << 30):  # 64 MiB to 1 GiB: within 5% of each other
        assert rows[size]["transport"] == transport and rows[size]["nranks"] == 2
        assert abs(rows[size]["busbw_gbps"] - torch_rows[size]) <= 0.05 * torch_rows[size], size
    # the sweep's busbw is algbw x 2(n-1)/n, n = 2 (nccl-tests' doc/PERFORMANCE.md)
    big = rows[1 << 30]
    assert abs(big["busbw_gbps"] - big["algbw_gbps"]) < 0.01


def test_p2p_off_is_named_as_the_reason_it_is_slower():
    fast, slow = _probe_ar(_json("probe-json.out")), _probe_ar(_json("probe-p2poff-json.out"))
    assert fast[1 << 30]["busbw_gbps"] > 300 and slow[1 << 30]["busbw_gbps"] < 30  # NVLink 328, SHM 27 GB/s
    assert _json("probe-json.out")["findings"] == []
    doc = _json("probe-p2poff-json.out")
    assert doc["exit_code"] == 0
    assert [(f["check"], f["severity"], f["message"], f["fix"]) for f in doc["findings"]] == [
        ("probe.nccl.p2p_disabled", "warning",
         "GPUs of one host talk over SHM instead of P2P (NVLink / PCIe) (NCCL_P2P_DISABLE=1)", "unset NCCL_P2P_DISABLE")]
    assert "via SHM/direct/direct" in _text("ar-p2poff.log") and "via P2P/CUMEM" in _text("ar-nvlink.log")
    assert "WARN probe.nccl.p2p_disabled" in _text("probe-p2poff-text.out")


# ------------------------------------------------------------------ watch over the real DDP job

def _watch(cli, save):
    rc, out, err = cli("watch", "--facts", _p(save, "vm.json"), "--json")
    assert err == "" or "warning" not in err.lower(), err
    return rc, json.loads(out)


def _check(doc, cid):
    return {c["id"]: c for c in doc["checks"]}[cid]


def _finding(doc, cid):
    found = [f for f in doc["findings"] if f["check"] == cid]
    assert len(found) <= 1
    return found[0] if found else None


def _slow_pid(job):
    """The pid the job's own log names as the slowed rank (its 'slow' line) and what it slept or spun."""
    log = _text("%s-job.log" % job)
    (pid,) = re.findall(r"rank \d pid (\d+) gpu \d mode \w+ slow holds", log)
    return pid


@pytest.mark.parametrize("job,cpu,kind", [("ddp-cpuspin", "100%", "work on its CPU between the steps"),
                                          ("ddp-sleep", "6%", "it waits off the CPU too")])
def test_watch_names_the_slowed_rank_and_why(cli, job, cpu, kind):
    """One rank spinning (or sleeping) 0.3 s before each step: its GPU idles while GPU 0 waits in NCCL at 100%
    utilization and 26% of its power limit. The host's watch (before this round) said 'communication-bound ... they
    wait for a peer on another node'; now it names the rank, its pid and what its CPU shows."""
    pid = _slow_pid(job)
    assert "%s, 00000000:00:07.0" % pid in _text("%s-apps.out" % job)  # on GPU 1
    assert "14.4 s slowed" in _text("%s-job.log" % job)
    there = _json("%s-watch-json.out" % job)
    assert _finding(there, "watch.bound")["message"].startswith("communication-bound: GPU 0 at ")
    rc, doc = _watch(cli, job + "-save")
    assert rc == 1
    f = _finding(doc, "watch.bound")
    assert f["severity"] == "error"
    msg = f["message"]
    assert msg.startswith("a rank on this node holds the job: GPU 1 idles at ")
    assert "the job's GPU 0 waits for it at 100% utilization and 26% of its 700 W power limit" in msg
    assert "pid %s (python) on GPU 1 spends its steps off the GPU, at %s of a CPU core" % (pid, cpu) in msg
    assert kind in msg and "py-spy dump --pid %s" % pid in f["fix"]


def test_an_idle_gpu_without_a_job_process_is_no_lagging_rank(cli, tmp_path):
    """The same samples with GPU 1's process gone (another GPU of the node the job does not use): GPU 0 waits for a
    peer elsewhere, as before (communication-bound), and no rank is named."""
    doc = _json("ddp-cpuspin-save/vm.json")
    d2 = copy.deepcopy(doc)
    d2["watch"]["processes"]["list"] = [p for p in d2["watch"]["processes"]["list"] if p["gpus"] != [1]]
    (tmp_path / "vm.json").write_text(json.dumps(d2))
    rc, out, err = cli("watch", "--facts", str(tmp_path / "vm.json"), "--json")
    msg = _finding(json.loads(out), "watch.bound")["message"]
    assert rc == 1 and msg.startswith("communication-bound: GPU 0 at ") and "holds the job" not in msg


def test_the_healthy_job_computes(cli):
    rc, doc = _watch(cli, "ddp-healthy-save")
    assert rc == 0 and _check(doc, "watch.bound")["status"] == "pass"
    assert "computing: GPU 0,1 at 98% utilization draw 99% of their 700 W power limit" in json.dumps(doc)
    assert "0.022 s a step" in _text("ddp-healthy-job.log")


def test_p2p_off_while_computing_is_a_warning_naming_the_variable(cli):
    """NCCL_P2P_DISABLE=1: the job still draws 85% of the limit (the host's watch passed it as computing), yet its
    step took 0.031 s against 0.022 s and NVLink moved nothing: now a warning naming the variable."""
    assert "0.031 s a step" in _text("ddp-p2poff-job.log")
    assert _check(_json("ddp-p2poff-watch-json.out"), "watch.bound")["status"] == "pass"
    rc, doc = _watch(cli, "ddp-p2poff-save")
    assert rc == 0  # a warning
    f = _finding(doc, "watch.bound")
    assert f["severity"] == "warning" and f["message"].startswith("computing: GPU 0,1 at 98% utilization")
    assert "talk through host memory (NCCL's shared-memory transport;" in f["message"]
    assert "NVLink 0 B/s" in f["message"] and "NCCL_P2P_DISABLE=1 turns NCCL's P2P transport off" in f["message"]
    assert f["fix"].startswith("unset NCCL_P2P_DISABLE")


def test_sockets_inside_the_node_as_on_the_host(cli):
    there = _json("ddp-sockets-watch-json.out")
    rc, doc = _watch(cli, "ddp-sockets-save")
    assert rc == there["summary"]["exit_code"] == 1
    assert _finding(doc, "watch.bound")["message"] == _finding(there, "watch.bound")["message"]
    assert "talk over sockets through the loopback (lo 6.6 GB/s" in _finding(doc, "watch.bound")["message"]


# ------------------------------------------------------------------ watch.target with no GPU process yet

def test_a_job_with_no_gpu_process_yet_is_nothing_to_watch(cli):
    """The ranks import torch and wait; the host's watch passed naming '645 tail' first among 'job processes' (the
    harness's own `| tail`, whose environment has the machine's NCCL_NVLS_ENABLE and the image's NCCL_VERSION)."""
    there = _check(_json("early-watch-json.out"), "watch.target")
    assert there["status"] == "pass" and "645 tail" in json.dumps(there)
    assert _text("early-apps.out").strip() == "pid, gpu_bus_id, used_gpu_memory [MiB]"
    rc, doc = _watch(cli, "early-save")
    assert rc == 0
    t = _check(doc, "watch.target")
    text = _flat(json.dumps(t))
    assert t["status"] == "na"
    assert "2 GPUs idle (7 samples over 3.1 s) and no compute process on them; 3 processes with NCCL_* in their " \
           "environment load torch and hold no GPU yet (3473 pt_elastic, 3535 python, 3536 python)" in text
    assert "2 other processes with NCCL_* in their environment (645 tail, 3470 timeout), no framework loaded" in text


def test_the_tail_of_the_earlier_run_is_not_the_job(cli):
    """gpu27's JAX runs (fixtures/recorded/h200x2-2026-11-28e): no JAX process ran; watch passed on '633 tail'."""
    save = os.path.join(os.path.dirname(HERE), "h200x2-2026-11-28e", "jaxdefault-save", "vm.json")
    rc, out, err = cli("watch", "--facts", save, "--json")
    t = _check(json.loads(out), "watch.target")
    assert rc == 0 and t["status"] == "na"
    assert "1 process with NCCL_* in its environment (633 tail), no framework loaded: not a GPU job" in _flat(
        json.dumps(t))


def test_the_ambient_environment_of_the_host():
    """What every process of the machine carries: the image's NCCL_VERSION, the workplace's NCCL_NVLS_ENABLE."""
    lines = _text("ambient.txt").splitlines()
    assert "pid 645 ppid 643 comm tail: NCCL_NVLS_ENABLE NCCL_VERSION " in lines
    assert "pid 638 ppid 1 comm bash: NCCL_VERSION " in lines


def test_the_image_nccl_version_marks_no_job(tmp_path):
    from gpudoctor.collector.base import Context
    from gpudoctor.collector.watch import scan_env_jobs

    envs = {301: b"PATH=/usr/bin\0NCCL_VERSION=2.28.3-1\0", 302: b"NCCL_VERSION=2.28.3-1\0NCCL_DEBUG=INFO\0",
            303: b"NCCL_VERSIONS=x\0"}
    for pid, env in envs.items():
        d = tmp_path / "proc" / str(pid)
        d.mkdir(parents=True)
        (d / "environ").write_bytes(env)
        (d / "cmdline").write_bytes(b"python\0train.py\0")
        (d / "comm").write_text("python\n")
    # 301 has only the image's package version; 303's NCCL_VERSIONS is another name (kept: NCCL_*)
    assert scan_env_jobs(Context(root=str(tmp_path), live=False), exclude=set()) == [302, 303]


# ------------------------------------------------------------------ JAX's preallocation on a real H200

@pytest.mark.parametrize("name,held,note", [
    ("jaxdefault", "GPU 0 holds 106.1 GiB of 140 GiB at the peak (76%)", None),
    ("jax97", "GPU 0 holds 136.8 GiB of 140 GiB at the peak (97%)",
     "XLA_PYTHON_CLIENT_MEM_FRACTION=0.97 makes JAX preallocate 97% of the GPU"),
    ("jaxgrow", "GPU 0 holds 1.8 GiB of 140 GiB at the peak (1%)", None)])
def test_jax_preallocation_judged_as_planned(cli, name, held, note):
    assert "jax done" in _text("%s-job.log" % name)
    rc, doc = _watch(cli, name + "-save")
    m = _check(doc, "watch.memory")
    text = _flat(json.dumps(m))
    assert m["status"] == "pass" and held in text
    if note:
        assert note in text and "not judged for room" in text
    t = _check(doc, "watch.target")
    assert t["status"] == "pass" and "(found by gpu)" in json.dumps(t)


# ------------------------------------------------------------------ call 2: the fixed watch on the host itself

C2 = "call2"


def _c2(name):
    return os.path.join(C2, name)


@pytest.mark.parametrize("job,save,out,gpu,other", [
    ("ddp-spin0", "ddp-spin0-save", "ddp-spin0-watch-json.out", 0, 1),
    ("ddp-spin0", "ddp-spin0-smisave", "ddp-spin0-smiwatch-json.out", 0, 1),
    ("ddp-sleep1", "ddp-sleep1-save", "ddp-sleep1-watch-json.out", 1, 0),
    ("ddp-sleep1", "ddp-sleep1-smisave", "ddp-sleep1-smiwatch-json.out", 1, 0)])
def test_on_the_host_watch_named_the_slowed_rank_through_both_samplers(cli, job, save, out, gpu, other):
    """Call 2 installed the fixed tree (3fa8e518): rank 0 slowed (GPU 0) and rank 1 slowed, through pynvml and
    through nvidia-smi (pynvml hidden): the host named the slowed rank's GPU and pid; the saves judge the same here."""
    pid = _slow_pid(_c2(job))
    there = _json(_c2(out))
    msg = _finding(there, "watch.bound")["message"]
    assert msg.startswith("a rank on this node holds the job: GPU %d idles at " % gpu)
    assert "the job's GPU %d waits for it at " % other in msg and "pid %s (python) on GPU %d" % (pid, gpu) in msg
    rc, here = _watch(cli, _c2(save))
    assert rc == there["summary"]["exit_code"] == 1
    assert _finding(here, "watch.bound")["message"] == msg
    assert "20.4 s slowed" in _text(_c2("%s-job.log" % job))


def test_on_the_host_p2p_off_and_no_gpu_process_yet(cli):
    there = _json(_c2("ddp-p2poff-watch-json.out"))
    f = _finding(there, "watch.bound")
    assert f["severity"] == "warning" and "NCCL_P2P_DISABLE=1 turns NCCL's P2P transport off" in f["message"]
    rc, here = _watch(cli, _c2("ddp-p2poff-save"))
    assert rc == 0 and _finding(here, "watch.bound")["message"] == f["message"]
    text = _flat(_text(_c2("early-watch-text.out")))
    assert "N/A watch.target nothing to watch: 2 GPUs idle" in text
    assert "3 processes with NCCL_* in their environment load torch and hold no GPU yet (2881 pt_elastic, 2947 " \
           "python, 2948 python)" in text and "(647 tail, 2878 timeout), no framework loaded: not a GPU job" in text
    rc, here = _watch(cli, _c2("early-save"))
    assert _check(here, "watch.target") == _check(_json(_c2("early-watch-json.out")), "watch.target")


@pytest.mark.parametrize("job,cpu,kind", [("ddp-mildsleep", "40%", "part of that time on its CPU, part waiting"),
                                          ("ddp-mildspin", "100%", "work on its CPU between the steps")])
def test_a_mild_straggler_is_named_by_the_busy_rank_and_nvlink(cli, job, cpu, kind):
    """0.03 s a step on rank 1 (steps of 0.050 s against 0.022 s): GPU 1 at 35-44% utilization, GPU 0 busy at 98-99%
    and 65% of its limit (computing its share, then waiting), NVLink moving on both. The host's watch (the strict rule
    only: the busy GPU must wait at low power) called it input-bound with no rank; the rule that takes a busy GPU at
    any power where NVLink shows the two exchange data names rank 1."""
    assert "0.050 s a step" in _text(_c2("%s-job.log" % job))
    assert _finding(_json(_c2("%s-watch-json.out" % job)), "watch.bound")["message"].startswith("input-bound: ")
    pid = _slow_pid(_c2(job))
    rc, here = _watch(cli, _c2(job + "-save"))
    msg = _finding(here, "watch.bound")["message"]
    assert rc == 1 and msg.startswith("a rank on this node holds the job: GPU 1 idles at ")
    assert "the job's GPU 0 stays busy at 99% utilization and 65% of its 700 W power limit: its share of each step, " \
           "then NCCL's kernels waiting for it (NVLink " in msg
    assert "pid %s (python) on GPU 1 spends its steps off the GPU, at %s of a CPU core: %s" % (pid, cpu, kind) in msg


def test_a_busy_gpu_that_computes_needs_nvlink_to_name_a_rank(cli, tmp_path):
    """The mild samples without NVLink counters (two runs of one launcher that exchange nothing look the same):
    no rank is named, the input-bound reading stays."""
    doc = _json(_c2("ddp-mildsleep-save/vm.json"))
    for g in doc["watch"]["gpu"]["gpus"]:
        g["nvlink_tx_bytes_s"] = g["nvlink_rx_bytes_s"] = 0.0
    (tmp_path / "vm.json").write_text(json.dumps(doc))
    rc, out, err = cli("watch", "--facts", str(tmp_path / "vm.json"), "--json")
    msg = _finding(json.loads(out), "watch.bound")["message"]
    assert msg.startswith("input-bound: ") and "holds the job" not in msg


def test_a_single_gpu_job_beside_an_idle_gpu_is_not_uneven(cli, tmp_path):
    """JAX ran on GPU 0 only (CUDA_VISIBLE_DEVICES=0); GPU 1 idled with no process. The input-bound test measured the
    spread 'between GPUs' against that idle GPU (51 points); it is the job's GPUs' spread now. With the job's first
    sample (0%, before its loop) left out, its steady 51-65% is no longer read as uneven input: no clear signature."""
    rc, doc = _watch(cli, "jaxdefault-save")
    assert "(mean 51%, 0-65% over the samples, the job's one GPU here)" in _finding(doc, "watch.bound")["message"]
    d = _json("jaxdefault-save/vm.json")
    for g in d["watch"]["gpu"]["gpus"]:
        g["samples"] = g["samples"][1:]
    assert [s["util_pct"] for s in d["watch"]["gpu"]["gpus"][1]["samples"]] == [0] * 8  # GPU 1: idle, no process
    (tmp_path / "vm.json").write_text(json.dumps(d))
    rc, out, err = cli("watch", "--facts", str(tmp_path / "vm.json"), "--json")
    b = _check(json.loads(out), "watch.bound")
    assert rc == 0 and b["status"] == "skipped" and "no clear signature" in json.dumps(b)

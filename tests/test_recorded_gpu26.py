"""Session 26's GPU-facing changes on real GPUs (fixtures/recorded/h200x2-2026-11-28d; README there): the
nccl_env table against the libnccl.so.2 (2.28.9) torch 2.11.0+cu130 loads, nccl.env's first-release note, and
watch.memory over real 2-rank DDP jobs on 2x H200 (a stray context on GPU 0, one GPU filled, an even job) and
1-rank jobs on 1x H200 through the nvidia-smi sampler (call2/)."""

import json
import os

import pytest

from gpudoctor import data

HERE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures", "recorded",
                    "h200x2-2026-11-28d")
TABLE = data.load("nccl_env")


def _p(*name):
    return os.path.join(HERE, *name)


def _v(v):
    return tuple(int(x) for x in v.split("."))


# ------------------------------------------------------------------ nccl.env

def test_the_table_dates_every_name_as_the_real_libnccl_does():
    """Every NCCL_* string of the real libnccl.so.2 (NUL-terminated: NCCL_PARAM's "NCCL_" "SUFFIX" and
    getenv("NCCL_...") compile to one) against the table's first_seen_in: read before or in 2.28.9 -> in the
    binary; first read after -> absent. No exception either way."""
    doc = json.load(open(_p("nccl-strings.json")))
    assert doc["nccl_version"] == "2.28.9" and doc["torch"] == "2.11.0+cu130"
    (lib,) = doc["libs"]
    found, node = set(lib["names"]), _v("2.28.9")
    dated = dict((n, e["first_seen_in"]) for n, e in TABLE["names"].items() if e.get("first_seen_in"))
    early = [n for n, v in dated.items() if _v(v) <= node]
    late = [n for n, v in dated.items() if _v(v) > node]
    assert len(early) > 150 and len(late) > 40
    assert [n for n in early if n not in found] == []
    assert [n for n in late if n in found] == []
    # names only older releases read: in the binary exactly when 2.28.9 is inside their span. NCCL_GRAPH (read by
    # 2.5.6-2.5.7) is also the name of a debug subsystem (NCCL_DEBUG_SUBSYS=GRAPH), a string in every release
    inside = [n for n, f in TABLE["former"].items() if _v(f["first_seen_in"]) <= node <= _v(f["last_seen_in"])]
    outside = [n for n in TABLE["former"] if n not in inside]
    assert inside and [n for n in inside if n not in found] == []
    assert [n for n in outside if n in found] == ["NCCL_GRAPH"]


def test_nccl_2_28_9_reads_what_the_table_says_on_the_host():
    log = open(_p("ar-env.log")).read()
    assert "NCCL INFO NCCL version 2.28.9+cuda13.0" in log
    # NCCL_DEBUG_SUBSYS=ENV: a parameter NCCL reads says so; NCCL_SOCKET_POLL_TIMEOUT_MSEC=500 was set beside it
    assert log.count("NCCL INFO NCCL_NVLS_ENABLE set by environment to 0.") == 2
    assert "SOCKET_POLL_TIMEOUT" not in log
    assert TABLE["names"]["NCCL_SOCKET_POLL_TIMEOUT_MSEC"]["first_seen_in"] == "2.29.2"


NOTE = ("NCCL_SOCKET_POLL_TIMEOUT_MSEC is first read by NCCL 2.29.2 (src/misc/socket.cc): this node loads NCCL "
        "2.28.9, which does not read it: it has no effect here")


def test_check_noted_it_on_the_host():
    with_it = json.load(open(_p("check-poll.json")))
    c = {c["id"]: c for c in with_it["checks"]}["nccl.env"]
    assert c["status"] == "pass" and c["evidence"].endswith(": 2 read, 1 noted")
    assert [f["message"] for f in with_it["findings"] if f["check"] == "nccl.env"] == [NOTE]
    assert "note: NCCL_SOCKET_POLL_TIMEOUT_MSEC is first read by NCCL 2.29.2" in open(_p("check-poll.txt")).read()
    without = json.load(open(_p("check.json")))
    c = {c["id"]: c for c in without["checks"]}["nccl.env"]
    assert c["status"] == "pass" and c["evidence"].endswith(": 2 read")
    # the rest of the real host: host.name (the VM's hostname on 127.0.0.1) is its only finding
    assert [f["check"] for f in without["findings"]] == ["host.name"]
    assert {c["id"]: c["status"] for c in without["checks"]}["python.env"] == "pass"


def test_call2_facts_judge_as_on_the_host(cli):
    there = json.load(open(_p("call2", "check-poll-facts.json")))
    rc, out, err = cli("check", "--facts", _p("call2", "facts-poll.json"), "--select", "nccl.env", "--json")
    here = json.loads(out)
    assert rc == 0 == there["summary"]["exit_code"], err
    assert [(c["status"], c["evidence"]) for c in here["checks"]] == [(c["status"], c["evidence"])
                                                                      for c in there["checks"]]
    assert [f["message"] for f in here["findings"]] == [f["message"] for f in there["findings"]] == [NOTE]


# ------------------------------------------------------------------ watch.memory

def _memory(doc):
    c = {c["id"]: c for c in doc["checks"]}["watch.memory"]
    return c["status"], [f["message"] for f in doc["findings"] if f["check"] == "watch.memory"]


@pytest.mark.parametrize("name", ["stray", "fill", "even", "call2/fill", "call2/even"])
def test_saved_samples_judge_as_on_the_host(cli, name):
    there = json.load(open(_p(name + "-watch.json")))
    rc, out, err = cli("watch", "--facts", _p(name + "-save-vm.json"), "--json")
    here = json.loads(out)
    assert rc == there["summary"]["exit_code"] == 0, err
    assert {c["id"]: c["status"] for c in here["checks"]} == {c["id"]: c["status"] for c in there["checks"]}
    assert _memory(here)[1] == _memory(there)[1]


def test_a_rank_with_a_context_on_gpu_0_on_the_host():
    """STRAY=1: each rank made a tensor on cuda:0 before torch.cuda.set_device(local_rank): nvidia-smi lists
    rank 1 (pid 856) on both GPUs, 612 MiB on GPU 0."""
    apps = open(_p("stray-apps.csv")).read().splitlines()[1:]
    assert sorted(a.split(",")[0] for a in apps) == ["855", "856", "856"]
    assert "856, GPU-c409e6d4-a07b-8e3b-ad73-951a5c9a05c3, 612 MiB" in apps
    status, found = _memory(json.load(open(_p("stray-watch.json"))))
    assert status == "warn" and found == [
        "1 of the job's processes hold a context on another rank's GPU beside their own (pid 856 on GPU 0,1): a rank "
        "that touched a GPU before torch.cuda.set_device(local_rank) keeps several hundred MiB there"]
    assert "rank 1 done" in open(_p("stray-job.log")).read()


def test_a_filled_gpu_on_the_host():
    """FILL=1: rank 0 took all but 2.5 GiB of its H200 (plain cudaMalloc through torch.empty)."""
    assert "rank 0 pid 1060 holds 139868 MiB" in open(_p("fill-job.log")).read()
    status, found = _memory(json.load(open(_p("fill-watch.json"))))
    assert status == "warn" and [m.split(":")[0] for m in found] == ["GPU memory near full", "uneven GPU memory"]
    assert found[0].startswith("GPU memory near full: GPU 0 holds 139.0 of 140.4 GiB (99%): 1.4 GiB free at the peak")
    # the same on one H200 through nvidia-smi (pynvml uninstalled): one GPU, nothing to be uneven against
    status, found = _memory(json.load(open(_p("call2", "fill-watch.json"))))
    assert status == "warn" and len(found) == 1 and "GPU 0 holds 138.1 of 140.4 GiB (98%)" in found[0]
    assert "1 GPU via nvidia-smi" in open(_p("call2", "fill-watch.txt")).read()


def test_an_even_job_passes_with_its_numbers_and_the_sessions_watch_changes_held(cli):
    doc = json.load(open(_p("even-watch.json")))
    c = {c["id"]: c for c in doc["checks"]}["watch.memory"]
    assert c["status"] == "pass" and c["summary"] == (
        "GPU 0,1 hold 14.7-14.8 GiB of 140 GiB at the peak (10%-11%); even across the job's GPUs")
    rc, out, err = cli("watch", "--facts", _p("call2", "even-save-vm.json"), "--json")  # one H200, nvidia-smi
    c = {c["id"]: c for c in json.loads(out)["checks"]}["watch.memory"]
    assert c["status"] == "pass" and c["summary"] == "GPU 0 holds 13.9 GiB of 140 GiB at the peak (10%); one GPU"
    prof = doc["nodes"][0]["profile"]  # abf68f63: kernel and OS in watch --json
    assert prof["kernel"] == "6.18.44-fc-v657-gpu" and prof["os"] == "Ubuntu 24.04.3 LTS"
    # 580eb764: Ctrl-C (SIGINT after 4 s of a 30 s window) - what was kept, in samples and windows
    assert open(_p("even-int.stderr")).read().strip() == (
        "gpudoctor: interrupted: samples kept for 1 of 1 node (1 window cut short: the rates are over the time "
        "sampled); 0 with no samples")
    assert open(_p("even-int.txt")).read().rstrip().endswith("exit 130")

"""A real 2x H100 host, 2026-11-28 (fixtures/recorded/h100x2-2026-11-28b/, captured through the device machine by
bench/capture_h100x2_1128b.sh): check, history with one planted change (NCCL_SOCKET_IFNAME=nosuch0), diff --since,
explain --facts --since on the real NCCL error that change caused, watch interrupted mid-window over a real 2-GPU DDP
job, and probe --local. Each recorded file is replayed through the CLI (or, for probe, its reader) here."""

import collections
import io
import json
import os
import shutil

import pytest

HERE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures", "recorded",
                    "h100x2-2026-11-28b")

Run = collections.namedtuple("Run", "returncode stdout stderr")


def _p(name):
    return os.path.join(HERE, name)


@pytest.fixture
def gd(cli):
    """`gpudoctor ARGS`: the CLI in this process."""
    return lambda *args: Run(*cli(*args))


@pytest.fixture
def state(tmp_path):
    """The history the host kept (check --history twice), as a private copy: history wants its folder 0700 and ours."""
    dst = tmp_path / "state"
    shutil.copytree(_p("state"), dst)
    for root, dirs, files in os.walk(dst):
        os.chmod(root, 0o700)
        for f in files:
            os.chmod(os.path.join(root, f), 0o600)
    return str(dst)


def test_check_facts_judged_as_on_the_host(gd):
    there = json.load(open(_p("check.json")))
    p = gd("check", "--facts", _p("facts.json"), "--json")
    assert p.returncode == 1 == there["summary"]["exit_code"], p.stderr
    d = json.loads(p.stdout)
    here = {c["id"]: c["status"] for c in d["checks"]}
    # checks added after the recording have no facts there: skipped or na, never a silent pass (tmp.writable in
    # session 27, gpu.links in 29: the GPUs' links were not read)
    added = {k: here.pop(k) for k in set(here) - {c["id"] for c in there["checks"]}}
    assert added.pop("tmp.writable") == "skipped" and added.pop("gpu.links") == "skipped"
    assert all(v in ("skipped", "na") for v in added.values()), added
    assert here == {c["id"]: c["status"] for c in there["checks"]}
    by_id = {c["id"]: c for c in d["checks"]}
    assert [f["check"] for f in d["findings"]] == ["host.name"]
    assert "2 x NVIDIA H100 80GB HBM3" in by_id["gpu.inventory"]["evidence"]
    assert "580.159.04" in by_id["driver.mismatch"]["evidence"]
    assert "2.28.9" in by_id["cuda.libs"]["evidence"]
    assert d["summary"]["checks_passed"] == 10 and d["summary"]["checks_skipped"] == 2  # tmp.writable, gpu.links: not in these facts
    # every check said something: a pass with evidence, an na with its reason
    assert all(c["summary"] for c in d["checks"])
    assert "Summary: 1 error, 0 warnings; 10 passed, 7 n/a, 0 skipped" in open(_p("check.txt")).read()


def test_planted_change_fails_nccl_env(gd):
    p = gd("check", "--facts", _p("facts-planted.json"), "--json")
    assert p.returncode == 1
    by_id = {c["id"]: c for c in json.loads(p.stdout)["checks"]}
    assert by_id["nccl.env"]["status"] == "fail" and "nosuch0" in by_id["nccl.env"]["summary"]
    # the host's second history run said the same, with the history note
    h2 = json.load(open(_p("history-2.json")))
    notes = [f["message"] for f in h2["findings"] if f["check"] == "nccl.env" and f["severity"] == "info"]
    assert notes and "NCCL_SOCKET_IFNAME (absent) -> nosuch0" in notes[0]


def test_diff_of_two_facts_runs_lists_only_the_planted_change(gd):
    """Two `gpudoctor facts` runs hash NVSHMEM_DISABLE_NVLS (in ~/.nccl.conf and /etc/nccl.conf) under two keys: a
    different hash is no change (docs/history.md). Before: 4 changes, three of them that hash."""
    p = gd("diff", "--json", _p("facts.json"), _p("facts-planted.json"))
    assert p.returncode == 1, p.stderr
    d = json.loads(p.stdout)
    assert [c["text"] for c in d["changes"]] == ["NCCL_SOCKET_IFNAME (absent) -> nosuch0"]
    assert [v["check"] for v in d["verdicts"]] == ["nccl.env"]


def test_diff_since_last_good_of_the_planted_facts(gd, state):
    p = gd("diff", "--since", "last-good", "--state-dir", state, "--json", _p("facts-planted.json"))
    assert p.returncode == 1, p.stderr
    d = json.loads(p.stdout)
    assert [c["text"] for c in d["changes"]] == ["NCCL_SOCKET_IFNAME (absent) -> nosuch0"]
    # on the host (this machine gathered under the history's own key) it read the same
    assert [c["text"] for c in json.load(open(_p("diff-since.json")))["changes"]] == [
        "NCCL_SOCKET_IFNAME (absent) -> nosuch0"]


def test_explain_since_ties_the_nccl_error_to_the_change(gd, state):
    """NCCL's real 'Bootstrap : no socket interface found' and the node's history: the root's fix sets
    NCCL_SOCKET_IFNAME, which changed. Before: 'nothing the explained errors' checks read changed', and the
    NVSHMEM_DISABLE_NVLS hashes listed as changes."""
    p = gd("explain", "--json", "--facts", _p("facts-planted.json"), "--since", "last-good", "--state-dir", state,
           _p("planted-ar.log"))
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    assert d["verdict"] == "root_cause" and d["root"] == "nccl.socket_ifname"
    node = d["history"]["nodes"][0]
    assert node["kind"] == "fewest-failures" and node["failed"] == ["host.name"]
    assert node["changes"] == ["NCCL_SOCKET_IFNAME (absent) -> nosuch0"]
    m = [m for m in node["matches"] if m["finding"] == "nccl.socket_ifname"]
    assert m and m[0]["changes"] == ["NCCL_SOCKET_IFNAME (absent) -> nosuch0"]
    assert m[0]["variables"] == ["NCCL_SOCKET_IFNAME"]
    t = gd("explain", "--facts", _p("facts-planted.json"), "--since", "last-good", "--state-dir", state,
           _p("planted-ar.log"))
    assert ("history: vm: nccl.socket_ifname (its fix sets NCCL_SOCKET_IFNAME) matches what changed since"
            in t.stdout), t.stdout[-800:]
    assert "nothing the explained errors' checks read changed" not in t.stdout


def _then(checks):
    """The checks a recording of this call ran: watch.memory came after it (gpu26), and its samples hold no
    memory reading (the sampler read it from f6ba643 on): re-judged, it is skipped, saying so."""
    now = [c for c in checks if c["id"] != "watch.memory"]
    mem = [c for c in checks if c["id"] == "watch.memory"]
    assert [(c["status"], c["summary"][:26]) for c in mem] in ([], [("skipped", "no memory reading for GPU ")]), mem
    return now


def test_watch_interrupted_on_the_host_kept_its_samples(gd):
    d = json.load(open(_p("watch-interrupted.json")))
    assert d["summary"]["exit_code"] == 130
    s = d["samples"]["vm"]
    assert s["interrupted"] is True and 19 < s["elapsed_s"] < 21 and s["seconds"] == 60
    assert [g["samples"] for g in s["gpus"]] == [40, 40] and all(g["util_max"] == 100 for g in s["gpus"])
    assert "interrupted, the rates are over the time sampled" in open(_p("watch-interrupted.txt")).read()
    assert "exit 130" in open(_p("watch-interrupted.txt")).read()
    # its saved samples, read back: the same verdicts from the 40 samples of each GPU
    p = gd("watch", "--facts", _p("watch-interrupted-save-vm.json"), "--json")
    assert p.returncode == 0, p.stderr
    r = json.loads(p.stdout)
    assert {c["id"]: c["status"] for c in _then(r["checks"])} == {c["id"]: c["status"] for c in d["checks"]}
    assert r["samples"]["vm"]["interrupted"] is True
    by_id = {c["id"]: c for c in r["checks"]}
    assert "40 samples over 20.0 s" in by_id["watch.target"]["summary"]
    assert "computing" in by_id["watch.bound"]["summary"]


def test_watch_full_window_reads_back(gd):
    d = json.load(open(_p("watch-8s.json")))
    p = gd("watch", "--facts", _p("watch-8s-save-vm.json"), "--json")
    assert p.returncode == d["summary"]["exit_code"] == 0, p.stderr
    r = json.loads(p.stdout)
    assert [(c["id"], c["status"], c["summary"]) for c in _then(r["checks"])] == [
        (c["id"], c["status"], c["summary"]) for c in d["checks"]]
    assert r["samples"]["vm"]["interrupted"] is False


def test_probe_local_document_reads_back():
    from gpudoctor.probe import findings, report

    doc = json.load(open(_p("probe.json")))
    assert doc["exit_code"] == 0 and doc["transport"] == "local"
    found = findings.evaluate(doc, {"vm": json.load(open(_p("facts.json")))})
    assert [f.check for f in found if f.severity in ("error", "warning")] == []
    out = io.StringIO()
    report.render_text(doc, found, out)
    text = out.getvalue()
    there = open(_p("probe.txt")).read()
    for line in ("one node alone: vm (2 ranks, NCCL 2.28.9): in-node P2P/CUMEM", "  all_reduce      1 GiB ",
                 "  all_gather      1 GiB ", "no problem found by the probe"):
        assert line in text and line in there  # (probe.txt is a second run: its figures differ a little)
    # NVLink between the two H100s: the JSON run's 1 GiB all_reduce bus bandwidth, as printed
    best = max(c["busbw_gbps"] for c in doc["jobs"][0]["collectives"] if c["op"] == "all_reduce")
    assert best > 200 and ("%.2f" % best) in text


# -- the second call (call2/): the fixes above on the real host, CUDA_VISIBLE_DEVICES=0 under a 2-rank launch ---------

def _c2(name):
    return os.path.join(HERE, "call2", name)


def test_fixes_held_on_the_real_host():
    """call2 ran a wheel of the tree with both fixes: the host printed the match and one change."""
    assert ("history: vm: nccl.socket_ifname (its fix sets NCCL_SOCKET_IFNAME) matches what changed since"
            in open(_c2("explain-if.txt")).read())
    assert "Summary: 1 change on 1 node; 1 check changed verdict; exit 1" in open(_c2("diff-files-if.txt")).read()


def test_invalid_device_ordinal_fix_counts_the_visible_gpus(gd):
    """NVML lists both H100s whatever CUDA_VISIBLE_DEVICES says; a process under CUDA_VISIBLE_DEVICES=0 sees one.
    The host printed 'torchrun --nproc_per_node 2 ... (this node has 2 GPUs)': the launch that failed."""
    assert "torchrun --nproc_per_node 2 ...   (this node has 2 GPUs)" in open(_c2("explain-cvd.txt")).read()
    p = gd("explain", "--json", "--facts", _c2("facts-cvd.json"), _c2("cvd-ar.log"))
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    assert d["root"] == "cuda.invalid_device_ordinal"
    first = d["findings"][0]["causes"][0]["fix"][0]
    assert first == "torchrun --nproc_per_node 1 ...   (this node has 2 GPUs; CUDA_VISIBLE_DEVICES=0 shows 1)", first
    # the same log with the host's facts before the change: both GPUs
    p = gd("explain", "--json", "--facts", _c2("facts-a.json"), _c2("cvd-ar.log"))
    assert json.loads(p.stdout)["findings"][0]["causes"][0]["fix"][0] == \
        "torchrun --nproc_per_node 2 ...   (this node has 2 GPUs)"


@pytest.mark.parametrize("cvd, seen", [
    ("0", 1), ("1,0", 2), ("0,7,1", 1), ("", 0), ("-1", 0), ("0,0", 1),
    ("GPU-1d58b8db", 1), ("GPU-1d58b8db,GPU-377e7082", 2), ("GPU-ffff", 0), ("NoDevFiles", 0),
])
def test_visible_gpus_of_the_real_facts(cvd, seen):
    from gpudoctor.explain.fixes import visible_gpus

    facts = json.load(open(_c2("facts-a.json")))
    assert visible_gpus(facts) == (2, None)
    facts["env"]["values"]["CUDA_VISIBLE_DEVICES"] = cvd
    assert visible_gpus(facts) == (seen, cvd)


def test_no_visible_gpu_says_unset(gd, tmp_path):
    facts = json.load(open(_c2("facts-cvd.json")))
    facts["env"]["values"]["CUDA_VISIBLE_DEVICES"] = "7"
    f = tmp_path / "f.json"
    f.write_text(json.dumps(facts))
    p = gd("explain", "--json", "--facts", str(f), _c2("cvd-ar.log"))
    first = json.loads(p.stdout)["findings"][0]["causes"][0]["fix"][0]
    assert first.startswith("unset CUDA_VISIBLE_DEVICES   (this node has 2 GPUs; CUDA_VISIBLE_DEVICES=7 shows 0"), first


def test_watch_exit_code_under_sigint_on_the_host(gd):
    """timeout --preserve-status -s INT: watch's own exit code, 130, with the window's samples."""
    assert "watch-int-json rc=130" in open(_c2("steps.txt")).read()
    d = json.load(open(_c2("watch-interrupted.json")))
    assert d["summary"]["exit_code"] == 130 and d["samples"]["vm"]["interrupted"] is True
    assert all(g["samples"] >= 38 and g["util"] > 90 for g in d["samples"]["vm"]["gpus"])
    p = gd("watch", "--facts", _c2("watch-interrupted-save-vm.json"), "--json")
    assert p.returncode == 0, p.stderr
    assert {c["id"]: c["status"] for c in _then(json.loads(p.stdout)["checks"])} == {
        c["id"]: c["status"] for c in d["checks"]}

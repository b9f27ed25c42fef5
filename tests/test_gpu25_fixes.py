"""Session 24's real 2x H100 leftovers (fixtures/recorded/h100x2-2026-11-28b/call2), fixed in session 25:
`--since last-good` on a node that never passes whole, gpu.inventory under CUDA_VISIBLE_DEVICES, nccl.env judged
against the node's own NCCL, and watch's GPU memory and per-node profile."""

import json
import os

HERE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures", "recorded",
                    "h100x2-2026-11-28b", "call2")


def _p(name):
    return os.path.join(HERE, name)


def test_since_last_good_finds_a_plant_that_moves_no_verdict(cli, tmp_path):
    """host.name fails forever on the VM, so no run passes whole; CUDA_VISIBLE_DEVICES=0 changes no verdict, so the
    run that recorded it has as few failures as the one before. Taking the newest of equals compared the facts with
    their own state: "no change" (session 24's call 2). The baseline is now the newest equal run whose state differs."""
    state = str(tmp_path / "s")
    assert cli("check", "--facts", _p("facts-a.json"), "--history", "--state-dir", state)[0] == 1
    assert cli("check", "--facts", _p("facts-cvd.json"), "--history", "--state-dir", state)[0] == 1
    rc, out, err = cli("diff", "--since", "last-good", "--state-dir", state, _p("facts-cvd.json"), "--json")
    d = json.loads(out)
    rec = d["before"]["records"]["vm"]
    assert (rec["kind"], rec["at"], rec["failed"]) == ("fewest-failures", "2026-11-28T03:29:58Z", ["host.name"]), rec
    texts = json.dumps(d)
    assert "CUDA_VISIBLE_DEVICES" in texts, texts[:2000]
    rc, out, err = cli("diff", "--since", "last-good", "--state-dir", state, _p("facts-cvd.json"))
    assert "CUDA_VISIBLE_DEVICES (absent) -> 0" in out, out
    # explain --facts F --since takes the same record
    rc, out, err = cli("explain", _p("cvd-ar.log"), "--facts", _p("facts-cvd.json"), "--since", "last-good",
                       "--state-dir", state, "--json")
    h = json.loads(out)["history"]["nodes"][0]
    assert h["kind"] == "fewest-failures" and any("CUDA_VISIBLE_DEVICES" in c for c in h["changes"]), h
    # facts equal to every kept run's state: the newest of equals, no change
    rc, out, err = cli("diff", "--since", "last-good", "--state-dir", state, _p("facts-a.json"), "--json")
    assert json.loads(out)["before"]["records"]["vm"]["at"] == "2026-11-28T03:29:59Z"


def test_gpu_inventory_says_what_cuda_visible_devices_shows(cli):
    """NVML counts both H100s; the process that ran under CUDA_VISIBLE_DEVICES=0 saw one (rank 1: invalid device
    ordinal). The pass says so beside NVML's count; unset, it says nothing of it."""
    rc, out, err = cli("check", "--facts", _p("facts-cvd.json"), "--json")
    ev = {c["id"]: c for c in json.loads(out)["checks"]}["gpu.inventory"]["evidence"]
    assert "2 x NVIDIA H100 80GB HBM3" in ev and "CUDA_VISIBLE_DEVICES=0 shows 1 of them to CUDA" in ev, ev
    rc, out, err = cli("check", "--facts", _p("facts-a.json"), "--json")
    ev = {c["id"]: c for c in json.loads(out)["checks"]}["gpu.inventory"]["evidence"]
    assert "CUDA_VISIBLE_DEVICES" not in ev, ev


def test_visible_gpus_counts_to_the_first_invalid_entry():
    from gpudoctor.checks._gpu import visible_gpus

    gpus = [{"index": 0, "uuid": "GPU-377e7082-aa"}, {"index": 1, "uuid": "GPU-1d58b8db-bb"}]
    f = lambda v: {"gpu": {"status": "ok", "gpus": gpus}, "env": {"status": "ok", "values": {"CUDA_VISIBLE_DEVICES": v}}}
    assert visible_gpus(f("0")) == (1, "0")
    assert visible_gpus(f("1,0")) == (2, "1,0")
    assert visible_gpus(f("0,7,1")) == (1, "0,7,1")  # CUDA stops at the first invalid index
    assert visible_gpus(f("GPU-1d58")) == (1, "GPU-1d58")
    assert visible_gpus(f("")) == (0, "")
    assert visible_gpus({"gpu": {"status": "ok", "gpus": "x"}, "env": {"values": {}}}) == (0, None)


def test_nccl_env_says_the_nodes_nccl_beside_its_tables(cli, tmp_path):
    """The real host loads NCCL 2.28.9; the table is NCCL 2.30.7's. The evidence says so (a name NCCL added after
    2.28.9 would pass here), and a name 2.30.7 dropped but 2.28.9 reads (NCCL_GIN_NCONTEXTS: 2.28.9 to 2.29.7) is
    read on this node, no 'has no effect with a newer NCCL' note."""
    import gpudoctor.checks.nccl_env as ne

    facts = json.load(open(_p("facts-a.json")))
    assert ne.node_nccl(facts) == "2.28.9"
    assert list(ne.judge_names(["NCCL_GIN_NCONTEXTS"], lambda n: "4", node_ver="2.28.9")) == []
    found = list(ne.judge_names(["NCCL_GIN_NCONTEXTS"], lambda n: "4", node_ver="2.30.7"))
    assert len(found) == 1 and "was read by NCCL 2.28.7 to 2.29.7" in found[0].message
    assert len(list(ne.judge_names(["NCCL_GIN_NCONTEXTS"], lambda n: "4"))) == 1  # no node version: as before
    facts["nccl"]["effective"]["NCCL_GIN_NCONTEXTS"] = {"value": "4", "source": "environment"}
    f = tmp_path / "f.json"
    f.write_text(json.dumps(facts))
    rc, out, err = cli("check", "--facts", str(f), "--json")
    c = {c["id"]: c for c in json.loads(out)["checks"]}["nccl.env"]
    assert c["status"] == "pass" and "no effect" not in out, c
    assert ("3 NCCL_* names checked against NCCL 2.30.7 (this node loads 2.28.9: a name NCCL first read after it is noted)"
            " and PyTorch 2.14.1+cu130 (this node has torch 2.11.0+cu130: a TORCH_NCCL_* name added after it would"
            " pass): 3 read") in c["evidence"], c["evidence"]


def test_watch_json_profile_names_the_gpus_and_driver(cli):
    """watch gathers only its sampling section; nodes[].profile was {gpus: [], driver: null} over the real job."""
    rc, out, err = cli("watch", "--facts", _p("watch-interrupted-save-vm.json"), "--json")
    prof = json.loads(out)["nodes"][0]["profile"]
    assert prof["gpus"] == [{"name": "NVIDIA H100 80GB HBM3", "count": 2, "memory_mib": None}], prof
    assert prof["driver"] == "580.159.04"


def test_watch_samples_gpu_memory_used():
    """nvidia-smi's two memory fields are read (and a 9-field line recorded before them still is); the report's
    GPU rows carry the most memory held in the window and the card's total."""
    from gpudoctor.collector.watch import parse_smi_sample
    from gpudoctor.watch import gpu_stats, table_lines
    from gpudoctor.node import Node

    gpus, sample = parse_smi_sample("0, NVIDIA H100 80GB HBM3, GPU-1, 00000000:00:06.0, 99, 30, 590.1, 700.00, 1980, "
                                    "41250, 81559\n")
    assert gpus[0]["memory_total_mib"] == 81559 and sample[0]["mem_used_mib"] == 41250
    gpus9, sample9 = parse_smi_sample("0, X, GPU-1, 00000000:01:00.0, 5, 0, 60.0, 700.00, 1980\n")
    assert gpus9[0]["memory_total_mib"] is None and sample9[0]["mem_used_mib"] is None and sample9[0]["util_pct"] == 5
    w = {"status": "ok", "elapsed_s": 1.0, "gpu": {"source": "nvml", "gpus": [dict(gpus[0], samples=[
        dict(sample[0], mem_used_mib=m) for m in (480, 41250, 40000)])]}}
    g = gpu_stats(w)[0]
    assert (g["mem_used_mib"], g["mem_total_mib"]) == (41250, 81559)
    lines = table_lines([Node(host="vm", facts={"watch": w})])
    assert any("mem 40.3/80 GiB" in ln for ln in lines), lines

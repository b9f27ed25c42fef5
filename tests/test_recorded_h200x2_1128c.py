"""A real 2x H200 host, 2026-11-28 05:44 UTC (fixtures/recorded/h200x2-2026-11-28c/, captured through the device
machine by bench/capture_h200x2_1128c.sh with the wheel of f6ba643's tree): check, check --history twice with a plant
that changes no verdict (CUDA_VISIBLE_DEVICES=1), diff and explain --since last-good, a name NCCL 2.28.9 reads that the
2.30.7 table drops, and watch over a real 2-GPU DDP job holding 20 GiB a rank. Replayed through the CLI here."""

import json
import os
import shutil

import pytest

HERE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures", "recorded",
                    "h200x2-2026-11-28c")


def _p(name):
    return os.path.join(HERE, name)


@pytest.fixture
def state(tmp_path):
    """The history the host kept (check --history, then again under CUDA_VISIBLE_DEVICES=1), as a private copy."""
    dst = tmp_path / "state"
    shutil.copytree(_p("state"), dst)
    for root, dirs, files in os.walk(dst):
        os.chmod(root, 0o700)
        for f in files:
            os.chmod(os.path.join(root, f), 0o600)
    return str(dst)


def test_check_judged_as_on_the_host(cli):
    there = json.load(open(_p("hist-cvd.json")))
    rc, out, err = cli("check", "--facts", _p("facts-cvd.json"), "--json")
    assert rc == 1 == there["summary"]["exit_code"], err
    d = json.loads(out)
    here = {c["id"]: c["status"] for c in d["checks"]}
    # checks added after the recording have no facts there: skipped or na, never a silent pass (tmp.writable in
    # session 27, gpu.links in 29: the GPUs' links were not read)
    added = {k: here.pop(k) for k in set(here) - {c["id"] for c in there["checks"]}}
    assert added.pop("tmp.writable") == "skipped" and added.pop("gpu.links") == "skipped"
    assert all(v in ("skipped", "na") for v in added.values()), added
    assert here == {c["id"]: c["status"] for c in there["checks"]}
    assert [f["check"] for f in d["findings"]] == ["host.name"]
    ev = {c["id"]: c["evidence"] for c in d["checks"] if c["status"] == "pass"}
    assert ev["gpu.inventory"].startswith("2 x NVIDIA H200 (cc 9.0); CUDA_VISIBLE_DEVICES=1 shows 1 of them to CUDA")
    assert "checked against NCCL 2.30.7 (this node loads 2.28.9: a name NCCL first read after it is noted)" in ev["nccl.env"]
    # the plant moved no verdict: the runs before and after it agree
    before = json.load(open(_p("hist-a.json")))
    assert {c["id"]: c["status"] for c in before["checks"]} == {c["id"]: c["status"] for c in there["checks"]}
    assert "CUDA_VISIBLE_DEVICES" not in {c["id"]: c for c in before["checks"]}["gpu.inventory"]["evidence"]


def test_diff_since_last_good_found_the_plant_on_the_host():
    """diff --since last-good there (this machine gathered, the fix of 7065fbf): exactly the plant."""
    text = open(_p("diff-since.txt")).read()
    assert "Changes (1)\n  vm: CUDA_VISIBLE_DEVICES (absent) -> 1" in text, text
    d = json.load(open(_p("diff-since-json.json")))
    assert d["before"]["records"]["vm"]["kind"] == "fewest-failures"


def test_diff_since_replayed_takes_the_run_before_the_plant(cli, state):
    rc, out, err = cli("diff", "--since", "last-good", "--state-dir", state, _p("facts-cvd.json"))
    assert "CUDA_VISIBLE_DEVICES (absent) -> 1" in out, out + err


def test_explain_since_with_a_facts_file_finds_the_plant(cli, state):
    """On the host, explain --facts F --since said 'no change in its facts': F (`gpudoctor facts -o`) hashes under
    another key than the history, so its facts id differs from the plant's own run, which was taken. The record is
    now the newest equal run that compare() finds different, and the variable the cause's confirm line reads
    ($CUDA_VISIBLE_DEVICES) matches the finding."""
    there = json.load(open(_p("explain-cvd-json.json")))["history"]["nodes"][0]
    assert there["changes"] == []  # what the host's run said (f6ba643's tree)
    rc, out, err = cli("explain", _p("cvd-ar.log"), "--facts", _p("facts-cvd.json"), "--since", "last-good",
                       "--state-dir", state)
    assert ("history: vm: cuda.invalid_device_ordinal (its confirm reads $CUDA_VISIBLE_DEVICES) matches what "
            "changed since 2026-11-28 05:44 UTC") in out, out
    assert out.rstrip().endswith("CUDA_VISIBLE_DEVICES (absent) -> 1") or "CUDA_VISIBLE_DEVICES (absent) -> 1" in out
    rc, out, err = cli("explain", _p("cvd-ar.log"), "--facts", _p("facts-cvd.json"), "--since", "last-good",
                       "--state-dir", state, "--json")
    node = json.loads(out)["history"]["nodes"][0]
    assert node["record_at"] == "2026-11-28T05:44:34Z" and node["kind"] == "fewest-failures", node
    assert node["matches"][0]["reads"] == ["CUDA_VISIBLE_DEVICES"], node


def test_explain_fix_counts_the_visible_gpu():
    text = open(_p("explain-cvd.txt")).read()
    assert "ROOT CAUSE  cuda.invalid_device_ordinal" in text
    assert "fix: torchrun --nproc_per_node 1 ...   (this node has 2 GPUs; CUDA_VISIBLE_DEVICES=1 shows 1)" in text


def test_a_name_the_nodes_nccl_reads_is_not_noted():
    """NCCL_GIN_NCONTEXTS: read by NCCL 2.28.9 to 2.29.7 (the table's former span); the host loads 2.28.9."""
    d = json.load(open(_p("gin-json.json")))
    c = {c["id"]: c for c in d["checks"]}["nccl.env"]
    assert c["status"] == "pass" and c["evidence"].endswith(": 3 read"), c
    assert not [f for f in d["findings"] if f["check"] == "nccl.env"]
    assert "NCCL version 2.28.9+cuda13.0" in open(_p("gin-ar.grep")).read()


def test_watch_sampled_the_memory_the_job_held(cli):
    """Each rank held a 20 GiB buffer plus its model: NVML's used memory, as nvidia-smi read it during the window."""
    smi = open(_p("smi-during.txt")).read()
    assert "0, 22737 MiB, 143771 MiB" in smi
    there = json.load(open(_p("watch-json.json")))
    assert there["nodes"][0]["profile"]["gpus"] == [{"name": "NVIDIA H200", "count": 2, "memory_mib": 143771}]
    assert there["nodes"][0]["profile"]["driver"] == "580.159.04"
    for g in there["samples"]["vm"]["gpus"]:
        assert 20 * 1024 <= g["mem_used_mib"] <= 30 * 1024 and g["mem_total_mib"] == 143771, g
    rc, out, err = cli("watch", "--facts", _p("watch-save-vm.json"))
    assert rc == 0, err
    assert "mem 22.8/140 GiB  computing" in out, out
    rc, out, err = cli("watch", "--facts", _p("watch-save-vm.json"), "--json")
    d = json.loads(out)
    assert d["nodes"][0]["profile"]["gpus"][0]["count"] == 2
    assert [g["mem_used_mib"] for g in d["samples"]["vm"]["gpus"]] == [23351, 23351]
    assert "mem 22.8/140 GiB" in open(_p("watch-text.txt")).read()


def test_explain_generic_fix_counts_what_cuda_shows(cli):
    """The cause's static fix read 'torchrun --nproc_per_node $(nvidia-smi -L | wc -l)': nvidia-smi lists both GPUs
    under CUDA_VISIBLE_DEVICES=1, so it repeated the launch that failed here. It counts torch.cuda.device_count()."""
    rc, out, err = cli("explain", _p("cvd-ar.log"), "--facts", _p("facts-cvd.json"))
    assert "--nproc_per_node $(python -c 'import torch; print(torch.cuda.device_count())')" in out, out
    assert "--nproc_per_node $(nvidia-smi -L | wc -l)" not in out


# --- call 2 (a fresh 2x H200, wheel of 8b9451f): the fixes made after call 1, on the host ---------------------------

def _c2(name):
    return os.path.join(HERE, "call2", name)


def test_call2_explain_since_on_the_host_matches_the_plant():
    """On the host itself: the facts file's record is the run before the plant, and the plant matches the error."""
    text = open(_c2("explain-cvd.txt")).read()
    assert ("history: vm: cuda.invalid_device_ordinal (its confirm reads $CUDA_VISIBLE_DEVICES) matches what changed "
            "since 2026-11-28 05:50 UTC (no passing run kept: its run with the fewest failures, failed: host.name): "
            "CUDA_VISIBLE_DEVICES (absent) -> 1") in text
    assert "torchrun --nproc_per_node $(python -c 'import torch; print(torch.cuda.device_count())')" in text
    node = json.load(open(_c2("explain-cvd.json")))["history"]["nodes"][0]
    assert node["changes"] == ["CUDA_VISIBLE_DEVICES (absent) -> 1"] and node["matches"][0]["reads"] == [
        "CUDA_VISIBLE_DEVICES"]
    assert "Changes (1)\n  vm: CUDA_VISIBLE_DEVICES (absent) -> 1" in open(_c2("diff-file.txt")).read()


def test_call2_replayed(cli, tmp_path):
    dst = tmp_path / "s"
    shutil.copytree(_c2("state"), dst)
    for root, dirs, files in os.walk(dst):
        os.chmod(root, 0o700)
        for f in files:
            os.chmod(os.path.join(root, f), 0o600)
    rc, out, err = cli("explain", _c2("cvd-ar.log"), "--facts", _c2("facts-cvd.json"), "--since", "last-good",
                       "--state-dir", str(dst), "--json")
    there = json.load(open(_c2("explain-cvd.json")))["history"]["nodes"][0]
    here = json.loads(out)["history"]["nodes"][0]
    assert {k: here[k] for k in ("record_at", "kind", "changes", "matches")} == {
        k: there[k] for k in ("record_at", "kind", "changes", "matches")}


def test_call2_nvidia_smi_sampler_reads_memory():
    """pynvml uninstalled: watch sampled through nvidia-smi, whose recorded 11-field answer parses with memory."""
    from gpudoctor.collector.watch import SMI_FIELDS, parse_smi_sample

    gpus, sample = parse_smi_sample(open(_c2("smi-query.txt")).read())
    assert len(SMI_FIELDS) == 11 and [g["memory_total_mib"] for g in gpus] == [143771, 143771]
    assert [s["mem_used_mib"] for s in sample] == [10767, 4]  # as nvidia-smi answered 10 s after the job started
    d = json.load(open(_c2("watch-smi.json")))
    assert d["samples"]["vm"]["gpu_source"] == "nvidia-smi"
    assert [(g["mem_used_mib"], g["mem_total_mib"]) for g in d["samples"]["vm"]["gpus"]] == [(10897, 143771)] * 2
    assert d["nodes"][0]["profile"]["gpus"] == [{"name": "NVIDIA H200", "count": 2, "memory_mib": 143771}]
    assert "2 GPUs via nvidia-smi" in open(_c2("watch-smi.txt")).read()


def test_call2_watch_replayed(cli):
    rc, out, err = cli("watch", "--facts", _c2("watch-smi-save-vm.json"))
    assert rc == 0 and "mem 10.6/140 GiB" in out, out + err

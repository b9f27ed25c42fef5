"""A real 2x H200 host, 2026-11-28 12:10-12:17 UTC (session 27, gpu27's harness bench/capture_h200_1128e.sh run by the
lead; fixtures/recorded/h200x2-2026-11-28e, README there): check's facts judged here as on the host, explain on
real torchrun failure logs, watch's saves of real 2-rank jobs with a stray context (pynvml and nvidia-smi
samplers) replayed, probe --local's JSON."""

import json
import os

import pytest

HERE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures", "recorded",
                    "h200x2-2026-11-28e")


def _p(*name):
    return os.path.join(HERE, *name)


def _json(name):
    with open(_p(name)) as f:
        return json.load(f)


def _text(name):
    with open(_p(name)) as f:
        return f.read()


def test_the_host_is_what_the_readme_says():
    m = _text("machine.txt")
    assert m.count("NVIDIA H200 (UUID: GPU-") == 2 and "580.159.04" in m
    assert "torch 2.11.0+cu130 nccl (2, 28, 9) jax 0.11.2" in m
    assert "gpudoctor tree: 306a1d38626ba8f50441bd0077f2933fc3d68504" in m


# ------------------------------------------------------------------ check

def test_check_facts_judge_here_as_on_the_host(cli):
    there = _json("check-json.out")
    rc, out, err = cli("check", "--facts", _p("facts.json"), "--json")
    here = json.loads(out)
    assert rc == there["summary"]["exit_code"] == 1, err
    ids = set(c["id"] for c in there["checks"])
    # checks added after the recording (gpu.links, session 29: the GPUs' links were not read) judge nothing here
    added = dict((c["id"], c["status"]) for c in here["checks"] if c["id"] not in ids)
    assert added.pop("gpu.links") == "skipped" and all(v in ("skipped", "na") for v in added.values()), added
    assert [(c["id"], c["status"], c.get("evidence")) for c in here["checks"] if c["id"] in ids] == [
        (c["id"], c["status"], c.get("evidence")) for c in there["checks"]]
    assert [f["message"] for f in here["findings"]] == [f["message"] for f in there["findings"]]
    # the host's one finding: the VM's hostname on 127.0.0.1; the GPUs, driver and NCCL pass
    assert [f["check"] for f in there["findings"]] == ["host.name"]
    status = {c["id"]: c["status"] for c in there["checks"]}
    assert [status[k] for k in ("gpu.inventory", "driver.cuda", "driver.mismatch", "nccl.env", "python.env")] == [
        "pass"] * 5
    assert "exit 1" in _text("check-text.out").splitlines()[-1]


# ------------------------------------------------------------------ explain

@pytest.mark.parametrize("kind,root", [("assert", "cuda.device_assert"), ("oom", "cuda.oom"),
                                       ("duplicate", "nccl.duplicate_gpu")])
def test_explain_names_the_real_failure_as_on_the_host(cli, kind, root):
    there = _json("explain-%s.out" % kind)
    assert (there["verdict"], there["root"]) == ("root_cause", root)
    rc, out, err = cli("explain", "--json", _p("fail-%s.log" % kind))
    here = json.loads(out)
    assert rc == 0, err
    assert (here["verdict"], here["root"]) == ("root_cause", root)
    assert here["launcher"] == there["launcher"] == "torchrun"


def test_the_real_logs_say_what_explain_named():
    assert "device-side assert triggered" in _text("fail-assert.log")
    assert "torch.OutOfMemoryError: CUDA out of memory" in _text("fail-oom.log")
    assert "Duplicate GPU detected" in _text("fail-duplicate.log")


def test_a_cpu_batch_under_ddp_is_a_healthy_log(cli):
    """KIND=device left the batch on the CPU; DistributedDataParallel with device_ids moves its inputs to that
    device, so both ranks finished step 3: no root, as on the host."""
    log = _text("fail-device.log")
    assert "rank 0 step 3 loss" in log and "rank 1 step 3 loss" in log and "Error" not in log
    rc, out, err = cli("explain", "--json", _p("fail-device.log"))
    here = json.loads(out)
    assert rc == 0, err
    assert (here["verdict"], here["root"], here["findings"]) == ("no_error", None, [])
    there = _json("explain-device.out")
    assert (there["verdict"], there["root"]) == ("no_error", None)


# ------------------------------------------------------------------ watch

def _memory(doc):
    c = {c["id"]: c for c in doc["checks"]}["watch.memory"]
    return c["status"], [f["message"] for f in doc["findings"] if f["check"] == "watch.memory"]


STRAY = {"stray": ("1330", "612"), "barrier": ("1552", "520"), "load": ("1756", "774")}


@pytest.mark.parametrize("name", sorted(STRAY))
@pytest.mark.parametrize("save,out,sampler", [("save", "watch-json", "nvml"),
                                              ("smisave", "smiwatch-json", "nvidia-smi")])
def test_saved_samples_judge_as_on_the_host(cli, name, save, out, sampler):
    there = _json("%s-%s.out" % (name, out))
    rc, text, err = cli("watch", "--facts", _p("%s-%s" % (name, save), "vm.json"), "--json")
    here = json.loads(text)
    assert rc == there["summary"]["exit_code"] == 0, err
    assert [(c["id"], c["status"]) for c in here["checks"]] == [(c["id"], c["status"]) for c in there["checks"]]
    assert _memory(here) == _memory(there)
    target = {c["id"]: c for c in here["checks"]}["watch.target"]
    assert target["status"] == "pass" and ("2 GPUs via %s (" % sampler) in json.dumps(target)
    # the stray context, named on the GPU nvidia-smi listed it on (bus 00:06.0 is GPU 0)
    pid, mib = STRAY[name]
    assert "%s, 00000000:00:06.0, %s MiB" % (pid, mib) in _text("%s-apps.out" % name).splitlines()
    status, found = _memory(here)
    assert status == "warn" and found == [
        "1 of the job's processes hold a context on another rank's GPU beside their own (pid %s on GPU 0,1): a "
        "rank that touched a GPU before torch.cuda.set_device(local_rank) keeps several hundred MiB there" % pid]


def test_the_jobs_made_their_stray_context_as_planned():
    assert "rank 1 loaded onto cuda:0" in _text("load-job.log")  # torch.load with no map_location
    assert "barrier(): using the device under current context" in _text("barrier-job.log")
    for name in STRAY:
        assert "rank 1 done" in _text("%s-job.log" % name)


def test_the_text_and_prometheus_outputs_on_the_host():
    assert "WARN watch.memory" in _text("stray-watch-text.out") and "pid 1330 on GPU 0,1" in " ".join(
        _text("stray-watch-text.out").split())
    prom = _text("stray-prom.out")
    assert 'gpudoctor_check_status{check="watch.memory",host="vm",severity="warning"} 1' in prom


def test_the_jax_jobs_never_ran():
    """The harness ran build/gpu27/jax.py as a script: its own folder leads sys.path, so `import jax` imported the
    script itself; no JAX job held a GPU and watch.memory had nothing to judge."""
    for name in ("jaxdefault", "jax97"):
        assert "'jax' is not a package" in _text("%s-job.log" % name)
        assert _text("%s-apps.out" % name).strip() == "pid, gpu_bus_id, used_gpu_memory [MiB]"
        assert _memory(_json("%s-watch-json.out" % name)) == ("na", [])


# ------------------------------------------------------------------ probe

def test_probe_local_on_the_host():
    doc = _json("probe-json.out")
    assert doc["schema"] == "gpudoctor.probe/1" and doc["exit_code"] == 0 and doc["findings"] == []
    (node,) = doc["nodes"]
    assert node["reachable"] and node["gpus"] == 2 and node["torch"] is True
    big = [c for c in doc["collectives"] if c["op"] == "all_reduce" and c["bytes"] == 1 << 30]
    assert len(big) == 1 and big[0]["nranks"] == 2 and big[0]["transport"] == "in-node P2P/CUMEM"
    assert big[0]["busbw_gbps"] > 100
    assert "no problem found by the probe" in _text("probe-text.out")

"""Session 29 (gpu29): gpudoctor on a real 4x H200 host (fixtures/recorded/h200x4-2026-11-28g/, README there).
The new check gpu.links on the host's recorded facts and on copies with a link or a P2P path taken away; watch's
verdicts over the recorded 4-rank DDP samples (a healthy job, one rank's GPU shared by a second process, one rank
far behind, one mildly behind: the NVLink form of lagging_rank, live for the first time); probe beside torch's
nccl-tests-style sweep."""
import copy
import json
import os

from conftest import run_check

D = os.path.join(os.path.dirname(__file__), "..", "fixtures", "recorded", "h200x4-2026-11-28g")


def _text(res):
    return " ".join(str(v[1]) for v in res.outcomes.values())


def _p(*a):
    return os.path.join(D, *a)


def _facts(name="facts.json"):
    with open(_p(name)) as f:
        return json.load(f)


def _linked(doc=None, active=18, switch=18, p2p=0, nvlink_p2p=0, ancestor=0):
    """The host's facts with each GPU's links as the collector records them (call 1's collector had no links:
    these are the values NVML gave on the host in call 2, nvml-topo.json)."""
    doc = copy.deepcopy(doc or _facts())
    gs = doc["gpu"]["gpus"]
    for g in gs:
        g["nvlink"] = {"read": 18, "active": active, "switch": switch, "peers": []}
        g["p2p"] = dict((str(h["index"]), {"read": p2p, "write": p2p, "nvlink": nvlink_p2p, "ancestor": ancestor})
                        for h in gs if h["index"] > g["index"])
    return doc


def test_links_pass_on_the_host_with_evidence():
    res = run_check("gpu.links", _linked())
    assert res.status == "pass" and res.findings == []
    assert "4 GPUs: NVLink 18 of 18 up on each of GPU 0,1,2,3, through NVSwitch" in _text(res)
    assert "P2P read/write OK between 6 of 6 pairs, over NVLink" in _text(res)


def test_links_a_gpu_with_every_nvlink_down_is_an_error():
    doc = _linked()
    doc["gpu"]["gpus"][2]["nvlink"].update(active=0, switch=0)
    res = run_check("gpu.links", doc)
    assert [f.severity for f in res.findings] == ["error"]
    msg = res.findings[0].message
    assert msg.startswith("GPU 2 has no NVLink up while GPU 0,1,3 of the same model have 18 each")
    assert "nvidia-smi nvlink --status -i 2" in res.findings[0].fix


def test_links_a_gpu_with_some_nvlinks_down_is_a_warning():
    doc = _linked()
    doc["gpu"]["gpus"][1]["nvlink"].update(active=16, switch=16)
    res = run_check("gpu.links", doc)
    assert [f.severity for f in res.findings] == ["warning"]
    assert "GPU 1 has fewer NVLinks up than its peers (GPU 1 16 of 18; GPU 0,2,3: 18)" in res.findings[0].message


def test_links_one_pair_without_p2p_is_a_warning_all_pairs_without_is_a_pass():
    doc = _linked(active=0, switch=0)  # a PCIe node
    doc["gpu"]["gpus"][0]["p2p"]["3"].update(read=3, write=3, ancestor=30)
    res = run_check("gpu.links", doc)
    assert [f.severity for f in res.findings] == ["warning"]
    assert "between GPU 0-3 (IOH topology not supported) while 5 other pairs" in res.findings[0].message
    res = run_check("gpu.links", _linked(active=0, switch=0, p2p=2, ancestor=30))
    assert res.status == "pass" and "no P2P between any pair" in _text(res) and "no NVLink" in _text(res)
    # across CPU sockets, IOH-unsupported P2P is the platform's: named in the evidence, not a finding
    doc = _linked(active=0, switch=0)
    doc["gpu"]["gpus"][1]["p2p"]["2"].update(read=3, write=3, ancestor=50)
    res = run_check("gpu.links", doc)
    assert res.status == "pass" and "across CPU sockets for 1-2" in _text(res)


def test_links_regkey_and_old_facts():
    doc = _linked()
    doc["gpu"]["gpus"][0]["p2p"]["1"].update(read=4, write=4)
    res = run_check("gpu.links", doc)
    assert [f.severity for f in res.findings] == ["warning"] and "registry key" in res.findings[0].message
    # facts of a collector that read no links (call 1's): skipped with the reason, never a silent pass
    res = run_check("gpu.links", _facts())
    assert res.status == "skipped" and "links were not read (GPUs from nvml" in _text(res)
    one = _facts()
    one["gpu"]["gpus"] = one["gpu"]["gpus"][:1]
    assert run_check("gpu.links", one).status == "na"

"""gpu25's leftovers, fixed in session 26: nccl.env knows the release that first read each name (a name added
after the node's NCCL is noted, not passed), and watch judges GPU memory (watch.memory) instead of only showing it.
Facts are real recordings: fixtures/recorded/h200x2-2026-11-28c (2x H200, torch 2.11.0+cu130 loading NCCL 2.28.9)."""

import copy
import json
import os
import subprocess
import sys

from gpudoctor import data

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
C = os.path.join(ROOT, "fixtures", "recorded", "h200x2-2026-11-28c")
TABLE = data.load("nccl_env")


def _judge(names, node_ver):
    from gpudoctor.checks.nccl_env import judge_names

    return list(judge_names(names, lambda n: "1", node_ver=node_ver))


# ------------------------------------------------------------------ nccl.env: the release that first read a name

def test_every_release_is_scanned_and_each_name_libnccl_reads_has_its_first():
    rel = TABLE["nccl"]["releases_scanned"]
    # every tagged release (https://github.com/NVIDIA/nccl/tags), not only the last of each minor series
    assert {"2.28.3", "2.28.7", "2.28.9", "2.29.2", "2.29.3", "2.29.7"} <= set(rel) and len(rel) >= 60
    lib = [n for n, e in TABLE["names"].items() if "nccl" in e["read_by"]]
    assert lib and all(TABLE["names"][n].get("first_seen_in") in rel for n in lib)
    # read through debug.cc's getEnvFunc from 2.28.7 to 2.30.4: no false gap
    assert not [n for n in lib if TABLE["names"][n].get("not_read_in")]
    e = TABLE["names"]["NCCL_SOCKET_POLL_TIMEOUT_MSEC"]  # NCCL's page says "since 2.28"; 2.28.9's src/ does not
    assert (e["first_seen_in"], e["not_in"]) == ("2.29.2", "2.28.9")
    assert TABLE["names"]["NCCL_NET"]["first_seen_in"] == "2.10.3"  # env.rst: NCCL_NET (since 2.10)
    assert TABLE["former"]["NCCL_GIN_NCONTEXTS"]["first_seen_in"] == "2.28.7"


def test_a_name_first_read_after_the_nodes_nccl_is_noted():
    (f,) = _judge(["NCCL_SOCKET_POLL_TIMEOUT_MSEC"], "2.28.9")
    assert f.severity == "info" and f.message == (
        "NCCL_SOCKET_POLL_TIMEOUT_MSEC is first read by NCCL 2.29.2 (src/misc/socket.cc): this node loads NCCL "
        "2.28.9, which does not read it: it has no effect here")
    assert _judge(["NCCL_SOCKET_POLL_TIMEOUT_MSEC"], "2.29.2") == []
    assert _judge(["NCCL_SOCKET_POLL_TIMEOUT_MSEC"], None) == []  # no node version: nothing to say
    # an untagged release between the tag before and the first tag that reads it: not judged (NCCL's page says
    # NCCL_NET_MERGE_POLICY is read since 2.30.5; 2.30.4 and 2.30.7 are the tags around it)
    assert _judge(["NCCL_NET_MERGE_POLICY"], "2.30.5") == []
    (f,) = _judge(["NCCL_NET_MERGE_POLICY"], "2.30.4")
    assert "this node loads NCCL 2.30.4, which does not read it" in f.message
    (f,) = _judge(["NCCL_NET"], "2.5.0")  # older than the tag before it: that tag is named
    assert "(src/init.cc; NCCL 2.9.9 does not read it): this node loads NCCL 2.5.0, older" in f.message
    # names PyTorch reads are read whatever the node's NCCL
    torch_names = [n for n, e in TABLE["names"].items() if "torch" in e["read_by"]]
    assert torch_names and _judge(torch_names, "2.3.5") == []


def test_the_check_notes_it_on_the_real_h200_facts(cli, tmp_path):
    facts = json.load(open(os.path.join(C, "facts-a.json")))
    facts["nccl"]["effective"]["NCCL_SOCKET_POLL_TIMEOUT_MSEC"] = {"value": "500", "source": "environment"}
    f = tmp_path / "f.json"
    f.write_text(json.dumps(facts))
    rc, out, err = cli("check", "--facts", str(f), "--json")
    c = {c["id"]: c for c in json.loads(out)["checks"]}["nccl.env"]
    assert c["status"] == "pass" and c["evidence"].endswith(": 2 read, 1 noted"), c
    assert "(this node loads 2.28.9: a name NCCL first read after it is noted)" in c["evidence"]
    notes = [x["message"] for x in json.loads(out)["findings"] if x["check"] == "nccl.env"]
    assert notes == ["NCCL_SOCKET_POLL_TIMEOUT_MSEC is first read by NCCL 2.29.2 (src/misc/socket.cc): this node "
                     "loads NCCL 2.28.9, which does not read it: it has no effect here"], notes


def test_a_former_name_newer_than_the_node_says_so():
    (f,) = _judge(["NCCL_GIN_EXCLUSIVE_CONTEXTS"], "2.28.9")  # read by 2.29.7 alone
    assert f.message == ("NCCL_GIN_EXCLUSIVE_CONTEXTS was read by NCCL 2.29.7 (src/dev_runtime.cc) only: this node "
                         "loads NCCL 2.28.9, which does not read it: it has no effect here")


def _git(repo, *args):
    subprocess.run(["git", "-C", str(repo)] + list(args), check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)


def _release(repo, tag, minor, patch, files):
    for path, text in files.items():
        p = repo / path
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    (repo / "makefiles").mkdir(exist_ok=True)
    (repo / "makefiles" / "version.mk").write_text(
        "NCCL_MAJOR   := 2\nNCCL_MINOR   := %d\nNCCL_PATCH   := %d\n" % (minor, patch))
    _git(repo, "add", "-A")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", tag)
    _git(repo, "tag", tag)


def test_generator_records_the_first_release_of_each_name(tmp_path):
    repo = tmp_path / "nccl"
    repo.mkdir()
    _git(repo, "init", "-q")
    _release(repo, "v2.28.3-1", 28, 3, {"src/init.cc": 'NCCL_PARAM(Old, "OLD", 0);\n',
                                         "src/debug.cc": 'x = getEnvFunc("NCCL_DEBUG");\n'})
    # a patch release of the same series adds a name: the last tag of the series alone would date it 2.28.9
    _release(repo, "v2.28.7-1", 28, 7, {"src/init.cc": 'NCCL_PARAM(Old, "OLD", 0);\nNCCL_PARAM(New, "NEW", 0);\n'})
    _release(repo, "v2.28.9-1", 28, 9, {"src/init.cc": 'NCCL_PARAM(New, "NEW", 0);\n'})
    _release(repo, "v2.29.2-1", 29, 2, {"src/init.cc": 'NCCL_PARAM(New, "NEW", 0);\nNCCL_PARAM(Late, "LATE", 0);\n'})
    out = tmp_path / "out.json"
    subprocess.run([sys.executable, os.path.join(ROOT, "tools", "gen_nccl_env.py"), "--nccl", str(repo),
                    "-o", str(out)], check=True, stderr=subprocess.DEVNULL)
    t = json.loads(out.read_text())
    assert t["nccl"]["releases_scanned"] == ["2.28.3", "2.28.7", "2.28.9", "2.29.2"]
    n = t["names"]
    assert (n["NCCL_NEW"]["first_seen_in"], n["NCCL_NEW"]["not_in"]) == ("2.28.7", "2.28.3")
    assert (n["NCCL_LATE"]["first_seen_in"], n["NCCL_LATE"]["not_in"]) == ("2.29.2", "2.28.9")
    assert n["NCCL_DEBUG"]["first_seen_in"] == "2.28.3" and "not_in" not in n["NCCL_DEBUG"]  # getEnvFunc
    assert t["former"]["NCCL_OLD"] == {"first_seen_in": "2.28.3", "last_seen_in": "2.28.7", "files": ["src/init.cc"]}


# ------------------------------------------------------------------ watch.memory

def _watch(edit=None):
    from gpudoctor.config import Config
    from gpudoctor.gather import from_facts
    from gpudoctor.runner import run_checks
    from gpudoctor.watch import WATCH

    nodes = from_facts(os.path.join(C, "watch-save-vm.json"))
    if edit:
        nodes[0].facts = copy.deepcopy(nodes[0].facts)
        edit(nodes[0].facts["watch"])
    report = run_checks(nodes, list(WATCH), Config())
    (r,) = [r for r in report.results if r.id == "watch.memory"]
    return r, [f for f in report.findings if f.check == "watch.memory"]


def _set_peak(w, index, mib):
    for s in w["gpu"]["gpus"][index]["samples"]:
        s["mem_used_mib"] = min(s["mem_used_mib"], mib)
    w["gpu"]["gpus"][index]["samples"][-1]["mem_used_mib"] = mib


def test_even_memory_with_room_passes_with_its_numbers():
    r, found = _watch()  # the recorded DDP job: a 20 GiB buffer on each of 2 H200s
    assert r.status == "pass" and not found
    assert r.summary == "GPU 0,1 hold 22.8 GiB of 140 GiB at the peak (16%); even across the job's GPUs"


def test_a_gpu_near_its_total_is_a_warning():
    def full(w):
        _set_peak(w, 0, 139000)
        _set_peak(w, 1, 140000)

    r, (f,) = _watch(full)
    assert r.status == "warn" and f.severity == "warning"
    assert f.message.startswith("GPU memory near full: GPU 0 holds 135.7 of 140.4 GiB (97%); GPU 1 holds 136.7 of "
                                "140.4 GiB (97%): 3.7-4.7 GiB free at the peak")


def test_one_gpu_far_above_the_others_is_uneven():
    r, (f,) = _watch(lambda w: _set_peak(w, 0, 61440))
    assert f.severity == "warning" and f.message.startswith(
        "uneven GPU memory: GPU 0 holds 60.0 GiB, the job's other GPUs 22.8 GiB (median 22.8)")
    assert "processes on GPU 0: 946" in f.observed


def test_ranks_holding_contexts_on_another_ranks_gpu():
    def stray(w):
        w["processes"]["list"][1]["gpus"] = [0, 1]  # pid 947 (GPU 1) also on GPU 0: no set_device before CUDA

    r, (f,) = _watch(stray)
    assert f.severity == "warning" and f.message.startswith(
        "1 of the job's processes hold a context on another rank's GPU beside their own (pid 947 on GPU 0,1)")
    assert "torch.cuda.set_device(int(os.environ['LOCAL_RANK']))" in f.fix

    def both(w):
        stray(w)
        _set_peak(w, 0, 61440)

    r, found = _watch(both)  # said once, as the cause of the uneven GPU
    assert len(found) == 1 and "pid 947 also holds a context on another rank's GPU" in found[0].message


def test_one_process_on_every_gpu_is_no_stray_context():
    def one(w):  # DataParallel / device_map="auto": one process alone on both GPUs
        w["processes"]["list"] = w["processes"]["list"][:1]
        w["processes"]["list"][0]["gpus"] = [0, 1]

    r, found = _watch(one)
    assert r.status == "pass" and not found


def test_samples_without_memory_are_skipped_with_the_reason_and_hostile_input_does_not_crash():
    def old(w):
        for g in w["gpu"]["gpus"]:
            g.pop("memory_total_mib")

    r, _ = _watch(old)
    assert r.status == "skipped" and r.summary == ("no memory reading for GPU 0,1 (nvml did not report used/total "
                                                   "memory)")

    def hostile(w):
        w["gpu"]["gpus"][0]["index"] = [0]
        w["gpu"]["gpus"][1]["samples"][0]["mem_used_mib"] = "lots"
        w["processes"]["list"][0]["gpus"] = [[0], "1", None]

    r, _ = _watch(hostile)
    assert r.status in ("pass", "fail", "skipped", "na")
